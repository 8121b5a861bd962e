/**
 * GET/HEAD of a time series' data/ and bottom/ (api.md §7.2, §8.2, §8.4; formats.md §0–§5),
 * written from the specification: every worked example byte for byte.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { api, type TestResponse } from "@/tests/support/http";
import * as f from "@/tests/support/fixtures";
import { startServer, type TestServer } from "@/tests/support/server";
import { referenceValue } from "@/tests/support/reference-value";

let server: TestServer;
let http: ReturnType<typeof api>;

// formats.md §0
let temperature: number;
let celsius: number;
let st1: number;
let g1: number;
let ts12: number;
/** `TS12` = /api/stations/{st1}/timeseriesgroups/{g1}/timeseries/{ts12} */
let TS12: string;

const CSV_BODY =
  "2018-12-09 13:10,20.46,\r\n2018-12-09 13:20,,MISS\r\n2018-12-09 13:30,21.00,FLAG1 FLAG2\r\n2019-01-01 00:00,-3.12,\r\n";
const CSV_TYPE = "text/csv; charset=utf-8";
const HTS_TYPE = "text/vnd.openmeteo.timeseries; charset=utf-8";
const TEXT_TYPE = "text/plain; charset=utf-8";
const DATE_ERROR = "Datetime has wrong format. Use one of these formats instead: YYYY-MM-DD, YYYY-MM-DDThh:mm[:ss[.uuuuuu]][+HH:MM|-HH:MM|Z].";
const NOT_FOUND = '{"detail":"Not found."}';

const HTS_HEADER = (count: number, zone = "Etc/GMT-2 (UTC+0200)") =>
  `Count=${count}\r\nTitle=Temperature\r\nComment=Komboti\r\nComment=\r\nComment=Line1\r\nComment=Line2\r\n` +
  `Timezone=${zone}\r\nTime_step=10,0\r\nVariable=Temperature\r\nPrecision=2\r\n` +
  "Location=21.060710 39.095180 4326\r\nAltitude=219.00\r\n\r\n";

function expectBody(r: TestResponse, contentType: string, body: string) {
  expect({ status: r.status, contentType: r.headers.get("content-type"), body: r.text }).toEqual({ status: 200, contentType, body });
}

function expect400(r: TestResponse, body: string) {
  expect({ status: r.status, body: r.text }).toEqual({ status: 400, body });
  expect(r.headers.get("content-type")).toBe("application/json");
}

beforeAll(async () => {
  server = await startServer();
  http = api(server.url);
  ({ variableId: temperature, unitId: celsius, stationId: st1, groupId: g1, seriesId: ts12, path: TS12 } = await f.workedExample());
});
afterAll(() => server?.stop());

/** A new station/group/series with the given records. */
async function makeSeries(options: {
  station?: Parameters<typeof f.station>[0]; stationId?: number; group?: Parameters<typeof f.group>[1];
  series?: Parameters<typeof f.series>[1]; records?: [string, number | null, string?][];
} = {}) {
  const sid = options.stationId ?? (await f.station({ displayTimezone: "Etc/GMT-2", ...options.station }));
  const gid = await f.group(sid, { precision: 2, variableId: temperature, unitId: celsius, ...options.group });
  const tid = await f.series(gid, { type: "Initial", timeStep: "10min", ...options.series });
  if (options.records?.length) await f.addRecords(tid, options.records);
  return { sid, gid, tid, path: `/api/stations/${sid}/timeseriesgroups/${gid}/timeseries/${tid}` };
}

