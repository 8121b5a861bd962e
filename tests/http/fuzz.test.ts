import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readdirSync, statSync } from "node:fs";
import { api } from "@/tests/support/http";
import * as f from "@/tests/support/fixtures";
import { expectEverySeriesWhole } from "@/tests/support/series-whole";
import { startServer, type TestServer } from "@/tests/support/server";

/**
 * Hostile input over HTTP (issue 8): random and malicious parameters, paths and bodies on every
 * endpoint. Never a 5xx, never an internal detail in a body, never a partial write.
 */
let server: TestServer;
let http: ReturnType<typeof api>;
let admin: f.TestUser;
let ids: { sid: number; gid: number; tid: number; priv: number; file: number; event: number; variable: number; unit: number; owner: number };

const LIMIT = 200_000;
beforeAll(async () => {
  server = await startServer({ env: { ENHYDRIS_MAX_UPLOAD_SIZE: String(LIMIT) } });
  http = api(server.url);
  admin = await f.user({ superuser: true });
  const owner = await f.organization("Fuzz Org");
  const variable = await f.variable("Rain");
  const unit = await f.unit("mm", [variable]);
  const sid = await f.station({ ownerId: owner });
  const gid = await f.group(sid, { variableId: variable, unitId: unit });
  const tid = await f.series(gid, { timeStep: "10min" });
  const priv = await f.series(gid, { type: "Checked", publiclyAvailable: false });
  await f.addRecords(tid, Array.from({ length: 500 }, (_, i) => [new Date(Date.UTC(2020, 0, 1) + i * 600_000).toISOString(), i / 3] as [string, number]));
  const file = await f.attachment("files", sid, { fileName: "a.pdf", bytes: "x", descr: "A" });
  const event = await f.event(sid, { date: "2020-01-01" });
  ids = { sid, gid, tid, priv, file, event, variable, unit, owner };
});
afterAll(() => server?.stop());

const hostile = fc.oneof(
  fc.string({ unit: "binary", maxLength: 40 }),
  fc.constantFrom("", " ", "0", "-1", "1.5", "1e309", "-1e309", "9".repeat(400), "NaN", "Infinity", "null", "true", "[]", "{}",
    "' OR 1=1 --", "'; DROP TABLE station; --", "<script>alert(1)</script>", "../../../etc/passwd", "..%2F..%2Fetc", "%00", "%ZZ",
    "\u0000", "\uFFFF", "\uD800", "é", "2020-02-30", "99999-01-01", "0001-01-01T00:00", "2020-01-01T25:61", "Etc/GMT+99", "Europe/Nowhere",
    "bbox:1,2,3", "ts_has_years:x", "owner:", "in:", "sort", "-name", "hts2", "HTS", "xml", "last", "2001", "-2147483649"),
  fc.integer().map(String),
  fc.double().map(String),
);

const PARAMS = ["page", "page_size", "q", "bbox", "gentity_id", "sort", "fmt", "timezone", "start_date", "end_date", "points", "format", "callback", "x"];
// URLSearchParams encodes anything (lone surrogates included); raw malformed escapes are added too.
const query = fc.tuple(fc.array(fc.tuple(fc.constantFrom(...PARAMS), hostile), { maxLength: 5 }), fc.constantFrom("", "&q=%ZZ", "&page=%", "&start_date=%E0%A4%A"))
  .map(([pairs, raw]) => new URLSearchParams(pairs).toString() + raw);

function readPaths(): string[] {
  const { sid, gid, tid, priv, file, event } = ids;
  const series = `/api/stations/${sid}/timeseriesgroups/${gid}/timeseries/${tid}`;
  return [
    "/api/stations/", "/api/stations/csv/", "/api/stations/geojson/", `/api/stations/${sid}/`, `/api/stations/${sid}/timeseriesgroups/`,
    `${series}/`, `${series}/data/`, `${series}/bottom/`, `${series}/chart/`, `/api/stations/${sid}/timeseries/${priv}/data/`,
    `/api/stations/${sid}/timeseries/${tid}/chart/`, `/api/stations/${sid}/files/${file}/content/`, `/api/stations/${sid}/events/${event}/`,
    "/api/variables/", "/api/units/", "/api/organizations/", "/api/persons/", "/api/gareas/", "/api/schema/", "/api/",
  ];
}

