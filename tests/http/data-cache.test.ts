/**
 * ETag, Last-Modified, Cache-Control and 304 for data/, bottom/ and chart/ (formats.md §9),
 * from the specification: every row of §9.7's table, for each kind of response.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { api, type TestResponse } from "@/tests/support/http";
import * as f from "@/tests/support/fixtures";
import { connectFixtures, startServer, type TestServer } from "@/tests/support/server";

let server: TestServer;
let http: ReturnType<typeof api>;
let admin: f.TestUser;
let viewer: f.TestUser;
let stranger: f.TestUser;
let temperature: number;
let celsius: number;
let st1: number;
let g1: number;
let ts12: number;
let TS12: string;

beforeAll(async () => {
  // Two workers: each caches a series' station and access (the data viewers' test below).
  server = await startServer({ env: { ENHYDRIS_WORKERS: "2" } });
  http = api(server.url);
  admin = await f.user({ superuser: true });
  viewer = await f.user();
  stranger = await f.user();
  ({ variableId: temperature, unitId: celsius, stationId: st1, groupId: g1, seriesId: ts12, path: TS12 } = await f.workedExample());
});
afterAll(() => server?.stop());

const KINDS = ["data/", "bottom/", "chart/"] as const;
const etagPattern = (id: number) => new RegExp(`^"${id}-(\\d+)-[0-9a-f]{16}"$`);
const versionOf = (etag: string | null) => Number(/^(?:W\/)?"\d+-(\d+)-/.exec(etag ?? "")?.[1] ?? NaN);
const HTTP_DATE = /^(Mon|Tue|Wed|Thu|Fri|Sat|Sun), \d{2} (Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) \d{4} \d{2}:\d{2}:\d{2} GMT$/;

const get = (path: string, headers: Record<string, string> = {}, token?: string) => http.get(path, { headers, token });
const head = (path: string, headers: Record<string, string> = {}, token?: string) => http.head(path, { headers, token });

function expect304(r: TestResponse, validators: TestResponse) {
  expect({ status: r.status, body: r.text }).toEqual({ status: 304, body: "" });
  expect(r.headers.get("etag")).toBe(validators.headers.get("etag"));
  expect(r.headers.get("last-modified")).toBe(validators.headers.get("last-modified"));
  expect(r.headers.get("cache-control")).toBe(validators.headers.get("cache-control"));
}

function expect200(r: TestResponse) {
  expect(r.status).toBe(200);
  expect(r.text.length).toBeGreaterThan(0);
}

/** The latest last_modified of the series, its group, station, variable and unit, as an HTTP date. */
async function expectedLastModified(path: string, sid: number, gid: number, variableId: number, unitId: number): Promise<string> {
  const objects = await Promise.all([
    http.get(`${path}/`), http.get(`/api/stations/${sid}/timeseriesgroups/${gid}/`), http.get(`/api/stations/${sid}/`),
    http.get(`/api/variables/${variableId}/`), http.get(`/api/units/${unitId}/`),
  ]);
  const times = objects.map((o) => {
    expect(o.status).toBe(200);
    return Date.parse(o.json.last_modified);
  });
  return new Date(Math.floor(Math.max(...times) / 1000) * 1000).toUTCString();
}