describe("GET data/ as CSV (formats.md §2.4)", () => {
  it("returns the four records of the fixture byte for byte, with the spec's headers", async () => {
    const r = await http.get(`${TS12}/data/`);
    expectBody(r, CSV_TYPE, CSV_BODY);
    expect(r.headers.get("content-disposition")).toBe(`inline; filename="${ts12}.csv"`);
  });

  it.each<[string, string]>([
    ["?timezone=UTC&start_date=2018-12-09T13:20", "2018-12-09 11:20,,MISS\r\n2018-12-09 11:30,21.00,FLAG1 FLAG2\r\n2018-12-31 22:00,-3.12,\r\n"],
    ["?start_date=2018-12-09T11:30:00Z&end_date=2018-12-31T22:00:00Z", "2018-12-09 13:30,21.00,FLAG1 FLAG2\r\n2019-01-01 00:00,-3.12,\r\n"],
    ["?end_date=2018-12-09", ""],
    ["?start_date=2019-01-01&end_date=2018-01-01", ""],
    ["?timezone=America/New_York",
      "2018-12-09 06:10,20.46,\r\n2018-12-09 06:20,,MISS\r\n2018-12-09 06:30,21.00,FLAG1 FLAG2\r\n2018-12-31 17:00,-3.12,\r\n"],
    ["?start_date=0001-01-01T00:01:00%2B00:00", CSV_BODY],
  ])("answers %s with the spec's body", async (query, body) => {
    const r = await http.get(`${TS12}/data/${query}`);
    expectBody(r, CSV_TYPE, body);
    expect(r.headers.get("content-disposition")).toBe(`inline; filename="${ts12}.csv"`);
  });

  it("answers fmt=xml with 400 and the exact body", async () => {
    expect400(await http.get(`${TS12}/data/?fmt=xml`), '{"fmt":["\\"xml\\" is not a valid choice."]}');
  });

  it("answers an unknown zone with 400 and the exact body", async () => {
    expect400(await http.get(`${TS12}/data/?timezone=Nowhere/Zone`), '{"timezone":["\\"Nowhere/Zone\\" is not a valid choice."]}');
  });

  it("answers start_date=hello with 400 and the exact body", async () => {
    expect400(await http.get(`${TS12}/data/?start_date=hello`), JSON.stringify({ start_date: [DATE_ERROR] }));
  });

  it("names end_date in the error of a bad end_date (formats.md §3.4 rule 6)", async () => {
    expect400(await http.get(`${TS12}/data/?end_date=hello`), JSON.stringify({ end_date: [DATE_ERROR] }));
  });

  it.each(["?fmt=csv", "?fmt=CSV", "?fmt=Csv", "?fmt=", "?timezone=", "?start_date=&end_date=", "?timezone=etc/gmt-2", "?timezone=ETC/GMT-2"])(
    "treats %s like the default (case-insensitive values, empty = absent)", async (query) => {
      const r = await http.get(`${TS12}/data/${query}`);
      expectBody(r, CSV_TYPE, CSV_BODY);
      expect(r.headers.get("content-disposition")).toBe(`inline; filename="${ts12}.csv"`);
    });

  it.each<[string, string]>([
    ["UTC", "2018-12-09 11:10,20.46,\r\n2018-12-09 11:20,,MISS\r\n2018-12-09 11:30,21.00,FLAG1 FLAG2\r\n2018-12-31 22:00,-3.12,\r\n"],
    ["utc", "2018-12-09 11:10,20.46,\r\n2018-12-09 11:20,,MISS\r\n2018-12-09 11:30,21.00,FLAG1 FLAG2\r\n2018-12-31 22:00,-3.12,\r\n"],
    ["Etc/GMT", "2018-12-09 11:10,20.46,\r\n2018-12-09 11:20,,MISS\r\n2018-12-09 11:30,21.00,FLAG1 FLAG2\r\n2018-12-31 22:00,-3.12,\r\n"],
    ["Etc/GMT%2B5", "2018-12-09 06:10,20.46,\r\n2018-12-09 06:20,,MISS\r\n2018-12-09 06:30,21.00,FLAG1 FLAG2\r\n2018-12-31 17:00,-3.12,\r\n"],
    ["Etc/GMT-14", "2018-12-10 01:10,20.46,\r\n2018-12-10 01:20,,MISS\r\n2018-12-10 01:30,21.00,FLAG1 FLAG2\r\n2019-01-01 12:00,-3.12,\r\n"],
    ["US/Eastern", "2018-12-09 06:10,20.46,\r\n2018-12-09 06:20,,MISS\r\n2018-12-09 06:30,21.00,FLAG1 FLAG2\r\n2018-12-31 17:00,-3.12,\r\n"],
    ["Asia/Kolkata", "2018-12-09 16:40,20.46,\r\n2018-12-09 16:50,,MISS\r\n2018-12-09 17:00,21.00,FLAG1 FLAG2\r\n2019-01-01 03:30,-3.12,\r\n"],
    ["Europe/Athens", "2018-12-09 13:10,20.46,\r\n2018-12-09 13:20,,MISS\r\n2018-12-09 13:30,21.00,FLAG1 FLAG2\r\n2019-01-01 00:00,-3.12,\r\n"],
  ])("writes the timestamps in timezone=%s (formats.md §3.1, §3.2)", async (zone, body) => {
    expectBody(await http.get(`${TS12}/data/?timezone=${zone}`), CSV_TYPE, body);
  });

  it("writes two records of a repeated DST hour with the same text (Europe/Athens)", async () => {
    const { path } = await makeSeries({ records: [["2020-10-25T00:30:00Z", 1], ["2020-10-25T01:30:00Z", 2]] });
    expectBody(await http.get(`${path}/data/?timezone=Europe/Athens`), CSV_TYPE, "2020-10-25 03:30,1.00,\r\n2020-10-25 03:30,2.00,\r\n");
  });

  it("drops seconds by truncation and keeps records in time order (formats.md §2.1)", async () => {
    const { path } = await makeSeries({ station: { displayTimezone: "UTC" }, records: [["2020-01-01T13:10:59Z", 2], ["2020-01-01T13:10:00Z", 1], ["2020-01-01T13:11:01Z", 3]] });
    expectBody(await http.get(`${path}/data/`), CSV_TYPE, "2020-01-01 13:10,1.00,\r\n2020-01-01 13:10,2.00,\r\n2020-01-01 13:11,3.00,\r\n");
  });

  it("answers an empty series with 200 and an empty body", async () => {
    const { path, tid } = await makeSeries();
    const r = await http.get(`${path}/data/`);
    expectBody(r, CSV_TYPE, "");
    expect(r.headers.get("content-disposition")).toBe(`inline; filename="${tid}.csv"`);
  });
});

