/**
 * The group page's HTML served to anonymous visitors from a per-process cache (issue 17,
 * docs/decisions/0018-page-cache.md): a repeated visit is a hit, identical but for a fresh CSP
 * nonce; every change made through the API shows on the next visit, in whichever of the test
 * server's two worker processes answers it; logged-in users, RSC and other requests bypass it.
 */
import { request } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { api, type TestResponse, NOT_PUBLIC_NOTICE } from "@/tests/support/http";
import * as f from "@/tests/support/fixtures";
import { processesApi, recordLines, runsSettled, seriesApi, upload } from "@/tests/support/processes";
import { startServer, type TestServer } from "@/tests/support/server";
import { siteLogin } from "@/tests/support/site-session";

const CACHE = "x-enhydris-page-cache";

let server: TestServer;
let http: ReturnType<typeof api>;
let admin: f.TestUser;
let editor: f.TestUser;
let sid: number;
let gid: number;
let tid: number;
let unitId: number;
let variableId: number;
let page: string;

beforeAll(async () => {
  // Two worker processes (whatever TEST_WORKERS says): each has its own cache.
  server = await startServer({ env: { ENHYDRIS_WORKERS: "2" } });
  http = api(server.url);
  admin = await f.user({ superuser: true });
  editor = await f.user({});
  sid = await f.station({ name: "Paged Station", displayTimezone: "UTC" }, editor.id);
  variableId = await f.variable("Rainfall depth");
  unitId = await f.unit("mm", [variableId], "millimetres");
  gid = await f.group(sid, { name: "Rain gauge", precision: 2, unitId, variableId });
  tid = await f.series(gid, { type: "Initial", timeStep: "10min", publiclyAvailable: true });
  await upload(http, admin.token, seriesApi(sid, gid, tid), recordLines("2020-01-01T00:00:00Z", [1.25, 2.5, 3.75]));
  page = `/stations/${sid}/timeseriesgroups/${gid}/`;
});
afterAll(() => server?.stop());

function nonceOf(r: TestResponse): string {
  const m = /'nonce-([^']+)'/.exec(r.headers.get("content-security-policy") ?? "");
  expect(m, "the page's policy has a nonce").not.toBeNull();
  return m![1];
}

/** The HTML with its nonce taken out, after checking that every nonce in it is the policy's. */
function withoutNonce(r: TestResponse): string {
  const nonce = nonceOf(r);
  const nonces = [...r.text.matchAll(/nonce="([^"]*)"/g)].map((m) => m[1]);
  expect(nonces.length).toBeGreaterThan(0);
  for (const n of nonces) expect(n).toBe(nonce);
  return r.text.split(nonce).join("NONCE");
}

/** Anonymous visits (with the csrftoken cookie a browser has after its first) until one is a hit; the hit. */
async function hit(path = page, headers: Record<string, string> = { Cookie: "csrftoken=abcdefghijabcdefghijabcdefghij12" }): Promise<TestResponse> {
  for (let i = 0; i < 12; i++) {
    const r = await http.get(path, { headers });
    expect(r.status).toBe(200);
    if (r.headers.get(CACHE) === "hit") return r;
  }
  throw new Error(`no hit for ${path}`);
}

/** A GET on a connection of its own: the server's primary hands each connection to its workers in turn. */
function freshGet(path: string, headers: Record<string, string>): Promise<TestResponse> {
  const url = new URL(server.url + path);
  return new Promise((resolve, reject) => {
    const req = request({ host: url.hostname, port: url.port, path: url.pathname + url.search, headers, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", () => {
        const h = new Headers();
        for (const [k, v] of Object.entries(res.headers)) if (v !== undefined) for (const x of [v].flat()) h.append(k, x);
        resolve({ status: res.statusCode ?? 0, headers: h, text: Buffer.concat(chunks).toString("utf8"), json: undefined });
      });
    });
    req.on("error", reject);
    req.end();
  });
}

/**
 * Anonymous visits right after a change, each on a new connection, so that both worker processes
 * answer several: each must show the current content, and each worker renders it afresh once
 * (two misses at least: a cache of one process would miss once), then serves it from its cache.
 */
