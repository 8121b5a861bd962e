// Everything the server does that depends on how Next (and the libraries inside it) behave
// rather than on an API Next documents. A Next upgrade can break any of it silently;
// tests/http/next-internals.test.ts runs each piece against the real build and fails when one
// stops working. What each piece relies on:
//
// 1. The request handler (nextServer): `next({ dev, hostname, port, dir, httpServer })`,
//    `prepare()` and `getRequestHandler()` — the custom server API. Next attaches an 'upgrade'
//    listener (its hot-reload WebSocket) to `httpServer`, or else to the server of the first
//    request it handles. In development that must be the server the browser talks to; in
//    production it is a server that never listens: with an 'upgrade' listener Node would hand
//    it every request with an Upgrade header (`curl --http2` sends h2c), which then hung.
// 2. The CSP nonce (PAGE_NONCE_HEADER): Next reads the nonce of its scripts from the *request's*
//    Content-Security-Policy header and puts it on every <script> it writes.
// 3. Deferred scripts (deferPageScripts): Next writes its chunks into the page's <head> as
//    `<script src="/_next/static/….js" async="" nonce="…">` (either attribute order), in a
//    chunked response (no Content-Length), and its runtime does not depend on their order.
// 4. Body faults (markBodyFaults, answerBodyFaultsAsClientErrors): a site form post whose body
//    Next cannot take is reported by Next with console.error, inside the request's async
//    context, *before* it writes its 500; the errors are recognised by their messages — undici's
//    "Failed to parse body as FormData", busboy's "Unexpected end of form", "Malformed part
//    header", "Multipart: Boundary not found", React's decodeReply "Connection closed." and its
//    JSON.parse SyntaxError, and Next's "Body exceeded <size> limit".
// 5. Content-Length (restoreContentLength): Next drops Content-Length from route handlers'
//    responses (send-response.js) but passes other headers through setHeader/appendHeader; a
//    route that knows its length sends X-Enhydris-Content-Length instead.
// 6. Page routes (pageRoutes): the build's routes-manifest.json lists `staticRoutes` and
//    `dynamicRoutes` with `page` and `regex`, for the metrics' route labels.
// 7. Navigation requests (isNextNavigation): Next's client router fetches a page's RSC payload
//    with the `rsc`, `next-router-*`, `next-url` headers or the `_rsc` query parameter, and
//    server actions post with `next-action`: such requests are not plain page loads.
// 8. Next's own paths: its assets are under /_next/ (never given a trailing slash).
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import next from "next";
import { requestContext } from "@/lib/observability/logger.mjs";
import type { RequestContext } from "@/lib/runtime/bridge";
import { isConnectionClosed } from "@/lib/runtime/connection-closed.mjs";

// ---------------------------------------------------------------------------------------------
// 1. The request handler

export type NextHandler = (req: IncomingMessage, res: ServerResponse) => Promise<void>;

/** Next's request handler, once it has loaded (its instrumentation, i.e. lib/server/startup.ts, has run). */
export async function nextServer(options: { dev: boolean; hostname: string; port: number; httpServer: Server }): Promise<NextHandler> {
  const { dev, hostname, port } = options;
  const httpServer = dev ? options.httpServer : createServer();
  const app = next({ dev, hostname, port, dir: process.cwd(), httpServer });
  const handle = app.getRequestHandler();
  await app.prepare();
  return (req, res) => handle(req, res);
}

/** Next's build directory (next.config.js reads the same variable). */
export function distDir(): string {
  return join(process.cwd(), process.env.ENHYDRIS_DIST_DIR || ".next");
}

// ---------------------------------------------------------------------------------------------
// 2. The CSP nonce

/** The request header Next reads its scripts' nonce from (the pages' own inline scripts too). */
export { PAGE_NONCE_HEADER } from "@/lib/http/security-headers.mjs";

// ---------------------------------------------------------------------------------------------
// 3. Deferred scripts: the site's pages (not /manage/) start Next's scripts after their first paint (issue 17,
// item 3; docs/decisions/0017-page-scripts-after-first-paint.md).
//
// Next puts its chunks in the page's <head> as <script src async>: on a fast connection they
// arrive while Chromium is still parsing the page, and their download, compilation and running
// (the framework chunk alone is ~70-100 ms of CPU on the 2-core test machine) compete with the
// page's first frame, which carries the server's content (the group page's SVG chart). Here the
// head's <script src async> tags are replaced by one inline script with the same nonce that adds
// them, unchanged, once the document is parsed and the browser reports its first contentful
// paint (presented on screen, not just produced: the frame's raster and compositing, ~50 ms
// after its main-thread work on two cores, would otherwise share the cores with the scripts).
// A browser without paint timing starts them when two animation frames have begun since the
// document was parsed, a hidden page (which paints nothing) at once, and any page after 2 s at
// the latest. A page whose HTML streams for long hydrates only at its end, as with deferred
// scripts. The chunks are independent async scripts either way (Next's runtime does not depend
// on their order), and the page's own inline scripts (its RSC payload) only queue data for them.