describe("validators of a 200 (formats.md §9.3, §9.4, §9.6)", () => {
  it.each(KINDS)("%s has an ETag \"<id>-<version>-<16 hex>\", an HTTP-date Last-Modified and public caching", async (kind) => {
    const r = await get(`${TS12}/${kind}`);
    expect(r.status).toBe(200);
    expect(r.headers.get("etag")).toMatch(etagPattern(ts12));
    expect(r.headers.get("last-modified")).toMatch(HTTP_DATE);
    expect(r.headers.get("last-modified")).toBe(await expectedLastModified(TS12, st1, g1, temperature, celsius));
    expect(r.headers.get("cache-control")).toBe("public, no-cache");
  });

  it("gives data/, bottom/ and chart/ different ETags, and each format its own", async () => {
    const tags = await Promise.all([...KINDS.map((k) => `${TS12}/${k}`), `${TS12}/data/?fmt=hts`, `${TS12}/data/?fmt=hts2`].map(async (p) => (await get(p)).headers.get("etag")));
    expect(new Set(tags).size).toBe(tags.length);
  });

  it.each(KINDS)("%s: the same ETag on every path alias, for anonymous and authenticated users", async (kind) => {
    const paths = [
      `/api/stations/${st1}/timeseriesgroups/${g1}/timeseries/${ts12}/${kind}`,
      `/api/stations/${st1}/timeseriesgroup/${g1}/timeseries/${ts12}/${kind}`,
      `/api/stations/${st1}/timeseries/${ts12}/${kind}`,
    ];
    const tags = new Set<string | null>();
    for (const p of paths) for (const token of [undefined, admin.token, stranger.token]) tags.add((await get(p, {}, token)).headers.get("etag"));
    expect(tags.size).toBe(1);
  });

  it.each(KINDS)("%s: HEAD carries the same validators as GET", async (kind) => {
    const g = await get(`${TS12}/${kind}`);
    const h = await head(`${TS12}/${kind}`);
    expect(h.status).toBe(200);
    for (const name of ["etag", "last-modified", "cache-control"]) expect(h.headers.get(name)).toBe(g.headers.get(name));
  });
});

