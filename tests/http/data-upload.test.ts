/**
 * POST of a time series' data/ (api.md §8.3; formats.md §3.5, §6), written from the
 * specification: U1–U9 over HTTP in each body type, the exact 400 bodies, all-or-nothing,
 * the order of checks, size limits, a large upload and concurrent uploads.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { api, type TestResponse } from "@/tests/support/http";
import * as f from "@/tests/support/fixtures";
import { connectFixtures, startServer, type TestServer } from "@/tests/support/server";

let server: TestServer;
let http: ReturnType<typeof api>;
let admin: f.TestUser;
let creator: f.TestUser;
let variableId: number;
let unitId: number;
let station: number;

type Fields = Record<string, string | boolean | number>;
type Kind = "form" | "json" | "multipart" | "file";

const CSV_U1 = "2014-01-01 06:00:00+00:00,11.0,\n2014-01-02 06:00:00+00:00,12.0,\n2014-01-03 06:00:00+00:00,13.0,\n";
const GET_U1 = "2014-01-01 07:00,11.00,\r\n2014-01-02 07:00,12.00,\r\n2014-01-03 07:00,13.00,\r\n";
const DRY_U1 = '{"count":3,"start_date":"2014-01-01T06:00:00Z","end_date":"2014-01-03T06:00:00Z"}';

beforeAll(async () => {
  server = await startServer();
  http = api(server.url);
  admin = await f.user({ superuser: true });
  creator = await f.user();
  variableId = await f.variable("Temperature");
  unitId = await f.unit("°C", [variableId]);
  station = await f.station({ name: "Upload station", displayTimezone: "Etc/GMT-2" }, creator.id);
});
afterAll(() => server?.stop());

interface Series { sid: number; gid: number; tid: number; path: string }

async function fresh(options: { precision?: number; stationId?: number; records?: [string, number | null, string?][] } = {}): Promise<Series> {
  const sid = options.stationId ?? station;
  const gid = await f.group(sid, { precision: options.precision ?? 2, variableId, unitId });
  const tid = await f.series(gid, { type: "Initial", timeStep: "10min" });
  if (options.records?.length) await f.addRecords(tid, options.records);
  return { sid, gid, tid, path: `/api/stations/${sid}/timeseriesgroups/${gid}/timeseries/${tid}` };
}

function upload(path: string, fields: Fields, kind: Kind = "form", as: string | null = creator.token, base = http): Promise<TestResponse> {
  const url = `${path}/data/`;
  const token = as ?? undefined; // null: anonymous
  if (kind === "json") return base.post(url, { token, json: fields });
  if (kind === "form") return base.post(url, { token, form: Object.fromEntries(Object.entries(fields).map(([k, v]) => [k, String(v)])) });
  const fd = new FormData();
  for (const [k, v] of Object.entries(fields)) {
    if (kind === "file" && k === "timeseries_records") fd.append(k, new Blob([String(v)], { type: "text/csv" }), "records.csv");
    else fd.append(k, String(v));
  }
  return base.post(url, { token, body: fd });
}

const getData = async (path: string, query = "?timezone=UTC") => {
  const r = await http.get(`${path}/data/${query}`);
  expect(r.status).toBe(200);
  return r.text;
};

function expect204(r: TestResponse) {
  expect({ status: r.status, body: r.text }).toEqual({ status: 204, body: "" });
}

function expectJson(r: TestResponse, status: number, body: unknown) {
  expect({ status: r.status, body: r.json }).toEqual({ status, body });
  expect(r.text).toBe(JSON.stringify(body));
  expect(r.headers.get("content-type")).toMatch(/^application\/json/);
}

const recordErrors = (r: TestResponse, messages: string[]) => expectJson(r, 400, { timeseries_records: messages });

/** Everything an upload may change. */
async function snapshot(s: Series) {
  const data = await http.get(`${s.path}/data/?timezone=UTC`);
  const hts = await http.get(`${s.path}/data/?fmt=hts`);
  const seriesObject = await http.get(`${s.path}/`);
  const stationObject = await http.get(`/api/stations/${s.sid}/`);
  return {
    data: data.text, hts: hts.text, etag: data.headers.get("etag"), lastModifiedHeader: data.headers.get("last-modified"),
    seriesLastModified: seriesObject.json.last_modified, stationLastUpdate: stationObject.json.last_update,
  };
}

describe("U1: the Python client's upload (formats.md §6.7)", () => {
  it.each<Kind>(["form", "json", "multipart", "file"])("stores it from a %s body", async (kind) => {
    const s = await fresh();
    expect204(await upload(s.path, { timeseries_records: CSV_U1, timezone: "UTC" }, kind));
    expect(await getData(s.path, "?timezone=Etc/GMT-1")).toBe(GET_U1);
  });

  it.each<[Kind, string | boolean | number]>([
    ["form", "true"], ["json", true], ["multipart", "true"], ["file", "true"], ["form", "yes"], ["form", "1"], ["form", "On"], ["json", 1], ["json", "y"],
  ])("answers a dry run in a %s body (dry_run=%s) with 200 and stores nothing", async (kind, dryRun) => {
    const s = await fresh();
    const r = await upload(s.path, { timeseries_records: CSV_U1, timezone: "UTC", dry_run: dryRun }, kind);
    expect({ status: r.status, body: r.text }).toEqual({ status: 200, body: DRY_U1 });
    expect(r.headers.get("content-type")).toMatch(/^application\/json/);
    expect(await getData(s.path)).toBe("");
  });

  it.each<[Kind, string | boolean]>([["form", "false"], ["json", false], ["form", "no"], ["form", "0"], ["form", "off"]])(
    "stores with a %s body and dry_run=%s", async (kind, dryRun) => {
      const s = await fresh();
      expect204(await upload(s.path, { timeseries_records: CSV_U1, timezone: "UTC", dry_run: dryRun }, kind));
      expect(await getData(s.path, "?timezone=Etc/GMT-1")).toBe(GET_U1);
    });
});

describe("U2: mixed forms, CR LF, display zone (formats.md §6.7)", () => {
  const text = "2020-01-01T00:00,1.5,\r\n2020-01-01 00:10:00,2,FLAG1  FLAG2\r\n2020-01-01 00:20+02:00,nan,MISS\r\n2020-01-01T00:30Z,,\r\n2020-01-02,1e3\r\n\r\n2020-01-01 00:25:30, -0.5 ,\r\n";
  const expected = "2020-01-01 00:00,1.5,\r\n2020-01-01 00:10,2.0,FLAG1 FLAG2\r\n2020-01-01 00:20,,MISS\r\n2020-01-01 00:25,-0.5,\r\n2020-01-01 02:30,,\r\n2020-01-02 00:00,1000.0,\r\n";

  it.each<Kind>(["form", "json", "multipart", "file"])("stores it (%s) and reads it back sorted", async (kind) => {
    const s = await fresh({ precision: 1 });
    expect204(await upload(s.path, { timeseries_records: text }, kind));
    expect(await getData(s.path, "")).toBe(expected);
  });

  it("answers the dry run exactly", async () => {
    const s = await fresh({ precision: 1 });
    const r = await upload(s.path, { timeseries_records: text, dry_run: "true" });
    expect({ status: r.status, body: r.text }).toEqual({ status: 200, body: '{"count":6,"start_date":"2019-12-31T22:00:00Z","end_date":"2020-01-01T22:00:00Z"}' });
    expect(await getData(s.path)).toBe("");
  });
});