describe("value formatting by precision (formats.md §1.3) in CSV output", () => {
  const table: [number, number, string][] = [
    [-3.125, 2, "-3.12"], [2.675, 2, "2.67"], [1.005, 2, "1.00"], [0.125, 2, "0.12"], [0.375, 2, "0.38"], [4.125, 2, "4.12"],
    [20.456, 2, "20.46"], [21, 2, "21.00"], [-0.001, 2, "-0.00"], [0, 2, "0.00"], [123456789.125, 2, "123456789.12"],
    [0.5, 0, "0"], [1.5, 0, "2"], [2.5, 0, "2"], [-0.5, 0, "-0"], [1e22, 0, "10000000000000000000000"],
    [125, -1, "120"], [135, -1, "140"], [15, -1, "20"], [25, -1, "20"], [-5, -1, "-0"], [123.456, -1, "120"], [0.4, -1, "0"],
    [1234.5, -2, "1200"], [150, -2, "200"], [250, -2, "200"],
    [0.1, 20, "0.10000000000000000555"],
  ];
  const precisions = [...new Set(table.map((row) => row[1]))];
  for (const p of precisions) {
    it(`formats every value of the table at precision ${p}, and a null as empty`, async () => {
      const rows = table.filter((row) => row[1] === p);
      const records: [string, number | null][] = rows.map((row, i) => [new Date(Date.UTC(2020, 0, 1, 0, i)).toISOString(), row[0]]);
      records.push([new Date(Date.UTC(2020, 0, 1, 0, rows.length)).toISOString(), null]);
      const { path } = await makeSeries({ station: { displayTimezone: "UTC" }, group: { precision: p }, records });
      const expected = rows.map((row, i) => `2020-01-01 00:${String(i).padStart(2, "0")},${row[2]},\r\n`).join("")
        + `2020-01-01 00:${String(rows.length).padStart(2, "0")},,\r\n`;
      expectBody(await http.get(`${path}/data/`), CSV_TYPE, expected);
    });
  }
});