describe("If-None-Match (formats.md §9.5, §9.7)", () => {
  it.each(KINDS)("%s: a matching tag gives 304 with an empty body and the same validators", async (kind) => {
    const first = await get(`${TS12}/${kind}`);
    expect304(await get(`${TS12}/${kind}`, { "If-None-Match": first.headers.get("etag")! }), first);
  });

  it.each(KINDS)("%s: weak comparison (W/ prefix)", async (kind) => {
    const first = await get(`${TS12}/${kind}`);
    expect304(await get(`${TS12}/${kind}`, { "If-None-Match": `W/${first.headers.get("etag")}` }), first);
  });

  it.each(KINDS)("%s: a list holding the tag", async (kind) => {
    const first = await get(`${TS12}/${kind}`);
    expect304(await get(`${TS12}/${kind}`, { "If-None-Match": `"x", ${first.headers.get("etag")}` }), first);
    expect304(await get(`${TS12}/${kind}`, { "If-None-Match": `"x",W/${first.headers.get("etag")} , "y"` }), first);
  });

  it.each(KINDS)("%s: *", async (kind) => {
    const first = await get(`${TS12}/${kind}`);
    expect304(await get(`${TS12}/${kind}`, { "If-None-Match": "*" }), first);
  });

  it.each(KINDS)("%s: a non-matching tag gives 200 with the body", async (kind) => {
    const first = await get(`${TS12}/${kind}`);
    const r = await get(`${TS12}/${kind}`, { "If-None-Match": `"x", "${ts12}-0-0000000000000000"` });
    expect200(r);
    expect(r.text).toBe(first.text);
    expect(r.headers.get("etag")).toBe(first.headers.get("etag"));
  });

  it.each(KINDS)("%s: HEAD with a matching tag gives 304", async (kind) => {
    const first = await get(`${TS12}/${kind}`);
    expect304(await head(`${TS12}/${kind}`, { "If-None-Match": first.headers.get("etag")! }), first);
  });

  it.each(KINDS)("%s: works on the alias paths", async (kind) => {
    const first = await get(`${TS12}/${kind}`);
    expect304(await get(`/api/stations/${st1}/timeseries/${ts12}/${kind}`, { "If-None-Match": first.headers.get("etag")! }), first);
    expect304(await get(`/api/stations/${st1}/timeseriesgroup/${g1}/timeseries/${ts12}/${kind}`, { "If-None-Match": first.headers.get("etag")! }), first);
  });

  it("data/?fmt=hts with the CSV ETag gives 200 and a different ETag", async () => {
    const csv = await get(`${TS12}/data/`);
    const r = await get(`${TS12}/data/?fmt=hts`, { "If-None-Match": csv.headers.get("etag")! });
    expect200(r);
    expect(r.headers.get("etag")).toMatch(etagPattern(ts12));
    expect(r.headers.get("etag")).not.toBe(csv.headers.get("etag"));
    const hts2 = await get(`${TS12}/data/?fmt=hts2`, { "If-None-Match": r.headers.get("etag")! });
    expect200(hts2);
  });

  it.each<[string, string, string]>([
    ["data/", "", "?timezone=Etc/GMT-2"],
    ["data/", "", "?fmt=csv"],
    ["data/", "", "?fmt=CSV"],
    ["data/", "", "?fmt=&timezone=&start_date=&end_date="],
    ["data/", "?fmt=hts", "?fmt=hts&timezone=Etc/GMT-2"],
    ["data/", "?fmt=hts", "?fmt=HTS"],
    ["data/", "?start_date=0001-01-01T00:01:00%2B00:00", "?start_date=1000-06-01T12:00Z"],
    ["data/", "?end_date=3999-01-01T00:01", "?end_date=2261-01-01T00:00:00Z"],
    ["data/", "?start_date=2018-12-09T13:20", "?start_date=2018-12-09T11:20:00Z"],
    ["data/", "?start_date=2018-12-09T13:20", "?start_date=2018-12-09T13:20:00%2B02:00"],
    ["data/", "?start_date=2018-12-09T13:20", "?start_date=2018-12-09T13:19:59.5%2B02:00"],
    ["bottom/", "", "?timezone=Etc/GMT-2"],
    ["chart/", "", "?points=200"],
    ["chart/", "?points=4&start_date=2018-12-09", "?points=4&start_date=2018-12-08T22:00:00Z"],
  ])("%s%s and %s are the same representation: 304", async (kind, q1, q2) => {
    const first = await get(`${TS12}/${kind}${q1}`);
    expect(first.status).toBe(200);
    const second = await get(`${TS12}/${kind}${q2}`);
    expect(second.headers.get("etag")).toBe(first.headers.get("etag"));
    expect304(await get(`${TS12}/${kind}${q2}`, { "If-None-Match": first.headers.get("etag")! }), first);
  });

  it.each<[string, string, string]>([
    ["data/", "", "?timezone=UTC"],
    ["data/", "", "?start_date=2018-12-09T13:20"],
    ["data/", "", "?end_date=2018-12-31"],
    ["data/", "?fmt=hts", "?fmt=hts&timezone=Etc/GMT-3"],
    ["bottom/", "", "?timezone=UTC"],
    ["chart/", "", "?points=4"],
    ["chart/", "", "?start_date=2018-12-09T13:15"],
  ])("%s%s and %s are different representations: 200 and another ETag", async (kind, q1, q2) => {
    const first = await get(`${TS12}/${kind}${q1}`);
    const r = await get(`${TS12}/${kind}${q2}`, { "If-None-Match": first.headers.get("etag")! });
    expect200(r);
    expect(r.headers.get("etag")).toMatch(etagPattern(ts12));
    expect(r.headers.get("etag")).not.toBe(first.headers.get("etag"));
  });

  it.each(KINDS)("%s: If-Modified-Since in the future without If-None-Match is ignored (200)", async (kind) => {
    const r = await get(`${TS12}/${kind}`, { "If-Modified-Since": "Fri, 01 Jan 2100 00:00:00 GMT" });
    expect200(r);
    const r2 = await get(`${TS12}/${kind}`, { "If-Modified-Since": "Fri, 01 Jan 2100 00:00:00 GMT", "If-None-Match": '"nope"' });
    expect200(r2);
  });

  it("keeps 400 and 404 whatever If-None-Match says", async () => {
    const bad = await get(`${TS12}/data/?fmt=xml`, { "If-None-Match": "*" });
    expect({ status: bad.status, body: bad.text }).toEqual({ status: 400, body: '{"fmt":["\\"xml\\" is not a valid choice."]}' });
    const badChart = await get(`${TS12}/chart/?points=0`, { "If-None-Match": "*" });
    expect(badChart.status).toBe(400);
    const missing = await get(`/api/stations/${st1}/timeseriesgroups/${g1}/timeseries/99999999/data/`, { "If-None-Match": "*" });
    expect({ status: missing.status, body: missing.text }).toEqual({ status: 404, body: '{"detail":"Not found."}' });
  });
});

