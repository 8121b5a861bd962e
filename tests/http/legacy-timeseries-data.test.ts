/**
 * `{site}/timeseries/data/` (legacy.md §7, formats.md §8, §9): parameters and their 400s, the
 * worked examples of formats.md §8.7 over HTTP, JSONP (evaluated, and loaded by a page of
 * another origin in Chromium when it is installed), validators, the cache and permissions.
 */
import { existsSync } from "node:fs";
import { createServer, type Server } from "node:http";
import { runInNewContext } from "node:vm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { db } from "@/lib/db";
import { api, type TestResponse } from "@/tests/support/http";
import * as f from "@/tests/support/fixtures";
import { freePort, startServer, type TestServer } from "@/tests/support/server";
import { siteLogin } from "@/tests/support/site-session";

let server: TestServer;
let http: ReturnType<typeof api>;
let ts7: number;
let st3: number;
let g3: number;
let viewer: f.TestUser;

const JSONP = "application/javascript; charset=utf-8";
const ms = (i: number) => 1577829600000 + 600000 * i;
const ALL_NULL = '{"min":null,"min_tstmp":null,"max":null,"max_tstmp":null,"avg":null,"vavg":null,"count":0,"last":null,"last_tstmp":null,"sum":null,"vsum":null,"vectors":null}';
const MOMENT_0030 = '{"stats":{"min":45,"min_tstmp":1577831400000,"max":45,"max_tstmp":1577831400000,"avg":45,' +
  '"vavg":null,"count":1,"last":45,"last_tstmp":1577831400000,"sum":45,"vsum":[0,0],' +
  '"vectors":[0,0,0,0,0,0,0,0]},"data":[[1577831400000,"45.0",3]]}';
const MOMENT_LAST = '{"stats":{"min":10,"min_tstmp":1577833200000,"max":10,"max_tstmp":1577833200000,"avg":10,"vavg":null,"count":1,"last":10,' +
  '"last_tstmp":1577833200000,"sum":10,"vsum":[0,0],"vectors":[0,0,0,0,0,0,0,0]},"data":[[1577833200000,"10.0",6]]}';
const WHOLE_NO_VECTOR = '{"stats":{"min":10,"min_tstmp":1577833200000,"max":350,"max_tstmp":1577829600000,"avg":117.5,"vavg":null,"count":6,"last":10,' +
  '"last_tstmp":1577833200000,"sum":705,"vsum":[0,0],"vectors":[0,0,0,0,0,0,0,0]},"data":[[1577829600000,"350.0",0],' +
  '[1577830200000,"10.0",1],[1577830800000,null,2],[1577831400000,"45.0",3],[1577832000000,"90.0",4],[1577832600000,"200.0",5],' +
  '[1577833200000,"10.0",6]]}';

const path = (query = "") => `/timeseries/data/?object_id=${ts7}${query}`;

function expectJson(r: TestResponse, status: number, body: string) {
  expect({ status: r.status, type: r.headers.get("content-type"), body: r.text }).toEqual({ status, type: "application/json", body });
}

function close(actual: number, expected: number, scale: number) {
  expect(Math.abs(actual - expected)).toBeLessThanOrEqual(1e-9 * scale);
}

function closeAngle(actual: number, expected: number) {
  expect(Math.abs((((actual - expected) % 360) + 540) % 360 - 180)).toBeLessThanOrEqual(1e-9 * 360);
}

async function makeSeries(values: (number | null)[], options: { publiclyAvailable?: boolean; precision?: number; stationId?: number } = {}) {
  const sid = options.stationId ?? (await f.station({ displayTimezone: "Etc/GMT-2" }));
  const gid = await f.group(sid, { precision: options.precision ?? 1 });
  const tid = await f.series(gid, { timeStep: "10min", publiclyAvailable: options.publiclyAvailable ?? true });
  await f.addRecords(tid, values.map((v, i) => [new Date(ms(i)).toISOString(), v]));
  return { sid, gid, tid };
}

beforeAll(async () => {
  server = await startServer();
  http = api(server.url);
  viewer = await f.user({ username: "viewer", password: "viewer-pass" });
  // formats.md §8.7: station 3 (Etc/GMT-2), group 3 (precision 1), series 7 (wind direction)
  st3 = await f.station({ name: "Wind station", displayTimezone: "Etc/GMT-2", dataViewers: [viewer.id] });
  g3 = await f.group(st3, { precision: 1 });
  ts7 = await f.series(g3, { timeStep: "10min", publiclyAvailable: true });
  await f.addRecords(ts7, [350, 10, null, 45, 90, 200, 10].map((v, i) => [new Date(ms(i)).toISOString(), v] as [string, number | null]));
});
afterAll(() => server?.stop());