async function visits(path = page): Promise<TestResponse[]> {
  const out: TestResponse[] = [];
  for (let i = 0; i < 8; i++) {
    const r = await freshGet(path, { Cookie: "csrftoken=abcdefghijabcdefghijabcdefghij12" });
    expect(r.status).toBe(200);
    out.push(r);
  }
  const kinds = out.map((r) => r.headers.get(CACHE));
  expect(kinds.filter((k) => k === "miss").length, kinds.join()).toBeGreaterThanOrEqual(2);
  expect(kinds.slice(-2), kinds.join()).toEqual(["hit", "hit"]);
  return out;
}

describe("anonymous visits", () => {
  it("are served from the cache: the page as rendered, with a fresh nonce equal to the policy's", async () => {
    // One worker process: every request reaches the same cache. (Two renderings of a page may
    // order the rows of Next's RSC payload differently; a hit replays the rendering it kept.)
    const one = await startServer({ env: { ENHYDRIS_WORKERS: "1" } });
    try {
      const s = await f.station({ name: "Lone Station" });
      const g = await f.group(s, { name: "Lone group" });
      await f.series(g, { type: "Initial" });
      const web = api(one.url);
      const path = `/stations/${s}/timeseriesgroups/${g}/?start=2020-01-01`;
      const headers = { Cookie: "csrftoken=abcdefghijabcdefghijabcdefghij12" };
      const [first, rendered, cached, again] = [await web.get(path, { headers }), await web.get(path, { headers }), await web.get(path, { headers }), await web.get(path, { headers })];
      // The page's bundle registers the cache when it is first loaded: the first visit renders it without.
      expect([first, rendered, cached, again].map((r) => [r.status, r.headers.get(CACHE)])).toEqual([[200, "bypass"], [200, "miss"], [200, "hit"], [200, "hit"]]);
      expect(rendered.headers.get("transfer-encoding")).toBe("chunked");
      expect(cached.headers.get("content-length")).toBe(String(Buffer.byteLength(cached.text)));
      expect(new Set([rendered, cached, again].map(nonceOf)).size).toBe(3);
      expect(withoutNonce(cached)).toBe(withoutNonce(rendered));
      expect(withoutNonce(again)).toBe(withoutNonce(rendered));
      expect(cached.text).toContain("Lone group");
      // Next's headers are replayed; the per-request ones are this request's.
      expect(cached.headers.get("content-type")).toBe("text/html; charset=utf-8");
      for (const name of ["cache-control", "vary", "x-frame-options", "x-content-type-options", "referrer-policy"]) {
        expect(cached.headers.get(name), name).toBe(rendered.headers.get(name));
      }
      expect(cached.headers.get("content-security-policy")).toBe(rendered.headers.get("content-security-policy")!.replace(nonceOf(rendered), nonceOf(cached)));
      expect(cached.headers.get("x-request-id")).not.toBe(again.headers.get("x-request-id"));
      expect(cached.headers.getSetCookie()).toEqual([]);
    } finally {
      await one.stop();
    }
  });

  it("are served from the cache by each worker", async () => {
    const cached = await hit();
    expect(cached.text).toContain("Rain gauge");
    expect(cached.text).toContain("Paged Station");
  });

  it("without a csrftoken cookie, get one of their own, as from Next", async () => {
    const r = await hit(page, {});
    const cookies = r.headers.getSetCookie();
    expect(cookies).toHaveLength(1);
    expect(cookies[0]).toMatch(/^csrftoken=[A-Za-z0-9]{32}; Path=\/; Max-Age=31536000; SameSite=Lax$/);
    const other = await hit(page, {});
    expect(other.headers.getSetCookie()[0]).not.toBe(cookies[0]);
  });

  it("each query string is its own page", async () => {
    const r = await hit(`${page}?start=2020-01-01T00:10`);
    expect(withoutNonce(r)).not.toBe(withoutNonce(await hit()));
  });
});

