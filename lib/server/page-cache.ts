// The group page's HTML for anonymous visitors, served from a per-process cache (issue 17,
// docs/decisions/0018-page-cache.md). The server answers from it before Next renders. The app
// registers what this needs on the bridge (lib/runtime/bridge.ts) once the page's bundle is
// loaded (lib/site/page-cache.ts): the key function (one SQL statement: every version and row the
// page reads), the store (an LRU bounded by bytes) and the csrftoken cookie maker. Until then
// nothing is cached.
import type { IncomingMessage, ServerResponse } from "node:http";
import { nonceOf } from "@/lib/http/security-headers.mjs";
import { LANGUAGE_COOKIE, localeOfHeaders, type Locale } from "@/lib/i18n/locales";
import { bridge } from "@/lib/runtime/bridge";
import { isNextNavigation } from "@/lib/server/next-internals";
import type { CachedPage } from "@/lib/site/page-cache";

export const PAGE_CACHE_HEADER = "X-Enhydris-Page-Cache";

const GROUP_PAGE = /^\/stations\/(\d{1,15})\/timeseriesgroups\/(\d{1,15})\/$/;
const MAX_ID = 2 ** 31 - 1;

/** Whether the path is a group page's (`/stations/{sid}/timeseriesgroups/{gid}/`). */
export function isGroupPagePath(path: string): boolean {
  return GROUP_PAGE.test(path);
}

/**
 * Cookies that leave a visitor anonymous and the page unchanged: Django's csrftoken (the page
 * does not show it), next-auth's CSRF and callback cookies, and the language switcher's (the
 * language is part of the key). Any other (a session, the read-after cookie, one we do not know)
 * sends the request to Next.
 */
const ANONYMOUS_COOKIE = new RegExp(`^(?:csrftoken|${LANGUAGE_COOKIE}|(?:__Host-|__Secure-)?next-auth\\.(?:csrf-token|callback-url))$`);

/**
 * The cookie names of a Cookie header, or null if one part is not name=value.
 */
export function cookieNames(header: string | string[] | undefined): string[] | null {
  const text = Array.isArray(header) ? header.join("; ") : header;
  if (!text) return [];
  const names: string[] = [];
  for (const part of text.split(";")) {
    if (part.trim() === "") continue;
    const eq = part.indexOf("=");
    if (eq < 0) return null;
    names.push(part.slice(0, eq).trim());
  }
  return names;
}

/** A group page that may come from the cache, and the language it is written in. */
export interface CacheableGroupPage {
  stationId: number;
  groupId: number;
  /** The page's language (public.md §3): an anonymous visitor's cookie or Accept-Language chooses it. */
  locale: Locale;
}

/**
 * The station and group ids (and the page's language) when the request is an anonymous, plain
 * document GET of a group page (any query string but Next's `_rsc`); else null (Next renders it as
 * for anyone). `search` is the query string with its "?", or "".
 */
export function cacheableGroupPage(req: { method?: string; headers: IncomingMessage["headers"] }, path: string, search: string): CacheableGroupPage | null {
  const m = GROUP_PAGE.exec(path);
  if (!m || req.method !== "GET") return null;
  const h = req.headers;
  if (h.authorization !== undefined || isNextNavigation(h, search)) return null;
  const names = cookieNames(h.cookie);
  if (names === null || names.some((name) => !ANONYMOUS_COOKIE.test(name))) return null;
  const stationId = Number(m[1]);
  const groupId = Number(m[2]);
  // Ids are 32-bit in the database: a larger one names nothing, and Next answers it as before.
  if (stationId > MAX_ID || groupId > MAX_ID) return null;
  const locale = localeOfHeaders(h);
  return { stationId, groupId, locale };
}

/** Whether a Cookie header carries the csrftoken cookie (else a hit sets one, as the proxy does). */
export function hasCsrfCookie(header: string | string[] | undefined): boolean {
  return (cookieNames(header) ?? []).includes("csrftoken");
}

/** Headers of Next's response that belong to one request only: never replayed. */
const PER_REQUEST = new Set([
  "content-security-policy", "content-security-policy-report-only", "date", "set-cookie", "x-request-id",
  "connection", "keep-alive", "transfer-encoding", "content-length", "strict-transport-security",
  PAGE_CACHE_HEADER.toLowerCase(),
]);

/**
 * The headers to replay from a response's headers (res.getHeaders()).
 */
export function replayableHeaders(headers: Record<string, unknown>): [string, string | string[]][] {
  const out: [string, string | string[]][] = [];
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined || PER_REQUEST.has(name.toLowerCase())) continue;
    out.push([name, Array.isArray(value) ? value.map(String) : String(value)]);
  }
  return out;
}

/**
 * Whether the Set-Cookie headers of a response are only the csrftoken cookie the proxy sets for a
 * request without one (each hit makes its own); any other cookie makes the response personal.
 */
export function onlyCsrfCookies(setCookie: unknown): boolean {
  if (setCookie === undefined) return true;
  return [setCookie].flat().every((c) => /^csrftoken=/.test(String(c)));
}

/**
 * The body cut at every occurrence of the nonce: the parts between them.
 */