describe("the examples of legacy.md §7.3", () => {
  it("last=moment&date=2020-01-01&time=00:30", async () => {
    expectJson(await http.get(path("&last=moment&date=2020-01-01&time=00:30")), 200, MOMENT_0030);
  });

  it("last=hour&date=2020-01-01&time=00:20&exact_datetime=true → null", async () => {
    expectJson(await http.get(path("&last=hour&date=2020-01-01&time=00:20&exact_datetime=true")), 200, "null");
  });

  it("last=moment&jsoncallback=cb → JSONP", async () => {
    const r = await http.get(path("&last=moment&jsoncallback=cb"));
    expect({ status: r.status, type: r.headers.get("content-type"), nosniff: r.headers.get("x-content-type-options"), body: r.text })
      .toEqual({ status: 200, type: JSONP, nosniff: "nosniff", body: `cb(${MOMENT_LAST})` });
    let received: unknown;
    runInNewContext(r.text, { cb: (x: unknown) => (received = x) });
    expect(JSON.stringify(received)).toBe(MOMENT_LAST);
  });

  it("JSONP of a null result", async () => {
    expect((await http.get(path("&last=day&exact_datetime=1&jsoncallback=my.cb"))).text).toBe("my.cb(null)");
  });

  it.each([
    ["/timeseries/data/", 400, '{"object_id":["This field is required."]}'],
    ["/timeseries/data/?object_id=", 400, '{"object_id":["This field is required."]}'],
    ["/timeseries/data/?object_id=abc", 400, '{"object_id":["A valid integer is required."]}'],
    ["/timeseries/data/?object_id=1.5", 400, '{"object_id":["A valid integer is required."]}'],
    ["/timeseries/data/?object_id=99999", 404, '{"detail":"Not found."}'],
    ["/timeseries/data/?object_id=99999999999", 404, '{"detail":"Not found."}'],
  ])("%s → %i", async (url, status, body) => {
    expectJson(await http.get(url), status, body);
  });

  it.each([
    ["&last=decade", '{"last":["\\"decade\\" is not a valid choice."]}'],
    ["&vector=maybe", '{"vector":["Must be a valid boolean."]}'],
    ["&exact_datetime=maybe", '{"exact_datetime":["Must be a valid boolean."]}'],
    ["&start_pos=x", '{"start_pos":["A valid integer is required."]}'],
    ["&start_pos=1.5&end_pos=3", '{"start_pos":["A valid integer is required."]}'],
    ["&start_pos=1&end_pos=-1", '{"end_pos":["Ensure this value is greater than or equal to 0."]}'],
    ["&date=2020-02-30", '{"date":["Date has wrong format. Use one of these formats instead: YYYY-MM-DD."]}'],
    ["&date=20200101", '{"date":["Date has wrong format. Use one of these formats instead: YYYY-MM-DD."]}'],
    ["&time=24:00", '{"time":["Time has wrong format. Use one of these formats instead: hh:mm."]}'],
    ["&time=9am", '{"time":["Time has wrong format. Use one of these formats instead: hh:mm."]}'],
    ["&start_offset=ten", '{"start_offset":["A valid number is required."]}'],
    ["&start_offset=NaN", '{"start_offset":["A valid number is required."]}'],
    ["&jsoncallback=alert(1)", '{"jsoncallback":["Invalid callback name."]}'],
    ["&last=decade&vector=maybe&time=x", '{"last":["\\"decade\\" is not a valid choice."],"time":["Time has wrong format. Use one of these formats instead: hh:mm."],"vector":["Must be a valid boolean."]}'],
  ])("object_id=7%s → 400 (validated even when unused)", async (query, body) => {
    expectJson(await http.get(path(query)), 400, body);
  });

  it("date without last → the whole series; empty values count as absent", async () => {
    expectJson(await http.get(path("&date=2020-01-01")), 200, WHOLE_NO_VECTOR);
    expectJson(await http.get(path("&last=&date=&time=&start_pos=&vector=&jsoncallback=&start_offset=")), 200, WHOLE_NO_VECTOR);
    expectJson(await http.get(path("&vector=false")), 200, WHOLE_NO_VECTOR);
  });

  it("vector=true → the first example of formats.md §8.7", async () => {
    const r = await http.get(path("&vector=true"));
    expect(r.status).toBe(200);
    const { stats, data } = r.json;
    expect(Object.keys(r.json)).toEqual(["stats", "data"]);
    expect(Object.keys(stats)).toEqual(["min", "min_tstmp", "max", "max_tstmp", "avg", "vavg", "count", "last", "last_tstmp", "sum", "vsum", "vectors"]);
    expect({ ...stats, vavg: 0, vsum: 0 }).toEqual({ min: 10, min_tstmp: 1577833200000, max: 350, max_tstmp: 1577829600000, avg: 117.5, vavg: 0,
      count: 6, last: 10, last_tstmp: 1577833200000, sum: 705, vsum: 0, vectors: [50, 16.666666666666668, 16.666666666666668, 0, 16.666666666666668, 0, 0, 0] });
    closeAngle(stats.vavg, 29.480754157703142);
    close(stats.vsum[0], 1.5387348155278082, 6);
    close(stats.vsum[1], 2.721837419437263, 6);
    expect(data).toEqual(JSON.parse(WHOLE_NO_VECTOR).data);
  });

  it("POST /timeseries/data/?object_id=7 → 405; HEAD; OPTIONS; the slash", async () => {
    const post = await http.post(path());
    expectJson(post, 405, '{"detail":"Method \\"POST\\" not allowed."}');
    expect(post.headers.get("allow")).toBe("GET, HEAD, OPTIONS");
    const head = await http.head(path());
    expect([head.status, head.text, head.headers.get("content-type")]).toEqual([200, "", "application/json"]);
    expect((await http.options("/timeseries/data/")).headers.get("allow")).toBe("GET, HEAD, OPTIONS");
    const slashless = await http.get(`/timeseries/data?object_id=${ts7}&last=hour`);
    expect([slashless.status, slashless.headers.get("location")]).toEqual([308, `/timeseries/data/?object_id=${ts7}&last=hour`]);
  });
});

