import { ServerResponse, IncomingMessage } from "node:http";
import { Socket } from "node:net";
import { describe, expect, it } from "vitest";
import { deferBodyScripts, deferHeadScripts, deferPageScripts } from "@/lib/server/next-internals";

const HEAD = '<!DOCTYPE html><html lang="en"><head><meta charSet="utf-8"/>'
  + '<script src="/_next/static/chunks/a1.js" async="" nonce="N0=="></script>'
  + '<script src="/_next/static/chunks/b2.js" async="" nonce="N0=="></script>'
  + '<script src="/_next/static/chunks/legacy.js" noModule="" nonce="N0=="></script>'
  + '<style>body{margin:0}</style>'
  + '<script src="/_next/static/chunks/c3.js" nonce="N0==" async=""></script>';

const LOADER = '<script nonce="N0==">(function(s){var d=0;function load(u){var e=document.createElement("script");e.src=u;e.async=true;document.head.appendChild(e)}'
  + 'function go(){if(d)return;d=1;s.forEach(load);(window.__enhydrisLate||[]).forEach(load);window.__enhydrisLate={push:load}}'
  + 'function painted(){var P=window.PerformanceObserver;if(!P||(P.supportedEntryTypes||[]).indexOf("paint")<0)return 0;'
  + 'new P(function(l,o){if(l.getEntriesByName("first-contentful-paint").length){o.disconnect();go()}}).observe({type:"paint",buffered:true});return 1}'
  + 'function later(){if(document.visibilityState==="hidden")return go();document.addEventListener("visibilitychange",go);setTimeout(go,2000);'
  + 'if(!painted())requestAnimationFrame(function(){requestAnimationFrame(go)})}'
  + 'if(document.readyState==="loading")document.addEventListener("DOMContentLoaded",later);else later()})'
  + '(["/_next/static/chunks/a1.js","/_next/static/chunks/b2.js","/_next/static/chunks/c3.js"])</script>';

describe("deferBodyScripts", () => {
  it("queues the body's async Next scripts for the head's loader, each with its nonce; other scripts stay", () => {
    const body = '<div>x</div><script src="/_next/static/chunks/late.js" nonce="N0==" async=""></script><script src="/other.js" async=""></script>';
    expect(deferBodyScripts(body)).toBe('<div>x</div><script nonce="N0==">(window.__enhydrisLate=window.__enhydrisLate||[]).push("/_next/static/chunks/late.js")</script><script src="/other.js" async=""></script>');
  });
});

describe("deferHeadScripts", () => {
  it("replaces the head's async Next scripts by one loader with their nonce, where the first one was", () => {
    expect(deferHeadScripts(HEAD)).toBe('<!DOCTYPE html><html lang="en"><head><meta charSet="utf-8"/>' + LOADER
      + '<script src="/_next/static/chunks/legacy.js" noModule="" nonce="N0=="></script><style>body{margin:0}</style>');
  });

  it("leaves a head without async Next scripts, or with several nonces, as it is", () => {
    expect(deferHeadScripts("<head><title>x</title>")).toBe("<head><title>x</title>");
    const mixed = HEAD.replace('b2.js" async="" nonce="N0=="', 'b2.js" async="" nonce="other"');
    expect(deferHeadScripts(mixed)).toBe(mixed);
    const foreign = '<head><script src="https://example.com/_next/static/x.js" async="" nonce="N0=="></script>';
    expect(deferHeadScripts(foreign)).toBe(foreign);
  });
});

/** A response on a socket-less writable: what deferPageScripts passes on to the real write/end. */
function response(headers: Record<string, string>) {
  const res = new ServerResponse(new IncomingMessage(new Socket()));
  for (const [k, v] of Object.entries(headers)) res.setHeader(k, v);
  const sent: Buffer[] = [];
  res.write = ((chunk: string | Buffer, ...rest: unknown[]) => {
    sent.push(Buffer.from(chunk));
    const cb = rest.find((r) => typeof r === "function") as (() => void) | undefined;
    cb?.();
    return true;
  }) as typeof res.write;
  res.end = ((chunk?: string | Buffer) => {
    if (chunk !== undefined && typeof chunk !== "function") sent.push(Buffer.from(chunk));
    sent.push(Buffer.from("<END>"));
    return res;
  }) as typeof res.end;
  deferPageScripts(res);
  return { res, text: () => Buffer.concat(sent).toString("utf8"), writes: () => sent.length };
}

describe("deferPageScripts", () => {
  const body = "</head><body><p>Ελληνικά</p></body></html>";

  it("rewrites a chunked HTML page's head across writes, bytes of a split character included", () => {
    const { res, text } = response({ "Content-Type": "text/html; charset=utf-8" });
    const whole = Buffer.from(HEAD + body, "utf8");
    const cut = whole.indexOf("<p>") + 4; // inside the first Greek letter (two bytes)
    const parts = [whole.subarray(0, 20), whole.subarray(20, cut), whole.subarray(cut)];
    expect(parts[1].subarray(-1).toString("utf8")).toBe("\ufffd");
    for (const p of parts) res.write(p);
    res.end();
    expect(text()).toBe(deferHeadScripts(HEAD) + body + "<END>");
  });

  it("rewrites a page written whole by end()", () => {
    const { res, text } = response({ "Content-Type": "text/html; charset=utf-8" });
    res.end(HEAD + body);
    expect(text()).toBe(deferHeadScripts(HEAD) + body + "<END>");
  });

  it("passes other responses through untouched: not HTML, or with a Content-Length", () => {
    const cases: Record<string, string>[] = [{ "Content-Type": "text/x-component" }, { "Content-Type": "text/html", "Content-Length": "999" }];
    for (const headers of cases) {
      const { res, text, writes } = response(headers);
      res.write(HEAD);
      res.write(body);
      res.end();
      expect(text()).toBe(HEAD + body + "<END>");
      expect(writes()).toBe(3);
    }
  });
});