export function splitOnNonce(body: Buffer, nonce: string): Buffer[] {
  const needle = Buffer.from(nonce, "utf8");
  const parts: Buffer[] = [];
  let from = 0;
  for (;;) {
    const at = body.indexOf(needle, from);
    if (at < 0) break;
    parts.push(body.subarray(from, at));
    from = at + needle.length;
  }
  parts.push(body.subarray(from));
  // Copies: the stored parts must not keep the whole response's chunks alive twice.
  return parts.map((p) => Buffer.from(p));
}

/**
 * The parts joined with a (fresh) nonce.
 */
export function joinWithNonce(parts: Buffer[], nonce: string): Buffer {
  const n = Buffer.from(nonce, "utf8");
  const pieces: Buffer[] = [];
  parts.forEach((part, i) => {
    if (i > 0) pieces.push(n);
    pieces.push(part);
  });
  return Buffer.concat(pieces);
}

/** A page larger than this is not kept (the group page is ~100 KB). */
const MAX_PAGE_BYTES = 2 * 1024 * 1024;

/**
 * Records what is written to `res` (install before any rewriting wrapper, so that it sees the
 * bytes as sent) and calls `store` with the page once the response has finished, if it may be
 * kept: 200, text/html, no cookie but the csrftoken one, the request's nonce (its CSP nonce) found.
 */
export function capturePage(res: ServerResponse, nonce: string, store: (page: CachedPage) => void): void {
  const write = res.write as (...args: unknown[]) => boolean;
  const end = res.end as (...args: unknown[]) => ServerResponse;
  let chunks: Buffer[] | null = [];
  let size = 0;
  let ended = false;
  const take = (chunk: unknown, encoding: unknown) => {
    if (chunks === null || chunk === undefined || chunk === null || typeof chunk === "function") return;
    const bytes = typeof chunk === "string" ? Buffer.from(chunk, typeof encoding === "string" ? (encoding as BufferEncoding) : "utf8") : Buffer.from(chunk as Uint8Array);
    size += bytes.length;
    if (size > MAX_PAGE_BYTES) chunks = null;
    else chunks.push(bytes);
  };
  res.write = function (this: ServerResponse, chunk: unknown, encoding?: unknown, callback?: unknown) {
    take(chunk, encoding);
    return write.call(this, chunk, encoding, callback);
  } as ServerResponse["write"];
  res.end = function (this: ServerResponse, chunk?: unknown, encoding?: unknown, callback?: unknown) {
    ended = true;
    take(chunk, encoding);
    return end.call(this, chunk, encoding, callback);
  } as ServerResponse["end"];
  res.once("finish", () => {
    if (!ended || chunks === null || res.statusCode !== 200) return;
    const headers = res.getHeaders();
    if (!String(headers["content-type"] ?? "").startsWith("text/html") || !onlyCsrfCookies(headers["set-cookie"])) return;
    if (headers["content-encoding"] !== undefined) return;
    const body = Buffer.concat(chunks, size);
    const parts = splitOnNonce(body, nonce);
    // Next put the nonce on its scripts: a page without it was not rendered for this request's policy.
    if (parts.length < 2) return;
    store({ status: 200, headers: replayableHeaders(headers), parts, size: body.length });
  });
}

/**
 * Answers from the cache, or lets `render` answer and keeps its page. Marks the response with
 * X-Enhydris-Page-Cache: hit, miss (rendered; kept if it may be) or bypass (not cacheable now).
 */
export async function servePage(
  req: IncomingMessage, res: ServerResponse, page: CacheableGroupPage,
  request: { url: string; host: string; https: boolean }, render: () => Promise<void>,
): Promise<void> {
  const registration = bridge().pageCache;
  const nonce = nonceOf(res.getHeader("content-security-policy"));
  if (!registration || !nonce) {
    res.setHeader(PAGE_CACHE_HEADER, "bypass");
    return render();
  }
  // The key is read before the page: what is rendered is never older than the key it is kept under.
  // A failure to read it (the database away) leaves the page to Next, which answers as it would.
  const version = await registration.groupPageKey(page.stationId, page.groupId).catch(() => null);
  if (version === null) {
    res.setHeader(PAGE_CACHE_HEADER, "bypass");
    return render();
  }
  // One entry per language: the same address is written in the visitor's language.
  const key = `${request.https ? "https" : "http"}://${request.host}${request.url}\n${page.locale}\n${version}`;
  const hit = registration.store.get(key);
  if (hit) {
    const body = joinWithNonce(hit.parts, nonce);
    for (const [name, value] of hit.headers) if (!res.hasHeader(name)) res.setHeader(name, value);
    if (!hasCsrfCookie(req.headers.cookie)) res.appendHeader("Set-Cookie", registration.csrfCookie(request.https));
    res.setHeader(PAGE_CACHE_HEADER, "hit");
    res.setHeader("Content-Length", body.length);
    res.writeHead(hit.status);
    res.end(body);
    return;
  }
  res.setHeader(PAGE_CACHE_HEADER, "miss");
  capturePage(res, nonce, (entry) => registration.store.set(key, entry));
  return render();
}
