// The Origin/Referer check of unsafe requests authenticated by a cookie (Django's CSRF
// middleware since 4.0, whose messages it uses). Plain JavaScript: the API router
// (lib/auth/csrf.ts) and server.mjs (site forms, next-auth) share it.

/**
 * Why the request must be refused, or null when its Origin (or, on HTTPS without an Origin, its
 * Referer) is the request's own origin or a trusted one.
 * @param {object} request
 * @param {string | null} request.origin the Origin header
 * @param {string | null} request.referer the Referer header
 * @param {string} request.own the request's origin, "scheme://host[:port]"
 * @param {boolean} request.secure HTTPS
 * @param {readonly string[]} trusted further trusted origins (the site URL's)
 * @returns {string | null}
 */
export function originFailure({ origin, referer, own, secure }, trusted) {
  const good = (o) => o === own || trusted.includes(o);
  if (origin !== null) {
    return good(origin) ? null : `Origin checking failed - ${origin} does not match any trusted origins.`;
  }
  // Like Django, plain HTTP requests without an Origin are left to the token check: the Referer
  // is often stripped there, and a man in the middle could forge it anyway.
  if (!secure) return null;
  if (!referer) return "Referer checking failed - no Referer.";
  let url;
  try {
    url = new URL(referer);
  } catch {
    return "Referer checking failed - Referer is malformed.";
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") return "Referer checking failed - Referer is malformed.";
  if (url.protocol === "http:") return "Referer checking failed - Referer is insecure while host is secure.";
  return good(url.origin) ? null : `Referer checking failed - ${url.href} does not match any trusted origins.`;
}

/**
 * The origin of the site URL setting, as a list (empty when it is unset).
 * @param {string} siteUrl
 * @returns {string[]}
 */
export function siteOrigins(siteUrl) {
  try {
    return siteUrl ? [new URL(siteUrl).origin] : [];
  } catch {
    return [];
  }
}
