/**
 * Station information with geodata (legacy.md §6): the three calls, their keys and order,
 * `station_list` parsing and JSONP, with the examples of §6.4.
 */
import { runInNewContext } from "node:vm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { api, type TestResponse } from "@/tests/support/http";
import * as f from "@/tests/support/fixtures";
import { startServer, type TestServer } from "@/tests/support/server";
import { siteLogin } from "@/tests/support/site-session";

let server: TestServer;
let http: ReturnType<typeof api>;
let komboti: number;
let arta: number;
let ntua: number;
let joe: number;
let meteo: number;

const KEYS = ["id", "name", "code", "srid", "point", "altitude", "original_srid", "owner", "types", "start_date", "end_date", "remarks"];
const JSONP = "application/javascript; charset=utf-8";

function expectJson(r: TestResponse, status: number, body: string) {
  expect({ status: r.status, type: r.headers.get("content-type"), body: r.text }).toEqual({ status, type: "application/json", body });
}

const kombotiJson = () =>
  `{"id":${komboti},"name":"Komboti","code":"KMB","srid":4326,"point":"POINT (21.06071 39.09518)","altitude":219,"original_srid":4326,` +
  `"owner":{"id":${ntua},"name_any":"National Technical University of Athens"},"types":[{"id":${meteo},"descr":"Meteorological"}],` +
  `"start_date":"2010-01-01","end_date":null,"remarks":"Near Arta"}`;
const artaJson = () =>
  `{"id":${arta},"name":"Arta","code":"","srid":4326,"point":"POINT (20.98 39.16)","altitude":null,"original_srid":2100,` +
  `"owner":{"id":${joe},"name_any":"User Joe"},"types":[],"start_date":null,"end_date":"2020-12-31","remarks":""}`;

beforeAll(async () => {
  server = await startServer();
  http = api(server.url);
  ntua = await f.organization("National Technical University of Athens", "NTUA");
  joe = await f.person("Joe", "User");
  meteo = await f.stationType("Meteorological");
  const other = await f.stationType("Aaa other");
  komboti = await f.station({
    name: "Komboti", code: "KMB", remarks: "Near Arta", altitude: 219, originalSrid: 4326, lon: 21.06071, lat: 39.09518,
    startDate: "2010-01-01", ownerId: ntua, stype: [meteo],
  });
  arta = await f.station({ name: "Arta", lon: 20.98, lat: 39.16, altitude: null, originalSrid: 2100, endDate: "2020-12-31", ownerId: joe });
  void other;
});
afterAll(() => server?.stop());

describe("GET /api/Station/info/ and /api/Station/info/<id>/ (§6.1)", () => {
  it("GET /api/Station/info/1/ → a one-element array with the keys in order", async () => {
    const r = await http.get(`/api/Station/info/${komboti}/`);
    expectJson(r, 200, `[${kombotiJson()}]`);
    expect(Object.keys(r.json[0])).toEqual(KEYS);
  });

  it("GET /api/Station/info/ → every station by id; Accept is ignored", async () => {
    expectJson(await http.get("/api/Station/info/", { headers: { Accept: "text/csv" } }), 200, `[${kombotiJson()},${artaJson()}]`);
  });

  it("types are sorted by id; an organization without a name shows its acronym", async () => {
    const acronymOnly = await f.organization("", "ACR");
    const t2 = await f.stationType("Second");
    const s = await f.station({ name: "Typed", ownerId: acronymOnly, stype: [t2, meteo] });
    const r = await http.get(`/api/Station/info/${s}/`);
    expect(r.json[0].types).toEqual([{ id: meteo, descr: "Meteorological" }, { id: t2, descr: "Second" }]);
    expect(r.json[0].owner).toEqual({ id: acronymOnly, name_any: "ACR" });
  });

  it("an unknown or non-numeric id → 404", async () => {
    expectJson(await http.get("/api/Station/info/999/"), 404, '{"detail":"Not found."}');
    expectJson(await http.get("/api/Station/info/abc/"), 404, '{"detail":"Not found."}');
    const area = await f.garea("Epirus", "EP", [20, 39, 21, 40]);
    expectJson(await http.get(`/api/Station/info/${area}/`), 404, '{"detail":"Not found."}');
  });
});