describe("U3: syntax errors (formats.md §6.7)", () => {
  const text = "2020-01-01 00:00,1,\n2020-13-01 00:00,2,\n2020-01-01 00:10,abc,\n2020-01-01 00:20,3,A,B\n2020-01-01 00:00,4,\n2020-01-01 00:30,inf,\n2020-01-01 00:40\n1500-01-01,1,\n2020-01-01 00:50,1,\"X\"\n";
  const messages = [
    'line 2: invalid timestamp "2020-13-01 00:00"',
    'line 3: invalid value "abc"',
    "line 4: expected 2 or 3 fields, found 4",
    "line 5: timestamp 2020-01-01T00:00:00+02:00 also appears on line 1",
    'line 6: invalid value "inf"',
    "line 7: expected 2 or 3 fields, found 1",
    'line 8: timestamp "1500-01-01" is outside 1680-01-01 to 2260-01-01',
    "line 9: invalid character in flags",
  ];
  it.each<Kind>(["form", "json", "multipart", "file"])("answers the exact 400 (%s) and stores nothing", async (kind) => {
    const s = await fresh();
    const before = await snapshot(s);
    recordErrors(await upload(s.path, { timeseries_records: text }, kind), messages);
    expect(await snapshot(s)).toEqual(before);
  });

  it("answers the same for a dry run", async () => {
    const s = await fresh();
    recordErrors(await upload(s.path, { timeseries_records: text, dry_run: "true" }), messages);
  });
});

describe("U4: append and insert against stored records (formats.md §6.7)", () => {
  const stored: [string, number][] = [["2019-12-31T22:00:00Z", 1], ["2019-12-31T22:10:00Z", 2]];
  const storedText = "2019-12-31 22:00,1.00,\r\n2019-12-31 22:10,2.00,\r\n";

  it.each<[string, string, string[]]>([
    ["2020-01-01 00:10,5,\n2020-01-01 00:20,6,\n", "append", ["line 1: 2020-01-01T00:10:00+02:00 is not later than the last stored record (2020-01-01T00:10:00+02:00)"]],
    ["2020-01-01 00:10,5,\n2020-01-01 00:20,6,\n", "insert", ["line 1: a record at 2020-01-01T00:10:00+02:00 already exists"]],
    ["2020-01-01 00:05,5,\n", "append", ["line 1: 2020-01-01T00:05:00+02:00 is not later than the last stored record (2020-01-01T00:10:00+02:00)"]],
  ])("body %j with mode=%s gives the exact 400 and stores nothing", async (body, mode, messages) => {
    const s = await fresh({ records: stored });
    const before = await snapshot(s);
    recordErrors(await upload(s.path, { timeseries_records: body, mode }), messages);
    expect(await snapshot(s)).toEqual(before);
    expect(before.data).toBe(storedText);
    // a dry run performs the same storage checks
    recordErrors(await upload(s.path, { timeseries_records: body, mode, dry_run: "true" }), messages);
  });

  it("mode=insert stores a record between the two", async () => {
    const s = await fresh({ records: stored });
    expect204(await upload(s.path, { timeseries_records: "2020-01-01 00:05,5,\n", mode: "insert" }));
    expect(await getData(s.path)).toBe("2019-12-31 22:00,1.00,\r\n2019-12-31 22:05,5.00,\r\n2019-12-31 22:10,2.00,\r\n");
  });

  it("mode=insert accepts records before, between and after, and reports each existing one", async () => {
    const s = await fresh({ records: stored });
    expect204(await upload(s.path, { timeseries_records: "2020-01-01 00:20,7,\n2019-12-31 23:00,3,\n2020-01-01 00:05,5,\n", mode: "insert" }, "json"));
    expect(await getData(s.path)).toBe("2019-12-31 21:00,3.00,\r\n2019-12-31 22:00,1.00,\r\n2019-12-31 22:05,5.00,\r\n2019-12-31 22:10,2.00,\r\n2019-12-31 22:20,7.00,\r\n");
    recordErrors(await upload(s.path, { timeseries_records: "2020-01-01 00:30,8,\n2020-01-01 00:00,9,\n2020-01-01 00:40,8,\n2019-12-31T22:20:00Z,9,\n", mode: "insert" }), [
      "line 2: a record at 2020-01-01T00:00:00+02:00 already exists",
      "line 4: a record at 2020-01-01T00:20:00+02:00 already exists",
    ]);
  });

  it("mode=append reports each offending line, and accepts lines in any order when all are later", async () => {
    const s = await fresh({ records: stored });
    recordErrors(await upload(s.path, { timeseries_records: "2020-01-01 00:30,1,\n2020-01-01 00:00,2,\n2020-01-01 00:11,3,\n2019-12-31 00:00,4,\n" }), [
      "line 2: 2020-01-01T00:00:00+02:00 is not later than the last stored record (2020-01-01T00:10:00+02:00)",
      "line 4: 2019-12-31T00:00:00+02:00 is not later than the last stored record (2020-01-01T00:10:00+02:00)",
    ]);
    expect204(await upload(s.path, { timeseries_records: "2020-01-01 00:30,1,\n2020-01-01 00:11,3,\n", mode: "append" }));
    expect(await getData(s.path)).toBe(storedText + "2019-12-31 22:11,3.00,\r\n2019-12-31 22:30,1.00,\r\n");
  });

  it("says how many lines the storage checks refused in all, beside the first 10 messages (X-Enhydris-Refused-Lines)", async () => {
    const s = await fresh({ records: stored });
    // 14 lines before the last stored record (00:10 local), one after it.
    const early = Array.from({ length: 14 }, (_, i) => `2019-12-31 ${String(10 + i).padStart(2, "0")}:00,${i},`);
    const append = await upload(s.path, { timeseries_records: [...early, "2020-01-01 00:30,9,"].join("\n") });
    expect(append.status).toBe(400);
    expect((append.json as { timeseries_records: string[] }).timeseries_records).toHaveLength(10);
    expect(append.headers.get("x-enhydris-refused-lines")).toBe("14");
    // insert: the two stored instants, among 12 lines.
    const lines = ["2020-01-01 00:00,1,", "2020-01-01 00:10,2,", ...Array.from({ length: 10 }, (_, i) => `2020-01-02 ${String(i).padStart(2, "0")}:00,${i},`)];
    const insert = await upload(s.path, { timeseries_records: lines.join("\n"), mode: "insert" });
    expect(insert.status).toBe(400);
    expect(insert.headers.get("x-enhydris-refused-lines")).toBe("2");
    // A body the parser refuses has no count of this kind (its check stops at the tenth problem).
    const bad = await upload(s.path, { timeseries_records: "nonsense\n" });
    expect(bad.status).toBe(400);
    expect(bad.headers.get("x-enhydris-refused-lines")).toBeNull();
    expect(await getData(s.path)).toBe(storedText);
  });

  it("writes the times of the messages in the upload zone", async () => {
    const s = await fresh({ records: stored });
    recordErrors(await upload(s.path, { timeseries_records: "2019-12-31 22:10,5,\n", timezone: "UTC" }), [
      "line 1: 2019-12-31T22:10:00+00:00 is not later than the last stored record (2019-12-31T22:10:00+00:00)",
    ]);
    recordErrors(await upload(s.path, { timeseries_records: "2019-12-31T17:10:00-05:00,5,\n", timezone: "America/New_York", mode: "insert" }), [
      "line 1: a record at 2019-12-31T17:10:00-05:00 already exists",
    ]);
    recordErrors(await upload(s.path, { timeseries_records: "2019-07-01 12:00,1\n2019-12-31T22:10:00Z,2\n", timezone: "Europe/Athens" }), [
      "line 1: 2019-07-01T12:00:00+03:00 is not later than the last stored record (2020-01-01T00:10:00+02:00)",
      "line 2: 2020-01-01T00:10:00+02:00 is not later than the last stored record (2020-01-01T00:10:00+02:00)",
    ]);
  });
});