describe("date parameters (formats.md §3.4), station in Etc/GMT-1", () => {
  let path: string;
  // Records around each instant of the spec's table, with values that name them. Precision 0, output in UTC.
  const instants = [
    "1680-01-01T00:00:00Z", "1680-01-01T00:00:01Z",
    "2014-01-02T22:59:59Z", "2014-01-02T23:00:00Z", "2014-01-02T23:00:01Z",
    "2014-01-03T05:59:59Z", "2014-01-03T06:00:00Z", "2014-01-03T06:00:01Z",
    "2014-01-03T06:59:59Z", "2014-01-03T07:00:00Z", "2014-01-03T07:00:01Z",
    "2014-01-03T07:59:59Z", "2014-01-03T08:00:00Z", "2014-01-03T08:00:01Z",
    "2014-01-03T13:00:00Z",
    "2259-12-31T23:59:59Z", "2260-01-01T00:00:00Z",
  ];
  const line = (iso: string) => `${iso.slice(0, 10)} ${iso.slice(11, 16)},${instants.indexOf(iso)},\r\n`;
  beforeAll(async () => {
    ({ path } = await makeSeries({ station: { displayTimezone: "Etc/GMT-1" }, group: { precision: 0 }, records: instants.map((t, i) => [t, i]) }));
  });

  it.each<[string, string]>([
    ["2014-01-03T08:00", "2014-01-03T07:00:00Z"],
    ["2014-01-03%2008:00", "2014-01-03T07:00:00Z"],
    ["2014-01-03t08:00", "2014-01-03T07:00:00Z"],
    ["2014-01-03T08:00:00", "2014-01-03T07:00:00Z"],
    ["2014-01-03", "2014-01-02T23:00:00Z"],
    ["2014-01-03T08:00:00%2B02:00", "2014-01-03T06:00:00Z"],
    ["2014-01-03T08:00:00%2B0200", "2014-01-03T06:00:00Z"],
    ["2014-01-03T08:00:00%2B02", "2014-01-03T06:00:00Z"],
    ["2014-01-03T08:00%2B02:00", "2014-01-03T06:00:00Z"],
    ["2014-01-03T08:00:00-05:00", "2014-01-03T13:00:00Z"],
    ["2014-01-03T08:00:00Z", "2014-01-03T08:00:00Z"],
    ["2014-01-03T08:00:00z", "2014-01-03T08:00:00Z"],
    ["2014-01-03T08:00:00+02:00", "2014-01-03T06:00:00Z"],
    ["2014-01-03%2008:00:00+02:00", "2014-01-03T06:00:00Z"],
  ])("reads start_date=end_date=%s as the instant %s", async (value, instant) => {
    const r = await http.get(`${path}/data/?timezone=UTC&start_date=${value}&end_date=${value}`);
    expectBody(r, CSV_TYPE, line(instant));
  });

  it("rounds a fractional start_date up to the whole second", async () => {
    expectBody(await http.get(`${path}/data/?timezone=UTC&start_date=2014-01-03T08:00:00.5Z&end_date=2014-01-03T08:00:01Z`),
      CSV_TYPE, line("2014-01-03T08:00:01Z"));
    expectBody(await http.get(`${path}/data/?timezone=UTC&start_date=2014-01-03T07:59:59.000001Z&end_date=2014-01-03T08:00:00Z`),
      CSV_TYPE, line("2014-01-03T08:00:00Z"));
  });

  it("rounds a fractional end_date down to the whole second", async () => {
    expectBody(await http.get(`${path}/data/?timezone=UTC&start_date=2014-01-03T07:59:59Z&end_date=2014-01-03T08:00:00.999999Z`),
      CSV_TYPE, line("2014-01-03T07:59:59Z") + line("2014-01-03T08:00:00Z"));
  });

  it("accepts a whole fraction as exact: start_date=end_date=…08:00:00.000", async () => {
    expectBody(await http.get(`${path}/data/?timezone=UTC&start_date=2014-01-03T08:00:00.000Z&end_date=2014-01-03T08:00:00.000Z`),
      CSV_TYPE, line("2014-01-03T08:00:00Z"));
  });

  it("clamps 0001-01-01T00:01:00+00:00 to 1680-01-01T00:00:00Z", async () => {
    expectBody(await http.get(`${path}/data/?timezone=UTC&end_date=0001-01-01T00:01:00%2B00:00`), CSV_TYPE, line("1680-01-01T00:00:00Z"));
    const all = await http.get(`${path}/data/?timezone=UTC&start_date=0001-01-01T00:01:00%2B00:00`);
    expectBody(all, CSV_TYPE, instants.map(line).join(""));
  });

  it("clamps 3999-01-01T00:01 to 2260-01-01T00:00:00Z", async () => {
    expectBody(await http.get(`${path}/data/?timezone=UTC&start_date=3999-01-01T00:01`), CSV_TYPE, line("2260-01-01T00:00:00Z"));
    expectBody(await http.get(`${path}/data/?timezone=UTC&start_date=2259-12-31T23:59:59Z&end_date=3999-01-01T00:01`), CSV_TYPE,
      line("2259-12-31T23:59:59Z") + line("2260-01-01T00:00:00Z"));
  });

  it.each(["2014-1-3", "2014", "2014-01", "hello", "2014-02-30", "2014-01-03T24:00", "2014-01-03T08:60", "2014-01-03T08", "2014-01-03T08:00:00%2B", "0000-01-01", "2014-01-03T08:00:00+02:00x"])(
    "answers start_date=%s with 400", async (value) => {
      expect400(await http.get(`${path}/data/?start_date=${value}`), JSON.stringify({ start_date: [DATE_ERROR] }));
    });

  it("satisfies the client scenario of §3.4 exactly", async () => {
    const { path: p } = await makeSeries({
      station: { displayTimezone: "Etc/GMT-2" }, group: { precision: 2 },
      records: [1, 2, 3, 4, 5].map((n) => [`2014-01-0${n}T06:00:00Z`, 10 + n] as [string, number]),
    });
    const r = await http.get(`${p}/data/?start_date=2014-01-03T08:00:00%2B02:00&end_date=2014-01-04T08:00:00%2B02:00&timezone=Etc/GMT-1`);
    expectBody(r, CSV_TYPE, "2014-01-03 07:00,13.00,\r\n2014-01-04 07:00,14.00,\r\n");
    // the same request by a client that forgot to encode "+"
    const unencoded = await http.get(`${p}/data/?start_date=2014-01-03T08:00:00+02:00&end_date=2014-01-04T08:00:00+02:00&timezone=Etc/GMT-1`);
    expectBody(unencoded, CSV_TYPE, "2014-01-03 07:00,13.00,\r\n2014-01-04 07:00,14.00,\r\n");
  });
});

describe("GET bottom/ (formats.md §2.3, §2.4)", () => {
  it.each<[string, string]>([
    ["", "2019-01-01 00:00,-3.12,"],
    ["?timezone=UTC", "2018-12-31 22:00,-3.12,"],
    ["?timezone=Etc/GMT-5", "2019-01-01 03:00,-3.12,"],
    ["?timezone=America/New_York", "2018-12-31 17:00,-3.12,"],
    ["?timezone=europe/athens", "2019-01-01 00:00,-3.12,"],
    ["?timezone=", "2019-01-01 00:00,-3.12,"],
  ])("answers bottom/%s with the last record and no line end", async (query, body) => {
    expectBody(await http.get(`${TS12}/bottom/${query}`), TEXT_TYPE, body);
  });

  it("answers a series without records with 200 and an empty body", async () => {
    const { path } = await makeSeries();
    expectBody(await http.get(`${path}/bottom/`), TEXT_TYPE, "");
  });

  it("writes null values and flags of the last record", async () => {
    const { path } = await makeSeries({ records: [["2020-01-01T00:00:00Z", 1], ["2020-01-01T00:10:59Z", null, "A B"]] });
    expectBody(await http.get(`${path}/bottom/`), TEXT_TYPE, "2020-01-01 02:10,,A B");
  });

  it("answers an unknown zone with 400", async () => {
    expect400(await http.get(`${TS12}/bottom/?timezone=Nowhere/Zone`), '{"timezone":["\\"Nowhere/Zone\\" is not a valid choice."]}');
  });
});

