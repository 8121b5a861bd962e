import { settings } from "@/lib/config";
import { db } from "@/lib/db";
import { bridge } from "@/lib/runtime/bridge";
import { siteFooterHtml, siteHeaderHtml } from "@/lib/site/chrome";
import { siteUserFromCookies } from "@/lib/site/current-user";
import { escapeHtml } from "@/lib/site/html";
import { pathId } from "@/lib/frontend";
import { siteStylesheet } from "@/lib/site/stylesheet";

/**
 * The 403 and 404 pages (management.md §1, api.md §16): what the user may not do at this path,
 * or what is not there, in one place for the two ways they are drawn. Next draws them with
 * app/forbidden.tsx and app/not-found.tsx in the layout when a page is rendered for the browser's
 * router; a page requested as HTML that calls forbidden() or notFound() gets from Next only an
 * empty shell, whose content only its scripts would draw (vercel/next.js#62228), and server.mjs
 * sends refusalDocument instead (lib/server/error-shells.ts).
 */

/** The titles of the 403 and 404 pages. */
export const FORBIDDEN_TITLE = "Not allowed";
export const NOT_FOUND_TITLE = "Page not found";

export type RefusalStatus = 403 | 404;

/** The request header in which server.mjs gives the pages the request's path. */
export const PATH_HEADER = "x-enhydris-path";

const quoted = (name: string) => `“${name}”`;

/** The station of a path's id: its name as the pages show it, and whether it is a replicated copy. */
async function pathStation(idText: string | undefined): Promise<{ name: string; replicated: boolean } | null> {
  const id = pathId(idText ?? "");
  const row = id ? await db().prisma.station.findUnique({ where: { id }, select: { name: true, replicatedFrom: true } }) : null;
  return row ? { name: row.name || `Station ${id}`, replicated: row.replicatedFrom !== null } : null;
}

/** What the user may not do at `path` (a page that answered 403), and who may. */
async function forbiddenMessage(path: string): Promise<string> {
  const parts = path.split("/").filter(Boolean);
  if (parts[0] !== "manage") return "Only the people who may change what this page shows can open it.";
  const [, area, idText, sub] = parts;
  if (area === "stations" && idText === "new") {
    return "You may not add stations: an administrator can give your account the right to add them.";
  }
  if (area === "stations") {
    // The page names nothing of what the user may not see (management.md §1): not even its name.
    const station = await pathStation(idText);
    if (sub === "detach") return "You may not detach this station: only administrators can.";
    if (station?.replicated) {
      return "You may not change this station: it is a copy of a station of another instance (replication) and is read-only here until an administrator detaches it.";
    }
    return "You may not edit this station: only its maintainers, the user who created it and the administrators can.";
  }
  if (area === "synoptic") {
    return "You may not edit this synoptic group: only the user who created it and the administrators can.";
  }
  if (area === "lookups") return "You may not manage the lookups (station types, variables, units and the like): only administrators can.";
  if (area === "users") return "You may not manage the users: only administrators can.";
  if (area === "replication") return "You may not manage the replication sources: only administrators can.";
  return "Only the people who may change what this page shows can open it.";
}

/** What is not there at `path` (a page that answered 404). */
async function notFoundMessage(path: string): Promise<string> {
  const parts = path.split("/").filter(Boolean);
  const [first, second, third, fourth] = parts[0] === "manage" ? parts.slice(1) : parts;
  if (first === "stations" && second !== "new") {
    const station = await pathStation(second);
    if (!station) return `There is no station ${shortened(second ?? "")}: it may have been deleted, or the link may be wrong.`;
    if (third === "timeseriesgroups" && fourth) {
      return `The station ${quoted(station.name)} has no time series group ${shortened(fourth)} (or not what this address names in it): it may have been deleted, or the link may be wrong.`;
    }
    return `The station ${quoted(station.name)} has nothing at this address: it may have been deleted, or the link may be wrong.`;
  }
  if (first === "synoptic") return "There is no synoptic view at this address: it may have been deleted, or the link may be wrong.";
  return "There is no station, time series group or page at this address. It may have been removed, or the link may be wrong.";
}

/** A path segment as a message shows it: at most 40 characters of it. */
function shortened(text: string): string {
  return text.length > 40 ? `${text.slice(0, 40)}…` : text;
}

export interface RefusalText {
  title: string;
  heading: string;
  message: string;
}

/** The 403 or 404 page's words for a path. */
export async function refusalText(status: RefusalStatus, path: string): Promise<RefusalText> {
  return status === 403
    ? { title: FORBIDDEN_TITLE, heading: "You do not have permission to see this page", message: await forbiddenMessage(path) }
    : { title: NOT_FOUND_TITLE, heading: "Page not found", message: await notFoundMessage(path) };
}

/** The card of the 403 or 404 page (inside `.narrow`), as HTML. */
export function refusalCardHtml(status: RefusalStatus, text: RefusalText, signedIn: boolean): string {
  const links = status === 403 || signedIn
    ? `<a href="/manage/">Your stations</a> · <a href="/">Station map</a>`
    : `<a href="/">Back to the station map</a>`;
  return `<div class="card refusal" data-status="${status}">
<h1>${escapeHtml(text.heading)}</h1>
<p>${escapeHtml(text.message)}</p>
<p>${links}</p>
</div>`;
}

function cookieReader(header: string): (name: string) => string | undefined {
  const cookies = new Map<string, string>();
  for (const part of header.split(";")) {
    const eq = part.indexOf("=");
    if (eq > 0) cookies.set(part.slice(0, eq).trim(), part.slice(eq + 1).trim());
  }
  return (name) => cookies.get(name);
}

/**
 * The whole 403 or 404 page for a request that Next answered with its empty shell: the layout's
 * header (with the login state), the card and the footer, styled by the inline stylesheet, with
 * no script (it needs none).
 */
export async function refusalDocument(status: RefusalStatus, path: string, cookieHeader: string): Promise<string> {
  const [user, text] = await Promise.all([siteUserFromCookies(cookieReader(cookieHeader)), refusalText(status, path)]);
  const siteName = settings().siteName || "Enhydris";
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
<meta name="theme-color" content="#0b3954">
<title>${escapeHtml(text.title)} · ${escapeHtml(siteName)}</title>
<link rel="icon" href="/favicon.svg" type="image/svg+xml">
<style id="site-stylesheet">${siteStylesheet()}</style>
</head>
<body>
<div class="chrome">${siteHeaderHtml(user ? { username: user.username } : null, "", siteName)}</div>
<main id="main" class="site-main" tabindex="-1"><div class="narrow">
${refusalCardHtml(status, text, user !== null)}
</div></main>
<div class="chrome">${siteFooterHtml()}</div>
</body>
</html>
`;
}

/** Gives the server refusalDocument (lib/runtime/bridge.ts): the layout calls it when the site's bundle loads. */
export function registerRefusalPages(): void {
  bridge().refusalDocument = refusalDocument;
}