const HEAD_END = "</head>";
/** A head that has not ended by then is left as it is. */
const MAX_HEAD = 256 * 1024;
const ASYNC_SCRIPT = /<script src="(\/_next\/static\/[^"<>]+\.js)"(?: async="" nonce="([^"<>]+)"| nonce="([^"<>]+)" async="")><\/script>/g;

/**
 * The head with its async Next scripts started by a loader; unchanged when it has none or when
 * they do not all carry the same nonce.
 */
/** An async Next script of the body, queued for the head's loader instead (its nonce kept). */
export function deferBodyScripts(html: string): string {
  return html.replace(ASYNC_SCRIPT, (_tag, src: string, nonceA: string | undefined, nonceB: string | undefined) =>
    `<script nonce="${nonceA ?? nonceB}">(window.__enhydrisLate=window.__enhydrisLate||[]).push(${JSON.stringify(src)})</script>`);
}

export function deferHeadScripts(head: string): string {
  const sources: string[] = [];
  const nonces = new Set<string>();
  let first = -1;
  const rest = head.replace(ASYNC_SCRIPT, (_tag, src: string, nonceA: string | undefined, nonceB: string | undefined, offset: number) => {
    if (first < 0) first = offset;
    sources.push(src);
    nonces.add((nonceA ?? nonceB)!);
    return "";
  });
  if (sources.length === 0 || nonces.size !== 1) return head;
  const [nonce] = nonces;
  // Scripts Next writes later in the body (deferBodyScripts) wait in window.__enhydrisLate, and
  // start with the head's; once those have started, a late one starts at once.
  const loader = `<script nonce="${nonce}">(function(s){var d=0;function load(u){var e=document.createElement("script");e.src=u;e.async=true;document.head.appendChild(e)}`
    + `function go(){if(d)return;d=1;s.forEach(load);(window.__enhydrisLate||[]).forEach(load);window.__enhydrisLate={push:load}}`
    + `function painted(){var P=window.PerformanceObserver;if(!P||(P.supportedEntryTypes||[]).indexOf("paint")<0)return 0;`
    + `new P(function(l,o){if(l.getEntriesByName("first-contentful-paint").length){o.disconnect();go()}}).observe({type:"paint",buffered:true});return 1}`
    + `function later(){if(document.visibilityState==="hidden")return go();document.addEventListener("visibilitychange",go);setTimeout(go,2000);`
    + `if(!painted())requestAnimationFrame(function(){requestAnimationFrame(go)})}`
    + `if(document.readyState==="loading")document.addEventListener("DOMContentLoaded",later);else later()})(${JSON.stringify(sources)})</script>`;
  return rest.slice(0, first) + loader + rest.slice(first);
}

type WriteCallback = (error?: Error | null) => void;
type Chunk = string | Uint8Array;

/**
 * Rewrites the head of an HTML response written to `res` (a chunked one: a response with a
 * Content-Length is left alone) with deferHeadScripts; the rest passes through unchanged.
 */
/** A chunk of the body with its async Next scripts queued (a tag split between chunks is left as it is). */
function bodyScriptsDeferred(chunk: Chunk, encoding: unknown): Buffer {
  const text = typeof chunk === "string" ? chunk : Buffer.from(chunk).toString("utf8");
  if (!text.includes("<script src=")) return typeof chunk === "string" ? Buffer.from(chunk, typeof encoding === "string" ? (encoding as BufferEncoding) : "utf8") : Buffer.from(chunk);
  return Buffer.from(deferBodyScripts(text), "utf8");
}

