import { IncomingMessage, ServerResponse } from "node:http";
import { nonceOf } from "@/lib/http/security-headers.mjs";
import { Socket } from "node:net";
import { describe, expect, it } from "vitest";
import {
  cacheableGroupPage, capturePage, cookieNames, hasCsrfCookie, joinWithNonce, onlyCsrfCookies, replayableHeaders, servePage, splitOnNonce,
} from "@/lib/server/page-cache";
import { deferHeadScripts, deferPageScripts } from "@/lib/server/next-internals";
import { bridge } from "@/lib/runtime/bridge";
import type { PageCacheRegistration } from "@/lib/site/page-cache";

const PAGE = "/stations/12/timeseriesgroups/34/";
const get = (headers: Record<string, string> = {}, method = "GET") => ({ method, headers });

describe("cacheableGroupPage", () => {
  it("takes anonymous plain GETs of a group page, with any query string", () => {
    expect(cacheableGroupPage(get(), PAGE, "")).toEqual({ stationId: 12, groupId: 34, locale: "en" });
    expect(cacheableGroupPage(get(), PAGE, "?series=5&start=2020-01-01")).toEqual({ stationId: 12, groupId: 34, locale: "en" });
    expect(cacheableGroupPage(get(), "/stations/2147483647/timeseriesgroups/1/", "")).toEqual({ stationId: 2147483647, groupId: 1, locale: "en" });
    const harmless = "csrftoken=abc; next-auth.csrf-token=x%7Cy; __Host-next-auth.csrf-token=z; __Secure-next-auth.callback-url=https%3A%2F%2Fsite%2F; next-auth.callback-url=u";
    expect(cacheableGroupPage(get({ cookie: harmless }), PAGE, "")).toEqual({ stationId: 12, groupId: 34, locale: "en" });
  });

  it("names the page's language: the switcher's cookie, else Accept-Language (public.md §3)", () => {
    const locale = (headers: Record<string, string>) => cacheableGroupPage(get(headers), PAGE, "")?.locale;
    expect(locale({ "accept-language": "el-GR,el;q=0.9,en;q=0.8" })).toBe("el");
    expect(locale({ "accept-language": "fr, en;q=0.5" })).toBe("en");
    expect(locale({ cookie: "csrftoken=abc; enhydris_language=el" })).toBe("el");
    expect(locale({ cookie: "enhydris_language=en", "accept-language": "el" })).toBe("en");
    expect(locale({ cookie: "enhydris_language=xx", "accept-language": "el" })).toBe("el");
  });

  it("leaves everything else to Next", () => {
    const refused: [ReturnType<typeof get>, string, string][] = [
      [get({}, "HEAD"), PAGE, ""],
      [get({}, "POST"), PAGE, ""],
      [get(), "/stations/12/", ""],
      [get(), "/stations/12/timeseriesgroups/34/edit/", ""],
      [get(), "/stations/x/timeseriesgroups/34/", ""],
      [get(), "/stations/12/timeseriesgroups/2147483648/", ""],
      [get(), "/stations/99999999999/timeseriesgroups/34/", ""],
      [get({ rsc: "1" }), PAGE, ""],
      [get(), PAGE, "?_rsc=1ab2c"],
      [get({ "next-action": "abc" }), PAGE, ""],
      [get({ "next-router-prefetch": "1" }), PAGE, ""],
      [get({ "next-router-state-tree": "%5B%5D" }), PAGE, ""],
      [get({ authorization: "Token abc" }), PAGE, ""],
      [get({ cookie: "next-auth.session-token=abc" }), PAGE, ""],
      [get({ cookie: "__Secure-next-auth.session-token=abc" }), PAGE, ""],
      [get({ cookie: "next-auth.session-token.0=abc" }), PAGE, ""],
      [get({ cookie: "enhydris_read_after=0/16B3748" }), PAGE, ""],
      [get({ cookie: "csrftoken=abc; theme=dark" }), PAGE, ""],
      [get({ cookie: "garbage" }), PAGE, ""],
    ];
    for (const [req, path, search] of refused) expect(cacheableGroupPage(req, path, search), JSON.stringify([req, path, search])).toBeNull();
  });
});

describe("cookies", () => {
  it("names the cookies of a header, null for a part that is not name=value", () => {
    expect(cookieNames(undefined)).toEqual([]);
    expect(cookieNames("a=1; b=2;")).toEqual(["a", "b"]);
    expect(cookieNames(["a=1", "c=3"])).toEqual(["a", "c"]);
    expect(cookieNames("a=1; b")).toBeNull();
    expect(hasCsrfCookie("x=1; csrftoken=abc")).toBe(true);
    expect(hasCsrfCookie("xcsrftoken=abc")).toBe(false);
  });

  it("keeps a response whose only cookies are csrftoken ones", () => {
    expect(onlyCsrfCookies(undefined)).toBe(true);
    expect(onlyCsrfCookies("csrftoken=abc; Path=/")).toBe(true);
    expect(onlyCsrfCookies(["csrftoken=abc; Path=/", "next-auth.session-token=x"])).toBe(false);
    expect(onlyCsrfCookies("enhydris_read_after=0/1; Path=/")).toBe(false);
  });
});