describe("every row of formats.md §8.7 over HTTP", () => {
  it.each([
    ["", [0, 6]],
    ["&last=hour", [0, 6]],
    ["&last=hour&start_offset=10&vector=true", [1, 6]],
    ["&last=hour&date=2020-01-01&time=00:20", [2, 6]],
    ["&last=hour&date=2020-01-01&time=00:00&exact_datetime=true", [0, 6]],
    ["&last=day", [0, 6]],
    ["&last=moment&date=2020-01-01&time=00:30", [3, 3]],
    ["&last=moment&date=2020-01-01&time=00:05", [0, 0]],
    ["&last=moment", [6, 6]],
    ["&start_pos=1&end_pos=3", [1, 3]],
    ["&start_pos=5&end_pos=99", [5, 6]],
    ["&start_pos=2&end_pos=2&vector=true", [2, 2]],
    ["&start_pos=0&end_pos=0&vector=true", [0, 0]],
    // a plus sent unencoded arrives as a space
    ["&last=hour&start_offset=+10", [1, 6]],
    // targets far outside the records
    ["&last=hour&start_offset=1e300", [6, 6]],
    ["&last=hour&start_offset=-1e300", [0, 6]],
    ["&last=year&date=9999-12-31&time=23:59", [6, 6]],
    ["&last=year&date=0001-01-01", [0, 0]],
  ])("object_id=7%s → interval %j", async (query, [a, b]) => {
    const r = await http.get(path(query));
    expect(r.status).toBe(200);
    const indices = r.json.data.map((p: [number, string | null, number]) => p[2]);
    expect(indices).toEqual(Array.from({ length: b - a + 1 }, (_, i) => a + i));
    for (const [t, , i] of r.json.data) expect(t).toBe(ms(i));
  });

  it.each([
    ["&last=hour&date=2020-01-01&time=00:20&exact_datetime=true"],
    ["&last=day&exact_datetime=true"],
    ["&last=hour&start_offset=1e300&exact_datetime=true"],
    ["&last=moment&date=9999-12-31&exact_datetime=true"],
  ])("object_id=7%s → null", async (query) => {
    expectJson(await http.get(path(query)), 200, "null");
  });

  it("the statistics of the rows", async () => {
    const offset = (await http.get(path("&last=hour&start_offset=10&vector=true"))).json.stats;
    expect({ ...offset, vavg: 0, vsum: 0 }).toEqual({ min: 10, min_tstmp: 1577833200000, max: 200, max_tstmp: 1577832600000, avg: 71, vavg: 0, count: 5,
      last: 10, last_tstmp: 1577833200000, sum: 355, vsum: 0, vectors: [40, 20, 20, 0, 20, 0, 0, 0] });
    closeAngle(offset.vavg, 44.590618327398396);
    close(offset.vsum[0], 1.7123829931947394, 5);
    close(offset.vsum[1], 1.7370296664250553, 5);
    const atNull = (await http.get(path("&last=hour&date=2020-01-01&time=00:20"))).json.stats;
    expect([atNull.min, atNull.max, atNull.avg, atNull.count, atNull.sum]).toEqual([10, 200, 86.25, 4, 345]);
    const pos = await http.get(path("&start_pos=1&end_pos=3"));
    expect([pos.json.stats.min, pos.json.stats.min_tstmp, pos.json.stats.max, pos.json.stats.max_tstmp, pos.json.stats.avg, pos.json.stats.count,
      pos.json.stats.sum, pos.json.stats.last]).toEqual([10, 1577830200000, 45, 1577831400000, 27.5, 2, 55, 45]);
    expect(pos.json.data).toEqual([[ms(1), "10.0", 1], [ms(2), null, 2], [ms(3), "45.0", 3]]);
    const clamped = (await http.get(path("&start_pos=5&end_pos=99"))).json.stats;
    expect([clamped.min, clamped.max, clamped.avg, clamped.count, clamped.sum]).toEqual([10, 200, 105, 2, 210]);
    expectJson(await http.get(path("&start_pos=4&end_pos=2")), 200, `{"stats":${ALL_NULL},"data":[]}`);
    expectJson(await http.get(path("&start_pos=2&end_pos=2&vector=true")), 200, `{"stats":${ALL_NULL},"data":[[1577830800000,null,2]]}`);
    const one = (await http.get(path("&start_pos=0&end_pos=0&vector=true"))).json.stats;
    closeAngle(one.vavg, 349.99999999999994);
    close(one.vsum[0], -0.17364817766693127, 1);
    close(one.vsum[1], 0.9848077530122079, 1);
    expect(one.vectors).toEqual([100, 0, 0, 0, 0, 0, 0, 0]);
  });
});