describe("POST /api/Station/info/list/ (§6.2)", () => {
  it("station_list=3,1,99,1,abc → request order, unknown and bad tokens skipped, repeats once", async () => {
    const r = await http.post("/api/Station/info/list", { headers: { "Content-Type": "application/x-www-form-urlencoded" }, body: `station_list=${arta},${komboti},99,${komboti},abc` });
    expectJson(r, 200, `[${artaJson()},${kombotiJson()}]`);
  });

  it("with the slash; tokens trimmed, empty ones skipped", async () => {
    expectJson(await http.post("/api/Station/info/list/", { form: { station_list: ` ${komboti} ,, ${arta}, ` } }), 200, `[${kombotiJson()},${artaJson()}]`);
  });

  it("JSON: a string or an array of integers", async () => {
    expectJson(await http.post("/api/Station/info/list/", { json: { station_list: `${arta},${komboti}` } }), 200, `[${artaJson()},${kombotiJson()}]`);
    expectJson(await http.post("/api/Station/info/list/", { json: { station_list: [komboti, 99999, arta, komboti] } }), 200, `[${kombotiJson()},${artaJson()}]`);
  });

  it("no field → 400; an empty list → []", async () => {
    expectJson(await http.post("/api/Station/info/list/", { form: { other: "1" } }), 400, '{"station_list":["This field is required."]}');
    expectJson(await http.post("/api/Station/info/list/", { form: { station_list: "" } }), 200, "[]");
  });

  it("GET /api/Station/info/list/ → 405 with Allow: POST, OPTIONS", async () => {
    const r = await http.get("/api/Station/info/list/");
    expectJson(r, 405, '{"detail":"Method \\"GET\\" not allowed."}');
    expect(r.headers.get("allow")).toBe("POST, OPTIONS");
  });

  it("is a read: a session POST needs no CSRF token", async () => {
    const u = await f.user();
    const { jar } = await siteLogin(server.url, u.username, u.password);
    expect(jar.header()).not.toBe("");
    expectJson(await http.post("/api/Station/info/list/", { headers: { Cookie: jar.header() }, form: { station_list: String(komboti) } }), 200,
      `[${kombotiJson()}]`);
  });
});

describe("JSONP (§6.3)", () => {
  it("GET /api/Station/info/1/?callback=showStations", async () => {
    const r = await http.get(`/api/Station/info/${komboti}/?callback=showStations`);
    expect({ status: r.status, type: r.headers.get("content-type"), nosniff: r.headers.get("x-content-type-options"), body: r.text })
      .toEqual({ status: 200, type: JSONP, nosniff: "nosniff", body: `showStations([${kombotiJson()}])` });
    // the body runs as a script and hands the array to the callback
    let received: unknown;
    runInNewContext(r.text, { showStations: (x: unknown) => (received = x) });
    expect(JSON.stringify(received)).toBe(`[${kombotiJson()}]`);
  });

  it("on the list and the POST too; dotted names", async () => {
    const all = await http.get("/api/Station/info/?callback=My.ns.cb");
    expect(all.text.startsWith(`My.ns.cb([${kombotiJson()},${artaJson()},`)).toBe(true);
    expect(all.text.endsWith("}])")).toBe(true);
    const r = await http.post(`/api/Station/info/list/?callback=$cb_1`, { form: { station_list: String(arta) } });
    expect([r.headers.get("content-type"), r.text]).toEqual([JSONP, `$cb_1([${artaJson()}])`]);
  });

  it("an invalid name → 400", async () => {
    expectJson(await http.get("/api/Station/info/?callback=alert(1)"), 400, '{"callback":["Invalid callback name."]}');
    expectJson(await http.get(`/api/Station/info/${komboti}/?callback=a..b`), 400, '{"callback":["Invalid callback name."]}');
    expectJson(await http.get(`/api/Station/info/?callback=${"a".repeat(101)}`), 400, '{"callback":["Invalid callback name."]}');
    expect((await http.get(`/api/Station/info/?callback=${"a".repeat(100)}`)).status).toBe(200);
    expectJson(await http.post("/api/Station/info/list/?callback=1x", { form: { station_list: "1" } }), 400, '{"callback":["Invalid callback name."]}');
  });
});
