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
  if (!path.startsWith("/") || path.startsWith("//") || path.startsWith("/\\") || /[\u0000-\u001f\\]/.test(path)) return "/";
  return path;
}

export const stationPath = (sid: number) => `/stations/${sid}/`;
export const groupPath = (sid: number, gid: number) => `/stations/${sid}/timeseriesgroups/${gid}/`;
export const seriesApiPath = (sid: number, gid: number, tid: number) =>
  `/api/stations/${sid}/timeseriesgroups/${gid}/timeseries/${tid}/`;
export const contentPath = (kind: "files" | "images", sid: number, id: number) => `/api/stations/${sid}/${kind}/${id}/content/`;
