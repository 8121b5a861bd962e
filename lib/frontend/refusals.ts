import { settings } from "@/lib/config";
import { db } from "@/lib/db";
import { cookieValue, DEFAULT_LOCALE, LANGUAGE_COOKIE, negotiateLocale, translator, type Locale } from "@/lib/i18n";
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

export type RefusalStatus = 403 | 404;

/** The request header in which server.mjs gives the pages the request's path. */
export const PATH_HEADER = "x-enhydris-path";

type Words = ReturnType<typeof translator<"refusal">>;

/** The station of a path's id: its name as the pages show it, and whether it is a replicated copy. */
async function pathStation(idText: string | undefined, locale: Locale): Promise<{ name: string; replicated: boolean } | null> {
  const id = pathId(idText ?? "");
  const row = id ? await db().prisma.station.findUnique({ where: { id }, select: { name: true, replicatedFrom: true } }) : null;
  return row && id ? { name: row.name || translator(locale, "common")("station", { id }), replicated: row.replicatedFrom !== null } : null;
}

/** What the user may not do at `path` (a page that answered 403), and who may. */
async function forbiddenMessage(path: string, t: Words, locale: Locale): Promise<string> {
  const parts = path.split("/").filter(Boolean);
  if (parts[0] !== "manage") return t("onlyChangers");
  const [, area, idText, sub] = parts;
  if (area === "stations" && idText === "new") return t("noAddStations");
  if (area === "stations") {
    // The page names nothing of what the user may not see (management.md §1): not even its name.
    const station = await pathStation(idText, locale);
    if (sub === "detach") return t("noDetach");
    if (station?.replicated) return t("replicated");
    return t("noEditStation");
  }
  if (area === "synoptic") return t("noEditSynoptic");
  if (area === "lookups") return t("noLookups");
  if (area === "users") return t("noUsers");
  if (area === "replication") return t("noReplication");
  return t("onlyChangers");
}

/** What is not there at `path` (a page that answered 404). */
async function notFoundMessage(path: string, t: Words, locale: Locale): Promise<string> {
  const parts = path.split("/").filter(Boolean);
  const [first, second, third, fourth] = parts[0] === "manage" ? parts.slice(1) : parts;
  if (first === "stations" && second !== "new") {
    const station = await pathStation(second, locale);
    if (!station) return t("noStation", { id: shortened(second ?? "") });
    if (third === "timeseriesgroups" && fourth) return t("noGroup", { station: station.name, group: shortened(fourth) });
    return t("nothingAtStation", { station: station.name });
  }
  if (first === "synoptic") return t("noSynoptic");
  return t("nothingHere");
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

/** The 403 or 404 page's words for a path, in the page's language. */
export async function refusalText(status: RefusalStatus, path: string, locale: Locale = DEFAULT_LOCALE): Promise<RefusalText> {
  const t = translator(locale, "refusal");
  return status === 403
    ? { title: t("forbiddenTitle"), heading: t("forbiddenHeading"), message: await forbiddenMessage(path, t, locale) }
    : { title: t("notFoundTitle"), heading: t("notFoundHeading"), message: await notFoundMessage(path, t, locale) };
}

/** The card of the 403 or 404 page (inside `.narrow`), as HTML. */
export function refusalCardHtml(status: RefusalStatus, text: RefusalText, signedIn: boolean, locale: Locale = DEFAULT_LOCALE): string {
  const t = translator(locale, "refusal");
  const links = status === 403 || signedIn
    ? `<a href="/manage/">${escapeHtml(t("yourStations"))}</a> · <a href="/">${escapeHtml(t("stationMap"))}</a>`
    : `<a href="/">${escapeHtml(t("backToMap"))}</a>`;
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
export async function refusalDocument(status: RefusalStatus, path: string, cookieHeader: string, acceptLanguage = ""): Promise<string> {
  const user = await siteUserFromCookies(cookieReader(cookieHeader));
  // The page's language as the layout's (public.md §3): the account, the switcher's cookie, the browser.
  const locale = negotiateLocale({ account: user?.language, cookie: cookieValue(cookieHeader, LANGUAGE_COOKIE), acceptLanguage });
  const text = await refusalText(status, path, locale);
  const siteName = settings().siteName || "Enhydris";
  return `<!DOCTYPE html>
<html lang="${locale}">
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
<div class="chrome">${siteHeaderHtml(user ? { username: user.username } : null, "", siteName, locale)}</div>
<main id="main" class="site-main" tabindex="-1"><div class="narrow">
${refusalCardHtml(status, text, user !== null, locale)}
</div></main>
<div class="chrome">${siteFooterHtml(locale, path)}</div>
</body>
</html>
`;
}

/** Gives the server refusalDocument (lib/runtime/bridge.ts): the layout calls it when the site's bundle loads. */
export function registerRefusalPages(): void {
  bridge().refusalDocument = refusalDocument;
}