describe("U5, U6: HTS bodies (formats.md §6.7, §5.6)", () => {
  const hts = "Count=2\nTimezone=EET (UTC+0300)\nUnit=°C\n\n2020-01-09 00:00,5,\n2020-01-09 00:10,6,\n";

  it.each<Kind>(["form", "json", "multipart", "file"])("U5 (%s): the header zone overrides timezone=UTC", async (kind) => {
    const s = await fresh();
    expect204(await upload(s.path, { timeseries_records: hts, timezone: "UTC" }, kind));
    expect(await getData(s.path)).toBe("2020-01-08 21:00,5.00,\r\n2020-01-08 21:10,6.00,\r\n");
  });

  it("U5 dry run", async () => {
    const s = await fresh();
    const r = await upload(s.path, { timeseries_records: hts, timezone: "UTC", dry_run: "true" });
    expect({ status: r.status, body: r.text }).toEqual({ status: 200, body: '{"count":2,"start_date":"2020-01-08T21:00:00Z","end_date":"2020-01-08T21:10:00Z"}' });
  });

  it("U6: a bad header", async () => {
    const s = await fresh();
    recordErrors(await upload(s.path, { timeseries_records: "Title=Test\nTimezone=Mars/Olympus\nNo equals sign here\n" }), [
      'line 2: invalid Timezone "Mars/Olympus"',
      'line 3: invalid header line "No equals sign here"',
      "line 3: the header must be followed by a blank line",
    ]);
    expect(await getData(s.path)).toBe("");
  });

  it.each<[string, string]>([
    ["Timezone=EET (UTC+0300)", "2020-01-08 21:00"],
    ["Timezone=whatever (+0300)", "2020-01-08 21:00"],
    ["Timezone=UTC+0300", "2020-01-08 21:00"],
    ["Timezone=-0130", "2020-01-09 01:30"],
    ["Timezone=Etc/GMT-3", "2020-01-08 21:00"],
    ["timezone = Etc/GMT-3", "2020-01-08 21:00"],
    ["TIMEZONE=Etc/GMT%2B1", "2020-01-09 01:00"],
    ["Timezone=", "2020-01-09 00:00"],
    ["Timezone=Etc/GMT-5\r\nTimezone=UTC+0100", "2020-01-08 23:00"],
    ["Location=21.06 39.09 4326\r\nTime_step=10,0\r\nVersion=2\r\nFoo_Bar9 = a=b", "2020-01-09 00:00"],
  ])("reads the header %j (formats.md §5.6)", async (header, local) => {
    const s = await fresh();
    const text = `\uFEFFTitle=x\r\n${header.replace("%2B", "+")}\r\n\r\n2020-01-09 00:00,5,\r\n`;
    expect204(await upload(s.path, { timeseries_records: text, timezone: "UTC" }));
    expect(await getData(s.path)).toBe(`${local},5.00,\r\n`);
  });

  it.each<[string, string[]]>([
    ["Title=x\nTimezone=Nowhere\n\n2020-01-09 00:00,5,\n", ['line 2: invalid Timezone "Nowhere"']],
    ["Title=x\nTimezone=UTC+3\n\n2020-01-09 00:00,5,\n", ['line 2: invalid Timezone "UTC+3"']],
    ["Title=x\n9bad=1\n\n2020-01-09 00:00,5,\n", ['line 2: invalid header line "9bad=1"']],
    ["Title=x\nTimezone=UTC\n2020-01-09 00:00,5,\n", ['line 3: invalid header line "2020-01-09 00:00,5,"', "line 3: the header must be followed by a blank line"]],
    ["Title=x\n\n2020-01-09 00:00,abc,\n", ['line 3: invalid value "abc"']],
  ])("reports header problems: %j", async (text, messages) => {
    const s = await fresh();
    recordErrors(await upload(s.path, { timeseries_records: text }), messages);
    expect(await getData(s.path)).toBe("");
  });
});

describe("U7: DST zones (formats.md §3.5, §6.7)", () => {
  it("stores a repeated local time at the earlier instant", async () => {
    const s = await fresh();
    const dry = await upload(s.path, { timeseries_records: "2020-10-25 03:30,1,\n", timezone: "Europe/Athens", dry_run: "true" });
    expect(dry.text).toBe('{"count":1,"start_date":"2020-10-25T00:30:00Z","end_date":"2020-10-25T00:30:00Z"}');
    expect204(await upload(s.path, { timeseries_records: "2020-10-25 03:30,1,\n", timezone: "Europe/Athens" }));
    expect(await getData(s.path)).toBe("2020-10-25 00:30,1.00,\r\n");
  });

  it("reports a skipped local time", async () => {
    const s = await fresh();
    recordErrors(await upload(s.path, { timeseries_records: "2020-10-25 03:30,1,\n2020-03-29 03:30,2,\n", timezone: "Europe/Athens" }), [
      'line 2: "2020-03-29 03:30" does not exist in time zone Europe/Athens',
    ]);
    expect(await getData(s.path)).toBe("");
  });
});

