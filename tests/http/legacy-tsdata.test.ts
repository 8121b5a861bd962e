/**
 * `/api/tsdata/` (legacy.md §5): the records as text, the legacy append and the §5.4 table
 * in order.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { api, type TestResponse } from "@/tests/support/http";
import * as f from "@/tests/support/fixtures";
import { startServer, type TestServer } from "@/tests/support/server";

let server: TestServer;
let http: ReturnType<typeof api>;

const ALICE = { Authorization: "Basic YWxpY2U6dG9wc2VjcmV0" }; // alice:topsecret
const FORM = "application/x-www-form-urlencoded";
const TEXT = "text/plain; charset=utf-8";
const BODY = "2018-12-09 13:10,20.46,\r\n2018-12-09 13:20,,MISS\r\n2018-12-09 13:30,21.00,FLAG1 FLAG2\r\n2019-01-01 00:00,-3.12,\r\n";
const basic = (user: string, password: string) => ({ Authorization: `Basic ${Buffer.from(`${user}:${password}`).toString("base64")}` });

let st1: number;
let ts12: number;


function expectJson(r: TestResponse, status: number, body: string) {
  expect({ status: r.status, type: r.headers.get("content-type"), body: r.text }).toEqual({ status, type: "application/json", body });
}

function expectText(r: TestResponse, body: string) {
  expect({ status: r.status, type: r.headers.get("content-type"), body: r.text }).toEqual({ status: 200, type: TEXT, body });
}

/** A form body with only CR and LF percent-encoded, as the spec shows it. */
const raw = (text: string) => ({ headers: { ...ALICE, "Content-Type": FORM }, body: text });

beforeAll(async () => {
  server = await startServer({ env: { ENHYDRIS_MAX_UPLOAD_SIZE: "100000" } });
  http = api(server.url);
  const alice = await f.user({ username: "alice", password: "topsecret" });
  await f.user({ username: "bob", password: "bobsecret" });
  ({ stationId: st1, seriesId: ts12 } = await f.workedExample({ maintainers: [alice.id] }));
});
afterAll(() => server?.stop());

describe("GET /api/tsdata/<id>/ (§5.1)", () => {
  it("answers the record lines of formats.md §0 as text/plain", async () => {
    expectText(await http.get(`/api/tsdata/${ts12}/`), BODY);
  });

  it("carries validators; 304 on a matching If-None-Match; HEAD", async () => {
    const r = await http.get(`/api/tsdata/${ts12}/`);
    const etag = r.headers.get("etag")!;
    expect(etag).toMatch(new RegExp(`^"${ts12}-\\d+-[0-9a-f]{16}"$`));
    expect(r.headers.get("cache-control")).toBe("public, no-cache");
    expect(r.headers.get("last-modified")).toMatch(/GMT$/);
    const again = await http.get(`/api/tsdata/${ts12}/`, { headers: { "If-None-Match": `W/${etag}` } });
    expect([again.status, again.text, again.headers.get("etag")]).toEqual([304, "", etag]);
    const head = await http.head(`/api/tsdata/${ts12}/`);
    expect([head.status, head.text, head.headers.get("content-type"), head.headers.get("etag")]).toEqual([200, "", TEXT, etag]);
    const data = await http.get(`/api/stations/${st1}/timeseries/${ts12}/data/`);
    expect(data.headers.get("etag")).not.toBe(etag);
  });

  it("timezone, start_date and end_date (extension)", async () => {
    expectText(await http.get(`/api/tsdata/${ts12}/?timezone=UTC`),
      "2018-12-09 11:10,20.46,\r\n2018-12-09 11:20,,MISS\r\n2018-12-09 11:30,21.00,FLAG1 FLAG2\r\n2018-12-31 22:00,-3.12,\r\n");
    expectText(await http.get(`/api/tsdata/${ts12}/?start_date=2018-12-09T13:20&end_date=2018-12-09T13:30`),
      "2018-12-09 13:20,,MISS\r\n2018-12-09 13:30,21.00,FLAG1 FLAG2\r\n");
    expectText(await http.get(`/api/tsdata/${ts12}/?start_date=2019-01-02`), "");
    expectJson(await http.get(`/api/tsdata/${ts12}/?timezone=Nowhere/Zone`), 400, '{"timezone":["\\"Nowhere/Zone\\" is not a valid choice."]}');
    expectJson(await http.get(`/api/tsdata/${ts12}/?start_date=yesterday`), 400,
      '{"start_date":["Datetime has wrong format. Use one of these formats instead: YYYY-MM-DD, YYYY-MM-DDThh:mm[:ss[.uuuuuu]][+HH:MM|-HH:MM|Z]."]}');
  });

  it("an empty series gives an empty body; an unknown id 404", async () => {
    const g = await f.group(st1, { precision: 1 });
    const empty = await f.series(g, {});
    expectText(await http.get(`/api/tsdata/${empty}/`), "");
    expectJson(await http.get("/api/tsdata/99999/"), 404, '{"detail":"Not found."}');
    expectJson(await http.get("/api/tsdata/abc/"), 404, '{"detail":"Not found."}');
  });

  it("the private-data rule: anonymous 401 (Basic), others 403, data viewers 200", async () => {
    const viewer = await f.user();
    const sid = await f.station({ dataViewers: [viewer.id] });
    const g = await f.group(sid, { precision: 0 });
    const hidden = await f.series(g, { publiclyAvailable: false });
    await f.addRecords(hidden, [["2020-01-01T00:00:00Z", 1]]);
    const anonymous = await http.get(`/api/tsdata/${hidden}/`);
    expectJson(anonymous, 401, '{"detail":"Authentication credentials were not provided."}');
    expect(anonymous.headers.get("www-authenticate")).toBe('Basic realm="api"');
    expectJson(await http.get(`/api/tsdata/${hidden}/`, { headers: basic("bob", "bobsecret") }), 403,
      '{"detail":"You do not have permission to perform this action."}');
    const ok = await http.get(`/api/tsdata/${hidden}/`, { token: viewer.token });
    expectText(ok, "2020-01-01 02:00,1,\r\n");
    expect(ok.headers.get("cache-control")).toBe("private, no-cache");
  });
});