describe("longer series (blocks, positions, months, down-sampling)", () => {
  let long: number;
  const N = 3 * 144 + 50; // three days and a bit of 10-minute records from 2020-01-01 00:00 local

  beforeAll(async () => {
    long = (await makeSeries(Array.from({ length: N }, (_, i) => (i % 7 === 3 ? null : i)), { precision: 0 })).tid;
  });

  it("start_pos/end_pos find records in any day", async () => {
    for (const [a, b] of [[0, 0], [143, 145], [200, 210], [N - 3, N + 10], [300, 300]]) {
      const r = await http.get(`/timeseries/data/?object_id=${long}&start_pos=${a}&end_pos=${b}`);
      const last = Math.min(b, N - 1);
      expect(r.json.data.map((p: [number, string | null, number]) => [p[0], p[2]]))
        .toEqual(Array.from({ length: last - a + 1 }, (_, k) => [ms(a + k), a + k]));
    }
  });

  it("the whole series is down-sampled; statistics use every record", async () => {
    const r = await http.get(`/timeseries/data/?object_id=${long}`);
    const step = Math.floor(N / 200);
    expect(r.json.data.length).toBe(Math.ceil(N / step));
    expect(r.json.data[0]).toEqual([ms(step - 1), String(step - 1 - ((step - 1) % 7 === 3 ? 1 : 0)), step - 1]);
    expect(r.json.data.at(-1)[2]).toBe(N - 1);
    const values = Array.from({ length: N }, (_, i) => i).filter((i) => i % 7 !== 3);
    expect(r.json.stats.count).toBe(values.length);
    expect(r.json.stats.sum).toBe(values.reduce((a, b) => a + b, 0));
    expect(r.json.stats.min).toBe(0);
    expect(r.json.stats.max_tstmp).toBe(ms(values.at(-1)!));
  });

  it("last=day, last=week and last=month count back from the last record", async () => {
    const day = await http.get(`/timeseries/data/?object_id=${long}&last=day`);
    expect(day.json.data[0][2]).toBe(N - 1 - 144);
    expect(day.json.data.length).toBe(145);
    const week = await http.get(`/timeseries/data/?object_id=${long}&last=week&vector=1`);
    expect(week.json.stats.count).toBe(Array.from({ length: N }, (_, i) => i).filter((i) => i % 7 !== 3).length);
    const twohour = await http.get(`/timeseries/data/?object_id=${long}&last=twohour&date=2020-01-02&time=23:55`);
    // T_b = 2020-01-02 23:55 → nearest 23:50 (the tie goes to the earlier); T_e = 01:55 → 01:50
    expect(twohour.json.data[0][2]).toBe(144 + 143);
    expect(twohour.json.data.at(-1)[2]).toBe(288 + 11);
    const month = await http.get(`/timeseries/data/?object_id=${long}&last=month&date=2019-12-31&time=12:00`);
    // T_b = 2019-12-31 12:00 (before the first record → 0), T_e = 2020-01-31 12:00 (after the last → n−1)
    expect([month.json.data[0][2] <= 2, month.json.data.at(-1)[2]]).toEqual([true, N - 1]);
    expect(month.json.stats.count).toBe(Array.from({ length: N }, (_, i) => i).filter((i) => i % 7 !== 3).length);
  });

  it("exact_datetime with records at both ends", async () => {
    const r = await http.get(`/timeseries/data/?object_id=${long}&last=day&date=2020-01-02&exact_datetime=yes`);
    expect([r.json.data[0][2], r.json.data.at(-1)[2]]).toEqual([144, 288]);
    expect((await http.get(`/timeseries/data/?object_id=${long}&last=day&date=2020-01-02&time=00:05&exact_datetime=yes`)).text).toBe("null");
  });
});

