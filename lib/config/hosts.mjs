// The host names the service answers to. Plain JavaScript: server.mjs checks every request's
// host with it before anything else runs, and lib/config/index.ts parses the setting with it.

/** What development and `npm run serve` answer to when no host is configured. */
export const LOCAL_HOSTS = Object.freeze(["localhost", "127.0.0.1", "[::1]"]);

/** What ENHYDRIS_ALLOWED_HOSTS must look like (for error messages). */
export const ALLOWED_HOSTS_EXPECTED = "comma-separated host names such as enhydris.example.org or .example.org (no scheme or port)";

/** The detail of the 400 answer to a request for a host the service does not serve. */
export const DISALLOWED_HOST = "The Host header names a host this service does not serve.";

const NAME = /^(\.?[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*|\[[0-9a-f:.]+\])$/;

/**
 * The entries of ENHYDRIS_ALLOWED_HOSTS: comma-separated host names without scheme or port;
 * a leading dot (".example.org") also allows every subdomain. Returns null when an entry is
 * not such a name.
 * @param {string | undefined} text
 * @returns {string[] | null}
 */
export function parseAllowedHosts(text) {
  const entries = String(text ?? "").split(",").map((h) => h.trim().toLowerCase().replace(/\.$/, "")).filter(Boolean);
  return entries.every((h) => NAME.test(h)) ? entries : null;
}

/**
 * The host name of a Host header value ("Example.org:8000" → "example.org", "[::1]:3000" →
 * "[::1]"), or null when it is not a host name.
 * @param {string | null | undefined} header
 * @returns {string | null}
 */
export function hostName(header) {
  const value = String(header ?? "").trim().toLowerCase();
  const m = /^(\[[0-9a-f:.]+\]|[^:[\]]+)(:\d{1,5})?$/.exec(value);
  if (!m) return null;
  const name = m[1].replace(/\.$/, "");
  return NAME.test(name) && !name.startsWith(".") ? name : null;
}

/**
 * True when the Host header names one of the allowed hosts.
 * @param {string | null | undefined} header
 * @param {readonly string[]} allowed
 */
export function isAllowedHost(header, allowed) {
  const name = hostName(header);
  if (name === null) return false;
  return allowed.some((entry) => entry === name || (entry.startsWith(".") && (name.endsWith(entry) || name === entry.slice(1))));
}

export const HOSTS_REQUIRED = "Refusing to start in production without ENHYDRIS_SITE_URL or ENHYDRIS_ALLOWED_HOSTS: links "
  + "in e-mails would otherwise be built from whatever host a request names. Set ENHYDRIS_SITE_URL=https://<your site> "
  + "(and ENHYDRIS_ALLOWED_HOSTS=<other names> if the site has more), or try the service on this machine with "
  + "`npm run serve` (localhost only).";

/**
 * The hosts server.mjs lets in, from ENHYDRIS_ALLOWED_HOSTS and the host of ENHYDRIS_SITE_URL.
 * With neither, development and the local demo (`npm run serve`) answer to localhost, and
 * production gets an error message instead.
 * @param {Record<string, string | undefined>} env
 * @param {boolean} local development or the local demo
 * @returns {{ hosts: string[], defaulted: boolean } | { error: string }}
 */
export function serverHosts(env, local) {
  const hosts = parseAllowedHosts(env.ENHYDRIS_ALLOWED_HOSTS);
  if (hosts === null) {
    return { error: `Invalid setting ENHYDRIS_ALLOWED_HOSTS=${JSON.stringify(env.ENHYDRIS_ALLOWED_HOSTS)}: expected ${ALLOWED_HOSTS_EXPECTED}.` };
  }
  const siteUrl = String(env.ENHYDRIS_SITE_URL ?? "").trim();
  if (siteUrl) {
    let site = null;
    try {
      site = hostName(new URL(siteUrl).host);
    } catch {
      // lib/config/index.ts reports the invalid URL at start-up
    }
    if (site && !hosts.includes(site)) hosts.push(site);
  }
  if (hosts.length) return { hosts, defaulted: false };
  return local ? { hosts: [...LOCAL_HOSTS], defaulted: true } : { error: HOSTS_REQUIRED };
}