describe("U8, U9 (formats.md §6.7)", () => {
  it.each<[string, Kind]>([["", "form"], ["", "json"], ["", "multipart"], ["", "file"], ["\n  \n\t\r\n\n", "form"], ["\uFEFF", "json"], ["\r\n", "json"]])(
    "U8: %j (%s) gives 204 and stores nothing", async (text, kind) => {
      const s = await fresh();
      expect204(await upload(s.path, { timeseries_records: text }, kind));
      expect(await getData(s.path)).toBe("");
    });

  it("U8: an empty dry run", async () => {
    const s = await fresh();
    const r = await upload(s.path, { timeseries_records: "", dry_run: "true" });
    expect({ status: r.status, body: r.text }).toEqual({ status: 200, body: '{"count":0,"start_date":null,"end_date":null}' });
  });

  it("U8: an empty upload does not change the series", async () => {
    const s = await fresh({ records: [["2020-01-01T00:00:00Z", 1]] });
    const before = await snapshot(s);
    expect204(await upload(s.path, { timeseries_records: "" }));
    expect(await snapshot(s)).toEqual(before);
  });

  it("U9: duplicate instants written differently", async () => {
    const s = await fresh();
    recordErrors(await upload(s.path, { timeseries_records: "2020-01-01 00:00+02:00,1,\n2019-12-31T22:00Z,2,\n", timezone: "UTC" }), [
      "line 2: timestamp 2019-12-31T22:00:00+00:00 also appears on line 1",
    ]);
  });
});

describe("request fields (formats.md §6.1; api.md §8.3)", () => {
  let s: Series;
  beforeAll(async () => {
    s = await fresh({ records: [["2020-01-01T00:00:00Z", 1]] });
  });

  it.each<[string, Kind, Fields]>([
    ["form", "form", { timezone: "UTC" }],
    ["json", "json", { timezone: "UTC" }],
    ["multipart", "multipart", { timezone: "UTC" }],
    ["empty json", "json", {}],
  ])("a missing timeseries_records (%s) gives the exact 400", async (_name, kind, fields) => {
    expectJson(await upload(s.path, fields, kind), 400, { timeseries_records: ["This field is required."] });
  });

  it("a bodiless POST gives the missing-field 400", async () => {
    expectJson(await http.post(`${s.path}/data/`, { token: creator.token }), 400, { timeseries_records: ["This field is required."] });
  });

  it("mode=merge gives the exact 400", async () => {
    expectJson(await upload(s.path, { timeseries_records: "2030-01-01,1", mode: "merge" }), 400, { mode: ['"merge" is not a valid choice.'] });
  });

  it("an unknown timezone gives the exact 400", async () => {
    expectJson(await upload(s.path, { timeseries_records: "2030-01-01,1", timezone: "Nowhere/Zone" }), 400, { timezone: ['"Nowhere/Zone" is not a valid choice.'] });
  });

  it("an invalid dry_run gives the boolean 400", async () => {
    expectJson(await upload(s.path, { timeseries_records: "2030-01-01,1", dry_run: "maybe" }), 400, { dry_run: ["Must be a valid boolean."] });
  });

  it("reports the field errors together, and before any record error", async () => {
    const r = await upload(s.path, { timeseries_records: "garbage", timezone: "Nowhere/Zone", mode: "merge", dry_run: "maybe" });
    expect(r.status).toBe(400);
    expect(r.json).toEqual({ timezone: ['"Nowhere/Zone" is not a valid choice.'], mode: ['"merge" is not a valid choice.'], dry_run: ["Must be a valid boolean."] });
  });

  it("nothing was stored by the failed requests", async () => {
    expect(await getData(s.path)).toBe("2020-01-01 00:00,1.00,\r\n");
  });

  it("accepts the zone in any letter case and an empty zone as absent", async () => {
    const t = await fresh();
    expect204(await upload(t.path, { timeseries_records: "2020-01-01 00:00,1,\n", timezone: "etc/gmt-5" }));
    expect204(await upload(t.path, { timeseries_records: "2020-01-01 12:00,2,\n", timezone: "" }));
    expect204(await upload(t.path, { timeseries_records: "2020-01-02 00:00,3,\n", timezone: "US/Eastern" }));
    expect(await getData(t.path)).toBe("2019-12-31 19:00,1.00,\r\n2020-01-01 10:00,2.00,\r\n2020-01-02 05:00,3.00,\r\n");
  });

  it("a JSON null timeseries_records gives the null 400, and a JSON list body the dictionary 400 (api.md §1.2)", async () => {
    expectJson(await upload(s.path, { timeseries_records: null as unknown as string }, "json"), 400, { timeseries_records: ["This field may not be null."] });
    expectJson(await http.post(`${s.path}/data/`, { token: creator.token, json: ["2030-01-01,1"] }), 400, { non_field_errors: ["Invalid data. Expected a dictionary, but got list."] });
  });

  it("an HTS header with no records is an empty upload", async () => {
    const t = await fresh();
    expect204(await upload(t.path, { timeseries_records: "Title=x\r\nTimezone=UTC\r\n\r\n" }));
    expect(await getData(t.path)).toBe("");
  });

  it("answers an unsupported content type with 415", async () => {
    const r = await http.post(`${s.path}/data/`, { token: creator.token, body: "2030-01-01,1", headers: { "Content-Type": "text/plain" } });
    expectJson(r, 415, { detail: 'Unsupported media type "text/plain" in request.' });
  });

  it("answers malformed JSON with 400 detail", async () => {
    const r = await http.post(`${s.path}/data/`, { token: creator.token, body: "{nope", headers: { "Content-Type": "application/json" } });
    expect(r.status).toBe(400);
    expect(Object.keys(r.json)).toEqual(["detail"]);
    expect(r.json.detail).toMatch(/^JSON parse error - /);
  });

  it("reads a body without Content-Type as form-encoded", async () => {
    const t = await fresh();
    const r = await fetch(`${server.url}${t.path}/data/`, {
      method: "POST", headers: { Authorization: `Token ${creator.token}` },
      body: new Blob([new URLSearchParams({ timeseries_records: "2020-01-01T00:00Z,1,\n", timezone: "UTC" }).toString()]),
    });
    expect(r.status).toBe(204);
    expect(await getData(t.path)).toBe("2020-01-01 00:00,1.00,\r\n");
  });
});

