/**
 * Where the server leaves the minified site stylesheet for components/site/InlineStylesheet.tsx
 * (a client component, which cannot read the file itself). No imports: both sides use it.
 */
export const SITE_STYLESHEET_SLOT = Symbol.for("enhydris.siteStylesheet");

export function stylesheetLeftByServer(): string {
  return (globalThis as Record<symbol, string | undefined>)[SITE_STYLESHEET_SLOT] ?? "";
}