describe("appending (§5.2–5.4), the table in order", () => {
  it("PUT /api/tsdata/12/ → 200 text/plain 2", async () => {
    const r = await http.put(`/api/tsdata/${ts12}/`, raw("timeseries_records=2019-01-01 00:10,1.5,%0D%0A2019-01-01 00:20,,MISS%0D%0A"));
    expectText(r, "2");
  });

  it("the same request again → 400 with every line", async () => {
    const r = await http.put(`/api/tsdata/${ts12}/`, raw("timeseries_records=2019-01-01 00:10,1.5,%0D%0A2019-01-01 00:20,,MISS%0D%0A"));
    expectJson(r, 400, '{"timeseries_records":["line 1: 2019-01-01T00:10:00+02:00 is not later than the last stored record (2019-01-01T00:20:00+02:00)",' +
      '"line 2: 2019-01-01T00:20:00+02:00 is not later than the last stored record (2019-01-01T00:20:00+02:00)"]}');
  });

  it("PUT /api/tsdata/ with timeseries_id → 200 1", async () => {
    expectText(await http.put("/api/tsdata/", raw(`timeseries_id=${ts12}&timeseries_records=2019-01-01 00:30,2,%0A`)), "1");
  });

  it("PUT /api/tsdata (no slash) → 200 1", async () => {
    expectText(await http.put("/api/tsdata", raw(`timeseries_id=${ts12}&timeseries_records=2019-01-01 00:40,3,%0A`)), "1");
  });

  it("PUT /api/tsdata/ without timeseries_id → 400", async () => {
    expectJson(await http.put("/api/tsdata/", raw("timeseries_records=2019-01-01 00:50,3,%0A")), 400, '{"timeseries_id":["This field is required."]}');
  });

  it("PUT /api/tsdata/12/ with timeseries_records= (empty) → 200 0", async () => {
    expectText(await http.put(`/api/tsdata/${ts12}/`, raw("timeseries_records=")), "0");
  });

  it("PUT /api/tsdata/12/ anonymous → 401 with the Basic challenge", async () => {
    const r = await http.put(`/api/tsdata/${ts12}/`, { form: { timeseries_records: "2019-01-01 00:50,3," } });
    expectJson(r, 401, '{"detail":"Authentication credentials were not provided."}');
    expect(r.headers.get("www-authenticate")).toBe('Basic realm="api"');
  });

  it("PUT /api/tsdata/99999/ → 404", async () => {
    expectJson(await http.put("/api/tsdata/99999/", raw("timeseries_records=")), 404, '{"detail":"Not found."}');
  });

  it("the records are stored", async () => {
    expectText(await http.get(`/api/tsdata/${ts12}/?start_date=2019-01-01`),
      "2019-01-01 00:00,-3.12,\r\n2019-01-01 00:10,1.50,\r\n2019-01-01 00:20,,MISS\r\n2019-01-01 00:30,2.00,\r\n2019-01-01 00:40,3.00,\r\n");
  });
});