describe("the record grammar (formats.md §6.2, §6.3, §6.5)", () => {
  const ok = async (text: string, expected: string, options: { precision?: number; timezone?: string } = {}) => {
    const s = await fresh({ precision: options.precision });
    const r = await upload(s.path, { timeseries_records: text, timezone: options.timezone ?? "UTC" });
    expect({ status: r.status, body: r.text }).toEqual({ status: 204, body: "" });
    expect(await getData(s.path)).toBe(expected);
  };
  const bad = async (text: string, messages: string[], options: { timezone?: string } = {}) => {
    const s = await fresh();
    recordErrors(await upload(s.path, { timeseries_records: text, timezone: options.timezone ?? "UTC" }), messages);
    expect(await getData(s.path)).toBe("");
  };

  it("accepts LF, CR LF and CR CR LF line ends, and a last line without a line end", async () => {
    await ok("2020-01-01 00:00,1,\r\n2020-01-01 00:10,2,\r\r\n2020-01-01 00:20,3,\n2020-01-01 00:30,4,",
      "2020-01-01 00:00,1.00,\r\n2020-01-01 00:10,2.00,\r\n2020-01-01 00:20,3.00,\r\n2020-01-01 00:30,4.00,\r\n");
  });

  it("counts lines across CR CR LF, blank lines and a BOM", async () => {
    await bad("\uFEFF2020-01-01 00:00,1,\r\r\n\r\n   \r\n2020-01-01 00:10,x,\r\n", ['line 4: invalid value "x"']);
  });

  it("removes a leading BOM", async () => {
    await ok("\uFEFF2020-01-01 00:00,1,\n", "2020-01-01 00:00,1.00,\r\n");
  });

  it("removes a leading BOM in a multipart file part", async () => {
    const s = await fresh();
    expect204(await upload(s.path, { timeseries_records: "\uFEFF2020-01-01 00:00,1,\n", timezone: "UTC" }, "file"));
    expect(await getData(s.path)).toBe("2020-01-01 00:00,1.00,\r\n");
  });

  it("stores -0 as 0", async () => {
    await ok("2020-01-01 00:00,-0,\n2020-01-01 00:10,-0.0,\n2020-01-01 00:20,-0e5,\n", "2020-01-01 00:00,0.00,\r\n2020-01-01 00:10,0.00,\r\n2020-01-01 00:20,0.00,\r\n");
  });

  it("reads nan in any letter case and an empty value as null", async () => {
    await ok("2020-01-01 00:00,nan,\n2020-01-01 00:10,NaN,A\n2020-01-01 00:20,NAN\n2020-01-01 00:30,,\n2020-01-01 00:40,\n2020-01-01 00:50, ,B",
      "2020-01-01 00:00,,\r\n2020-01-01 00:10,,A\r\n2020-01-01 00:20,,\r\n2020-01-01 00:30,,\r\n2020-01-01 00:40,,\r\n2020-01-01 00:50,,B\r\n");
  });

  it("reads numbers with signs, exponents and bare points", async () => {
    await ok("2020-01-01 00:00,1e3\n2020-01-01 00:01,2.5e-1\n2020-01-01 00:02,-1E+2\n2020-01-01 00:03,.5\n2020-01-01 00:04,5.\n2020-01-01 00:05,+3\n2020-01-01 00:06,1.25E1\n2020-01-01 00:07,007\n2020-01-01 00:08,1e-400\n",
      "2020-01-01 00:00,1000.00,\r\n2020-01-01 00:01,0.25,\r\n2020-01-01 00:02,-100.00,\r\n2020-01-01 00:03,0.50,\r\n2020-01-01 00:04,5.00,\r\n2020-01-01 00:05,3.00,\r\n2020-01-01 00:06,12.50,\r\n2020-01-01 00:07,7.00,\r\n2020-01-01 00:08,0.00,\r\n");
  });

  it("converts a number to the nearest double and formats its exact value", async () => {
    await ok("2020-01-01 00:00,2.675\n2020-01-01 00:01,0.1\n2020-01-01 00:02,123456789.125\n", "2020-01-01 00:00,2.67,\r\n2020-01-01 00:01,0.10,\r\n2020-01-01 00:02,123456789.12,\r\n");
    await ok("2020-01-01 00:00,0.1\n", "2020-01-01 00:00,0.10000000000000000555,\r\n", { precision: 20 });
  });

  it("rejects values outside the grammar", async () => {
    await bad("2020-01-01 00:00,0x10\n2020-01-01 00:01,Infinity\n2020-01-01 00:02,inf\n2020-01-01 00:03,null\n2020-01-01 00:04,1e999\n2020-01-01 00:05,-1e999\n2020-01-01 00:06,1 2\n2020-01-01 00:07,e5\n2020-01-01 00:08,1e\n2020-01-01 00:09,--1\n", [
      'line 1: invalid value "0x10"', 'line 2: invalid value "Infinity"', 'line 3: invalid value "inf"', 'line 4: invalid value "null"',
      'line 5: invalid value "1e999"', 'line 6: invalid value "-1e999"', 'line 7: invalid value "1 2"', 'line 8: invalid value "e5"',
      'line 9: invalid value "1e"', 'line 10: invalid value "--1"',
    ]);
    await bad("2020-01-01 00:00,.\n2020-01-01 00:01,+\n2020-01-01 00:02,1.2.3\n2020-01-01 00:03,１\n", [
      'line 1: invalid value "."', 'line 2: invalid value "+"', 'line 3: invalid value "1.2.3"', 'line 4: invalid value "１"',
    ]);
  });

  it("normalizes flags", async () => {
    await ok("2020-01-01 00:00,1,FLAG1  FLAG2 \n2020-01-01 00:10,2,\tA\t\tB  C\t\n2020-01-01 00:20,3,   \n2020-01-01 00:30,4,Ω-é/ok;x\n",
      "2020-01-01 00:00,1.00,FLAG1 FLAG2\r\n2020-01-01 00:10,2.00,A B C\r\n2020-01-01 00:20,3.00,\r\n2020-01-01 00:30,4.00,Ω-é/ok;x\r\n");
  });

  it("rejects flags with a double quote or a control character", async () => {
    await bad("2020-01-01 00:00,1,A\"B\n2020-01-01 00:10,1,A\u0001B\n2020-01-01 00:20,1,A\u007fB\n2020-01-01 00:30,1,OK\n", [
      "line 1: invalid character in flags", "line 2: invalid character in flags", "line 3: invalid character in flags",
    ]);
  });

  it("takes flags of at most 1,000 characters a record: a longer one is a line error and nothing is stored", async () => {
    await bad(`2020-01-01 00:00,1,OK\n2020-01-01 00:10,2,${"F".repeat(5_000_000)}\n`, ["line 2: flags longer than 1000 characters"]);
    const words = `${"Ω".repeat(499)} ${"A".repeat(500)}`; // 1,000 characters (Ω is one)
    await ok(`2020-01-01 00:00,1,${words}\n`, `2020-01-01 00:00,1.00,${words}\r\n`);
  });

  it("accepts every timestamp form of the grammar", async () => {
    await ok([
      "2020-01-01,1", "2020-01-01T00:10,2", "2020-01-01t00:20:00,3", "2020-01-01 00:30:00Z,4", "2020-01-01T00:40z,5",
      "2020-01-01T02:50+02:00,6", "2020-01-01T04:00:00+0300,7", "2020-01-01T04:10+03,8", "2019-12-31T20:20:00-05:00,9",
      "  2020-01-01 00:30:30  ,  10  ,  F  ",
    ].join("\n"), [
      "2020-01-01 00:00,1.00,", "2020-01-01 00:10,2.00,", "2020-01-01 00:20,3.00,", "2020-01-01 00:30,4.00,", "2020-01-01 00:30,10.00,F",
      "2020-01-01 00:40,5.00,", "2020-01-01 00:50,6.00,", "2020-01-01 01:00,7.00,", "2020-01-01 01:10,8.00,", "2020-01-01 01:20,9.00,",
    ].join("\r\n") + "\r\n");
  });

  it("rejects timestamps outside the grammar", async () => {
    const forms = ["2020-1-01", "2020-01-01T1:00", "2020-01-01  00:00", "2020-01-01T00:00:00.5", "2020-02-30", "2020-01-01T24:00",
      "2020-01-01T00:60", "2020-01-01T00:00:60", "20200101 0000", "2020-01-01T00:00+2", "hello", "2020-01-01X00:00"];
    await bad(forms.map((t, i) => `${t},${i}`).join("\n"), forms.slice(0, 10).map((t, i) => `line ${i + 1}: invalid timestamp "${t}"`));
  });

  it("accepts both ends of the range and rejects instants outside it", async () => {
    await ok("1680-01-01T00:00:00Z,1\n2260-01-01T00:00:00Z,2\n", "1680-01-01 00:00,1.00,\r\n2260-01-01 00:00,2.00,\r\n");
    await bad("1679-12-31T23:59:59Z,1\n2260-01-01T00:00:01Z,2\n2260-01-01 02:00,3\n9999-12-31,4\n", [
      'line 1: timestamp "1679-12-31T23:59:59Z" is outside 1680-01-01 to 2260-01-01',
      'line 2: timestamp "2260-01-01T00:00:01Z" is outside 1680-01-01 to 2260-01-01',
      'line 4: timestamp "9999-12-31" is outside 1680-01-01 to 2260-01-01',
    ], { timezone: "Etc/GMT-2" });
  });

  it("stops at ten messages", async () => {
    const lines = Array.from({ length: 15 }, (_, i) => `2020-01-01 00:${String(i).padStart(2, "0")},bad${i}`);
    await bad(lines.join("\n"), Array.from({ length: 10 }, (_, i) => `line ${i + 1}: invalid value "bad${i}"`));
  });

  it("cuts a quoted text longer than 40 characters to 40 and adds ...", async () => {
    const long = "v".repeat(39) + "XYZ";
    const long40 = "w".repeat(40);
    const ts = "2020-01-01 00:00:00+02:00 and more and more and more";
    await bad(`2020-01-01 00:00,${long}\n2020-01-01 00:10,${long40}\n${ts},1\n`, [
      `line 1: invalid value "${"v".repeat(39)}X..."`,
      `line 2: invalid value "${long40}"`,
      `line 3: invalid timestamp "${ts.slice(0, 40)}..."`,
    ]);
  });

  it("reports the field count, and a duplicate on the later line", async () => {
    await bad("2020-01-01 00:00,1,A,B,C\n2020-01-01 00:10\n2020-01-01 00:20,1,\n2020-01-01 00:30,1,\n2020-01-01 00:20:00,2,\n", [
      "line 1: expected 2 or 3 fields, found 5",
      "line 2: expected 2 or 3 fields, found 1",
      "line 5: timestamp 2020-01-01T00:20:00+00:00 also appears on line 3",
    ]);
  });

  it("checks the storage only when no line has an error", async () => {
    const s = await fresh({ records: [["2020-06-01T00:00:00Z", 1]] });
    recordErrors(await upload(s.path, { timeseries_records: "2020-01-01 00:00,1\n2020-01-01 00:10,x\n", timezone: "UTC" }), ['line 2: invalid value "x"']);
  });

  it("treats a first non-blank line that starts with a non-digit as an HTS header", async () => {
    await bad("\n\n  x2020-01-01 00:00,1\n2020-01-01 00:10,2\n", ['line 3: invalid header line "x2020-01-01 00:00,1"', 'line 4: invalid header line "2020-01-01 00:10,2"', "line 4: the header must be followed by a blank line"]);
  });
});