describe("HTS output (formats.md §5.5)", () => {
  it("answers fmt=hts byte for byte", async () => {
    const r = await http.get(`${TS12}/data/?fmt=hts`);
    expectBody(r, HTS_TYPE, HTS_HEADER(4) + CSV_BODY);
    expect(r.headers.get("content-disposition")).toBe(`inline; filename="${ts12}.hts"`);
    expect(r.text.startsWith("Count=4\r\nTitle=Temperature\r\n")).toBe(true);
    expect(r.text).toContain("Altitude=219.00\r\n\r\n2018-12-09 13:10,20.46,\r\n");
  });

  it("answers fmt=hts2&timezone=UTC&start_date=2019-01-01 byte for byte", async () => {
    const r = await http.get(`${TS12}/data/?fmt=hts2&timezone=UTC&start_date=2019-01-01`);
    expectBody(r, HTS_TYPE,
      "Version=2\r\nCount=1\r\nTitle=Temperature\r\nComment=Komboti\r\nComment=\r\nComment=Line1\r\nComment=Line2\r\n" +
      "Timezone=UTC (UTC+0000)\r\nTime_step=10,0\r\nVariable=Temperature\r\nPrecision=2\r\n\r\n2018-12-31 22:00,-3.12,\r\n");
    expect(r.headers.get("content-disposition")).toBe(`inline; filename="${ts12}.hts"`);
  });

  it("answers fmt=hts&end_date=2000-01-01 with Count=0, the header and the empty line", async () => {
    const r = await http.get(`${TS12}/data/?fmt=hts&end_date=2000-01-01`);
    expectBody(r, HTS_TYPE, HTS_HEADER(0));
    expect(r.text.endsWith("Altitude=219.00\r\n\r\n")).toBe(true);
  });

  it.each(["HTS", "Hts", "hTs"])("treats fmt=%s as fmt=hts", async (fmt) => {
    const r = await http.get(`${TS12}/data/?fmt=${fmt}`);
    expectBody(r, HTS_TYPE, HTS_HEADER(4) + CSV_BODY);
    expect(r.headers.get("content-disposition")).toBe(`inline; filename="${ts12}.hts"`);
  });

  it("treats fmt=HTS2 as fmt=hts2", async () => {
    const a = await http.get(`${TS12}/data/?fmt=HTS2`);
    const b = await http.get(`${TS12}/data/?fmt=hts2`);
    expect(a.status).toBe(200);
    expect(a.text).toBe(b.text);
    expect(a.text.startsWith("Version=2\r\nCount=4\r\n")).toBe(true);
  });

  it("answers fmt=hts&timezone=Etc/GMT+5 with the zone and shifted records", async () => {
    const r = await http.get(`${TS12}/data/?fmt=hts&timezone=Etc/GMT%2B5`);
    expectBody(r, HTS_TYPE, HTS_HEADER(4, "Etc/GMT+5 (UTC-0500)") +
      "2018-12-09 06:10,20.46,\r\n2018-12-09 06:20,,MISS\r\n2018-12-09 06:30,21.00,FLAG1 FLAG2\r\n2018-12-31 17:00,-3.12,\r\n");
  });

  it.each<[string, string]>([
    ["UTC", "UTC (UTC+0000)"], ["Etc/GMT", "Etc/GMT (UTC+0000)"], ["etc/gmt-2", "etc/gmt-2 (UTC+0200)"],
    ["Zulu", "Zulu (UTC+0000)"], ["GMT0", "GMT0 (UTC+0000)"], ["Etc/GMT%2B0", "Etc/GMT+0 (UTC+0000)"], ["GMT-0", "GMT-0 (UTC+0000)"],
    ["Etc/Greenwich", "Etc/Greenwich (UTC+0000)"], ["Universal", "Universal (UTC+0000)"], ["Etc/UCT", "Etc/UCT (UTC+0000)"],
    ["Etc/GMT-14", "Etc/GMT-14 (UTC+1400)"], ["Etc/GMT%2B12", "Etc/GMT+12 (UTC-1200)"],
  ])("accepts the fixed-offset zone %s and echoes it as the client sent it", async (zone, header) => {
    const r = await http.get(`${TS12}/data/?fmt=hts&timezone=${zone}&end_date=2000-01-01`);
    expectBody(r, HTS_TYPE, HTS_HEADER(0, header));
  });

  it.each(["Europe/Athens", "Asia/Kolkata", "America/New_York", "US/Eastern"])("answers fmt=hts with timezone=%s (no fixed offset) with 400", async (zone) => {
    const body = JSON.stringify({ timezone: [`"${zone}" has no fixed UTC offset; HTS output needs a zone such as "Etc/GMT-2".`] });
    expect400(await http.get(`${TS12}/data/?fmt=hts&timezone=${zone}`), body);
    expect400(await http.get(`${TS12}/data/?fmt=hts2&timezone=${zone}`), body);
  });

  it("answers fmt=hts with an unknown zone with the unknown-zone 400", async () => {
    expect400(await http.get(`${TS12}/data/?fmt=hts&timezone=Nowhere/Zone`), '{"timezone":["\\"Nowhere/Zone\\" is not a valid choice."]}');
  });

  it("writes no Time_step line for an empty time step, no Altitude line for a null altitude, and the variable as Title for an empty name", async () => {
    const { path } = await makeSeries({
      station: { name: "London", lon: -0.127758, lat: 51.507351, altitude: null, displayTimezone: "UTC" },
      group: { name: "", precision: 1, remarks: "" }, series: { timeStep: "" },
      records: [["2020-01-01T00:00:00Z", 1.25]],
    });
    const r = await http.get(`${path}/data/?fmt=hts`);
    expectBody(r, HTS_TYPE,
      "Count=1\r\nTitle=Temperature\r\nComment=London\r\nComment=\r\nTimezone=UTC (UTC+0000)\r\n" +
      "Variable=Temperature\r\nPrecision=1\r\nLocation=-0.127758 51.507351 4326\r\n\r\n2020-01-01 00:00,1.2,\r\n");
    const r2 = await http.get(`${path}/data/?fmt=hts2`);
    expectBody(r2, HTS_TYPE,
      "Version=2\r\nCount=1\r\nTitle=Temperature\r\nComment=London\r\nComment=\r\nTimezone=UTC (UTC+0000)\r\n" +
      "Variable=Temperature\r\nPrecision=1\r\n\r\n2020-01-01 00:00,1.2,\r\n");
  });

  it("writes altitude 0 as 0.00, a group name as Title with line breaks as spaces, and the remarks' comment lines", async () => {
    const { path } = await makeSeries({
      station: { name: "Name\r\nwith break ", lon: 1, lat: -2.5, altitude: 0, displayTimezone: "Etc/GMT+3" },
      group: { name: "My\ngroup ", precision: -1, remarks: "a\n\nb\n" }, series: { timeStep: "2H" },
      records: [["2020-01-01T03:00:00Z", 125]],
    });
    const r = await http.get(`${path}/data/?fmt=hts`);
    expectBody(r, HTS_TYPE,
      "Count=1\r\nTitle=My group \r\nComment=Name\r\nComment=with break \r\nComment=\r\nComment=a\r\nComment=\r\nComment=b\r\n" +
      "Timezone=Etc/GMT+3 (UTC-0300)\r\nTime_step=120,0\r\nVariable=Temperature\r\nPrecision=-1\r\n" +
      "Location=1.000000 -2.500000 4326\r\nAltitude=0.00\r\n\r\n2020-01-01 00:00,120,\r\n");
  });

  it.each<[string, string]>([
    ["10min", "10,0"], ["30min", "30,0"], ["H", "60,0"], ["1h", "60,0"], ["2H", "120,0"], ["3h", "180,0"], ["D", "1440,0"], ["2D", "2880,0"],
    ["M", "0,1"], ["3M", "0,3"], ["Y", "0,12"], ["2Y", "0,24"],
  ])("maps time step %s to Time_step=%s (formats.md §4.2)", async (step, text) => {
    const { path } = await makeSeries({ series: { timeStep: step } });
    const hts = await http.get(`${path}/data/?fmt=hts`);
    expect(hts.status).toBe(200);
    expect(hts.text.split("\r\n").filter((l) => l.startsWith("Time_step="))).toEqual([`Time_step=${text}`]);
    const hts2 = await http.get(`${path}/data/?fmt=hts2`);
    expect(hts2.text.split("\r\n").filter((l) => l.startsWith("Time_step="))).toEqual([`Time_step=${text}`]);
  });
});

