import { DEFAULT_LOCALE, LOCALE_NAMES, LOCALES, translator, type Locale } from "@/lib/i18n";
import { escapeHtml } from "@/lib/site/html";

/**
 * The site's header and footer (api.md §16) as HTML, in one place: the React layout and the
 * HTML pages of the password reset (which route handlers serve) both show these.
 */
export interface ChromeUser {
  username: string;
}

const LOGO = `<svg class="site-logo" viewBox="0 0 24 24" width="26" height="26" aria-hidden="true" focusable="false">
<path d="M12 2.5c-3.2 4.4-6.5 8.3-6.5 11.9a6.5 6.5 0 0 0 13 0c0-3.6-3.3-7.5-6.5-11.9z" fill="currentColor" opacity=".9"/>
<path d="M8.6 14.6c.3 1.8 1.6 3.1 3.4 3.4" fill="none" stroke="#0b3954" stroke-width="1.6" stroke-linecap="round"/></svg>`;

export function siteHeaderHtml(user: ChromeUser | null, q = "", siteName = "Enhydris", locale: Locale = DEFAULT_LOCALE): string {
  const t = translator(locale, "chrome");
  const e = (key: Parameters<typeof t>[0]) => escapeHtml(t(key));
  const account = user
    ? `<span class="account-name"><span class="visually-hidden">${e("loggedInAs")} </span>${escapeHtml(user.username)}</span>
    <a href="/manage/">${e("manage")}</a>
    <a href="/accounts/profile/">${e("profile")}</a>
    <a href="/accounts/logout/">${e("logOut")}</a>`
    : `<a href="/accounts/login/">${e("logIn")}</a>`;
  return `<a class="skip-link" href="#main">${e("skipToMain")}</a>
<header class="site-header">
  <div class="site-header-inner">
  <a class="site-title" href="/">${LOGO}<span>${escapeHtml(siteName)}</span></a>
  <form class="site-search" role="search" action="/" method="get">
    <label for="site-search-q" class="visually-hidden">${e("searchLabel")}</label>
    <input id="site-search-q" type="search" name="q" value="${escapeHtml(q)}" placeholder="${e("searchPlaceholder")}" autocomplete="off" spellcheck="false">
    <button type="submit">${e("search")}</button>
  </form>
  <nav class="site-nav" aria-label="${e("siteNav")}">
    <a href="/synoptic/">${e("synoptic")}<span class="wide-only">${e("synopticWide")}</span></a>
  </nav>
  <nav class="site-account" aria-label="${e("accountNav")}">
    ${account}
  </nav>
  </div>
</header>`;
}

/** Where the footer's language switcher posts (app/language/route.ts). */
export const LANGUAGE_PATH = "/language/";

/**
 * The footer, with the language switcher: a form of one button per language that posts to
 * LANGUAGE_PATH and comes back to `here` (the page's path and query), without scripts.
 */
export function siteFooterHtml(locale: Locale = DEFAULT_LOCALE, here = "/"): string {
  const t = translator(locale, "chrome");
  const e = (key: Parameters<typeof t>[0]) => escapeHtml(t(key));
  const buttons = LOCALES.map((code) => code === locale
    ? `<button type="submit" name="language" value="${code}" lang="${code}" aria-pressed="true" disabled>${escapeHtml(LOCALE_NAMES[code])}</button>`
    : `<button type="submit" name="language" value="${code}" lang="${code}" aria-pressed="false">${escapeHtml(LOCALE_NAMES[code])}</button>`).join("\n    ");
  return `<footer class="site-footer">
  <div class="site-footer-inner">
  <p>${e("tagline")}</p>
  <p><a href="/">${e("stationMap")}</a> · <a href="/api/">${e("api")}</a> · <a href="/api/docs/">${e("apiDocs")}</a></p>
  <form class="language-switcher" method="post" action="${LANGUAGE_PATH}" aria-label="${e("language")}">
    <input type="hidden" name="next" value="${escapeHtml(here)}">
    <span class="visually-hidden">${e("language")}:</span>
    ${buttons}
  </form>
  </div>
</footer>`;
}

/** A complete page for route handlers that cannot render React. */
export function standalonePage(options: { title: string; user: ChromeUser | null; body: string; siteName?: string; wide?: boolean; locale?: Locale; here?: string }): string {
  const siteName = options.siteName || "Enhydris";
  const locale = options.locale ?? DEFAULT_LOCALE;
  return `<!DOCTYPE html>
<html lang="${locale}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(options.title)} · ${escapeHtml(siteName)}</title>
<link rel="stylesheet" href="/site.css">
<link rel="icon" href="/favicon.svg" type="image/svg+xml">
</head>
<body>
${siteHeaderHtml(options.user, "", siteName, locale)}
<main id="main" class="site-main${options.wide ? " wide" : " narrow"}">
<div class="card">
${options.body}
</div>
</main>
${siteFooterHtml(locale, options.here)}
</body>
</html>
`;
}