describe("the nonce", () => {
  it("is read from the policy", () => {
    expect(nonceOf("default-src 'self'; script-src 'self' 'nonce-ab+/Cd=='; style-src 'self'")).toBe("ab+/Cd==");
    expect(nonceOf("default-src 'self'")).toBeNull();
    expect(nonceOf(undefined)).toBeNull();
  });

  it("is cut out at every occurrence and put back fresh", () => {
    const body = Buffer.from('<script nonce="N+/=">1</script>Ελληνικά<script nonce="N+/=">2</script>N+/=', "utf8");
    const parts = splitOnNonce(body, "N+/=");
    expect(parts.map((p) => p.toString("utf8"))).toEqual(['<script nonce="', '">1</script>Ελληνικά<script nonce="', '">2</script>', ""]);
    expect(joinWithNonce(parts, "N+/=").equals(body)).toBe(true);
    expect(joinWithNonce(parts, "fresh").toString("utf8")).toBe('<script nonce="fresh">1</script>Ελληνικά<script nonce="fresh">2</script>fresh');
    expect(splitOnNonce(Buffer.from("no nonce"), "N+/=")).toHaveLength(1);
  });
});

describe("replayableHeaders", () => {
  it("drops the headers of one request only", () => {
    expect(replayableHeaders({
      "content-type": "text/html; charset=utf-8", vary: "rsc", "cache-control": "private", "x-frame-options": "DENY",
      "content-security-policy": "script-src 'nonce-x'", date: "now", "set-cookie": ["csrftoken=1"], "x-request-id": "r",
      connection: "keep-alive", "transfer-encoding": "chunked", "content-length": "9", "strict-transport-security": "max-age=1",
      "x-enhydris-page-cache": "miss", "x-numbers": 5,
    })).toEqual([["content-type", "text/html; charset=utf-8"], ["vary", "rsc"], ["cache-control", "private"], ["x-frame-options", "DENY"], ["x-numbers", "5"]]);
  });
});

/** A response whose real write/end record what is sent (behind deferPageScripts, as in server.mjs). */
function response(headers: Record<string, string | string[]>, status = 200) {
  const res = new ServerResponse(new IncomingMessage(new Socket()));
  res.statusCode = status;
  for (const [k, v] of Object.entries(headers)) res.setHeader(k, v);
  const sent: Buffer[] = [];
  res.write = ((chunk: string | Buffer) => {
    sent.push(Buffer.from(chunk));
    return true;
  }) as typeof res.write;
  res.end = ((chunk?: string | Buffer) => {
    if (chunk !== undefined && typeof chunk !== "function") sent.push(Buffer.from(chunk));
    res.emit("finish");
    return res;
  }) as typeof res.end;
  const stored: { status: number; headers: [string, string | string[]][]; parts: Buffer[]; size: number }[] = [];
  capturePage(res, "N0==", (page) => stored.push(page));
  deferPageScripts(res);
  return { res, stored, sent: () => Buffer.concat(sent) };
}

const HTML = { "Content-Type": "text/html; charset=utf-8" };
const HEAD = '<!DOCTYPE html><html><head><script src="/_next/static/chunks/a1.js" async="" nonce="N0=="></script></head>';
const BODY = '<body><script nonce="N0==">x</script>Ελληνικά</body></html>';

describe("capturePage", () => {
  it("keeps the bytes as sent, after the scripts' rewrite, cut at the nonce", () => {
    const { res, stored, sent } = response(HTML);
    res.write(HEAD.slice(0, 30));
    res.write(Buffer.from(HEAD.slice(30) + BODY, "utf8"));
    res.end();
    expect(sent().toString("utf8")).toBe(deferHeadScripts(HEAD) + BODY);
    expect(stored).toHaveLength(1);
    expect(joinWithNonce(stored[0].parts, "N0==").equals(sent())).toBe(true);
    expect(stored[0].size).toBe(sent().length);
    expect(stored[0].headers).toEqual([["content-type", "text/html; charset=utf-8"]]);
  });

  it("keeps nothing personal or unusual", () => {
    const cases: [Record<string, string | string[]>, number, string][] = [
      [{ ...HTML, "Set-Cookie": "next-auth.session-token=x" }, 200, HEAD + BODY],
      [HTML, 404, HEAD + BODY],
      [{ "Content-Type": "text/x-component" }, 200, HEAD + BODY],
      [{ ...HTML, "Content-Encoding": "gzip" }, 200, HEAD + BODY],
      [HTML, 200, "<html><head></head><body>no nonce</body></html>"],
    ];
    for (const [headers, status, text] of cases) {
      const { res, stored } = response(headers, status);
      res.end(text);
      expect(stored, JSON.stringify(headers)).toEqual([]);
    }
    const { res, stored } = response({ ...HTML, "Set-Cookie": "csrftoken=abc; Path=/" });
    res.end(HEAD + BODY);
    expect(stored).toHaveLength(1);
    expect(stored[0].headers.some(([name]) => name === "set-cookie")).toBe(false);
  });

  it("keeps nothing of a response that did not end", () => {
    const { res, stored } = response(HTML);
    res.write(HEAD + BODY);
    res.emit("finish");
    expect(stored).toEqual([]);
  });
});

