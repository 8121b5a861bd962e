// The site's pages start Next's scripts after their first paint (issue 17, item 3). Plain
// JavaScript: server.mjs applies it to the HTML that Next writes.
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
 * @param {string} head
 * @returns {string}
 */
export function deferHeadScripts(head) {
  const sources = [];
  const nonces = new Set();
  let first = -1;
  const rest = head.replace(ASYNC_SCRIPT, (tag, src, nonceA, nonceB, offset) => {
    if (first < 0) first = offset;
    sources.push(src);
    nonces.add(nonceA ?? nonceB);
    return "";
  });
  if (sources.length === 0 || nonces.size !== 1) return head;
  const [nonce] = nonces;
  const loader = `<script nonce="${nonce}">(function(s){var d=0;function go(){if(d)return;d=1;s.forEach(function(u){var e=document.createElement("script");e.src=u;e.async=true;document.head.appendChild(e)})}`
    + `function painted(){var P=window.PerformanceObserver;if(!P||(P.supportedEntryTypes||[]).indexOf("paint")<0)return 0;`
    + `new P(function(l,o){if(l.getEntriesByName("first-contentful-paint").length){o.disconnect();go()}}).observe({type:"paint",buffered:true});return 1}`
    + `function later(){if(document.visibilityState==="hidden")return go();document.addEventListener("visibilitychange",go);setTimeout(go,2000);`
    + `if(!painted())requestAnimationFrame(function(){requestAnimationFrame(go)})}`
    + `if(document.readyState==="loading")document.addEventListener("DOMContentLoaded",later);else later()})(${JSON.stringify(sources)})</script>`;
  return rest.slice(0, first) + loader + rest.slice(first);
}

/**
 * Rewrites the head of an HTML response written to `res` (a chunked one: a response with a
 * Content-Length is left alone) with deferHeadScripts; the rest passes through unchanged.
 * @param {import("node:http").ServerResponse} res
 */
export function deferPageScripts(res) {
  const write = res.write;
  const end = res.end;
  /** null: not decided yet; true: collecting the head; false: passing through. */
  let collecting = null;
  let parts = [];
  let size = 0;
  const htmlStream = () => {
    const type = String(res.getHeader("content-type") ?? "");
    return type.startsWith("text/html") && res.getHeader("content-length") === undefined;
  };
  /** Adds a chunk; the bytes to send once the head is complete (or too long, or `final`), else null. */
  const take = (chunk, encoding, final) => {
    const bytes = typeof chunk === "string" ? Buffer.from(chunk, typeof encoding === "string" ? encoding : "utf8") : Buffer.from(chunk);
    parts.push(bytes);
    size += bytes.length;
    const all = Buffer.concat(parts, size);
    const at = all.indexOf(HEAD_END);
    if (at < 0 && size < MAX_HEAD && !final) return null;
    collecting = false;
    parts = [];
    if (at < 0) return all;
    return Buffer.concat([Buffer.from(deferHeadScripts(all.subarray(0, at).toString("utf8")), "utf8"), all.subarray(at)]);
  };
  res.write = function (chunk, encoding, callback) {
    if (collecting === null && chunk !== undefined && chunk !== null) collecting = htmlStream();
    if (collecting !== true) return write.call(this, chunk, encoding, callback);
    const cb = typeof encoding === "function" ? encoding : callback;
    const bytes = take(chunk, encoding, false);
    if (bytes === null) {
      if (cb) process.nextTick(cb);
      return true;
    }
    return cb ? write.call(this, bytes, cb) : write.call(this, bytes);
  };
  res.end = function (chunk, encoding, callback) {
    const cb = typeof chunk === "function" ? chunk : typeof encoding === "function" ? encoding : callback;
    const data = typeof chunk === "function" ? undefined : chunk;
    if (collecting === null && data !== undefined && data !== null) collecting = htmlStream();
    if (collecting !== true) return end.call(this, chunk, encoding, callback);
    const bytes = take(data ?? Buffer.alloc(0), typeof encoding === "string" ? encoding : "utf8", true);
    return cb ? end.call(this, bytes, cb) : end.call(this, bytes);
  };
}
