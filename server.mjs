// The HTTP server: Next's request handler behind a plain Node http.Server, so that the
// service knows the client's address (login throttle, api.md §12.1) and the scheme.
//   node server.mjs          production (after `next build`)
//   node server.mjs --dev    development, with hot reloading
import http from "node:http";
import next from "next";

const dev = process.argv.includes("--dev");
const TRUE = new Set(["true", "1", "on", "yes", "y"]);
const trustProxy = TRUE.has(String(process.env.ENHYDRIS_TRUST_PROXY_HEADERS ?? "").trim().toLowerCase());
const portText = String(process.env.PORT ?? "3000").trim() || "3000";
if (!/^\d+$/.test(portText) || Number(portText) < 1 || Number(portText) > 65535) {
  console.error(`Invalid setting PORT=${JSON.stringify(process.env.PORT)}: expected an integer from 1 to 65535.`);
  process.exit(1);
}
const port = Number(portText);
const hostname = process.env.HOSTNAME_BIND || "0.0.0.0";

function first(value) {
  const text = Array.isArray(value) ? value[0] : value;
  return text ? text.split(",")[0].trim() : "";
}

/** A path Next cannot decode (a stray "%") would make it answer 500: no route has such a name. */
function undecodable(path) {
  try {
    decodeURIComponent(path);
    return false;
  } catch {
    return true;
  }
}

/** Site pages end in "/" (api.md §16); API paths get their 308 from the API router. */
function needsSlash(path) {
  if (path.endsWith("/")) return false;
  if (/^\/(api|_next|accounts\/auth|timeseries\/data)(\/|$)/.test(path)) return false;
  const last = path.slice(path.lastIndexOf("/") + 1);
  return !last.includes(".");
}

/**
 * Next drops Content-Length from route responses (send-response.js); a route that knows its
 * length sends it as X-Enhydris-Content-Length and it is restored here.
 */
const LENGTH_HEADER = "x-enhydris-content-length";
function restoreContentLength(res) {
  const setHeader = res.setHeader.bind(res);
  const appendHeader = res.appendHeader.bind(res);
  res.setHeader = (name, value) =>
    String(name).toLowerCase() === LENGTH_HEADER ? setHeader("Content-Length", value) : setHeader(name, value);
  res.appendHeader = (name, value) =>
    String(name).toLowerCase() === LENGTH_HEADER ? setHeader("Content-Length", value) : appendHeader(name, value);
}

/**
 * Security headers (issue 8): no MIME sniffing anywhere; pages get a content security policy
 * that allows only this site and the map tile server, and may not be framed. API responses keep
 * their own types (JSONP must stay loadable as a script from other origins).
 */