function expectSane(status: number, text: string, what: string): void {
  expect(status, `${what} → ${status} ${text.slice(0, 200)}`).toBeLessThan(500);
  expect(text, what).not.toMatch(/\n\s+at [\w.<>]+ \(|node_modules|PrismaClient|SQLITE_|syntax error/);
}

describe("hostile query parameters", () => {
  it("never give a 5xx on any read endpoint", async () => {
    const cases = fc.sample(fc.tuple(fc.constantFrom(...readPaths()), query), { numRuns: 400, seed: 42 });
    for (const [path, q] of cases) {
      const r = await http.get(`${path}?${q}`, { token: Math.random() < 0.5 ? admin.token : undefined });
      expectSane(r.status, r.text, `GET ${path}?${q}`);
    }
  });
});

describe("hostile paths", () => {
  it("are 404, 308 or 405, never a 5xx", async () => {
    const segment = fc.oneof(fc.constantFrom("stations", "1", "0", "-1", "999999999999999999999", "timeseriesgroups", "timeseries", "data",
      "..", ".", "%2e%2e", "%00", "%", "abc", "Station", "tsdata", "info", "list", "é", "%C3%A9", "%FF"), fc.stringMatching(/^[\w%.-]{0,12}$/));
    const paths = fc.sample(fc.array(segment, { minLength: 1, maxLength: 7 }).map((s) => `/api/${s.join("/")}/`), { numRuns: 300, seed: 7 });
    for (const path of paths) {
      for (const method of ["GET", "POST", "DELETE"]) {
        // Anonymous for DELETE: these paths may name real objects.
        const r = await http.request(method, path, { token: method === "DELETE" ? undefined : admin.token });
        expectSane(r.status, r.text, `${method} ${path}`);
      }
    }
  });
});

describe("hostile bodies", () => {
  const jsonBody = fc.dictionary(fc.constantFrom("name", "code", "geom", "owner", "precision", "variable", "unit_of_measurement",
    "type", "time_step", "timeseries_group", "gentity", "maintainers", "stype", "date", "report", "descr", "symbol", "variables",
    "timeseries_records", "timezone", "mode", "dry_run", "display_timezone", "altitude", "start_date", "publicly_available", "content",
    "username", "password", "email"), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 8 });

  function writeTargets(): [string, string][] {
    const { sid, gid, tid, event } = ids;
    return [
      ["POST", "/api/stations/"], ["PATCH", `/api/stations/${sid}/`], ["PUT", `/api/stations/${sid}/`],
      ["POST", `/api/stations/${sid}/timeseriesgroups/`], ["PATCH", `/api/stations/${sid}/timeseriesgroups/${gid}/`],
      ["POST", `/api/stations/${sid}/timeseriesgroups/${gid}/timeseries/`], ["PATCH", `/api/stations/${sid}/timeseriesgroups/${gid}/timeseries/${tid}/`],
      ["POST", `/api/stations/${sid}/timeseries/`], ["PATCH", `/api/stations/${sid}/timeseries/${tid}/`],
      ["POST", `/api/stations/${sid}/timeseries/${tid}/data/`], ["POST", `/api/stations/${sid}/events/`], ["PATCH", `/api/stations/${sid}/events/${event}/`],
      ["POST", `/api/stations/${sid}/files/`], ["POST", "/api/variables/"], ["POST", "/api/units/"], ["POST", "/api/gareas/"], ["POST", "/api/persons/"],
      ["POST", "/api/auth/login/"], ["PATCH", "/api/auth/user/"], ["POST", "/api/auth/password/reset/"], ["POST", "/api/auth/password/change/"],
    ];
  }

  it("JSON of any shape: never a 5xx", async () => {
    const cases = fc.sample(fc.tuple(fc.constantFrom(...writeTargets()), fc.oneof(jsonBody, fc.jsonValue())), { numRuns: 500, seed: 3 });
    for (const [[method, path], body] of cases) {
      const r = await http.request(method, path, { token: admin.token, json: body });
      expectSane(r.status, r.text, `${method} ${path} ${JSON.stringify(body).slice(0, 200)}`);
    }
  });

  it("form bodies with hostile values, random bytes and odd content types: never a 5xx", async () => {
    const form = fc.array(fc.tuple(fc.constantFrom("name", "geom", "owner", "precision", "type", "timeseries_records", "timezone", "mode",
      "maintainers", "date", "descr", "symbol", "variables", "password"), hostile), { maxLength: 8 });
    const cases = fc.sample(fc.tuple(fc.constantFrom(...writeTargets()), form), { numRuns: 400, seed: 11 });
    for (const [[method, path], pairs] of cases) {
      const r = await http.request(method, path, { token: admin.token, form: pairs });
      expectSane(r.status, r.text, `${method} ${path} ${JSON.stringify(pairs).slice(0, 200)}`);
    }
    const raw = fc.sample(fc.tuple(fc.constantFrom(...writeTargets()), fc.uint8Array({ maxLength: 400 }),
      fc.constantFrom("application/json", "application/x-www-form-urlencoded", "multipart/form-data", "multipart/form-data; boundary=x",
        "text/plain", "application/json; charset=latin1", "", "image/png")), { numRuns: 300, seed: 5 });
    for (const [[method, path], bytes, type] of raw) {
      const r = await http.request(method, path, { token: admin.token, body: bytes, headers: type ? { "Content-Type": type } : {} });
      expectSane(r.status, r.text, `${method} ${path} ${type}`);
    }
  });

  it("JSON nested deeper than 64 levels is a parse error before it is parsed, anonymous or not", async () => {
    // 90,000 levels (within this server's body limit): JSON.parse built them all (50 million stalled the server for 30 s).
    const deep = `{"email":${"[".repeat(90_000)}${"]".repeat(90_000)},"username":"x","password":"y","name":"z"}`;
    const refused = { detail: "JSON parse error - Arrays and objects nested too deeply (more than 64 levels) at position 72" };
    const json = { "Content-Type": "application/json" };
    for (const path of ["/api/auth/password/reset/", "/api/auth/login/"]) {
      const r = await http.post(path, { body: deep, headers: json });
      expect([path, r.status, r.json]).toEqual([path, 400, refused]);
    }
    const r = await http.patch(`/api/stations/${ids.sid}/`, { token: admin.token, body: deep, headers: json });
    expect([r.status, r.json]).toEqual([400, refused]);
    // 64 levels are read as usual: here the e-mail is no string.
    const deepest = await http.post("/api/auth/password/reset/", { body: `{"email":${"[".repeat(63)}${"]".repeat(63)}}`, headers: json });
    expect(deepest.status).toBe(400);
    expect(deepest.json).not.toHaveProperty("detail");
  });

  it("enormous bodies are 413, on every kind of body", async () => {
    const big = "x".repeat(LIMIT + 1);
    const sid = await f.station();
    const tid = await f.series(await f.group(sid));
    for (const [type, body] of [["application/json", JSON.stringify({ name: big })], ["application/x-www-form-urlencoded", `timeseries_records=${big}`],
      ["multipart/form-data; boundary=b", `--b\r\nContent-Disposition: form-data; name="timeseries_records"\r\n\r\n${big}\r\n--b--\r\n`]]) {
      const r = await http.post(`/api/stations/${sid}/timeseries/${tid}/data/`, { token: admin.token, body, headers: { "Content-Type": type } });
      expect(r.status).toBe(413);
      expect(r.json).toEqual({ detail: `Request body too large; the limit is ${LIMIT} bytes.` });
    }
  });

  it("left every series whole: its summary matches its records", async () => {
    await expectEverySeriesWhole();
  });

  it("kept uploaded files inside the media directory, under generated names", async () => {
    const sid = await f.station();
    const names = ["../../../../tmp/evil.pdf", "..\\..\\evil.pdf", "/etc/passwd", "a/b/c.txt", "\u0000nul.txt", "con.txt", "<script>.html", ".htaccess", "x".repeat(300)];
    for (const name of names) {
      const form = new FormData();
      form.append("descr", "hostile");
      form.append("content", new Blob(["bytes"]), name);
      const r = await fetch(`${server.url}/api/stations/${sid}/files/`, { method: "POST", headers: { Authorization: `Token ${admin.token}` }, body: form });
      expect(r.status, name).toBe(201);
      const object = await r.json();
      const content = await fetch(object.content);
      expect(content.status).toBe(200);
      expect(content.headers.get("content-disposition")).not.toMatch(/[/\\]/);
      expect(content.headers.get("x-content-type-options")).toBe("nosniff");
      expect(content.headers.get("content-type")).not.toMatch(/html|javascript/);
    }
    for (const entry of readdirSync(server.mediaDir)) {
      expect(entry).toMatch(/^[0-9a-f]{32}(\.[a-z0-9]+)?$/);
      expect(statSync(`${server.mediaDir}/${entry}`).isFile()).toBe(true);
    }
  });
});