describe("servePage", () => {
  const request = { url: "/stations/1/timeseriesgroups/2/", host: "site", https: false };
  const page = { stationId: 1, groupId: 2, locale: "en" as const };

  /** A response with a policy nonce whose end() records what is sent. */
  function reply(nonce: string) {
    const res = new ServerResponse(new IncomingMessage(new Socket()));
    res.setHeader("Content-Security-Policy", `script-src 'self' 'nonce-${nonce}'`);
    let sent: Buffer | null = null;
    res.end = ((chunk?: Buffer) => {
      sent = chunk ?? Buffer.alloc(0);
      return res;
    }) as typeof res.end;
    return { res, sent: () => sent };
  }

  it("lets Next render when nothing is registered, or the key cannot be read", async () => {
    bridge().pageCache = null;
    let rendered = 0;
    const render = async () => void rendered++;
    const a = reply("A");
    await servePage({ headers: {} } as IncomingMessage, a.res, page, request, render);
    expect(a.res.getHeader("X-Enhydris-Page-Cache")).toBe("bypass");
    bridge().pageCache = { groupPageKey: () => Promise.reject(new Error("database away")), store: new Map(), csrfCookie: () => "csrftoken=x" } as unknown as PageCacheRegistration;
    const b = reply("B");
    await servePage({ headers: {} } as IncomingMessage, b.res, page, request, render);
    expect(b.res.getHeader("X-Enhydris-Page-Cache")).toBe("bypass");
    expect(rendered).toBe(2);
    bridge().pageCache = null;
  });

  it("answers a hit with the request's nonce, the kept headers and a csrftoken cookie when it has none", async () => {
    const store = new Map<string, unknown>();
    store.set("http://site/stations/1/timeseriesgroups/2/\nen\nK1", {
      status: 200, headers: [["content-type", "text/html; charset=utf-8"], ["vary", "rsc"]], parts: [Buffer.from('<script nonce="'), Buffer.from('">1</script>')], size: 27,
    });
    bridge().pageCache = { groupPageKey: async () => "K1", store, csrfCookie: (secure: boolean) => `csrftoken=new${secure ? "; Secure" : ""}` } as unknown as PageCacheRegistration;
    const render = async () => {
      throw new Error("not rendered on a hit");
    };
    const a = reply("FRESH");
    await servePage({ headers: {} } as IncomingMessage, a.res, page, request, render);
    expect(a.sent()!.toString()).toBe('<script nonce="FRESH">1</script>');
    expect(a.res.statusCode).toBe(200);
    expect(a.res.getHeader("X-Enhydris-Page-Cache")).toBe("hit");
    expect(a.res.getHeader("vary")).toBe("rsc");
    expect(a.res.getHeader("content-length")).toBe(32);
    expect([a.res.getHeader("set-cookie")].flat()).toEqual(["csrftoken=new"]);
    const b = reply("OTHER");
    await servePage({ headers: { cookie: "csrftoken=mine" } } as unknown as IncomingMessage, b.res, page, request, render);
    expect(b.sent()!.toString()).toBe('<script nonce="OTHER">1</script>');
    expect(b.res.getHeader("set-cookie")).toBeUndefined();
    // The same page in another language is another entry: rendered.
    let renderedGreek = 0;
    const greek = reply("G");
    await servePage({ headers: {} } as IncomingMessage, greek.res, { ...page, locale: "el" }, request, async () => void renderedGreek++);
    expect(renderedGreek).toBe(1);
    expect(greek.res.getHeader("X-Enhydris-Page-Cache")).toBe("miss");
    // Another key (something changed): rendered, and marked as a miss.
    bridge().pageCache = { groupPageKey: async () => "K2", store, csrfCookie: () => "csrftoken=x" } as unknown as PageCacheRegistration;
    let rendered = 0;
    const c = reply("C");
    await servePage({ headers: {} } as IncomingMessage, c.res, page, request, async () => void rendered++);
    expect(rendered).toBe(1);
    expect(c.res.getHeader("X-Enhydris-Page-Cache")).toBe("miss");
    bridge().pageCache = null;
  });
});