describe("changes give new ETags (formats.md §9.2, §9.7)", () => {
  let sid: number;
  let gid: number;
  let tid: number;
  let path: string;
  let vid: number;
  let uid: number;
  beforeAll(async () => {
    vid = await f.variable("Humidity");
    uid = await f.unit("%", [vid]);
    sid = await f.station({ name: "Before", displayTimezone: "Etc/GMT-2", altitude: 10 });
    gid = await f.group(sid, { precision: 1, variableId: vid, unitId: uid });
    tid = await f.series(gid, { type: "Initial", timeStep: "10min" });
    await f.addRecords(tid, [["2020-01-01T00:00:00Z", 1], ["2020-01-01T00:10:00Z", 2]]);
    path = `/api/stations/${sid}/timeseriesgroups/${gid}/timeseries/${tid}`;
  });

  const all = () => Promise.all([...KINDS.map((k) => get(`${path}/${k}`)), get(`${path}/data/?fmt=hts`)]);
  const tick = () => new Promise((r) => setTimeout(r, 1100));

  it("an upload: 200 with the old ETag, a higher version, and 304 with the new one", async () => {
    const before = await all();
    await tick();
    const r = await http.post(`${path}/data/`, { token: admin.token, form: { timeseries_records: "2020-01-01T00:20:00Z,3\n" } });
    expect(r.status).toBe(204);
    const after = await all();
    for (let i = 0; i < before.length; i++) {
      const old = before[i].headers.get("etag")!;
      const again = await get(`${path}/${["data/", "bottom/", "chart/", "data/?fmt=hts"][i]}`, { "If-None-Match": old });
      expect200(again);
      expect(again.headers.get("etag")).toBe(after[i].headers.get("etag"));
      expect(versionOf(after[i].headers.get("etag"))).toBeGreaterThan(versionOf(old));
      expect(after[i].headers.get("last-modified")).not.toBe(before[i].headers.get("last-modified"));
      expect(after[i].headers.get("last-modified")).toBe(await expectedLastModified(path, sid, gid, vid, uid));
      expect304(await get(`${path}/${["data/", "bottom/", "chart/", "data/?fmt=hts"][i]}`, { "If-None-Match": after[i].headers.get("etag")! }), after[i]);
    }
  });

  it("an empty upload and a dry run do not change the ETag", async () => {
    const before = await all();
    expect((await http.post(`${path}/data/`, { token: admin.token, form: { timeseries_records: "" } })).status).toBe(204);
    expect((await http.post(`${path}/data/`, { token: admin.token, form: { timeseries_records: "2020-01-01T00:30:00Z,3\n", dry_run: "true" } })).status).toBe(200);
    expect((await http.post(`${path}/data/`, { token: admin.token, form: { timeseries_records: "2000-01-01T00:30:00Z,3\n" } })).status).toBe(400);
    const after = await all();
    expect(after.map((r) => r.headers.get("etag"))).toEqual(before.map((r) => r.headers.get("etag")));
  });

  it("the station's name changes (through the API): fmt=hts with its old ETag gives 200 and a new ETag", async () => {
    const before = await all();
    await tick();
    const patch = await http.patch(`/api/stations/${sid}/`, { token: admin.token, json: { name: "After" } });
    expect(patch.status).toBe(200);
    const hts = await get(`${path}/data/?fmt=hts`, { "If-None-Match": before[3].headers.get("etag")! });
    expect200(hts);
    expect(hts.text).toContain("\r\nComment=After\r\n");
    expect(hts.headers.get("etag")).not.toBe(before[3].headers.get("etag"));
    expect(hts.headers.get("last-modified")).toBe(await expectedLastModified(path, sid, gid, vid, uid));
    // every kind includes the station's last_modified
    const after = await all();
    for (let i = 0; i < 3; i++) expect(after[i].headers.get("etag")).not.toBe(before[i].headers.get("etag"));
  });

  it("the group's precision changes: new ETags, and the new values", async () => {
    const before = await all();
    const patch = await http.patch(`/api/stations/${sid}/timeseriesgroups/${gid}/`, { token: admin.token, json: { precision: 3 } });
    expect(patch.status).toBe(200);
    const after = await all();
    for (let i = 0; i < before.length; i++) expect(after[i].headers.get("etag")).not.toBe(before[i].headers.get("etag"));
    expect(after[0].text).toBe("2020-01-01 02:00,1.000,\r\n2020-01-01 02:10,2.000,\r\n2020-01-01 02:20,3.000,\r\n");
  });

  it("the series' own fields change: new ETags", async () => {
    const before = await all();
    const patch = await http.patch(`${path}/`, { token: admin.token, json: { time_step: "H" } });
    expect(patch.status).toBe(200);
    const after = await all();
    expect(after[3].text).toContain("\r\nTime_step=60,0\r\n");
    for (let i = 0; i < before.length; i++) expect(after[i].headers.get("etag")).not.toBe(before[i].headers.get("etag"));
    for (let i = 0; i < before.length; i++) expect(versionOf(after[i].headers.get("etag"))).toBeGreaterThan(versionOf(before[i].headers.get("etag")));
  });

  it("the variable changes: new ETags", async () => {
    const before = await all();
    await tick();
    const patch = await http.patch(`/api/variables/${vid}/`, { token: admin.token, json: { descr: "Relative humidity" } });
    expect(patch.status).toBe(200);
    const after = await all();
    expect(after[3].text).toContain("\r\nVariable=Relative humidity\r\n");
    for (let i = 0; i < before.length; i++) expect(after[i].headers.get("etag")).not.toBe(before[i].headers.get("etag"));
    expect(after[0].headers.get("last-modified")).toBe(await expectedLastModified(path, sid, gid, vid, uid));
  });

  it("the unit changes: new ETags", async () => {
    const before = await all();
    await tick();
    const patch = await http.patch(`/api/units/${uid}/`, { token: admin.token, json: { symbol: "%RH" } });
    expect(patch.status).toBe(200);
    const after = await all();
    for (let i = 0; i < before.length; i++) expect(after[i].headers.get("etag")).not.toBe(before[i].headers.get("etag"));
    expect(after[0].headers.get("last-modified")).toBe(await expectedLastModified(path, sid, gid, vid, uid));
  });
});

