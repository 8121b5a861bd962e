// The 403 and 404 pages of the site, drawn on the server: the server (lib/server/serve.ts) applies
// it to the HTML that Next writes. It relies on Next's error shell (tested by
// tests/e2e/newcomer-manage.spec.ts: a 403 page styled with JavaScript off).
//
// A page that calls forbidden() or notFound() gets from Next, when it is requested as HTML, only
// an empty shell (<html id="__next_error__"> with an empty body): React's server rendering runs no
// error boundary, so app/forbidden.tsx and app/not-found.tsx are drawn by the page's scripts, from
// the RSC payload, after they have loaded (vercel/next.js#62228). The user saw a blank page, then
// an unstyled one (the inline stylesheet is not in the shell), and nothing at all without
// JavaScript. Such a response's body is replaced here by the page that lib/frontend/refusals.ts draws
// (the same words, in the layout's header and footer, styled); its status and headers stay.

import type { ServerResponse } from "node:http";
import type { Logger } from "pino";
import { localeOfHeaders, translator } from "@/lib/i18n";
import { bridge } from "@/lib/runtime/bridge";

const SHELL = '<html id="__next_error__"';
/** Enough of the start of the body to tell: "<!DOCTYPE html>" and the html tag. */
const LOOK = 256;
type Encoding = BufferEncoding | ((error?: Error | null) => void) | undefined;
type Done = ((error?: Error | null) => void) | undefined;

/** Replaces the body of Next's empty 403/404 shell by the page bridge().refusalDocument draws (lib/frontend/refusals.ts). */
export function replaceErrorShells(res: ServerResponse, request: { path: string; cookie: string; acceptLanguage?: string; log: Pick<Logger, "error"> }): void {
  const write = res.write;
  const end = res.end;
  /** null: not decided yet; "pass": Next's body goes out; "ours": it is dropped for ours. */
  let mode: "pass" | "ours" | null = null;
  let held: Buffer[] = [];
  let size = 0;

  const refusal = () => {
    const status = res.statusCode;
    const type = String(res.getHeader("content-type") ?? "");
    return (status === 403 || status === 404) && type.startsWith("text/html") && bridge().refusalDocument !== null;
  };
  /** Takes a chunk while undecided; true once decided. */
  const take = (chunk: string | Uint8Array, encoding: Encoding) => {
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

  // Next calls write and end with every overload's arguments: they are passed on as they came.
  const rawWrite = write as unknown as (this: ServerResponse, chunk: unknown, encoding?: unknown, callback?: unknown) => boolean;
  const rawEnd = end as unknown as (this: ServerResponse, chunk?: unknown, encoding?: unknown, callback?: unknown) => ServerResponse;
  res.write = function (this: ServerResponse, chunk: string | Uint8Array, encoding?: Encoding, callback?: Done) {
    if (mode === null && !refusal()) mode = "pass";
    if (mode === "pass") return rawWrite.call(this, chunk, encoding, callback);
    const done = typeof encoding === "function" ? encoding : callback;
    // take() decides the mode: TypeScript's narrowing above does not see it change.
    if (mode === null && take(chunk, encoding) && (mode as "pass" | "ours" | null) === "pass") return rawWrite.call(this, release(), done);
    // Held (or dropped): taken at once, as far as Next can tell.
    if (typeof done === "function") queueMicrotask(() => done());
    return true;
  } as ServerResponse["write"];

  res.end = function (this: ServerResponse, chunk?: string | Uint8Array | Done, encoding?: Encoding, callback?: Done) {
    const done = [chunk, encoding, callback].find((a) => typeof a === "function") as Done;
    if (mode === "pass" || (mode === null && !refusal())) return rawEnd.call(this, chunk, encoding, callback);
    if (chunk !== undefined && chunk !== null && typeof chunk !== "function") take(chunk, encoding);
    if (mode !== "ours") {
      rawEnd.call(this, release(), done);
      return this;
    }
    held = [];
    const status = res.statusCode;
    Promise.resolve()
      .then(() => bridge().refusalDocument!(status as 403 | 404, request.path, request.cookie, request.acceptLanguage))
      .catch((error) => {
        request.log.error(`the ${status} page could not be drawn: ${error instanceof Error ? error.stack ?? error.message : String(error)}`);
        return lastResortPage(status as 403 | 404, request);
      })
      .then((html) => rawEnd.call(res, res.headersSent ? html : withLength(res, html), done));
    return this;
  } as ServerResponse["end"];
}

/**
 * The 403 or 404 page when the site's could not be drawn (the database down): its title and a
 * link home, in the language of the cookie or Accept-Language (the account is not known here).
 */
function lastResortPage(status: 403 | 404, request: { cookie: string; acceptLanguage?: string }): string {
  const locale = localeOfHeaders({ cookie: request.cookie, "accept-language": request.acceptLanguage });
  const title = translator(locale, "refusal")(status === 403 ? "forbiddenTitle" : "notFoundTitle");
  return `<!DOCTYPE html><html lang="${locale}"><head><meta charset="utf-8"><title>${title}</title><link rel="stylesheet" href="/site.css"></head>`
    + `<body><main class="site-main narrow"><div class="card"><h1>${title} (${status})</h1><p><a href="/">${translator(locale, "edge")("backToSite")}</a></p></div></main></body></html>`;
}

/** Sets the length of a body whose head has not gone out yet (Next had written nothing of it). */
function withLength(res: ServerResponse, html: string): string {
  res.removeHeader("transfer-encoding");
  res.setHeader("Content-Length", Buffer.byteLength(html));
  return html;
}
