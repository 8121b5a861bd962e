import { randomBytes, randomUUID, timingSafeEqual } from "node:crypto";
import http, { type IncomingMessage, type ServerResponse } from "node:http";
import type { TLSSocket } from "node:tls";
import type { Logger } from "pino";
import type { Settings } from "@/lib/config";
import { DISALLOWED_HOST, isAllowedHost } from "@/lib/config/hosts.mjs";
import { readAfterFromCookies } from "@/lib/db/read-after.mjs";
import { DEFAULT_LOCALE, localeOfHeaders, translator } from "@/lib/i18n";
import { ANONYMOUS_BODY_LIMIT } from "@/lib/http/limits";
import { originFailure, siteOrigins } from "@/lib/http/origins.mjs";
import { contentSecurityPolicy, HTML_HEADERS, strictTransportSecurity, tileOrigin } from "@/lib/http/security-headers.mjs";
import { redact, withRequestContext } from "@/lib/observability/logger.mjs";
import { METRICS_CONTENT_TYPE, metrics, observeRequest } from "@/lib/observability/metrics.mjs";
import { bridge, type ApiRouter, type RequestContext } from "@/lib/runtime/bridge";
import { bodyIdleWatch } from "@/lib/server/body-idle";
import { JOBS_STOPPED_MS, MESSAGE, serveHandedConnections } from "@/lib/server/cluster";
import type { JobProcess } from "@/lib/server/job-process";
import {
  answerBodyFaultsAsClientErrors, deferPageScripts, LENGTH_HEADER, NEXT_ASSETS, nextServer, PAGE_NONCE_HEADER, pageRoutes,
  restoreContentLength, type NextHandler, type PageRoute,
} from "@/lib/server/next-internals";
import { serveBuiltScript } from "@/lib/server/page-scripts";
import { RECORDS_WORKER_PATH } from "@/lib/site/paths";
import { cacheableGroupPage, isGroupPagePath, PAGE_CACHE_HEADER, servePage } from "@/lib/server/page-cache";
import { replaceErrorShells } from "@/lib/server/error-shells";
import { internalRequest, internalRequestToken, markForInternalRequests } from "@/lib/server/internal-requests.mjs";

/**
 * One web process of the server: Next's request handler behind a plain Node http.Server, so that
 * the service knows the client's address (login throttle, api.md §12.1) and the scheme, checks the
 * host and the origin of every request, and measures and logs each one. A worker of the
 * multi-process server (lib/server/cluster.ts), or the only process (ENHYDRIS_WORKERS=1, and in
 * development), which then runs the job process itself.
 */
export interface ServeOptions {
  readonly settings: Settings;
  readonly dev: boolean;
  readonly log: Logger;
  /** A worker of the multi-process server (the primary hands it connections, runs the job process). */
  readonly clustered: boolean;
  /** Starts the job process, once Next has loaded (the database is migrated); null when this process runs none. */
  readonly jobs: (() => JobProcess) | null;
}

/**
 * The token of the requests Next makes to this server itself (lib/server/internal-requests.mjs),
 * made at import: the primary imports this module before it forks its workers, which inherit it.
 */
const internalToken = internalRequestToken();
/** lib/frontend/refusals.ts's PATH_HEADER: the pages that say what is refused at a path read it. */
const PATH_HEADER = "x-enhydris-path";

function first(value: string | string[] | undefined): string {
  const text = Array.isArray(value) ? value[0] : value;
  return text ? text.split(",")[0].trim() : "";
}

/** A path Next cannot decode (a stray "%") would make it answer 500: no route has such a name. */
function undecodable(path: string): boolean {
  try {
    decodeURIComponent(path);
    return false;
  } catch {
    return true;
  }
}

/** Site pages end in "/" (api.md §16); API paths get their 308 from the API router. */
function needsSlash(path: string): boolean {
  if (path.endsWith("/")) return false;
  if (path.startsWith(NEXT_ASSETS) || /^\/(api|_next|accounts\/auth|timeseries\/data)(\/|$)/.test(path)) return false;
  const last = path.slice(path.lastIndexOf("/") + 1);
  return !last.includes(".");
}