export function deferPageScripts(res: ServerResponse): void {
  const write = res.write as (...args: unknown[]) => boolean;
  const end = res.end as (...args: unknown[]) => ServerResponse;
  /** null: not decided yet; true: collecting the head; false: passing through. */
  let collecting: boolean | null = null;
  /** The head's scripts were deferred: the body's are queued for its loader. */
  let deferred = false;
  let parts: Buffer[] = [];
  let size = 0;
  const htmlStream = () => {
    const type = String(res.getHeader("content-type") ?? "");
    return type.startsWith("text/html") && res.getHeader("content-length") === undefined;
  };
  /** Adds a chunk; the bytes to send once the head is complete (or too long, or `final`), else null. */
  const take = (chunk: Chunk, encoding: unknown, final: boolean): Buffer | null => {
    const bytes = typeof chunk === "string" ? Buffer.from(chunk, typeof encoding === "string" ? (encoding as BufferEncoding) : "utf8") : Buffer.from(chunk);
    parts.push(bytes);
    size += bytes.length;
    const all = Buffer.concat(parts, size);
    const at = all.indexOf(HEAD_END);
    if (at < 0 && size < MAX_HEAD && !final) return null;
    collecting = false;
    parts = [];
    if (at < 0) return all;
    const head = all.subarray(0, at).toString("utf8");
    const rewritten = deferHeadScripts(head);
    deferred = rewritten !== head;
    const rest = all.subarray(at);
    return Buffer.concat([Buffer.from(rewritten, "utf8"), deferred ? bodyScriptsDeferred(rest, "utf8") : rest]);
  };
  res.write = function (this: ServerResponse, chunk: Chunk, encoding?: unknown, callback?: unknown) {
    if (collecting === null && chunk !== undefined && chunk !== null) collecting = htmlStream();
    if (collecting === false && deferred && chunk !== undefined && chunk !== null) return write.call(this, bodyScriptsDeferred(chunk, encoding), encoding, callback);
    if (collecting !== true) return write.call(this, chunk, encoding, callback);
    const cb = (typeof encoding === "function" ? encoding : callback) as WriteCallback | undefined;
    const bytes = take(chunk, encoding, false);
    if (bytes === null) {
      if (cb) process.nextTick(cb);
      return true;
    }
    return cb ? write.call(this, bytes, cb) : write.call(this, bytes);
  } as ServerResponse["write"];
  res.end = function (this: ServerResponse, chunk?: unknown, encoding?: unknown, callback?: unknown) {
    const cb = (typeof chunk === "function" ? chunk : typeof encoding === "function" ? encoding : callback) as WriteCallback | undefined;
    const data = typeof chunk === "function" ? undefined : (chunk as Chunk | undefined | null);
    if (collecting === null && data !== undefined && data !== null) collecting = htmlStream();
    if (collecting === false && deferred && data !== undefined && data !== null) {
      const bytes = bodyScriptsDeferred(data, encoding);
      return cb ? end.call(this, bytes, cb) : end.call(this, bytes);
    }
    if (collecting !== true) return end.call(this, chunk, encoding, callback);
    const bytes = take(data ?? Buffer.alloc(0), typeof encoding === "string" ? encoding : "utf8", true);
    return cb ? end.call(this, bytes, cb) : end.call(this, bytes);
  } as ServerResponse["end"];
}

// ---------------------------------------------------------------------------------------------
// 4. Body faults
//
// A site form post whose body Next cannot take (a server action's arguments that are not JSON or
// refer to missing parts, a multipart body that does not parse, a body over the 100 MB
// bodySizeLimit) fails inside Next, before any of our code runs, and Next answers 500. It is the
// request's fault: this answers 400 (413 for the size) instead.
//
// Next logs the error (console.error, within the request's context) before it starts the
// response; the error is recognised by its kind and message, the request's context marked, and
// the response's 500 then replaced by a plain answer. An error of our own code is not one of
// these and keeps its 500.

const DECODING_ERRORS = [
  /^Failed to parse body as FormData/, // undici's multipart parser
  /^Unexpected end of form$/, /^Malformed part header$/, /^Multipart: Boundary not found$/, // busboy
  /^Connection closed\.$/, // React's decodeReply: a reference to a part the body lacks
];

/** The answer to a request whose body Next reported it could not take, or null. */
function clientFault(value: unknown): { status: number; message: string } | null {
  if (!(value instanceof Error)) return null;
  const size = /^Body exceeded (\S+) limit/.exec(value.message);
  if (size) return { status: 413, message: `Too large: a form may send at most ${size[1]}.\n` };
  // decodeReply parses the arguments with JSON.parse.
  if (value.name === "SyntaxError" || DECODING_ERRORS.some((pattern) => pattern.test(value.message))) {
    return { status: 400, message: "Bad request: the form's data could not be read.\n" };
  }
  return null;
}

/**
 * Wraps console.error (once per process) to mark the current request when Next reports a
 * decoding error; returns the function that unwraps it.
 */
export function markBodyFaults(): () => void {
  const original = console.error;
  console.error = (...args: unknown[]) => {
    const context = requestContext();
    // The connection closed before the body arrived (the client left, or the idle timeout's 408):
    // Next reports it as an error, but nothing failed on this side.
    if (context && args.some(isConnectionClosed)) {
      console.info(...args);
      return;
    }
    const fault = context?.decodesBody ? args.map(clientFault).find(Boolean) : null;
    if (context && fault) {
      context.bodyFault = fault;
      // A client's fault, not the server's: a warning.
      console.warn(...args);
      return;
    }
    original(...args);
  };
  return () => {
    console.error = original;
  };
}