describe("all or nothing, and the side effects of a store (formats.md §6.4, §6.6, §9)", () => {
  let own: number;
  let s: Series;
  beforeAll(async () => {
    own = await f.station({ displayTimezone: "Etc/GMT-2" }, creator.id);
    s = await fresh({ stationId: own, records: [["2020-01-01T00:00:00Z", 1], ["2020-01-01T00:10:00Z", 2]] });
  });

  it.each<[string, Fields]>([
    ["a bad line at the end of a long upload", { timeseries_records: Array.from({ length: 5000 }, (_, i) => `${new Date(Date.UTC(2021, 0, 1) + i * 60000).toISOString().replace(".000Z", "Z")},${i},`).join("\n") + "\n2030-01-01,oops\n" }],
    ["an append conflict on the last line", { timeseries_records: "2021-01-01T00:00Z,1\n2021-01-01T00:10Z,1\n2020-01-01T00:10Z,1\n" }],
    ["an insert conflict", { timeseries_records: "2019-01-01T00:00Z,1\n2020-01-01T00:10Z,1\n", mode: "insert" }],
    ["a duplicate", { timeseries_records: "2021-01-01T00:00Z,1\n2021-01-01T02:00+02:00,1\n" }],
    ["a field error", { timeseries_records: "2021-01-01T00:00Z,1\n", mode: "merge" }],
    ["a dry run", { timeseries_records: "2021-01-01T00:00Z,1\n", dry_run: "true" }],
  ])("%s changes nothing", async (_name, fields) => {
    const before = await snapshot(s);
    const r = await upload(s.path, fields);
    expect([200, 400]).toContain(r.status);
    expect(await snapshot(s)).toEqual(before);
  });

  it("a store changes the series' last_modified, the station's last_update, Last-Modified and the ETag", async () => {
    const before = await snapshot(s);
    expect(before.stationLastUpdate).toBe("2020-01-01T00:10:00Z");
    await new Promise((r) => setTimeout(r, 1100));
    expect204(await upload(s.path, { timeseries_records: "2021-03-04T05:06:07Z,3,\n" }));
    const after = await snapshot(s);
    expect(after.stationLastUpdate).toBe("2021-03-04T05:06:07Z");
    expect(after.seriesLastModified).not.toBe(before.seriesLastModified);
    expect(Date.parse(after.seriesLastModified)).toBeGreaterThan(Date.parse(before.seriesLastModified));
    expect(after.etag).not.toBe(before.etag);
    expect(after.lastModifiedHeader).not.toBe(before.lastModifiedHeader);
    expect(after.data).toBe(before.data + "2021-03-04 05:06,3.00,\r\n");
  });

  it("an insert before the last record changes last_modified and the ETag, and keeps last_update", async () => {
    const before = await snapshot(s);
    await new Promise((r) => setTimeout(r, 20));
    expect204(await upload(s.path, { timeseries_records: "2020-06-01T00:00Z,9\n", mode: "insert" }));
    const after = await snapshot(s);
    expect(after.stationLastUpdate).toBe(before.stationLastUpdate);
    expect(after.seriesLastModified).not.toBe(before.seriesLastModified);
    expect(after.etag).not.toBe(before.etag);
  });
});

