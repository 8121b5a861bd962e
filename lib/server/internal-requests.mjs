// The requests Next makes to this server itself. Plain JavaScript: server.mjs uses it.
//
// A form saved with JavaScript on is a server action; when it redirects (to the saved object's
// page), Next renders that page into the action's own response, so that the browser needs no
// second round trip. It gets the page by a GET to this server, at the address the server was
// started with (http://0.0.0.0:PORT, `hostname` and `port` of next()), with the action request's
// headers (cookies included). But fetch sends that address as the Host, which no allowed host
// names: server.mjs answered 400 (and logged "request for a host that is not allowed"), Next fell
// back to a bare redirect, and the browser fetched the page itself.
//
// The action request carries a header that only this server knows how to write: its scheme and
// host, after a token the server's processes share. Next passes it on to its GET, which is then
// taken as a request for that host, from the action's client. A client's own header of that name
// is dropped.

import { randomBytes, timingSafeEqual } from "node:crypto";

export const INTERNAL_HEADER = "x-enhydris-internal";
/** Where the token passes from the primary to its workers (node:cluster forks inherit the environment). */
const TOKEN_VARIABLE = "ENHYDRIS_INTERNAL_REQUEST_TOKEN";

/** The token of this server's processes (made by the first of them). */
export function internalRequestToken() {
  return (process.env[TOKEN_VARIABLE] ||= randomBytes(32).toString("hex"));
}

const LOOPBACK = /^(127\.|::1$|::ffff:127\.)/;

/**
 * The scheme and host of one of this server's own requests, else null. The header is removed
 * either way, before anything reads the request.
 * @param {import("node:http").IncomingMessage} req
 * @param {string} token
 * @returns {{ https: boolean, host: string } | null}
 */
export function internalRequest(req, token) {
  const value = req.headers[INTERNAL_HEADER];
  if (value === undefined) return null;
  delete req.headers[INTERNAL_HEADER];
  if (typeof value !== "string" || !LOOPBACK.test(req.socket.remoteAddress ?? "")) return null;
  const [given, scheme, host] = value.split(" ");
  if (!given || !host || (scheme !== "http" && scheme !== "https")) return null;
  const a = Buffer.from(given);
  const b = Buffer.from(token);
  if (a.length !== b.length || !timingSafeEqual(a, b)) return null;
  return { https: scheme === "https", host };
}

/**
 * Marks a site post (a server action) so that the request Next makes for its redirect is
 * recognised as one for this host and scheme.
 * @param {import("node:http").IncomingMessage} req
 */
export function markForInternalRequests(req, token, https, host) {
  req.headers[INTERNAL_HEADER] = `${token} ${https ? "https" : "http"} ${host}`;
}