function isApiPath(path: string): boolean {
  return /^\/(api|timeseries\/data)(\/|$)/.test(path);
}

/** The management pages are worked in, not read: their scripts start at once (ADR 0017, last change). */
function isManagePath(path: string): boolean {
  return /^\/manage(\/|$)/.test(path);
}

/**
 * The request body as a Web stream, read only as the handler pulls. Whatever the handler leaves
 * unread (a 401 or 413 before reading, say) is discarded after the response, as Node does for
 * its own handlers, so that a kept-alive connection can carry the next request.
 */
function requestBody(req: IncomingMessage, res: ServerResponse): ReadableStream<Uint8Array> {
  let discarding = false;
  const discard = () => {
    if (discarding || req.complete) return;
    discarding = true;
    req.removeAllListeners("data");
    req.resume();
  };
  res.on("finish", discard);
  return new ReadableStream<Uint8Array>({
    start(controller) {
      req.on("data", (chunk: Buffer) => {
        if (discarding) return;
        controller.enqueue(new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength));
        if ((controller.desiredSize ?? 0) <= 0) req.pause();
      });
      req.on("end", () => !discarding && controller.close());
      req.on("error", (error) => !discarding && controller.error(error));
      req.pause();
    },
    pull() {
      req.resume();
    },
    cancel: discard,
  }, { highWaterMark: 1 << 20, size: (chunk) => chunk.byteLength });
}

/** Resolves when the response can take more, or is closed. */
function drained(res: ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      res.off("drain", done);
      res.off("close", done);
      resolve();
    };
    res.on("drain", done);
    res.on("close", done);
  });
}

/**
 * An API request handed to its router directly (docs/decisions/0007-direct-api-dispatch.md): Next's
 * route transport costs about 1 ms of CPU per request, three times what the router needs.
 */
async function dispatch(router: ApiRouter, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const headers = new Headers();
  for (let i = 0; i < req.rawHeaders.length; i += 2) {
    try {
      headers.append(req.rawHeaders[i], req.rawHeaders[i + 1]);
    } catch {
      // a header Fetch refuses is dropped, as Next would
    }
  }
  // The values this server decided (client address, scheme) replace whatever the client sent.
  headers.set("x-forwarded-for", String(req.headers["x-forwarded-for"]));
  headers.set("x-enhydris-scheme", String(req.headers["x-enhydris-scheme"]));
  // The client went away before the response ended: its body is not read any further. (No abort
  // signal on the Request: no handler reads one, and following one costs each request a listener.)
  let gone = false;
  res.on("close", () => {
    if (!res.writableFinished) gone = true;
  });
  let url: URL;
  try {
    url = new URL(req.url ?? "/", `http://${req.headers.host ?? "localhost"}`);
  } catch {
    url = new URL(req.url ?? "/", "http://localhost");
  }
  const hasBody = req.method !== "GET" && req.method !== "HEAD";
  const request = new Request(url, {
    method: req.method, headers,
    ...(hasBody ? { body: requestBody(req, res), duplex: "half" } : {}),
  } as RequestInit);
  const response = await router.handle(request);
  const out: Record<string, string | string[]> = {};
  response.headers.forEach((value, name) => {
    if (name === "set-cookie") return;
    out[name === LENGTH_HEADER ? "content-length" : name] = value;
  });
  const cookies = response.headers.getSetCookie();
  if (cookies.length) out["set-cookie"] = cookies;
  if (!response.body) {
    res.writeHead(response.status, out);
    res.end();
    return;
  }
  const reader = response.body.getReader();
  try {
    // A body that comes in one piece (every JSON and text answer) is sent with its length, head
    // and body in one write; a chunked one costs a second write (its last chunk) per response.
    const head = await reader.read();
    const second = head.done ? head : await reader.read();
    if (second.done) {
      if (gone) return;
      const body = head.done ? undefined : head.value;
      if (!("content-length" in out) && !("transfer-encoding" in out)) out["content-length"] = String(body?.byteLength ?? 0);
      res.writeHead(response.status, out);
      res.end(body);
      return;
    }
    res.writeHead(response.status, out);
    if (!res.write(head.value)) await drained(res);
    if (!res.write(second.value)) await drained(res);
    for (;;) {
      if (gone) {
        await reader.cancel();
        return;
      }
      const { done, value } = await reader.read();
      if (done) break;
      if (!res.write(value)) await drained(res);
    }
    res.end();
  } catch (error) {
    await reader.cancel().catch(() => {});
    throw error;
  }
}

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]!);