describe("path aliases (api.md §7.2)", () => {
  it("accepts POST on the singular and the short path", async () => {
    const s = await fresh();
    expect204(await upload(`/api/stations/${s.sid}/timeseriesgroup/${s.gid}/timeseries/${s.tid}`, { timeseries_records: "2020-01-01T00:00Z,1\n" }));
    expect204(await upload(`/api/stations/${s.sid}/timeseries/${s.tid}`, { timeseries_records: "2020-01-01T00:10Z,2\n" }));
    expect(await getData(s.path)).toBe("2020-01-01 00:00,1.00,\r\n2020-01-01 00:10,2.00,\r\n");
  });

  it("answers 404 for path mismatches, before authentication", async () => {
    const s = await fresh();
    const other = await fresh({ stationId: await f.station({}, creator.id) });
    for (const path of [
      `/api/stations/${s.sid}/timeseriesgroups/${s.gid}/timeseries/${other.tid}`,
      `/api/stations/${s.sid}/timeseries/${other.tid}`,
      `/api/stations/${other.sid}/timeseriesgroup/${s.gid}/timeseries/${s.tid}`,
      `/api/stations/${s.sid}/timeseriesgroups/${s.gid}/timeseries/99999999`,
    ]) {
      for (const token of [null, creator.token]) {
        const r = await upload(path, { timeseries_records: "2020-01-01T00:00Z,1\n" }, "form", token);
        expect({ path, status: r.status, body: r.text }).toEqual({ path, status: 404, body: '{"detail":"Not found."}' });
      }
    }
    expect(await getData(other.path)).toBe("");
  });

  it("answers 401 before validating the body, and 403 for another user", async () => {
    const s = await fresh();
    const r = await upload(s.path, { timeseries_records: "garbage", mode: "merge" }, "form", null);
    expectJson(r, 401, { detail: "Authentication credentials were not provided." });
    expect(r.headers.get("www-authenticate")).toBe("Token");
    const stranger = await f.user();
    expectJson(await upload(s.path, { timeseries_records: "garbage", mode: "merge" }, "json", stranger.token), 403,
      { detail: "You do not have permission to perform this action." });
  });
});

describe("a large upload (api.md §1.1: a request reaches its handler with the whole body)", () => {
  it("stores every record of an ~11 MB multipart upload", async () => {
    const s = await fresh({ precision: 1 });
    const n = 500_000;
    const start = Date.UTC(2000, 0, 1);
    const up: string[] = new Array(n);
    const down: string[] = new Array(n);
    for (let i = 0; i < n; i++) {
      const iso = new Date(start + i * 600_000).toISOString();
      const stamp = `${iso.slice(0, 10)} ${iso.slice(11, 16)}`;
      const v = ((i * 7) % 1000) / 10;
      up[i] = `${stamp},${v},`;
      down[i] = `${stamp},${v.toFixed(1)},\r\n`;
    }
    const text = up.join("\n") + "\n";
    expect(text.length).toBeGreaterThan(10.5 * 1024 * 1024);
    const r = await upload(s.path, { timeseries_records: text, timezone: "UTC" }, "file", admin.token);
    expect({ status: r.status, body: r.text }).toEqual({ status: 204, body: "" });
    const data = await getData(s.path);
    expect(data.length).toBe(down.join("").length);
    expect(data === down.join("")).toBe(true);
  }, 60_000);

  it("stores every record of an ~11 MB JSON upload", async () => {
    const s = await fresh({ precision: 0 });
    const n = 600_000;
    const start = Date.UTC(1990, 0, 1);
    const lines: string[] = new Array(n);
    for (let i = 0; i < n; i++) lines[i] = `${new Date(start + i * 60000).toISOString().slice(0, 16)},${i % 97}`;
    const text = lines.join("\n");
    const body = JSON.stringify({ timeseries_records: text, timezone: "UTC", dry_run: true });
    expect(body.length).toBeGreaterThan(10.5 * 1024 * 1024);
    const r = await http.post(`${s.path}/data/`, { token: admin.token, body, headers: { "Content-Type": "application/json" } });
    expect({ status: r.status, body: r.text }).toEqual({ status: 200, body: JSON.stringify({ count: n, start_date: "1990-01-01T00:00:00Z", end_date: new Date(start + (n - 1) * 60000).toISOString().replace(".000Z", "Z") }) });
  }, 60_000);
});