describe("the database aggregation equals the record-by-record computation", () => {
  // Hourly records over about three years with gaps and nulls (over 20,000 records): buckets
  // longer than a day, so whole daily blocks are used (on PostgreSQL too). vector=true reads
  // every record; vector=false aggregates in the database.
  let tid: number;
  const T = Date.UTC(2019, 0, 1, 0, 0) / 1000;
  beforeAll(async () => {
    const sid = await f.station({ displayTimezone: "Etc/GMT-2" });
    const gid = await f.group(sid, { precision: 2 });
    tid = await f.series(gid, { timeStep: "H" });
    const rows: [string, number | null][] = [];
    for (let h = 0; h < 26000; h++) {
      if (h % 500 >= 450 || h % 97 === 5) continue; // gaps of two days, and single missing hours
      const v = h % 13 === 0 ? null : Math.round(1000 * Math.sin(h / 50) * (1 + (h % 7))) / 1000 + (h === 3000 ? -5000 : 0);
      rows.push([new Date((T + 3600 * h) * 1000).toISOString(), h % 211 === 0 ? 42 : v]);
    }
    await f.addRecords(tid, rows);
  });

  it.each([
    [""], ["&last=month"], ["&last=year"], ["&last=week"], ["&start_pos=17&end_pos=5555"], ["&start_pos=401&end_pos=802"],
    ["&start_pos=5&end_pos=21000"], ["&last=year&date=2019-06-15&time=07:00&start_offset=-400000"],
    ["&last=month&date=2019-03-31&time=13:00&start_offset=-90.5"], ["&start_pos=0&end_pos=400"],
  ])("object_id=…%s", async (query) => {
    const base = `/timeseries/data/?object_id=${tid}${query}`;
    const [sql, js] = await Promise.all([http.get(base), http.get(`${base}&vector=true`)]);
    expect(sql.json.data).toEqual(js.json.data);
    const scalar = (s: Record<string, unknown>) => ({ ...s, sum: 0, avg: 0, vavg: 0, vsum: 0, vectors: 0 });
    expect(scalar(sql.json.stats)).toEqual(scalar(js.json.stats));
    close(sql.json.stats.sum, js.json.stats.sum, 1e7);
    close(sql.json.stats.avg, js.json.stats.avg, 1e4);
    expect([sql.json.stats.vavg, sql.json.stats.vsum, sql.json.stats.vectors]).toEqual([null, [0, 0], [0, 0, 0, 0, 0, 0, 0, 0]]);
  });
});