describe("private series (formats.md §9.5, §9.6)", () => {
  let sid: number;
  let gid: number;
  let tid: number;
  let path: string;
  beforeAll(async () => {
    sid = await f.station({ displayTimezone: "UTC", dataViewers: [viewer.id] });
    gid = await f.group(sid, { precision: 2, variableId: temperature, unitId: celsius });
    tid = await f.series(gid, { type: "Initial", publiclyAvailable: false });
    await f.addRecords(tid, [["2020-01-01T00:00:00Z", 1]]);
    path = `/api/stations/${sid}/timeseriesgroups/${gid}/timeseries/${tid}`;
  });

  it.each(KINDS)("%s: private, no-cache for a data reader, and the same ETag for every reader", async (kind) => {
    const a = await get(`${path}/${kind}`, {}, viewer.token);
    const b = await get(`${path}/${kind}`, {}, admin.token);
    expect(a.status).toBe(200);
    expect(a.headers.get("cache-control")).toBe("private, no-cache");
    expect(b.headers.get("cache-control")).toBe("private, no-cache");
    expect(a.headers.get("etag")).toMatch(etagPattern(tid));
    expect(b.headers.get("etag")).toBe(a.headers.get("etag"));
    expect304(await get(`${path}/${kind}`, { "If-None-Match": a.headers.get("etag")! }, admin.token), a);
  });

  it("data viewers added and removed through the API: the next reads follow at once, on every worker", async () => {
    const series = `${path}/data/`;
    // Several reads each: the test server's workers each cache the series' station and access.
    const statuses = async (token: string) => (await Promise.all(Array.from({ length: 6 }, () => get(series, {}, token)))).map((r) => r.status);
    expect(await statuses(stranger.token)).toEqual(Array(6).fill(403));
    expect(await statuses(viewer.token)).toEqual(Array(6).fill(200));
    const patch = await http.patch(`/api/stations/${sid}/`, { token: admin.token, json: { data_viewers: [stranger.id] } });
    expect(patch.status).toBe(200);
    expect(await statuses(stranger.token)).toEqual(Array(6).fill(200));
    expect(await statuses(viewer.token)).toEqual(Array(6).fill(403));
    expect((await http.patch(`/api/stations/${sid}/`, { token: admin.token, json: { data_viewers: [viewer.id] } })).status).toBe(200);
    expect(await statuses(stranger.token)).toEqual(Array(6).fill(403));
    expect(await statuses(viewer.token)).toEqual(Array(6).fill(200));
  });

  it.each(KINDS)("%s: anonymous with a matching If-None-Match gets 401; another user 403", async (kind) => {
    const a = await get(`${path}/${kind}`, {}, viewer.token);
    for (const inm of [a.headers.get("etag")!, "*"]) {
      const anon = await get(`${path}/${kind}`, { "If-None-Match": inm });
      expect({ status: anon.status, body: anon.text }).toEqual({ status: 401, body: '{"detail":"Authentication credentials were not provided."}' });
      expect(anon.headers.get("www-authenticate")).toBe("Token");
      const other = await get(`${path}/${kind}`, { "If-None-Match": inm }, stranger.token);
      expect({ status: other.status, body: other.text }).toEqual({ status: 403, body: '{"detail":"You do not have permission to perform this action."}' });
      const headAnon = await head(`${path}/${kind}`, { "If-None-Match": inm });
      expect(headAnon.status).toBe(401);
    }
  });
});

