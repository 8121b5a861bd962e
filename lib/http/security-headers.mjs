// Security headers of HTML pages and of every response. Plain JavaScript: server.mjs applies
// them to the site's pages (with a nonce for Next's scripts) and the API router to its HTML
// pages (legacy HTML, API docs, password-reset pages), so that every HTML page gets the same.

/**
 * The origin of the map tile server (images from it are allowed).
 * @param {string | undefined} template ENHYDRIS_MAP_TILE_URL
 */
export function tileOrigin(template) {
  try {
    return new URL(String(template || "https://tile.openstreetmap.org/{z}/{x}/{y}.png").replace(/\{[a-z]\}/g, "a")).origin;
  } catch {
    return "";
  }
}

/**
 * The content security policy of an HTML page: only this site and the map tile server; scripts
 * only from this site and, for Next's inline scripts, with this response's nonce (no
 * 'unsafe-inline'). Leaflet and React set inline styles, so styles keep 'unsafe-inline'.
 * @param {{ nonce?: string, dev?: boolean, tiles?: string }} options
 */
export function contentSecurityPolicy({ nonce, dev = false, tiles = "" } = {}) {
  return [
    "default-src 'self'",
    `img-src 'self' data: blob: ${tiles}`.trim(),
    `script-src 'self'${nonce ? ` 'nonce-${nonce}'` : ""}${dev ? " 'unsafe-eval'" : ""}`,
    "style-src 'self' 'unsafe-inline'",
    "connect-src 'self'",
    "font-src 'self'",
    "object-src 'none'",
    "base-uri 'self'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join("; ");
}

/**
 * The request header that carries a page's policy, and so its nonce, from the server to the page
 * (Next reads the nonce of its scripts from it: lib/server/next-internals.ts, 2.).
 */
export const PAGE_NONCE_HEADER = "content-security-policy";

/**
 * The nonce of a Content-Security-Policy header, or null.
 * @param {unknown} csp
 * @returns {string | null}
 */
export function nonceOf(csp) {
  const m = /'nonce-([^']+)'/.exec(String(csp ?? ""));
  return m ? m[1] : null;
}

/** The headers of every HTML page besides its policy; a page may choose a stricter referrer policy. */
export const HTML_HEADERS = Object.freeze({
  "X-Frame-Options": "DENY",
  "Referrer-Policy": "strict-origin-when-cross-origin",
  "X-Content-Type-Options": "nosniff",
});

/**
 * Strict-Transport-Security for responses to HTTPS requests; null when disabled (max age 0).
 * @param {number} maxAge seconds
 */
export function strictTransportSecurity(maxAge) {
  return maxAge > 0 ? `max-age=${maxAge}` : null;
}