function tileOrigin() {
  try {
    return new URL(String(process.env.ENHYDRIS_MAP_TILE_URL || "https://tile.openstreetmap.org/{z}/{x}/{y}.png").replace(/\{[a-z]\}/g, "a")).origin;
  } catch {
    return "";
  }
}
const PAGE_CSP = [
  "default-src 'self'",
  `img-src 'self' data: blob: ${tileOrigin()}`.trim(),
  // Next's runtime and React's streamed payload use inline scripts; Leaflet sets inline styles.
  `script-src 'self' 'unsafe-inline'${dev ? " 'unsafe-eval'" : ""}`,
  "style-src 'self' 'unsafe-inline'",
  "connect-src 'self'",
  "font-src 'self'",
  "object-src 'none'",
  "base-uri 'self'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join("; ");

// Next keeps a header set here rather than the route's, so API routes choose their own (the
// reset pages send Referrer-Policy: no-referrer; file downloads a sandbox CSP).
function securityHeaders(res, path) {
  res.setHeader("X-Content-Type-Options", "nosniff");
  const api = /^\/(api|timeseries\/data)(\/|$)/.test(path);
  const apiPage = path.startsWith("/api/auth/password/reset/") || path.startsWith("/api/docs/");
  if (api && !apiPage) return;
  res.setHeader("Content-Security-Policy", PAGE_CSP);
  res.setHeader("X-Frame-Options", "DENY");
  if (!api) res.setHeader("Referrer-Policy", "strict-origin-when-cross-origin");
}

/**
 * The API's routers (lib/http/router.ts) register themselves here once Next has loaded their
 * route bundle. In production the server then hands them /api/ and /timeseries/data/ requests
 * directly: Next's route transport costs about 1 ms of CPU per request, three times what the
 * router needs (docs/decisions/0007-direct-api-dispatch.md). Until then, and in development
 * (hot reloading), requests go through Next's route handlers, which call the same routers.
 */
const ROUTERS = Symbol.for("enhydris.routers");

function routerFor(path) {
  const routers = globalThis[ROUTERS];
  if (dev || !routers) return null;
  for (const [prefix, router] of routers) {
    if (path.startsWith(prefix) || path === prefix.slice(0, -1)) return router;
  }
  return null;
}

/**
 * The request body as a Web stream, read only as the handler pulls. Whatever the handler leaves
 * unread (a 401 or 413 before reading, say) is discarded after the response, as Node does for
 * its own handlers, so that a kept-alive connection can carry the next request.
 */
function requestBody(req, res) {
  let discarding = false;
  const discard = () => {
    if (discarding || req.complete) return;
    discarding = true;
    req.removeAllListeners("data");
    req.resume();
  };
  res.on("finish", discard);
  return new ReadableStream({
    start(controller) {
      req.on("data", (chunk) => {
        if (discarding) return;
        controller.enqueue(new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength));
        if (controller.desiredSize <= 0) req.pause();
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

async function dispatch(router, req, res) {
  const headers = new Headers();
  for (let i = 0; i < req.rawHeaders.length; i += 2) {
    try {
      headers.append(req.rawHeaders[i], req.rawHeaders[i + 1]);
    } catch {
      // a header Fetch refuses is dropped, as Next would
    }
  }
  // The values this server decided (client address, scheme) replace whatever the client sent.
  headers.set("x-forwarded-for", req.headers["x-forwarded-for"]);
  headers.set("x-enhydris-scheme", req.headers["x-enhydris-scheme"]);
  const aborted = new AbortController();
  res.on("close", () => {
    if (!res.writableFinished) aborted.abort();
  });
  let url;
  try {
    url = new URL(req.url, `http://${req.headers.host ?? "localhost"}`);
  } catch {
    url = new URL(req.url, "http://localhost");
  }
  const hasBody = req.method !== "GET" && req.method !== "HEAD";
  const request = new Request(url, {
    method: req.method, headers, signal: aborted.signal,
    ...(hasBody ? { body: requestBody(req, res), duplex: "half" } : {}),
  });
  const response = await router.handle(request);
  const out = {};
  response.headers.forEach((value, name) => {
    if (name === "set-cookie") return;
    out[name === LENGTH_HEADER ? "content-length" : name] = value;
  });
  const cookies = response.headers.getSetCookie();
  if (cookies.length) out["set-cookie"] = cookies;
  res.writeHead(response.status, out);
  if (!response.body) {
    res.end();
    return;
  }
  const reader = response.body.getReader();
  try {
    for (;;) {
      if (aborted.signal.aborted) {
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

/** Resolves when the response can take more, or is closed. */
function drained(res) {
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

function failed(res, error) {
  console.error("request failed:", error);
  if (!res.headersSent) {
    res.writeHead(500, { "Content-Type": "application/json" });
    res.end('{"detail":"A server error occurred."}');
  } else {
    res.destroy();
  }
}

const app = next({ dev, hostname, port, dir: process.cwd() });
const handle = app.getRequestHandler();
await app.prepare();

const server = http.createServer((req, res) => {
  const address = req.socket.remoteAddress ?? "unknown";
  req.headers["x-forwarded-for"] = (trustProxy && first(req.headers["x-forwarded-for"])) || address;
  const proto = trustProxy ? first(req.headers["x-forwarded-proto"]) : "";
  req.headers["x-enhydris-scheme"] = proto === "https" || req.socket.encrypted ? "https" : "http";
  const url = req.url ?? "/";
  const q = url.indexOf("?");
  const path = q < 0 ? url : url.slice(0, q);
  securityHeaders(res, path);
  if (undecodable(path)) {
    const json = /^\/(api|timeseries)\//.test(path);
    res.writeHead(404, { "Content-Type": json ? "application/json" : "text/plain; charset=utf-8" });
    res.end(json ? '{"detail":"Not found."}' : "Not found.");
    return;
  }
  if (needsSlash(path)) {
    res.writeHead(308, { Location: `${path}/${q < 0 ? "" : url.slice(q)}` });
    res.end();
    return;
  }
  const router = routerFor(path);
  if (router) {
    dispatch(router, req, res).catch((error) => failed(res, error));
    return;
  }
  restoreContentLength(res);
  handle(req, res).catch((error) => failed(res, error));
});
server.keepAliveTimeout = 65_000;
server.requestTimeout = 0;
server.listen(port, hostname, () => {
  console.log(`Enhydris listening on http://${hostname === "0.0.0.0" ? "localhost" : hostname}:${port}/ (${dev ? "development" : "production"})`);
  // Load the API's route bundles and the pages' shared runtime now (start-up work included),
  // not on the first real request.
  const local = hostname === "0.0.0.0" ? "127.0.0.1" : hostname;
  for (const path of ["/api/", "/timeseries/data/", ...(dev ? [] : ["/accounts/login/"])]) {
    fetch(`http://${local.includes(":") ? `[${local}]` : local}:${port}${path}`).then((r) => r.arrayBuffer(), () => {});
  }
});

// Shutdown: stop accepting, and let the hooks of lib/shutdown.ts (the job runner) finish.
const SHUTDOWN_HOOKS = Symbol.for("enhydris.shutdownHooks");
const within = (promise, ms) => Promise.race([promise, new Promise((resolve) => setTimeout(resolve, ms).unref())]);
let stopping = false;
for (const signal of ["SIGTERM", "SIGINT"]) {
  process.on(signal, () => {
    if (stopping) process.exit(1);
    stopping = true;
    const hooks = (globalThis[SHUTDOWN_HOOKS] ?? []).splice(0).map((hook) =>
      Promise.resolve().then(hook).catch((error) => console.error("shutdown hook failed:", error)));
    Promise.all([within(new Promise((resolve) => server.close(resolve)), 5_000), within(Promise.all(hooks), 25_000)])
      .then(() => process.exit(0));
  });
}