describe("changes through the API show on the next anonymous visit", () => {
  it("records uploaded: the chart and the dates", async () => {
    await hit();
    await upload(http, admin.token, seriesApi(sid, gid, tid), recordLines("2031-05-06T07:00:00Z", [987.25]));
    for (const r of await visits()) {
      expect(r.text).toContain("2031-05-06 07:00");
      expect(r.text).toContain("987.25");
    }
    await hit();
  });

  it("the group, the station and the variable renamed, the unit's symbol edited", async () => {
    await hit();
    const changes: [string, Record<string, unknown>, string][] = [
      [`/api/stations/${sid}/timeseriesgroups/${gid}/`, { name: "Renamed gauge" }, "Renamed gauge"],
      [`/api/stations/${sid}/`, { name: "Renamed station" }, "Renamed station"],
      [`/api/variables/${variableId}/`, { descr: "Precipitation" }, "Precipitation"],
      [`/api/units/${unitId}/`, { symbol: "inch" }, "in inch"],
    ];
    for (const [path, json, shown] of changes) {
      const r = await http.patch(path, { token: admin.token, json });
      expect(r.status, `${path}: ${r.text}`).toBe(200);
      for (const v of await visits()) expect(v.text, path).toContain(shown);
      await hit();
    }
  });

  it("the series made private: no chart and no download for anonymous visitors", async () => {
    const before = await hit();
    expect(before.text).toContain("987.25");
    const r = await http.patch(seriesApi(sid, gid, tid), { token: admin.token, json: { publicly_available: false } });
    expect(r.status, r.text).toBe(200);
    for (const v of await visits()) {
      expect(v.text).toContain(NOT_PUBLIC_NOTICE);
      expect(v.text).not.toContain("987.25");
      expect(v.text).toContain(">private<");
    }
    await hit();
    expect((await http.patch(seriesApi(sid, gid, tid), { token: admin.token, json: { publicly_available: true } })).status).toBe(200);
    for (const v of await visits()) expect(v.text).toContain("987.25");
  });

  it("a process added, run and removed", async () => {
    await hit();
    const created = await http.post(processesApi(sid, gid), { token: admin.token, json: { type: "aggregation", target_time_step: "1h", method: "mean", max_missing: 5 } });
    expect(created.status, created.text).toBe(201);
    const id = (created.json as { id: number }).id;
    await runsSettled();
    for (const v of await visits()) {
      expect(v.text).toContain(`data-process="${id}"`);
      expect(v.text).toContain("last successful run");
    }
    await hit();
    const patched = await http.patch(`${processesApi(sid, gid)}${id}/`, { token: admin.token, json: { enabled: false } });
    expect(patched.status, patched.text).toBe(200);
    for (const v of await visits()) expect(v.text).toContain("(disabled)");
    await hit();
    expect((await http.delete(`${processesApi(sid, gid)}${id}/`, { token: admin.token })).status).toBe(204);
    for (const v of await visits()) expect(v.text).not.toContain(`data-process="${id}"`);
  });
});

describe("what bypasses the cache", () => {
  it("a logged-in editor gets his own page, and does not change the anonymous one", async () => {
    const anonymous = withoutNonce(await hit());
    expect(anonymous).not.toContain(`/manage/stations/${sid}/timeseriesgroups/${gid}/`);
    const { jar, error } = await siteLogin(server.url, editor.username, editor.password);
    expect(error).toBeNull();
    for (let i = 0; i < 4; i++) {
      const r = await http.get(page, { headers: { Cookie: jar.header() } });
      expect(r.status).toBe(200);
      expect(r.headers.get(CACHE)).toBe("bypass");
      expect(r.text).toContain(`href="/manage/stations/${sid}/timeseriesgroups/${gid}/"`);
      expect(r.text).toContain(editor.username);
    }
    const after = await hit();
    expect(withoutNonce(after)).toBe(anonymous);
  });

  it("RSC requests, other cookies, Next's router headers and HEAD", async () => {
    const cases: [Record<string, string>, string][] = [
      [{ RSC: "1" }, page],
      [{}, `${page}?_rsc=abc12`],
      [{ Cookie: "enhydris_read_after=0/16B3748" }, page],
      [{ Cookie: "csrftoken=abcdefghijabcdefghijabcdefghij12; something=else" }, page],
      [{ "Next-Router-Prefetch": "1" }, page],
      [{ Authorization: `Token ${admin.token}` }, page],
    ];
    for (const [headers, path] of cases) {
      const r = await http.get(path, { headers });
      expect(r.headers.get(CACHE), JSON.stringify(headers)).toBe("bypass");
    }
    expect((await http.head(page)).headers.get(CACHE)).toBe("bypass");
  });

  it("a page that is not found is not kept", async () => {
    for (let i = 0; i < 4; i++) {
      const r = await http.get(`/stations/${sid}/timeseriesgroups/999999/`);
      expect(r.status).toBe(404);
      expect(r.headers.get(CACHE)).not.toBe("hit");
    }
  });
});
