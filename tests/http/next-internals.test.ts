import { connect } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as f from "@/tests/support/fixtures";
import { api } from "@/tests/support/http";
import { siteLogin } from "@/tests/support/site-session";
import { startServer, type TestServer } from "@/tests/support/server";
import { actionId } from "@/tests/support/site-forms";
import { until } from "@/tests/support/wait";

/**
 * What the server relies on in Next's behaviour rather than its documented API, each piece of
 * lib/server/next-internals.ts against the real build: a Next upgrade that breaks one fails its
 * test here (named by the piece's number in the module's header). The API goes through Next's
 * route handlers (ENHYDRIS_API_THROUGH_NEXT), as in development and before the routers register.
 */
let server: TestServer;
let sid = 0;
let gid = 0;
let fileId = 0;

beforeAll(async () => {
  server = await startServer({ env: { ENHYDRIS_API_THROUGH_NEXT: "true" } });
  sid = await f.station({ name: "Internals" });
  gid = await f.group(sid);
  await f.series(gid);
  fileId = await f.attachment("files", sid, { fileName: "notes.txt", bytes: "thirteen byte" });
}, 180_000);
afterAll(() => server?.stop());

/** The page's HTML and its CSP nonce. */
async function page(path: string): Promise<{ html: string; nonce: string; headers: Headers }> {
  const r = await fetch(`${server.url}${path}`);
  expect(r.status, path).toBe(200);
  const nonce = /'nonce-([^']+)'/.exec(r.headers.get("content-security-policy") ?? "")?.[1];
  expect(nonce, "the response's CSP names a nonce").toBeTruthy();
  return { html: await r.text(), nonce: nonce!, headers: r.headers };
}