/**
 * A site form refused before Next sees it: a small HTML page in the request's language (public.md
 * §3; the account is not known here: the language cookie, else Accept-Language). `detail`: the
 * check's own words (Django's CSRF message), as they are.
 */
function refusalPage(req: IncomingMessage, res: ServerResponse, status: number, words: (t: EdgeWords) => { title: string; message: string }, detail: string,
  headers: Record<string, string> = {}): void {
  const locale = localeOfHeaders(req.headers);
  const t = translator(locale, "edge");
  const { title, message } = words(t);
  res.writeHead(status, { "Content-Type": "text/html; charset=utf-8", "Cache-Control": "no-store", "Content-Language": locale, Vary: "Accept-Language, Cookie", ...headers });
  res.end(`<!DOCTYPE html>
<html lang="${locale}"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title><link rel="stylesheet" href="/site.css"><link rel="icon" href="/favicon.svg" type="image/svg+xml"></head>
<body><main class="site-main narrow"><div class="card"><h1>${escapeHtml(title)} (${status})</h1>
<p>${escapeHtml(message)}</p>${detail ? `
<p class="muted small">${escapeHtml(detail)}</p>` : ""}
<p><a href="/">${escapeHtml(t("backToSite"))}</a></p></div></main></body></html>
`);
}

type EdgeWords = ReturnType<typeof translator<"edge">>;

/** The 403 of a site form posted from another site (management.md §1). */
function forbiddenPage(req: IncomingMessage, res: ServerResponse, detail: string): void {
  refusalPage(req, res, 403, (t) => ({ title: t("forbiddenTitle"), message: t("crossSite") }), detail);
}

/**
 * Site forms sent without a login (signing in, registering, a password reset) are small
 * (ANONYMOUS_BODY_LIMIT). Next reads a server action's whole body, up to its 100 MB
 * bodySizeLimit, before the action can refuse an anonymous caller; so a larger site post, or one
 * of unstated length, must carry a live session, checked here before Next reads a byte of it.
 */

function smallBody(req: IncomingMessage): boolean {
  const length = req.headers["content-length"];
  if (length === undefined) return req.headers["transfer-encoding"] === undefined;
  return /^\d{1,16}$/.test(length) && Number(length) <= ANONYMOUS_BODY_LIMIT;
}

/** Whether the request's cookies name a live site session (lib/auth/session.ts registers the check on the bridge). */
async function hasLiveSession(req: IncomingMessage): Promise<boolean> {
  const check = bridge().siteSessionCheck;
  // Registered once the API's bundle has loaded (the warm-up at start-up loads it); until then
  // Next's own limit applies.
  if (!check) return true;
  return req.headers.cookie ? check(req.headers.cookie) : false;
}

/** The connection is closed after the answer: the body it refuses is never read. */
function refuseAnonymousBody(req: IncomingMessage, res: ServerResponse, lengthUnstated: boolean): void {
  const limit = `${ANONYMOUS_BODY_LIMIT / (1 << 20)} MB`;
  if (lengthUnstated) {
    refusalPage(req, res, 411, (t) => ({ title: t("lengthRequiredTitle"), message: t("lengthRequired", { limit }) }), "", { Connection: "close" });
  } else {
    refusalPage(req, res, 413, (t) => ({ title: t("tooLargeTitle"), message: t("tooLarge", { limit }) }), "", { Connection: "close" });
  }
}

/** The request id: the client's or proxy's X-Request-Id when it is a sane token, else a new one. */
function requestId(header: string | string[] | undefined): string {
  const value = Array.isArray(header) ? header[0] : header;
  return value && /^[\w.:@/+=-]{1,128}$/.test(value) ? value : randomUUID();
}

