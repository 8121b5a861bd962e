// The 403 and 404 pages of the site, drawn on the server. Plain JavaScript: server.mjs applies it
// to the HTML that Next writes.
//
// A page that calls forbidden() or notFound() gets from Next, when it is requested as HTML, only
// an empty shell (<html id="__next_error__"> with an empty body): React's server rendering runs no
// error boundary, so app/forbidden.tsx and app/not-found.tsx are drawn by the page's scripts, from
// the RSC payload, after they have loaded (vercel/next.js#62228). The user saw a blank page, then
// an unstyled one (the inline stylesheet is not in the shell), and nothing at all without
// JavaScript. Such a response's body is replaced here by the page that lib/site/refusals.ts draws
// (the same words, in the layout's header and footer, styled); its status and headers stay.

const SHELL = '<html id="__next_error__"';
/** Enough of the start of the body to tell: "<!DOCTYPE html>" and the html tag. */
const LOOK = 256;
/** Registered by lib/site/refusals.ts once the site's bundle has loaded. */
const RENDERER = Symbol.for("enhydris.refusalDocument");

/**
 * @param {import("node:http").ServerResponse} res
 * @param {{ path: string, cookie: string, log: { error: (message: string) => void } }} request
 */
export function replaceErrorShells(res, request) {
  const write = res.write;
  const end = res.end;
  /** null: not decided yet; "pass": Next's body goes out; "ours": it is dropped for ours. */
  let mode = null;
  let held = [];
  let size = 0;

  const refusal = () => {
    const status = res.statusCode;
    const type = String(res.getHeader("content-type") ?? "");
    return (status === 403 || status === 404) && type.startsWith("text/html") && typeof globalThis[RENDERER] === "function";
  };
  /** Takes a chunk while undecided; true once decided. */
  const take = (chunk, encoding) => {
    const bytes = typeof chunk === "string" ? Buffer.from(chunk, typeof encoding === "string" ? encoding : "utf8") : Buffer.from(chunk);
    held.push(bytes);
    size += bytes.length;
    const start = Buffer.concat(held, size).subarray(0, LOOK).toString("latin1");
    if (start.includes(SHELL)) mode = "ours";
    else if (size >= LOOK || start.includes("<html")) mode = "pass";
    return mode !== null;
  };
  const release = () => {
    const bytes = Buffer.concat(held, size);
    held = [];
    return bytes;
  };

  res.write = function (chunk, encoding, callback) {
    if (mode === null && !refusal()) mode = "pass";
    if (mode === "pass") return write.call(this, chunk, encoding, callback);
    const done = typeof encoding === "function" ? encoding : callback;
    if (mode === null && take(chunk, encoding) && mode === "pass") return write.call(this, release(), done);
    // Held (or dropped): taken at once, as far as Next can tell.
    if (typeof done === "function") queueMicrotask(done);
    return true;
  };

  res.end = function (chunk, encoding, callback) {
    const done = [chunk, encoding, callback].find((a) => typeof a === "function");
    if (mode === "pass" || (mode === null && !refusal())) return end.call(this, chunk, encoding, callback);
    if (chunk !== undefined && chunk !== null && typeof chunk !== "function") take(chunk, encoding);
    if (mode !== "ours") {
      end.call(this, release(), done);
      return this;
    }
    held = [];
    const status = res.statusCode;
    Promise.resolve()
      .then(() => globalThis[RENDERER](status, request.path, request.cookie))
      .catch((error) => {
        request.log.error(`the ${status} page could not be drawn: ${error instanceof Error ? error.stack ?? error.message : String(error)}`);
        return `<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>${status === 403 ? "Not allowed" : "Page not found"}</title><link rel="stylesheet" href="/site.css"></head>`
          + `<body><main class="site-main narrow"><div class="card"><h1>${status === 403 ? "Not allowed" : "Page not found"} (${status})</h1><p><a href="/">Back to the site</a></p></div></main></body></html>`;
      })
      .then((html) => end.call(res, res.headersSent ? html : withLength(res, html), done));
    return this;
  };
}

/** Sets the length of a body whose head has not gone out yet (Next had written nothing of it). */
function withLength(res, html) {
  res.removeHeader("transfer-encoding");
  res.setHeader("Content-Length", Buffer.byteLength(html));
  return html;
}
