import { isoWithOffset } from "@/lib/site/time";

/**
 * Small helpers for the site's links, shared by server and client components (no server-only
 * imports here).
 */

/** A same-site path to return to after login, or "/" (no scheme, no host, no "//"). */
export function safeNextPath(value: string | null | undefined): string {
  if (!value) return "/";
  let path = value;
  // next-auth's callbackUrl may be absolute; keep only a path of this site.
  if (/^[a-z][a-z0-9+.-]*:/i.test(path)) {
    try {
      const url = new URL(path);
      if (typeof window === "undefined" || url.origin !== window.location.origin) return "/";
      path = url.pathname + url.search + url.hash;
    } catch {
      return "/";
    }
  }
  const unsafe = (p: string) => !p.startsWith("/") || p.startsWith("//") || p.startsWith("/\\") || /[\u0000-\u001f\\]/.test(p);
  if (unsafe(path)) return "/";
  // Dot segments ("/.//host", "/a/..//host", "/%2e//host") resolve to a path that starts with
  // "//": checked again once resolved, it would otherwise leave the site as a Location.
  const resolved = new URL(path, "http://site");
  const normalized = resolved.pathname + resolved.search + resolved.hash;
  return unsafe(normalized) ? "/" : normalized;
}

/**
 * The page a site form goes back to (the language switcher's): the page it was sent from (its
 * Referer, when of this host), else its `next` field, as a same-site path (safeNextPath)
 * percent-encoded for a Location header. A form drawn once per page load (the footer) keeps in
 * `next` the first page after the browser's router has moved on without reloading; the Referer
 * names the page shown.
 */
export function returnPath(referer: string | null, host: string | null, next: string | null): string {
  let path = next;
  try {
    const from = new URL(referer ?? "");
    if (host && from.host === host) path = from.pathname + from.search + from.hash;
  } catch {
    // No Referer (a stricter referrer policy, a privacy setting): the form's `next`.
  }
  return safeNextPath(path);
}

/** The workbench's records worker, built beside the server (scripts/build-server.mjs, lib/server/page-scripts.ts). */
export const RECORDS_WORKER_PATH = "/_enhydris/records-worker.js";

export const stationPath = (sid: number) => `/stations/${sid}/`;
export const groupPath = (sid: number, gid: number) => `/stations/${sid}/timeseriesgroups/${gid}/`;
export const seriesApiPath = (sid: number, gid: number, tid: number) =>
  `/api/stations/${sid}/timeseriesgroups/${gid}/timeseries/${tid}/`;

/** How many points the group page's chart asks for. */
export const CHART_POINTS = 300;

/**
 * The chart/ request of the group page for a series and range: the server reads the first one
 * itself, the browser fetches the later ones, and both name them by this URL.
 */
export function chartApiUrl(sid: number, gid: number, tid: number, start: number | null, end: number | null, offsetMinutes: number): string {
  const query = new URLSearchParams({ points: String(CHART_POINTS) });
  if (start !== null) query.set("start_date", isoWithOffset(start, offsetMinutes));
  if (end !== null) query.set("end_date", isoWithOffset(end, offsetMinutes));
  return `${seriesApiPath(sid, gid, tid)}chart/?${query}`;
}
export const contentPath = (kind: "files" | "images", sid: number, id: number) => `/api/stations/${sid}/${kind}/${id}/content/`;