describe("more of the append", () => {
  it("POST works as PUT, on both paths; mode and dry_run are ignored", async () => {
    expectText(await http.post(`/api/tsdata/${ts12}/`, raw("timeseries_records=2019-01-01 01:00,4,%0A&mode=insert&dry_run=true")), "1");
    expectText(await http.post("/api/tsdata", raw(`timeseries_id=${ts12}&timeseries_records=2019-01-01 01:10,5,%0A`)), "1");
    expectText(await http.get(`/api/tsdata/${ts12}/?start_date=2019-01-01T01:00`), "2019-01-01 01:00,4.00,\r\n2019-01-01 01:10,5.00,\r\n");
  });

  it("timezone is honoured; JSON bodies", async () => {
    const r = await http.put(`/api/tsdata/${ts12}/`, { headers: ALICE, json: { timeseries_records: "2019-01-01 00:00,6,\n", timezone: "UTC" } });
    expectText(r, "1");
    expectText(await http.get(`/api/tsdata/${ts12}/?start_date=2019-01-01T02:00`), "2019-01-01 02:00,6.00,\r\n");
  });

  it("timeseries_id errors: not an integer 400, unknown 404; bob 403", async () => {
    expectJson(await http.put("/api/tsdata/", raw("timeseries_id=abc&timeseries_records=")), 400, '{"timeseries_id":["A valid integer is required."]}');
    expectJson(await http.put("/api/tsdata/", raw("timeseries_id=99999&timeseries_records=")), 404, '{"detail":"Not found."}');
    expectJson(await http.put("/api/tsdata/", { headers: { ...basic("bob", "bobsecret"), "Content-Type": FORM }, body: `timeseries_id=${ts12}&timeseries_records=` }),
      403, '{"detail":"You do not have permission to perform this action."}');
    expectJson(await http.put(`/api/tsdata/${ts12}/`, { headers: { ...basic("bob", "bobsecret"), "Content-Type": FORM }, body: "timeseries_records=" }),
      403, '{"detail":"You do not have permission to perform this action."}');
  });

  it("a missing field, a bad line: 400 JSON; the whole upload or nothing", async () => {
    expectJson(await http.put(`/api/tsdata/${ts12}/`, raw("timezone=UTC")), 400, '{"timeseries_records":["This field is required."]}');
    const r = await http.put(`/api/tsdata/${ts12}/`, raw("timeseries_records=2019-02-01 00:00,1,%0Agarbage%0A"));
    expect(r.status).toBe(400);
    expect(r.json.timeseries_records[0]).toMatch(/^line 2: /);
    expectText(await http.get(`/api/tsdata/${ts12}/?start_date=2019-02-01`), "");
  });

  it("a body over the limit → 413", async () => {
    const r = await http.put(`/api/tsdata/${ts12}/`, raw(`timeseries_records=${"2019-03-01 00:00,1,%0A".repeat(6000)}`));
    expectJson(r, 413, '{"detail":"Request body too large; the limit is 100000 bytes."}');
  });

  it("GET /api/tsdata/ → 405 with Allow: POST, PUT, OPTIONS", async () => {
    const r = await http.get("/api/tsdata/");
    expectJson(r, 405, '{"detail":"Method \\"GET\\" not allowed."}');
    expect(r.headers.get("allow")).toBe("POST, PUT, OPTIONS");
    expect((await http.get("/api/tsdata")).status).toBe(308);
    expect((await http.get(`/api/tsdata/${ts12}`)).status).toBe(308);
  });
});