describe("concurrent uploads (api.md §8.3: concurrent uploads to one series are serialized)", () => {
  const make = (n: number, offset: number, value: number) => {
    const lines: string[] = [];
    const expected: string[] = [];
    for (let i = 0; i < n; i++) {
      const iso = new Date(Date.UTC(2021, 0, 1) + (i * 600 + offset) * 1000).toISOString();
      lines.push(`${iso.slice(0, 19)}Z,${value},`);
      expected.push(`${iso.slice(0, 10)} ${iso.slice(11, 16)},${value}.00,\r\n`);
    }
    return { text: lines.join("\n"), expected: expected.join("") };
  };

  it.each([1, 2, 3])("two overlapping appends to one series: exactly one succeeds (round %i)", async () => {
    const s = await fresh();
    const a = make(20000, 0, 1);
    const b = make(20000, 300, 2);
    const [ra, rb] = await Promise.all([
      upload(s.path, { timeseries_records: a.text, timezone: "UTC" }, "form", creator.token),
      upload(s.path, { timeseries_records: b.text, timezone: "UTC" }, "json", admin.token),
    ]);
    expect([ra.status, rb.status].sort()).toEqual([204, 400]);
    const failed = ra.status === 400 ? ra : rb;
    expect(Object.keys(failed.json)).toEqual(["timeseries_records"]);
    expect(failed.json.timeseries_records).toHaveLength(10);
    const data = await getData(s.path);
    expect(data === (ra.status === 204 ? a.expected : b.expected)).toBe(true);
  });

  it("two overlapping inserts to one series: exactly one succeeds", async () => {
    const s = await fresh();
    const a = make(20000, 0, 1);
    const b = make(20000, 0, 2);
    const [ra, rb] = await Promise.all([
      upload(s.path, { timeseries_records: a.text, timezone: "UTC", mode: "insert" }),
      upload(s.path, { timeseries_records: b.text, timezone: "UTC", mode: "insert" }, "json", admin.token),
    ]);
    expect([ra.status, rb.status].sort()).toEqual([204, 400]);
    const data = await getData(s.path);
    expect(data === (ra.status === 204 ? a.expected : b.expected)).toBe(true);
  });

  it("uploads to different series both succeed", async () => {
    const s1 = await fresh();
    const s2 = await fresh();
    const a = make(20000, 0, 1);
    const b = make(20000, 300, 2);
    const [ra, rb] = await Promise.all([
      upload(s1.path, { timeseries_records: a.text, timezone: "UTC" }),
      upload(s2.path, { timeseries_records: b.text, timezone: "UTC" }, "multipart", admin.token),
    ]);
    expect204(ra);
    expect204(rb);
    expect((await getData(s1.path)) === a.expected).toBe(true);
    expect((await getData(s2.path)) === b.expected).toBe(true);
  });
});

describe("the size limit and the order of checks (formats.md §6.1, §6.6; api.md §1.2, §1.7)", () => {
  const LIMIT = 1000;
  let small: TestServer;
  let smallHttp: ReturnType<typeof api>;
  let owner: f.TestUser;
  let stranger: f.TestUser;
  let s: Series;
  const TOO_LARGE = { detail: `Request body too large; the limit is ${LIMIT} bytes.` };
  /** A form body of exactly `size` bytes: a valid record, then "+" (spaces, skipped as a blank tail of the last line). */
  const formOfSize = (size: number, extra = "") => {
    const head = `${extra}timeseries_records=2020-01-01T00%3A00Z%2C1%0A`;
    return head + "+".repeat(size - head.length);
  };

  beforeAll(async () => {
    small = await startServer({ env: { ENHYDRIS_MAX_UPLOAD_SIZE: String(LIMIT) } });
    smallHttp = api(small.url);
    owner = await f.user();
    stranger = await f.user();
    const vid = await f.variable("Temperature");
    const uid = await f.unit("°C", [vid]);
    const sid = await f.station({ displayTimezone: "UTC" }, owner.id);
    const gid = await f.group(sid, { precision: 2, variableId: vid, unitId: uid });
    const tid = await f.series(gid, { type: "Initial" });
    s = { sid, gid, tid, path: `/api/stations/${sid}/timeseriesgroups/${gid}/timeseries/${tid}` };
  });
  afterAll(async () => {
    await small?.stop();
    await connectFixtures(server.databaseUrl, server.mediaDir);
  });

  const post = (path: string, body: BodyInit, token?: string, type = "application/x-www-form-urlencoded") =>
    smallHttp.post(`${path}/data/`, { token, body, headers: { "Content-Type": type } });

  it("accepts a body of exactly the limit", async () => {
    const body = formOfSize(LIMIT, "dry_run=true&");
    expect(body.length).toBe(LIMIT);
    const r = await post(s.path, body, owner.token);
    expect({ status: r.status, body: r.text }).toEqual({ status: 200, body: '{"count":1,"start_date":"2020-01-01T00:00:00Z","end_date":"2020-01-01T00:00:00Z"}' });
  });

  it("answers one byte more with 413 and the exact body, and stores nothing", async () => {
    expectJson(await post(s.path, formOfSize(LIMIT + 1), owner.token), 413, TOO_LARGE);
    expect((await smallHttp.get(`${s.path}/data/`)).text).toBe("");
  });

  it("answers 413 for JSON and multipart bodies too", async () => {
    expectJson(await post(s.path, JSON.stringify({ timeseries_records: "2020-01-01T00:00Z,1\n" + " ".repeat(LIMIT) }), owner.token, "application/json"), 413, TOO_LARGE);
    const fd = new FormData();
    fd.append("timeseries_records", new Blob(["2020-01-01T00:00Z,1\n" + " ".repeat(LIMIT)]), "r.csv");
    expectJson(await smallHttp.post(`${s.path}/data/`, { token: owner.token, body: fd }), 413, TOO_LARGE);
  });

  it("answers 413 for a streamed (chunked) body without Content-Length", async () => {
    const chunk = new TextEncoder().encode("+".repeat(300));
    let sent = 0;
    const stream = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (sent === 0) controller.enqueue(new TextEncoder().encode("timeseries_records=2020-01-01T00%3A00Z%2C1%0A"));
        if (sent++ < 10) controller.enqueue(chunk); else controller.close();
      },
    });
    const r = await fetch(`${small.url}${s.path}/data/`, {
      method: "POST", body: stream, duplex: "half",
      headers: { Authorization: `Token ${owner.token}`, "Content-Type": "application/x-www-form-urlencoded" },
    } as RequestInit);
    expect(r.status).toBe(413);
    expect(await r.text()).toBe(JSON.stringify(TOO_LARGE));
    expect((await smallHttp.get(`${s.path}/data/`)).text).toBe("");
  });

  it("checks the path (404) first, then permission (401/403), then the size (413), then the fields (400)", async () => {
    const big = formOfSize(LIMIT + 500, "mode=merge&");
    const missing = `/api/stations/${s.sid}/timeseriesgroups/${s.gid}/timeseries/99999999`;
    const r404 = await post(missing, big);
    expectJson(r404, 404, { detail: "Not found." });
    expectJson(await post(missing, big, stranger.token), 404, { detail: "Not found." });
    const r401 = await post(s.path, big);
    expectJson(r401, 401, { detail: "Authentication credentials were not provided." });
    expect(r401.headers.get("www-authenticate")).toBe("Token");
    expectJson(await post(s.path, big, stranger.token), 403, { detail: "You do not have permission to perform this action." });
    expectJson(await post(s.path, big, owner.token), 413, TOO_LARGE);
    expectJson(await post(s.path, "mode=merge&timeseries_records=garbage", owner.token), 400, { mode: ['"merge" is not a valid choice.'] });
  });

  it("answers an invalid token with 401 before anything else on the path", async () => {
    const r = await post(s.path, formOfSize(LIMIT + 1), "0".repeat(40));
    expectJson(r, 401, { detail: "Invalid token." });
  });
});