describe("station display zones in HTS (formats.md §3.1, §5.4)", () => {
  it.each<[string, string]>([["Etc/GMT", "Etc/GMT (UTC+0000)"], ["UTC", "UTC (UTC+0000)"], ["Etc/GMT+12", "Etc/GMT+12 (UTC-1200)"], ["Etc/GMT-14", "Etc/GMT-14 (UTC+1400)"]])(
    "echoes the stored display_timezone %s", async (zone, header) => {
      const { path } = await makeSeries({ station: { displayTimezone: zone }, records: [["2020-01-01T12:00:00Z", 1]] });
      const r = await http.get(`${path}/data/?fmt=hts2`);
      expect(r.status).toBe(200);
      expect(r.text.split("\r\n").filter((l) => l.startsWith("Timezone="))).toEqual([`Timezone=${header}`]);
    });
});


describe("a large series against a reference (formats.md §2.1, §3.4)", () => {
  const records: { t: number; v: number | null; flags: string }[] = [];
  let path: string;
  let tid: number;
  const PRECISION = 1;
  const OFFSET = -5 * 3600; // display zone Etc/GMT+5
  beforeAll(async () => {
    let seed = 987654;
    const random = () => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed / 2147483648;
    };
    let t = Date.UTC(2015, 5, 30, 23, 57, 13) / 1000;
    for (let i = 0; i < 40000; i++) {
      t += random() < 0.1 ? 1 + Math.floor(random() * 59) : 600;
      const r = random();
      const raw = r < 0.05 ? null : r < 0.3 ? Math.round((random() - 0.5) * 400) / 4 : (random() - 0.5) * 1e3;
      const v = raw === null ? null : raw + 0; // never a stored -0 (formats.md §1.1 rule 5)
      const flags = random() < 0.1 ? "A" : random() < 0.05 ? "B C" : "";
      records.push({ t, v, flags });
    }
    ({ path, tid } = await makeSeries({
      station: { displayTimezone: "Etc/GMT+5" }, group: { precision: PRECISION },
      records: records.map((r) => [new Date(r.t * 1000).toISOString(), r.v, r.flags] as [string, number | null, string]),
    }));
  }, 120_000);

  const stamp = (t: number, offset: number) => {
    const iso = new Date((t + offset) * 1000).toISOString();
    return `${iso.slice(0, 10)} ${iso.slice(11, 16)}`;
  };
  const expected = (from: number, to: number, offset = OFFSET) =>
    records.filter((r) => r.t >= from && r.t <= to).map((r) => `${stamp(r.t, offset)},${referenceValue(r.v, PRECISION)},${r.flags}\r\n`).join("");
  const iso = (t: number) => new Date(t * 1000).toISOString().replace(".000Z", "Z");
  /** null, or the first line where got and want differ, with its neighbours */
  const firstDiff = (got: string, want: string) => {
    if (got === want) return null;
    const a = got.split("\r\n");
    const b = want.split("\r\n");
    let i = 0;
    while (i < a.length && i < b.length && a[i] === b[i]) i++;
    return { line: i + 1, lines: { got: a.length, want: b.length }, got: a.slice(Math.max(0, i - 1), i + 3), want: b.slice(Math.max(0, i - 1), i + 3) };
  };

  it("the whole series in CSV", async () => {
    const r = await http.get(`${path}/data/`);
    expect(r.status).toBe(200);
    expect(firstDiff(r.text, expected(-Infinity, Infinity))).toBeNull();
  });

  it("ranges with bounds on, between and around record instants", async () => {
    const n = records.length;
    const cases: [number, number][] = [
      [records[0].t, records[n - 1].t], [records[1].t, records[n - 2].t], [records[123].t + 1, records[20000].t - 1],
      [records[5000].t, records[5000].t], [records[5000].t + 1, records[5001].t - 1], [records[17].t, records[39999].t + 86400 * 400],
      [records[31111].t - 86400 * 3 - 7, records[31111].t + 3600 * 5 + 11], [Date.UTC(2015, 0, 1) / 1000, records[2].t],
    ];
    for (const [from, to] of cases) {
      const r = await http.get(`${path}/data/?start_date=${iso(from)}&end_date=${iso(to)}`);
      expect(r.status).toBe(200);
      expect({ from, to, diff: firstDiff(r.text, expected(from, to)) }).toEqual({ from, to, diff: null });
    }
  });

  it("a range in naive local dates and another output zone", async () => {
    // 2016-01-01 (Etc/GMT+5) = 2016-01-01T05:00Z; output in Etc/GMT-3
    const from = Date.UTC(2016, 0, 1, 5) / 1000;
    const to = Date.UTC(2016, 1, 1, 5) / 1000;
    const r = await http.get(`${path}/data/?start_date=2016-01-01&end_date=2016-02-01&timezone=Etc/GMT-3`);
    expect(r.status).toBe(200);
    expect(firstDiff(r.text, expected(from, to, 3 * 3600))).toBeNull();
  });

  it("HTS of a range: Count and records", async () => {
    const from = records[777].t;
    const to = records[9999].t;
    const r = await http.get(`${path}/data/?fmt=hts2&start_date=${iso(from)}&end_date=${iso(to)}`);
    expect(r.status).toBe(200);
    const [header, body] = r.text.split("\r\n\r\n");
    expect(header.split("\r\n")[1]).toBe(`Count=${9999 - 777 + 1}`);
    expect(firstDiff(body, expected(from, to))).toBeNull();
  });

  it("bottom", async () => {
    const last = records[records.length - 1];
    const r = await http.get(`${path}/bottom/`);
    expect(tid).toBeGreaterThan(0);
    expect(r.text).toBe(`${stamp(last.t, OFFSET)},${referenceValue(last.v, PRECISION)},${last.flags}`);
  });
});