describe("ENHYDRIS_AUTHENTICATION_REQUIRED=true (formats.md §9.6)", () => {
  let second: TestServer;
  let http2: ReturnType<typeof api>;
  let reader: f.TestUser;
  let path: string;
  beforeAll(async () => {
    second = await startServer({ env: { ENHYDRIS_AUTHENTICATION_REQUIRED: "true" } });
    http2 = api(second.url);
    reader = await f.user();
    const vid = await f.variable("Temperature");
    const uid = await f.unit("°C", [vid]);
    const sid = await f.station({ displayTimezone: "UTC" });
    const gid = await f.group(sid, { precision: 2, variableId: vid, unitId: uid });
    const tid = await f.series(gid, { type: "Initial", publiclyAvailable: true });
    await f.addRecords(tid, [["2020-01-01T00:00:00Z", 1]]);
    path = `/api/stations/${sid}/timeseriesgroups/${gid}/timeseries/${tid}`;
  });
  afterAll(async () => {
    await second?.stop();
    await connectFixtures(server.databaseUrl, server.mediaDir);
  });

  it.each(KINDS)("%s of a public series is private, no-cache; anonymous gets 401 even with If-None-Match", async (kind) => {
    const r = await http2.get(`${path}/${kind}`, { token: reader.token });
    expect(r.status).toBe(200);
    expect(r.headers.get("cache-control")).toBe("private, no-cache");
    const again = await http2.get(`${path}/${kind}`, { token: reader.token, headers: { "If-None-Match": r.headers.get("etag")! } });
    expect304(again, r);
    const anon = await http2.get(`${path}/${kind}`, { headers: { "If-None-Match": r.headers.get("etag")! } });
    expect(anon.status).toBe(401);
    expect(anon.headers.get("www-authenticate")).toBe("Token");
  });
});