describe("validators and the cache (formats.md §8.6, §9)", () => {
  it("ETag, Last-Modified, Cache-Control; 304; a different ETag per callback and parameters", async () => {
    const r = await http.get(path("&last=hour"));
    const etag = r.headers.get("etag")!;
    expect(etag).toMatch(new RegExp(`^"${ts7}-\\d+-[0-9a-f]{16}"$`));
    expect(r.headers.get("cache-control")).toBe("public, no-cache");
    expect(r.headers.get("last-modified")).toMatch(/^[A-Z][a-z]{2}, \d\d [A-Z][a-z]{2} \d{4} \d\d:\d\d:\d\d GMT$/);
    const again = await http.get(path("&last=hour"), { headers: { "If-None-Match": etag } });
    expect([again.status, again.text, again.headers.get("etag"), again.headers.get("cache-control")]).toEqual([304, "", etag, "public, no-cache"]);
    expect((await http.get(path("&last=hour"), { headers: { "If-None-Match": "*" } })).status).toBe(304);
    expect((await http.head(path("&last=hour"), { headers: { "If-None-Match": `"x", W/${etag}` } })).status).toBe(304);
    expect((await http.get(path("&last=hour&jsoncallback=cb"))).headers.get("etag")).not.toBe(etag);
    expect((await http.get(path("&last=day"))).headers.get("etag")).not.toBe(etag);
    // the same effective selection: date and time are unused without last
    expect((await http.get(path("&date=2020-01-01"))).headers.get("etag")).toBe((await http.get(path())).headers.get("etag"));
    // If-None-Match comes after validation
    expect((await http.get(path("&last=decade"), { headers: { "If-None-Match": "*" } })).status).toBe(400);
  });

  it("a write to the series makes a new version: new ETag, new result", async () => {
    const { tid } = await makeSeries([1, 2, 3]);
    const before = await http.get(`/timeseries/data/?object_id=${tid}&last=moment`);
    expect(before.json.stats.last).toBe(3);
    await f.addRecords(tid, [[new Date(ms(3)).toISOString(), 4]]);
    const after = await http.get(`/timeseries/data/?object_id=${tid}&last=moment`, { headers: { "If-None-Match": before.headers.get("etag")! } });
    expect(after.status).toBe(200);
    expect(after.json.stats.last).toBe(4);
    expect(after.json.data).toEqual([[ms(3), "4.0", 3]]);
  });

  it("a change of the group's precision changes the result", async () => {
    const { gid, tid } = await makeSeries([1.25, 2.5]);
    expect((await http.get(`/timeseries/data/?object_id=${tid}`)).json.data[0][1]).toBe("1.2");
    await db().write((tx) => tx.timeseriesGroup.update({ where: { id: gid }, data: { precision: 2, lastModified: new Date() } }));
    expect((await http.get(`/timeseries/data/?object_id=${tid}`)).json.data[0][1]).toBe("1.25");
  });

  it("an empty series", async () => {
    const { tid } = await makeSeries([]);
    expectJson(await http.get(`/timeseries/data/?object_id=${tid}&last=month`), 200, `{"stats":${ALL_NULL},"data":[]}`);
    expectJson(await http.get(`/timeseries/data/?object_id=${tid}&last=month&exact_datetime=true`), 200, "null");
  });
});

describe("the private-data rule (§7.2)", () => {
  let hidden: number;
  beforeAll(async () => {
    hidden = (await makeSeries([1, 2], { publiclyAvailable: false, stationId: st3 })).tid;
  });

  it("anonymous → 401 with the Basic challenge, even with a matching If-None-Match", async () => {
    const r = await http.get(`/timeseries/data/?object_id=${hidden}`, { headers: { "If-None-Match": "*" } });
    expectJson(r, 401, '{"detail":"Authentication credentials were not provided."}');
    expect(r.headers.get("www-authenticate")).toBe('Basic realm="api"');
  });

  it("another user → 403; a data viewer by Basic, token or session → 200 private", async () => {
    const other = await f.user();
    expect((await http.get(`/timeseries/data/?object_id=${hidden}`, { token: other.token })).status).toBe(403);
    const basic = await http.get(`/timeseries/data/?object_id=${hidden}`, { headers: { Authorization: `Basic ${Buffer.from("viewer:viewer-pass").toString("base64")}` } });
    expect([basic.status, basic.json.stats.sum, basic.headers.get("cache-control")]).toEqual([200, 3, "private, no-cache"]);
    expect((await http.get(`/timeseries/data/?object_id=${hidden}`, { token: viewer.token })).status).toBe(200);
    const { jar } = await siteLogin(server.url, "viewer", "viewer-pass");
    expect((await http.get(`/timeseries/data/?object_id=${hidden}`, { headers: { Cookie: jar.header() } })).status).toBe(200);
  });

  it("a bad object_id is 400 and an unknown one 404 before any permission check", async () => {
    expect((await http.get("/timeseries/data/?object_id=x")).status).toBe(400);
    expect((await http.get("/timeseries/data/?object_id=99999")).status).toBe(404);
  });
});

