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

export function siteHeaderHtml(user: ChromeUser | null, q = "", siteName = "Enhydris"): string {
  const account = user
    ? `<span class="account-name"><span class="visually-hidden">Logged in as </span>${escapeHtml(user.username)}</span>
    <a href="/manage/">Manage</a>
    <a href="/accounts/profile/">Profile</a>
    <a href="/accounts/logout/">Log out</a>`
    : `<a href="/accounts/login/">Log in</a>`;
  return `<a class="skip-link" href="#main">Skip to main content</a>
<header class="site-header">
  <div class="site-header-inner">
  <a class="site-title" href="/">${LOGO}<span>${escapeHtml(siteName)}</span></a>
  <form class="site-search" role="search" action="/" method="get">
    <label for="site-search-q" class="visually-hidden">Search stations</label>
    <input id="site-search-q" type="search" name="q" value="${escapeHtml(q)}" placeholder="Search, e.g. variable:rain" autocomplete="off" spellcheck="false">
    <button type="submit">Search</button>
  </form>
  <nav class="site-nav" aria-label="Site">
    <a href="/synoptic/">Synoptic<span class="wide-only"> views</span></a>
  </nav>
  <nav class="site-account" aria-label="Account">
    ${account}
  </nav>
  </div>
</header>`;
}

export function siteFooterHtml(): string {
  return `<footer class="site-footer">
  <div class="site-footer-inner">
  <p>Hydrological and meteorological stations and their time series.</p>
  <p><a href="/">Station map</a> · <a href="/api/">API</a> · <a href="/api/docs/">API documentation</a></p>
  </div>
</footer>`;
}

/** A complete page for route handlers that cannot render React. */
export function standalonePage(options: { title: string; user: ChromeUser | null; body: string; siteName?: string; wide?: boolean }): string {
  const siteName = options.siteName || "Enhydris";
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(options.title)} · ${escapeHtml(siteName)}</title>
<link rel="stylesheet" href="/site.css">
<link rel="icon" href="/favicon.svg" type="image/svg+xml">
</head>
<body>
${siteHeaderHtml(options.user, "", siteName)}
<main id="main" class="site-main${options.wide ? " wide" : " narrow"}">
<div class="card">
${options.body}
</div>
</main>
${siteFooterHtml()}
</body>
</html>
`;
}