/**
 * For a site post (whose body Next may decode): a 500 after an error of the request's body
 * becomes the plain answer clientFault gave, whichever of writeHead, write or end starts the
 * response; Next's own body is dropped.
 */
export function answerBodyFaultsAsClientErrors(res: ServerResponse, context: RequestContext): void {
  context.decodesBody = true;
  const writeHead = res.writeHead as (...args: unknown[]) => ServerResponse;
  const write = res.write as (...args: unknown[]) => boolean;
  const end = res.end as (...args: unknown[]) => ServerResponse;
  // The headers this server set before Next (security headers, the request id) stay.
  const ours = new Set(res.getHeaderNames());
  let replaced = false;
  /** Whether the response is (now) ours: a 500 about to start after an error of the body. */
  const replace = (status: number) => {
    if (replaced) return true;
    if (res.headersSent || status !== 500 || !context.bodyFault) return false;
    replaced = true;
    for (const name of res.getHeaderNames()) if (!ours.has(name)) res.removeHeader(name);
    const { status: answer, message } = context.bodyFault;
    writeHead.call(res, answer, { "Content-Type": "text/plain; charset=utf-8", "Cache-Control": "no-store", "Content-Length": Buffer.byteLength(message) });
    end.call(res, message);
    // Next sets its 500 again after this; the request's log line and metrics must count what was sent.
    Object.defineProperty(res, "statusCode", { configurable: true, enumerable: true, get: () => answer, set: () => {} });
    return true;
  };
  res.writeHead = function (this: ServerResponse, status: number, ...rest: unknown[]) {
    return replace(status) ? this : writeHead.call(this, status, ...rest);
  } as ServerResponse["writeHead"];
  res.write = function (this: ServerResponse, ...args: unknown[]) {
    return replace(this.statusCode) ? true : write.apply(this, args);
  } as ServerResponse["write"];
  res.end = function (this: ServerResponse, ...args: unknown[]) {
    if (!replace(this.statusCode)) return end.apply(this, args);
    const callback = args.find((a) => typeof a === "function") as (() => void) | undefined;
    if (callback) queueMicrotask(callback);
    return this;
  } as ServerResponse["end"];
}

// ---------------------------------------------------------------------------------------------
// 5. Content-Length

/** What a route sends instead of Content-Length, which Next would drop. */
export const LENGTH_HEADER = "x-enhydris-content-length";

/** Turns the route's X-Enhydris-Content-Length back into Content-Length as Next sets the headers. */
export function restoreContentLength(res: ServerResponse): void {
  const setHeader = res.setHeader.bind(res);
  const appendHeader = res.appendHeader.bind(res);
  res.setHeader = ((name: string, value: number | string | readonly string[]) =>
    name.toLowerCase() === LENGTH_HEADER ? setHeader("Content-Length", value) : setHeader(name, value)) as ServerResponse["setHeader"];
  res.appendHeader = ((name: string, value: string | readonly string[]) =>
    name.toLowerCase() === LENGTH_HEADER ? setHeader("Content-Length", value) : appendHeader(name, value)) as ServerResponse["appendHeader"];
}

// ---------------------------------------------------------------------------------------------
// 6. Page routes

export interface PageRoute {
  readonly page: string;
  readonly regex: RegExp;
}

/**
 * The route patterns of the site's pages, from the build's routes manifest ("/stations/[sid]"),
 * so that metrics are labelled by page, not by path; none when there is no manifest.
 */
export function pageRoutes(): PageRoute[] {
  try {
    const manifest = JSON.parse(readFileSync(join(distDir(), "routes-manifest.json"), "utf8")) as {
      staticRoutes?: { page: string; regex: string }[];
      dynamicRoutes?: { page: string; regex: string }[];
    };
    return [...(manifest.staticRoutes ?? []), ...(manifest.dynamicRoutes ?? [])].map((r) => ({ page: r.page, regex: new RegExp(r.regex) }));
  } catch {
    return [];
  }
}

// ---------------------------------------------------------------------------------------------
// 7. Navigation requests

/** Whether a request is Next's client navigation (an RSC fetch) or a server action, not a plain page load. */
export function isNextNavigation(headers: IncomingMessage["headers"], search: string): boolean {
  if (headers.rsc !== undefined || headers["next-action"] !== undefined || headers["next-url"] !== undefined) return true;
  for (const name of Object.keys(headers)) if (name.startsWith("next-router-")) return true;
  return Boolean(search) && new URLSearchParams(search).has("_rsc");
}

// ---------------------------------------------------------------------------------------------
// 8. Next's own paths

/** Next's assets: never redirected to a trailing slash, and labelled as one route in the metrics. */
export const NEXT_ASSETS = "/_next/";
