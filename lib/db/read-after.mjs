// The read-after cookie (read replicas, lib/db/replicas.ts): a response to a request that wrote
// carries the WAL position of that write, and the client's next requests send it back, so that
// whichever process or instance serves them reads from a replica only once it has replayed that
// position. Plain JavaScript: server.mjs reads and sets it; the Next bundle decides with it.

export const READ_AFTER_COOKIE = "enhydris_read_after";

/** A PostgreSQL LSN as text ("16/B374D848"). */
const LSN = /^[0-9A-F]{1,8}\/[0-9A-F]{1,8}$/i;

/**
 * The WAL position a request's Cookie header carries, or null.
 * @param {string | string[] | undefined} header
 * @returns {string | null}
 */
export function readAfterFromCookies(header) {
  const text = Array.isArray(header) ? header.join("; ") : header;
  if (!text || !text.includes(READ_AFTER_COOKIE)) return null;
  for (const part of text.split(";")) {
    const eq = part.indexOf("=");
    if (eq < 0 || part.slice(0, eq).trim() !== READ_AFTER_COOKIE) continue;
    const value = part.slice(eq + 1).trim();
    return LSN.test(value) ? value.toUpperCase() : null;
  }
  return null;
}

/**
 * The Set-Cookie value for a WAL position, kept `maxAgeSeconds` (past the replicas' lag limit it
 * no longer matters: a replica that far behind is not used).
 * @param {string} lsn
 * @param {number} maxAgeSeconds
 * @returns {string}
 */
export function readAfterCookie(lsn, maxAgeSeconds) {
  return `${READ_AFTER_COOKIE}=${lsn}; Path=/; Max-Age=${Math.ceil(maxAgeSeconds)}; HttpOnly; SameSite=Lax`;
}