describe("what the server relies on in Next", () => {
  it("1. the request handler serves pages, and a request asking for an upgrade is answered as any other, by every worker", async () => {
    // What `curl --http2` sends: a server with an 'upgrade' listener hands such a request to it
    // (Next's, which left it unanswered). Four requests: both workers get two.
    const url = new URL(server.url);
    const upgrade = () => new Promise<string>((resolve, reject) => {
      let text = "";
      const socket = connect(Number(url.port), url.hostname, () => {
        socket.write(`GET /stations/${sid}/ HTTP/1.1\r\nHost: localhost\r\nConnection: Upgrade, HTTP2-Settings\r\nUpgrade: h2c\r\n`
          + "HTTP2-Settings: AAMAAABkAARAAAAAAAIAAAAA\r\n\r\n");
      });
      socket.setTimeout(20_000, () => socket.destroy(new Error(`no answer: ${text}`)));
      socket.on("data", (d) => {
        text += d;
        if (text.includes("\r\n\r\n")) {
          socket.destroy();
          resolve(text.slice(0, text.indexOf("\r\n\r\n")));
        }
      });
      socket.on("error", reject);
    });
    for (let i = 0; i < 4; i++) {
      const head = await upgrade();
      expect(head).toMatch(/^HTTP\/1\.1 200 OK\r\n/);
      expect(head.toLowerCase()).toContain("content-type: text/html");
    }
  });

  it("2. Next puts the nonce of the request's Content-Security-Policy on every script it writes", async () => {
    const { html, nonce } = await page(`/stations/${sid}/`);
    const scripts = html.match(/<script\b[^>]*>/g) ?? [];
    expect(scripts.length).toBeGreaterThan(0);
    for (const tag of scripts) expect(tag).toContain(`nonce="${nonce}"`);
  });

  it("3. the page's chunks, written as async scripts in its head, are started by one loader after the first paint", async () => {
    const { html, nonce } = await page(`/stations/${sid}/`);
    const head = html.slice(0, html.indexOf("</head>"));
    expect(head).not.toMatch(/<script src="\/_next\/static\/[^"]+\.js"[^>]*async/);
    const loader = /<script nonce="([^"]+)">\(function\(s\)\{.*?first-contentful-paint.*?\}\)\((\[[^\]]+\])\)<\/script>/.exec(head);
    expect(loader, "the loader script").not.toBeNull();
    expect(loader![1]).toBe(nonce);
    const chunks = JSON.parse(loader![2]) as string[];
    expect(chunks.length).toBeGreaterThan(0);
    for (const chunk of chunks) expect(chunk).toMatch(/^\/_next\/static\/.+\.js$/);
    // 8. Next's assets are served under /_next/ as they are, never redirected to a slash.
    const asset = await fetch(`${server.url}${chunks[0]}`, { redirect: "manual" });
    expect(asset.status).toBe(200);
  });

  it("3. a management page keeps Next's async scripts: it is worked in; the workbench starts its records worker with the page's nonce", async () => {
    const editor = await f.user({ superuser: true });
    const { jar, error } = await siteLogin(server.url, editor.username, editor.password);
    expect(error).toBeNull();
    const tid = await f.series(gid, { type: "Checked" });
    await f.addRecords(tid, [["2024-01-01 00:00", 1], ["2024-01-01 00:10", 2]]);
    const path = `/manage/stations/${sid}/timeseriesgroups/${gid}/timeseries/${tid}/edit/?start=2024-01-01T00:00:00Z&end=2024-01-02T00:00:00Z`;
    const r = await fetch(`${server.url}${path}`, { headers: { cookie: jar.header() } });
    expect(r.status).toBe(200);
    const nonce = /'nonce-([^']+)'/.exec(r.headers.get("content-security-policy") ?? "")?.[1];
    const html = await r.text();
    const head = html.slice(0, html.indexOf("</head>"));
    expect(head).toMatch(/<script src="\/_next\/static\/[^"]+\.js"[^>]*async/);
    expect(head).not.toContain("first-contentful-paint");
    // The records go to the worker (components/manage/records-loader.ts), asked by an inline
    // script that carries the page's nonce (2.: the page reads it from the same request header).
    const records = `/api/stations/${sid}/timeseriesgroups/${gid}/timeseries/${tid}/data/?start_date=2024-01-01T00%3A00%3A00Z&end_date=2024-01-02T00%3A00%3A00Z&timezone=UTC`;
    const early = /<script nonce="([^"]+)">(\(function\(u,p\)\{[^<]*new Worker\(p\)[^<]*)<\/script>/.exec(html);
    expect(early, "the records worker's start").not.toBeNull();
    expect(early![1]).toBe(nonce);
    expect(early![2]).toContain(JSON.stringify([records, "/_enhydris/records-worker.js"]));
    expect(html).not.toContain(`href="${records.replaceAll("&", "&amp;")}"`);
  });

  it("the records worker's script is served by the server, revalidated by its ETag", async () => {
    const r = await fetch(`${server.url}/_enhydris/records-worker.js`);
    expect(r.status).toBe(200);
    expect(r.headers.get("content-type")).toBe("text/javascript; charset=utf-8");
    expect(r.headers.get("cache-control")).toBe("public, no-cache");
    const body = await r.text();
    expect(body).toContain("onmessage");
    expect(Number(r.headers.get("content-length"))).toBe(Buffer.byteLength(body));
    const etag = r.headers.get("etag")!;
    expect(etag).toMatch(/^"[\w-]{22}"$/);
    const again = await fetch(`${server.url}/_enhydris/records-worker.js`, { headers: { "If-None-Match": etag } });
    expect(again.status).toBe(304);
    const head = await fetch(`${server.url}/_enhydris/records-worker.js`, { method: "HEAD" });
    expect(head.status).toBe(200);
    expect(await head.text()).toBe("");
    const post = await fetch(`${server.url}/_enhydris/records-worker.js`, { method: "POST", body: "x" });
    expect(post.status).toBe(405);
    expect(post.headers.get("allow")).toBe("GET, HEAD");
    const other = await fetch(`${server.url}/_enhydris/other.js`);
    expect(other.status).toBe(404);
  });

  it("4. a site form whose body Next cannot take is answered 400 (or 413), not with Next's 500", async () => {
    const truncated = '--zz\r\nContent-Disposition: form-data; name="a"\r\n\r\nhalf a val';
    const action = actionId("app/manage/synoptic/actions.ts", "stationChoicesAction");
    const cases: [string, string, Record<string, string>, string][] = [
      ["a truncated multipart body", "/stations/", { "Content-Type": "multipart/form-data; boundary=zz" }, truncated],
      ["a multipart body without its boundary", "/stations/", { "Content-Type": "multipart/form-data" }, "--x\r\nContent-Disposition: form-data\r\n"],
      ["a server action's arguments that are not JSON", "/manage/synoptic/new/", { "Next-Action": action, "Content-Type": "text/plain;charset=UTF-8" }, "garbage"],
    ];
    for (const [label, path, headers, body] of cases) {
      const r = await fetch(`${server.url}${path}`, { method: "POST", headers, body });
      expect(r.status, label).toBe(400);
      expect(await r.text(), label).toBe("Bad request: the form's data could not be read.\n");
      const id = r.headers.get("x-request-id");
      const line = await until(async () => server.output().split("\n").find((l) => l.includes(`"req_id":"${id}","method":"POST"`)), Boolean);
      expect(JSON.parse(line!), label).toMatchObject({ status: 400 });
    }
  });

  it("5. a route's X-Enhydris-Content-Length becomes the Content-Length that Next drops", async () => {
    const r = await api(server.url).get(`/api/stations/${sid}/files/${fileId}/content/`);
    expect(r.status).toBe(200);
    expect(r.text).toBe("thirteen byte");
    expect(r.headers.get("content-length")).toBe("13");
    expect(r.headers.get("x-enhydris-content-length")).toBeNull();
  });

  it("6. the build's routes manifest labels the pages' requests in the metrics by their pattern", async () => {
    await page(`/stations/${sid}/`);
    const metrics = await (await fetch(`${server.url}/metrics`)).text();
    expect(metrics).toMatch(/enhydris_http_requests_total\{[^}]*route="\/stations\/\[sid\]"[^}]*status="200"[^}]*\} [1-9]/);
  });

  it("7. Next's client navigations and server actions are told from plain page loads (the page cache bypasses them)", async () => {
    const path = `/stations/${sid}/timeseriesgroups/${gid}/`;
    // Each worker caches once it has loaded the page's bundle (its first render of it).
    const plain = await until(() => fetch(`${server.url}${path}`).then((r) => r.headers.get("x-enhydris-page-cache")), (h) => h !== "bypass", 30_000, 50);
    expect(plain).toMatch(/^(miss|hit)$/);
    const navigation = await fetch(`${server.url}${path}`, { headers: { RSC: "1", "Next-Router-State-Tree": "%5B%22%22%5D" } });
    expect(navigation.headers.get("x-enhydris-page-cache")).toBe("bypass");
    const prefetch = await fetch(`${server.url}${path}?_rsc=abc12`);
    expect(prefetch.headers.get("x-enhydris-page-cache")).toBe("bypass");
  });
});