const METRICS_PATHS = new Set(["/metrics", "/metrics/"]);
const PROBES = new Set(["/api/health/", "/metrics"]);
const UNSAFE = new Set(["POST", "PUT", "PATCH", "DELETE"]);

function sameSecret(given: string, expected: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

/**
 * A request that wrote sends the read-after cookie (read replicas; lib/db/read-after.mjs): the
 * bundle sets it in the request context, and it is added when the response's head is written,
 * whichever path wrote it (the API's dispatch passes its headers to writeHead; Next's pages set
 * theirs before an implicit writeHead).
 */
function sendReadAfterCookie(res: ServerResponse, context: RequestContext, https: boolean): void {
  const writeHead = res.writeHead as (...args: unknown[]) => ServerResponse;
  res.writeHead = function (this: ServerResponse, status: number, ...rest: unknown[]) {
    const cookie = context.setReadAfter;
    if (cookie) {
      const value = https ? `${cookie}; Secure` : cookie;
      const headers = rest.find((h) => h && typeof h === "object" && !Array.isArray(h)) as Record<string, unknown> | undefined;
      const key = headers && Object.keys(headers).find((k) => k.toLowerCase() === "set-cookie");
      if (headers && key) headers[key] = [headers[key]].flat().concat(value);
      else res.appendHeader("Set-Cookie", value);
    }
    return writeHead.call(this, status, ...rest);
  } as ServerResponse["writeHead"];
}

/** Serves in this process (a worker of the cluster, or the only process). */
export async function serveHere(options: ServeOptions): Promise<void> {
  const { settings, dev, log, clustered } = options;
  const { port, hostnameBind: hostname, trustProxyHeaders: trustProxy, metricsToken, allowedHosts } = settings;
  const hsts = strictTransportSecurity(settings.hstsMaxAge);
  const siteUrlOrigins = siteOrigins(settings.siteUrl);
  const tiles = tileOrigin(settings.mapTileUrl);
  const bodyIdleSeconds = settings.bodyIdleTimeout;

  /**
   * Security headers (issue 8, 18): no MIME sniffing anywhere, HSTS on HTTPS; the site's pages get
   * the HTML headers with a content security policy whose nonce Next puts on its own scripts (it
   * reads the nonce from the request's Content-Security-Policy header). The API's HTML pages get
   * the same headers from its router (lib/routing/router.ts); its other responses keep their own.
   */
  function securityHeaders(req: IncomingMessage, res: ServerResponse, path: string, https: boolean): void {
    res.setHeader("X-Content-Type-Options", "nosniff");
    if (https && hsts) res.setHeader("Strict-Transport-Security", hsts);
    delete req.headers["content-security-policy"];
    delete req.headers["content-security-policy-report-only"];
    if (isApiPath(path)) return;
    const csp = contentSecurityPolicy({ nonce: randomBytes(16).toString("base64"), dev, tiles });
    req.headers[PAGE_NONCE_HEADER] = csp;
    res.setHeader("Content-Security-Policy", csp);
    for (const [name, value] of Object.entries(HTML_HEADERS)) res.setHeader(name, value);
  }

  /**
   * The API's routers register themselves on the bridge once Next has loaded their route bundle.
   * In production the server then hands /api/ and /timeseries/data/ requests to them directly.
   * Until then, in development (hot reloading) and with ENHYDRIS_API_THROUGH_NEXT, requests go
   * through Next's route handlers, which call the same routers.
   */
  function routerFor(path: string): ApiRouter | null {
    if (dev || settings.apiThroughNext) return null;
    for (const [prefix, router] of bridge().routers) {
      if (path.startsWith(prefix) || path === prefix.slice(0, -1)) return router;
    }
    return null;
  }

  function failed(res: ServerResponse, error: unknown): void {
    log.error(`request failed: ${error instanceof Error ? error.stack ?? error.message : String(error)}`);
    if (!res.headersSent) {
      res.writeHead(500, { "Content-Type": "application/json" });
      res.end('{"detail":"A server error occurred."}');
    } else {
      res.destroy();
    }
  }

  /** A plain answer of this server (JSON under the API, text elsewhere). */
  function answer(res: ServerResponse, status: number, path: string, detail: string, headers: Record<string, string> = {}): void {
    const json = isApiPath(path);
    res.writeHead(status, { "Content-Type": json ? "application/json" : "text/plain; charset=utf-8", ...headers });
    res.end(json ? JSON.stringify({ detail }) : detail);
  }

  /** {site}/metrics: Prometheus text; with ENHYDRIS_METRICS_TOKEN set, only for `Authorization: Bearer <token>`. */
  async function serveMetrics(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (metricsToken) {
      const m = /^Bearer\s+(\S+)\s*$/i.exec(req.headers.authorization ?? "");
      if (!m || !sameSecret(m[1], metricsToken)) {
        res.writeHead(401, { "Content-Type": "text/plain; charset=utf-8", "WWW-Authenticate": 'Bearer realm="metrics"' });
        res.end("Authentication credentials were not provided or are wrong.");
        return;
      }
    }
    if (req.method !== "GET" && req.method !== "HEAD") {
      res.writeHead(405, { "Content-Type": "text/plain; charset=utf-8", Allow: "GET, HEAD" });
      res.end("Method not allowed.");
      return;
    }
    const body = clustered ? await metricsOfTheCluster() : await metrics().registry.metrics();
    res.writeHead(200, { "Content-Type": METRICS_CONTENT_TYPE, "Cache-Control": "no-store" });
    res.end(req.method === "HEAD" ? undefined : body);
  }

  /** Requests for the cluster's metrics sent to the primary, by id. */
  const metricsRequests = new Map<number, (message: { body?: unknown; error?: string }) => void>();
  let metricsRequestCount = 0;

  /** Under node:cluster: every worker's metrics, aggregated by the primary (lib/server/cluster.ts). */
  function metricsOfTheCluster(): Promise<string> {
    return new Promise((resolve, reject) => {
      const id = ++metricsRequestCount;
      const timer = setTimeout(() => {
        metricsRequests.delete(id);
        reject(new Error("the primary did not send the cluster's metrics"));
      }, 10_000);
      metricsRequests.set(id, (message) => {
        clearTimeout(timer);
        metricsRequests.delete(id);
        if (typeof message.body === "string") resolve(message.body);
        else reject(new Error(`the cluster's metrics: ${message.error}`));
      });
      process.send!({ type: MESSAGE.metricsRequest, id });
    });
  }

  let pages: PageRoute[] = [];

  /** A bounded label for a request no router named. */
  function routeLabel(path: string): string {
    if (path.startsWith(NEXT_ASSETS)) return "/_next/*";
    if (METRICS_PATHS.has(path)) return "/metrics";
    if (isApiPath(path)) return "unmatched";
    const page = pages.find((p) => p.regex.test(path));
    if (page) return page.page;
    return /\.[A-Za-z0-9]+$/.test(path) ? "static file" : "unmatched";
  }

  /** Counts and logs a request once its response has ended (or its connection closed). */
  function finished(req: IncomingMessage, res: ServerResponse, context: RequestContext, path: string, started: bigint, warm: boolean): void {
    const seconds = Number(process.hrtime.bigint() - started) / 1e9;
    const route = context.route ?? routeLabel(path);
    if (!warm) observeRequest(req.method ?? "", route, res.statusCode, seconds);
    const line = {
      req_id: context.id, method: req.method, path: redact(path), route, status: res.statusCode,
      duration_ms: Math.round(seconds * 1e4) / 10, user_id: context.userId,
      ...(res.writableFinished ? {} : { aborted: true }),
    };
    if (res.statusCode >= 500) log.error(line, "request");
    // Probes poll these every few seconds: their successes would bury everything else.
    else if (warm || (PROBES.has(route) && res.statusCode < 400)) log.debug(line, "request");
    else log.info(line, "request");
  }

  function serve(req: IncomingMessage, res: ServerResponse, context: RequestContext): void {
    const address = req.socket.remoteAddress ?? "unknown";
    // Next's request for the page a server action redirects to: for the action's host and scheme,
    // from its client (lib/server/internal-requests.mjs).
    const internal = internalRequest(req, internalToken);
    req.headers["x-forwarded-for"] = ((trustProxy || internal) && first(req.headers["x-forwarded-for"])) || address;
    const proto = trustProxy ? first(req.headers["x-forwarded-proto"]) : "";
    const https = internal ? internal.https : proto === "https" || Boolean((req.socket as TLSSocket).encrypted);
    req.headers["x-enhydris-scheme"] = https ? "https" : "http";
    sendReadAfterCookie(res, context, https);
    // The host links are built from; a client's own X-Forwarded-Host counts only behind a trusted proxy.
    if (!trustProxy || internal) delete req.headers["x-forwarded-host"];
    if (internal) req.headers.host = internal.host;
    const host = (trustProxy && !internal && first(req.headers["x-forwarded-host"])) || first(req.headers.host);
    const url = req.url ?? "/";
    const q = url.indexOf("?");
    const path = q < 0 ? url : url.slice(0, q);
    securityHeaders(req, res, path, https);
    // Monitoring answers whatever host a probe uses: it builds no links.
    if (METRICS_PATHS.has(path)) {
      serveMetrics(req, res).catch((error) => failed(res, error));
      return;
    }
    if (path !== "/api/health/" && !isAllowedHost(host, allowedHosts)) {
      log.warn({ host: String(host).slice(0, 200) }, "request for a host that is not allowed (ENHYDRIS_ALLOWED_HOSTS)");
      answer(res, 400, path, DISALLOWED_HOST);
      return;
    }
    if (undecodable(path)) {
      answer(res, 404, path, "Not found.");
      return;
    }
    if (path === RECORDS_WORKER_PATH) {
      serveBuiltScript(req, res, "records-worker.js");
      return;
    }
    if (needsSlash(path)) {
      // One leading slash: "//evil.example/x" (or "/\\evil.example") as a Location is another site's address.
      res.writeHead(308, { Location: `${path.replace(/^[/\\]+/, "/")}/${q < 0 ? "" : url.slice(q)}` });
      res.end();
      return;
    }
    const router = routerFor(path);
    if (router) {
      dispatch(router, req, res).catch((error) => failed(res, error));
      return;
    }
    // Site forms (server actions) and next-auth's routes: a cross-site request gets 403 here
    // (Next's own check would answer 500); the API router checks its session requests itself.
    if (UNSAFE.has(req.method ?? "") && !isApiPath(path)) {
      const failure = originFailure({
        origin: first(req.headers.origin) || null, referer: first(req.headers.referer) || null,
        own: `${https ? "https" : "http"}://${host.toLowerCase()}`, secure: https,
      }, siteUrlOrigins);
      if (failure) {
        if (path.startsWith("/accounts/auth/")) answer(res, 403, path, `CSRF verification failed: ${failure}`);
        else forbiddenPage(req, res, `CSRF verification failed: ${failure}`);
        return;
      }
      markForInternalRequests(req, internalToken, https, host);
      if (!smallBody(req)) {
        hasLiveSession(req).then((live) => {
          if (live) serveSite(req, res, context, path, url, q, host, https);
          else refuseAnonymousBody(req, res, req.headers["content-length"] === undefined);
        }).catch((error) => failed(res, error));
        return;
      }
    }
    serveSite(req, res, context, path, url, q, host, https);
  }

  /** A site page, form post or next-auth route: Next's part. */
  function serveSite(req: IncomingMessage, res: ServerResponse, context: RequestContext, path: string, url: string, q: number, host: string, https: boolean): void {
    restoreContentLength(res);
    req.headers[PATH_HEADER] = path;
    if (UNSAFE.has(req.method ?? "")) answerBodyFaultsAsClientErrors(res, context);
    // The group page's HTML for anonymous visitors comes from a per-process cache while what it
    // shows is unchanged (lib/server/page-cache.ts, docs/decisions/0018-page-cache.md).
    if (!dev && isGroupPagePath(path)) {
      const page = cacheableGroupPage(req, path, q < 0 ? "" : url.slice(q));
      if (page) {
        const render = () => {
          deferPageScripts(res);
          replaceErrorShells(res, { path, cookie: String(req.headers.cookie ?? ""), acceptLanguage: String(req.headers["accept-language"] ?? ""), log });
          return handle(req, res);
        };
        servePage(req, res, page, { url, host, https }, render).catch((error) => failed(res, error));
        return;
      }
      res.setHeader(PAGE_CACHE_HEADER, "bypass");
    }
    // The public pages' scripts start after their first paint (lib/server/next-internals.ts); a 403 or 404
    // page is drawn on the server, not left to them (lib/server/error-shells.ts).
    if (!dev && !isApiPath(path)) {
      if (!isManagePath(path)) deferPageScripts(res);
      replaceErrorShells(res, { path, cookie: String(req.headers.cookie ?? ""), acceptLanguage: String(req.headers["accept-language"] ?? ""), log });
    }
    handle(req, res).catch((error) => failed(res, error));
  }

  const server = http.createServer();
  // A worker's metrics exist (and answer the primary's collection) from the start.
  metrics();
  const handle: NextHandler = await nextServer({ dev, hostname, port, httpServer: server });
  pages = pageRoutes();
  // The job process, once Next has loaded (its start-up migrated the database).
  const jobs = options.jobs?.() ?? null;
  // Wake-ups of what this process's commits queued go to the job process: through the primary
  // (a worker of the cluster) or straight to this process's own.
  bridge().jobWakeups.forward = clustered
    ? () => process.connected && process.send!({ type: MESSAGE.jobsQueued })
    : jobs && (() => jobs.wake());

  /** Responses not yet ended: a shutdown lets them finish. */
  const inFlight = new Set<ServerResponse>();
  let stopping = false;
  const stalledBodies = bodyIdleWatch({
    idleMs: bodyIdleSeconds * 1000,
    onStall: (req) => log.warn({ method: req.method, path: String(req.url ?? "").split("?")[0].slice(0, 200) }, `a request's body stopped arriving (nothing for ${bodyIdleSeconds} s): answered 408 and closed`),
    // The API answers in English; the site in the request's language.
    answer: (req) => isApiPath(String(req.url ?? "").split("?")[0])
      ? { contentType: "application/json", body: JSON.stringify({ detail: translator(DEFAULT_LOCALE, "edge")("requestTimeout", { seconds: bodyIdleSeconds }) }) }
      : { contentType: "text/plain; charset=utf-8", body: translator(localeOfHeaders(req.headers), "edge")("requestTimeout", { seconds: bodyIdleSeconds }) },
  });

  /** The request handler; `warm`: this process's own start-up requests, not counted in the metrics. */
  const onRequest = (warm: boolean) => (req: IncomingMessage, res: ServerResponse) => {
    const started = process.hrtime.bigint();
    const context: RequestContext = {
      id: requestId(req.headers["x-request-id"]), route: null, userId: null,
      method: req.method ?? "", readAfter: readAfterFromCookies(req.headers.cookie),
    };
    res.setHeader("X-Request-Id", context.id);
    // Once stopping, every response ends its connection.
    if (stopping) res.setHeader("Connection", "close");
    inFlight.add(res);
    const url = req.url ?? "/";
    const q = url.indexOf("?");
    res.once("close", () => {
      inFlight.delete(res);
      finished(req, res, context, q < 0 ? url : url.slice(0, q), started, warm);
    });
    stalledBodies.watch(req, res);
    withRequestContext(context, () => serve(req, res, context));
  };
  server.on("request", onRequest(false));
  server.keepAliveTimeout = 65_000;
  server.requestTimeout = 0;
  if (clustered) {
    // The primary listens on the port and hands this worker its share of the connections.
    serveHandedConnections(server, () => warmUp(onRequest(true)));
  } else {
    server.listen(port, hostname, () => {
      log.info(`Enhydris listening on http://${hostname === "0.0.0.0" ? "localhost" : hostname}:${port}/ (${dev ? "development" : "production"})`);
      warmUp(onRequest(true));
    });
  }

  /**
   * Loads the API's route bundles and the pages' shared runtime now (start-up work included),
   * not on the first real request; as requests for an allowed host, sent to a listener of this
   * process's own (under node:cluster a request to the shared port could reach another worker).
   */
  function warmUp(listener: http.RequestListener): void {
    const warm = http.createServer(listener);
    const warmHost = allowedHosts[0].replace(/^\./, "");
    const paths = ["/api/", "/timeseries/data/", ...(dev ? [] : ["/accounts/login/"])];
    let left = paths.length;
    const done = () => --left === 0 && warm.close();
    warm.on("error", () => {});
    warm.listen({ port: 0, host: "127.0.0.1", exclusive: true }, () => {
      const headers = { host: warmHost, "x-request-id": "warm-up", connection: "close" };
      const warmPort = (warm.address() as { port: number }).port;
      for (const path of paths) {
        http.get({ host: "127.0.0.1", port: warmPort, path, headers }, (r) => r.resume().on("end", done)).on("error", done);
      }
    });
  }

  // Shutdown (SIGTERM, SIGINT): stop accepting connections (new ones are refused) and close the
  // idle ones; let the requests in flight finish (an upload being received completes and is
  // stored) while the shutdown hooks run; then stop the job process this process runs, if any
  // (after the requests: one may be waiting for a job), and exit 0. Each is bounded, within a
  // service manager's usual stop timeout (systemd's 90 s, the unit in docs/deployment.md says
  // 30 s). A second signal exits at once.
  const SHUTDOWN_REQUESTS_MS = 25_000;
  const SHUTDOWN_HOOKS_MS = 25_000;
  const within = (promise: Promise<unknown>, ms: number) => Promise.race([promise, new Promise((resolve) => setTimeout(resolve, ms).unref())]);

  function requestsFinished(): Promise<void> {
    return new Promise((resolve) => {
      const check = () => {
        server.closeIdleConnections();
        if (inFlight.size === 0) resolve();
        else setTimeout(check, 50).unref();
      };
      check();
    });
  }

  let signals = 0;
  const stop = (reason: string) => {
    if (stopping) return;
    stopping = true;
    const signalled = Date.now();
    log.info(`${reason}: stopping (${inFlight.size} request(s) in flight)`);
    server.close();
    for (const res of inFlight) if (!res.headersSent) res.setHeader("Connection", "close");
    const hooks = bridge().shutdownHooks.splice(0).map((hook) =>
      Promise.resolve().then(hook).catch((error) => console.error("shutdown hook failed:", error)));
    Promise.all([within(requestsFinished(), SHUTDOWN_REQUESTS_MS), within(Promise.all(hooks), SHUTDOWN_HOOKS_MS)]).then(async () => {
      if (inFlight.size) log.warn(`stopped with ${inFlight.size} request(s) still in flight after ${SHUTDOWN_REQUESTS_MS / 1000} s`);
      await jobs?.stop(Math.max(Date.now() + 5_000, signalled + JOBS_STOPPED_MS));
      process.exit(0);
    });
  };
  for (const signal of ["SIGTERM", "SIGINT"] as const) {
    process.on(signal, () => {
      if (++signals > 1) {
        const pid = jobs?.pid();
        if (pid) process.kill(pid, "SIGKILL");
        process.exit(1);
      }
      stop(signal);
    });
  }
  if (clustered) {
    // A worker: the primary asks it to stop (its shutdown), and answers its requests for metrics.
    process.on("message", (message: { type?: string; signal?: string; id?: number; body?: unknown; error?: string } | null) => {
      if (message?.type === MESSAGE.shutdown) stop(message.signal ?? "SIGTERM");
      else if (message?.type === MESSAGE.metricsReply) metricsRequests.get(message.id!)?.(message);
    });
    // A primary that is gone (killed) leaves its workers without a port's connections: stop too.
    process.on("disconnect", () => stop("the primary is gone"));
  }
}