describe("JSONP from a page of another origin (acceptance)", () => {
  const chromium = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
  let page: Server;
  let pageUrl: string;

  beforeAll(async () => {
    const port = await freePort();
    // A page on another origin (another host name and port) that loads the statistics with a script tag.
    page = createServer((_req, res) => {
      res.writeHead(200, { "Content-Type": "text/html; charset=utf-8" });
      res.end(`<!DOCTYPE html><html><head><title>map</title><script>
        window.received = null;
        function showStats(x) { window.received = x; }
        </script></head><body>
        <script src="${server.url}/timeseries/data/?object_id=${ts7}&last=moment&date=2020-01-01&time=00:30&jsoncallback=showStats"></script>
        </body></html>`);
    });
    await new Promise<void>((resolve) => page.listen(port, "127.0.0.1", resolve));
    pageUrl = `http://localhost:${port}/`;
  });
  afterAll(() => new Promise<void>((resolve) => page.close(() => resolve())));

  it.skipIf(!existsSync(chromium))("Chromium runs the callback with the statistics", async () => {
    const { chromium: launcher } = await import("playwright-core");
    const browser = await launcher.launch({ executablePath: chromium, args: ["--no-sandbox", "--headless", "--disable-gpu", "--disable-dev-shm-usage"] });
    try {
      const tab = await browser.newPage();
      await tab.goto(pageUrl);
      await tab.waitForFunction(() => (window as unknown as { received: unknown }).received !== null, undefined, { timeout: 10_000 });
      const received = await tab.evaluate(() => JSON.stringify((window as unknown as { received: unknown }).received));
      expect(received).toBe(MOMENT_0030);
    } finally {
      await browser.close();
    }
  });
});

describe("ENHYDRIS_AUTHENTICATION_REQUIRED (legacy.md §0)", () => {
  let locked: TestServer;
  let lockedHttp: ReturnType<typeof api>;
  let series: number;

  beforeAll(async () => {
    locked = await startServer({ env: { ENHYDRIS_AUTHENTICATION_REQUIRED: "true" } });
    lockedHttp = api(locked.url);
    await f.user({ username: "locked", password: "locked-pass" });
    series = (await makeSeries([5])).tid;
  });
  afterAll(async () => {
    await locked?.stop();
    // the fixtures of the other describe blocks use the first server's database again
    const { connectFixtures } = await import("@/tests/support/server");
    await connectFixtures(server.databaseUrl, server.mediaDir);
  });

  it("every legacy read needs a user; Basic is enough; the data is private to caches", async () => {
    for (const p of ["/api/Variable/", "/api/Station/info/", `/api/tsdata/${series}/`, `/timeseries/data/?object_id=${series}`]) {
      const r = await lockedHttp.get(p);
      expect({ p, status: r.status, challenge: r.headers.get("www-authenticate") }).toEqual({ p, status: 401, challenge: 'Basic realm="api"' });
    }
    const auth = { Authorization: `Basic ${Buffer.from("locked:locked-pass").toString("base64")}` };
    const r = await lockedHttp.get(`/timeseries/data/?object_id=${series}`, { headers: auth });
    expect([r.status, r.json.stats.sum, r.headers.get("cache-control")]).toEqual([200, 5, "private, no-cache"]);
    expect((await lockedHttp.get("/api/Variable/", { headers: auth })).status).toBe(200);
    expect((await lockedHttp.get("/timeseries/data/?object_id=99999")).status).toBe(401);
    expect((await lockedHttp.options("/api/Variable/")).status).toBe(204);
  });
});