describe("HEAD (api.md §1.1, §8.2, §8.4)", () => {
  it.each(["/data/", "/data/?fmt=hts", "/data/?fmt=hts2&timezone=UTC", "/bottom/", "/bottom/?timezone=UTC", "/chart/"])(
    "HEAD %s has GET's status and headers and an empty body", async (suffix) => {
      const get = await http.get(`${TS12}${suffix}`);
      const head = await http.head(`${TS12}${suffix}`);
      expect(head.status).toBe(200);
      expect(head.text).toBe("");
      for (const h of ["content-type", "content-disposition", "etag", "last-modified", "cache-control"]) {
        expect([h, head.headers.get(h)]).toEqual([h, get.headers.get(h)]);
      }
    });

  it("HEAD of a bad request has GET's status", async () => {
    const r = await http.head(`${TS12}/data/?fmt=xml`);
    expect(r.status).toBe(400);
    expect(r.text).toBe("");
  });
});

describe("path aliases (api.md §7.2)", () => {
  const aliases = () => [
    `/api/stations/${st1}/timeseriesgroups/${g1}/timeseries/${ts12}`,
    `/api/stations/${st1}/timeseriesgroup/${g1}/timeseries/${ts12}`,
    `/api/stations/${st1}/timeseries/${ts12}`,
  ];

  it.each([
    "/data/", "/data/?fmt=hts", "/data/?fmt=hts2&timezone=UTC&start_date=2019-01-01", "/data/?timezone=America/New_York&start_date=2018-12-09T13:20",
    "/bottom/", "/bottom/?timezone=UTC", "/chart/", "/chart/?points=4",
  ])("%s gives the same status, headers and bytes on every path", async (suffix) => {
    const responses = await Promise.all(aliases().map((p) => http.get(`${p}${suffix}`)));
    for (const r of responses) {
      expect(r.status).toBe(200);
      expect(r.text).toBe(responses[0].text);
      expect(r.headers.get("content-type")).toBe(responses[0].headers.get("content-type"));
      expect(r.headers.get("content-disposition")).toBe(responses[0].headers.get("content-disposition"));
    }
    if (suffix === "/data/") expect(responses[0].text).toBe(CSV_BODY);
  });

  it("gives the same 400 on every path", async () => {
    for (const p of aliases()) expect400(await http.get(`${p}/data/?fmt=xml`), '{"fmt":["\\"xml\\" is not a valid choice."]}');
  });

  describe("404 for path mismatches", () => {
    let other: Awaited<ReturnType<typeof makeSeries>>;
    let sameStationOtherGroup: Awaited<ReturnType<typeof makeSeries>>;
    beforeAll(async () => {
      other = await makeSeries({ records: [["2020-01-01T00:00:00Z", 1]] });
      sameStationOtherGroup = await makeSeries({ stationId: st1, series: { type: "Checked" }, records: [["2020-01-01T00:00:00Z", 1]] });
    });

    const paths = () => [
      // series of another group of the same station
      `/api/stations/${st1}/timeseriesgroups/${g1}/timeseries/${sameStationOtherGroup.tid}`,
      `/api/stations/${st1}/timeseriesgroup/${g1}/timeseries/${sameStationOtherGroup.tid}`,
      // series of another station
      `/api/stations/${st1}/timeseriesgroups/${g1}/timeseries/${other.tid}`,
      `/api/stations/${st1}/timeseries/${other.tid}`,
      // group of another station
      `/api/stations/${st1}/timeseriesgroups/${other.gid}/timeseries/${other.tid}`,
      `/api/stations/${st1}/timeseriesgroup/${other.gid}/timeseries/${other.tid}`,
      // station of another group
      `/api/stations/${other.sid}/timeseriesgroups/${g1}/timeseries/${ts12}`,
      `/api/stations/${other.sid}/timeseries/${ts12}`,
      // missing objects
      `/api/stations/99999999/timeseriesgroups/${g1}/timeseries/${ts12}`,
      `/api/stations/99999999/timeseries/${ts12}`,
      `/api/stations/${st1}/timeseriesgroups/99999999/timeseries/${ts12}`,
      `/api/stations/${st1}/timeseriesgroups/${g1}/timeseries/99999999`,
      `/api/stations/${st1}/timeseries/99999999`,
      `/api/stations/${st1}/timeseriesgroups/${g1}/timeseries/abc`,
    ];

    it.each(["data/", "data/?fmt=hts", "bottom/", "chart/"])("answers %s under every mismatched path with 404", async (suffix) => {
      for (const p of paths()) {
        const r = await http.get(`${p}/${suffix}`);
        expect({ path: p, status: r.status, body: r.text }).toEqual({ path: p, status: 404, body: NOT_FOUND });
      }
    });

    it("answers 404 before validating parameters", async () => {
      const r = await http.get(`/api/stations/${st1}/timeseries/${other.tid}/data/?fmt=xml`);
      expect({ status: r.status, body: r.text }).toEqual({ status: 404, body: NOT_FOUND });
    });

    it("serves the other series under its own paths", async () => {
      expectBody(await http.get(`${sameStationOtherGroup.path}/data/`), CSV_TYPE, "2020-01-01 02:00,1.00,\r\n");
      expectBody(await http.get(`/api/stations/${st1}/timeseries/${sameStationOtherGroup.tid}/data/`), CSV_TYPE, "2020-01-01 02:00,1.00,\r\n");
    });
  });

  it("redirects data without a trailing slash with 308, keeping the query", async () => {
    const r = await http.get(`${TS12}/data?fmt=hts`);
    expect(r.status).toBe(308);
    expect(r.headers.get("location")).toBe(`${TS12}/data/?fmt=hts`);
  });

  it("answers an unsupported method with 405 and Allow", async () => {
    const r = await http.put(`${TS12}/data/`);
    expect(r.status).toBe(405);
    expect(r.headers.get("allow")).toBe("GET, HEAD, POST, PATCH, DELETE, OPTIONS");
    const b = await http.post(`${TS12}/bottom/`);
    expect(b.status).toBe(405);
    expect(b.headers.get("allow")).toBe("GET, HEAD, OPTIONS");
    const c = await http.post(`${TS12}/chart/`);
    expect(c.status).toBe(405);
    expect(c.headers.get("allow")).toBe("GET, HEAD, OPTIONS");
    const o = await http.options(`${TS12}/data/`);
    expect({ status: o.status, allow: o.headers.get("allow"), body: o.text }).toEqual({ status: 204, allow: "GET, HEAD, POST, PATCH, DELETE, OPTIONS", body: "" });
  });
});
