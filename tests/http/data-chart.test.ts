/**
 * GET/HEAD of a time series' chart/ (api.md §8.5; formats.md §7), from the specification:
 * every worked example of §7.3, the points errors, and a large series checked against a brute
 * force reference computed here from the records inserted.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { api, type TestResponse } from "@/tests/support/http";
import * as f from "@/tests/support/fixtures";
import { startServer, type TestServer } from "@/tests/support/server";
import { referenceValue } from "@/tests/support/reference-value";

let server: TestServer;
let http: ReturnType<typeof api>;
let variableId: number;
let unitId: number;
let st2: number;
let g2: number;
let ts13: number;
let TS13: string;

const S0 = 1577836800; // 2020-01-01T00:00:00Z
const DATE_ERROR = "Datetime has wrong format. Use one of these formats instead: YYYY-MM-DD, YYYY-MM-DDThh:mm[:ss[.uuuuuu]][+HH:MM|-HH:MM|Z].";

interface Point { timestamp: number; min: string | null; max: string | null; mean: string | null }
const NULLS = { min: null, max: null, mean: null };
const pt = (timestamp: number, min: string | null, max: string | null = min, mean: string | null = min): Point => ({ timestamp, min, max, mean });

/** The exact response text: compact JSON, keys timestamp, min, max, mean. */
function expectChart(r: TestResponse, points: Point[]) {
  expect(r.status).toBe(200);
  expect(r.headers.get("content-type")).toMatch(/^application\/json(; ?charset=utf-8)?$/i);
  expect(r.text).toBe(JSON.stringify(points.map((p) => ({ timestamp: p.timestamp, min: p.min, max: p.max, mean: p.mean }))));
}

function expect400(r: TestResponse, body: unknown) {
  expect({ status: r.status, body: r.json }).toEqual({ status: 400, body });
  expect(r.text).toBe(JSON.stringify(body));
}

/** The chart's values: null stays null (formats.md §7). */
const formatValue = (x: number | null, p: number): string | null => (x === null ? null : referenceValue(x, p));

/** Whether x lies within 1e-9 (relative) of a rounding tie at precision p. */
function nearTie(x: number, p: number): boolean {
  const scaled = x * 10 ** p;
  const frac = scaled - Math.floor(scaled);
  return Math.abs(frac - 0.5) <= 1e-9 * Math.max(1, Math.abs(scaled));
}

function floorDiv(a: bigint, b: bigint): bigint {
  const q = a / b;
  return (a % b !== 0n && (a < 0n) !== (b < 0n)) ? q - 1n : q;
}

interface Rec { t: number; v: number | null }

/** formats.md §7.2, by brute force over every record. Returns the points and the exact means. */
function reference(records: Rec[], precision: number, options: { S?: number; E?: number; N?: number }): { points: Point[]; means: (number | null)[] } {
  const N = options.N ?? 200;
  if (records.length === 0 && (options.S === undefined || options.E === undefined)) return { points: [], means: [] };
  const S = options.S ?? records[0].t;
  const E = options.E ?? records[records.length - 1].t;
  if (E < S) return { points: [], means: [] };
  const D = E - S;
  const min: (number | null)[] = Array(N).fill(null);
  const max: (number | null)[] = Array(N).fill(null);
  const sum: number[] = Array(N).fill(0);
  const count: number[] = Array(N).fill(0);
  for (const { t, v } of records) {
    if (t < S || t > E || v === null) continue;
    let i = D === 0 ? N - 1 : Number(floorDiv(BigInt(t - S) * BigInt(N), BigInt(D)));
    if (i >= N) i = N - 1;
    min[i] = min[i] === null ? v : Math.min(min[i]!, v);
    max[i] = max[i] === null ? v : Math.max(max[i]!, v);
    sum[i] += v;
    count[i] += 1;
  }
  const points: Point[] = [];
  const means: (number | null)[] = [];
  for (let i = 0; i < N; i++) {
    const timestamp = Number(floorDiv(2n * BigInt(S) * BigInt(N) + BigInt(2 * i + 1) * BigInt(D), 2n * BigInt(N)));
    const mean = count[i] ? sum[i] / count[i] : null;
    means.push(mean);
    points.push({ timestamp, min: formatValue(min[i], precision), max: formatValue(max[i], precision), mean: formatValue(mean, precision) });
  }
  return { points, means };
}

beforeAll(async () => {
  server = await startServer();
  http = api(server.url);
  variableId = await f.variable("Temperature");
  unitId = await f.unit("°C", [variableId]);
  st2 = await f.station({ name: "Chart station", displayTimezone: "Etc/GMT" });
  g2 = await f.group(st2, { precision: 2, variableId, unitId });
  ts13 = await f.series(g2, { type: "Initial", timeStep: "" });
  await f.addRecords(ts13, [
    ["2020-01-01T00:00:00Z", 1.0],
    ["2020-01-01T00:10:00Z", 2.0],
    ["2020-01-01T00:15:00Z", 3.0],
    ["2020-01-01T00:40:00Z", null],
    ["2020-01-01T01:00:00Z", 4.125],
  ]);
  TS13 = `/api/stations/${st2}/timeseriesgroups/${g2}/timeseries/${ts13}`;
});
afterAll(() => server?.stop());

async function makeSeries(precision: number, records: [string, number | null][], displayTimezone = "Etc/GMT") {
  const sid = await f.station({ displayTimezone });
  const gid = await f.group(sid, { precision, variableId, unitId });
  const tid = await f.series(gid, { type: "Initial" });
  if (records.length) await f.addRecords(tid, records);
  return `/api/stations/${sid}/timeseriesgroups/${gid}/timeseries/${tid}`;
}
const epoch = (s: number) => new Date(s * 1000).toISOString();

describe("worked examples of formats.md §7.3", () => {
  it("points=4", async () => {
    expectChart(await http.get(`${TS13}/chart/?points=4`), [
      pt(1577837250, "1.00", "2.00", "1.50"),
      pt(1577838150, "3.00"),
      { timestamp: 1577839050, ...NULLS },
      pt(1577839950, "4.12"),
    ]);
  });

  it("the default N = 200 (width 18 s)", async () => {
    const r = await http.get(`${TS13}/chart/`);
    expect(r.status).toBe(200);
    const points: Point[] = r.json;
    expect(points).toHaveLength(200);
    const expected: Point[] = Array.from({ length: 200 }, (_, i) => ({ timestamp: S0 + Math.floor(((2 * i + 1) * 3600) / 400), ...NULLS }));
    expected[0] = pt(1577836809, "1.00");
    expected[33] = pt(1577837403, "2.00");
    expected[50] = pt(1577837709, "3.00");
    expected[199] = pt(1577840391, "4.12");
    expect(expected[133]).toEqual({ timestamp: 1577839203, ...NULLS });
    expectChart(r, expected);
  });

  it("points=2&start_date=2020-01-01T00:30 (E = last record)", async () => {
    expectChart(await http.get(`${TS13}/chart/?points=2&start_date=2020-01-01T00:30`), [
      { timestamp: 1577839050, ...NULLS }, pt(1577839950, "4.12"),
    ]);
  });

  it("points=3 with start = end (D = 0)", async () => {
    expectChart(await http.get(`${TS13}/chart/?points=3&start_date=2020-01-01T00:10&end_date=2020-01-01T00:10`), [
      { timestamp: 1577837400, ...NULLS }, { timestamp: 1577837400, ...NULLS }, pt(1577837400, "2.00"),
    ]);
  });

  it("a series with one record, no bounds (D = 0): 200 points at its instant, the last one holding it", async () => {
    const path = await makeSeries(2, [["2020-01-01T00:10:00Z", 2.0]]);
    const expected: Point[] = Array.from({ length: 200 }, () => ({ timestamp: 1577837400, ...NULLS }));
    expected[199] = pt(1577837400, "2.00");
    expectChart(await http.get(`${path}/chart/`), expected);
  });

  it("points=2 with D = 7", async () => {
    expectChart(await http.get(`${TS13}/chart/?points=2&start_date=2020-01-01T00:00:00&end_date=2020-01-01T00:00:07`), [
      pt(1577836801, "1.00"), { timestamp: 1577836805, ...NULLS },
    ]);
  });

  it("end < start gives []", async () => {
    expectChart(await http.get(`${TS13}/chart/?start_date=2020-01-01T01:00&end_date=2020-01-01T00:00`), []);
  });

  describe("a series without records", () => {
    let path: string;
    beforeAll(async () => {
      path = await makeSeries(2, []);
    });
    it("no bounds gives []", async () => {
      expectChart(await http.get(`${path}/chart/`), []);
    });
    it("only start_date gives []", async () => {
      expectChart(await http.get(`${path}/chart/?start_date=2020-01-01T00:00`), []);
    });
    it("only end_date gives []", async () => {
      expectChart(await http.get(`${path}/chart/?end_date=2020-01-01T00:00`), []);
    });
    it("both bounds give N null points", async () => {
      expectChart(await http.get(`${path}/chart/?points=2&start_date=2020-01-01T00:00&end_date=2020-01-01T01:00`), [
        { timestamp: 1577837700, ...NULLS }, { timestamp: 1577839500, ...NULLS },
      ]);
    });
  });

  it("records 0.1 @0, 0.2 @10, 2 @20, 3 @30, precision 2, points=2", async () => {
    const path = await makeSeries(2, [[epoch(0), 0.1], [epoch(10), 0.2], [epoch(20), 2], [epoch(30), 3]]);
    expectChart(await http.get(`${path}/chart/?points=2`), [pt(7, "0.10", "0.20", "0.15"), pt(22, "2.00", "3.00", "2.50")]);
  });

  it("records 2 @0, 3 @10, precision 0, points=1: the mean 2.5 is written 2", async () => {
    const path = await makeSeries(0, [[epoch(0), 2], [epoch(10), 3]]);
    expectChart(await http.get(`${path}/chart/?points=1`), [pt(5, "2", "3", "2")]);
  });

  it("records 1 @-7, 2 @0, precision 0, points=2: timestamps are floored (-6, -2)", async () => {
    const path = await makeSeries(0, [[epoch(-7), 1], [epoch(0), 2]]);
    expectChart(await http.get(`${path}/chart/?points=2`), [pt(-6, "1"), pt(-2, "2")]);
  });

  it("a series with only null values gives N null points over its range", async () => {
    const path = await makeSeries(2, [["2020-01-01T00:00:00Z", null], ["2020-01-01T00:10:00Z", null]]);
    expectChart(await http.get(`${path}/chart/?points=2`), [{ timestamp: S0 + 150, ...NULLS }, { timestamp: S0 + 450, ...NULLS }]);
  });

  it("naive bounds are read in the station's display zone", async () => {
    const path = await makeSeries(1, [["2020-01-01T00:00:00Z", 1], ["2020-01-01T01:00:00Z", 2], ["2020-01-01T02:00:00Z", 3]], "Etc/GMT-2");
    // 2020-01-01T03:00 (+02:00) is 01:00Z; 04:00 (+02:00) is 02:00Z
    expectChart(await http.get(`${path}/chart/?points=1&start_date=2020-01-01T03:00&end_date=2020-01-01T04:00`), [pt(S0 + 5400, "2.0", "3.0", "2.5")]);
    // an aware bound, percent-encoded and not (formats.md §3.4)
    expectChart(await http.get(`${path}/chart/?points=1&start_date=2020-01-01T03:00%2B02:00&end_date=2020-01-01T04:00:00%2B02:00`), [pt(S0 + 5400, "2.0", "3.0", "2.5")]);
    expectChart(await http.get(`${path}/chart/?points=1&start_date=2020-01-01T03:00:00+02:00&end_date=2020-01-01T04:00:00+02:00`), [pt(S0 + 5400, "2.0", "3.0", "2.5")]);
  });

  it("clamps 0001-01-01T00:01:00+00:00 (formats.md §3.4)", async () => {
    const r = await http.get(`${TS13}/chart/?points=1&start_date=0001-01-01T00:01:00%2B00:00`);
    // S = 1680-01-01T00:00:00Z = -9151488000, E = last record
    const S = -9151488000;
    const E = S0 + 3600;
    expectChart(r, [{ timestamp: Math.floor((2 * S + (E - S)) / 2), min: "1.00", max: "4.12", mean: formatValue((1 + 2 + 3 + 4.125) / 4, 2) }]);
  });

  it("date errors", async () => {
    expect400(await http.get(`${TS13}/chart/?start_date=hello`), { start_date: [DATE_ERROR] });
    expect400(await http.get(`${TS13}/chart/?end_date=2014-02-30`), { end_date: [DATE_ERROR] });
  });
});

describe("points (formats.md §7.1)", () => {
  it.each<[string, unknown]>([
    ["abc", { points: ["A valid integer is required."] }],
    ["1.5", { points: ["A valid integer is required."] }],
    ["1e2", { points: ["A valid integer is required."] }],
    ["0", { points: ["Ensure this value is greater than or equal to 1."] }],
    ["-3", { points: ["Ensure this value is greater than or equal to 1."] }],
    ["2001", { points: ["Ensure this value is less than or equal to 2000."] }],
    ["99999999999999999999", { points: ["Ensure this value is less than or equal to 2000."] }],
  ])("points=%s gives 400", async (value, body) => {
    expect400(await http.get(`${TS13}/chart/?points=${value}`), body);
  });

  it.each([1, 2, 7, 2000])("points=%i gives exactly that many points", async (n) => {
    const r = await http.get(`${TS13}/chart/?points=${n}`);
    expect(r.status).toBe(200);
    expect(r.json).toHaveLength(n);
    expectChart(r, reference(
      [{ t: S0, v: 1 }, { t: S0 + 600, v: 2 }, { t: S0 + 900, v: 3 }, { t: S0 + 2400, v: null }, { t: S0 + 3600, v: 4.125 }], 2, { N: n }).points);
  });

  it("points=+5 and points=005 are integers (api.md §1.2)", async () => {
    expect((await http.get(`${TS13}/chart/?points=%2B5`)).json).toHaveLength(5);
    expect((await http.get(`${TS13}/chart/?points=005`)).json).toHaveLength(5);
  });
});

describe("a large series against a brute-force reference", () => {
  const PRECISION = 2;
  const ZONE_OFFSET = 3 * 3600; // display zone Etc/GMT-3
  const T0 = Date.UTC(2021, 0, 1, 0, 3, 20) / 1000; // not aligned to days or hours
  const COUNT = 30000;
  const records: Rec[] = [];
  let path: string;

  beforeAll(async () => {
    let seed = 12345;
    const random = () => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed / 2147483648;
    };
    for (let i = 0; i < COUNT; i++) {
      const t = T0 + i * 600 + (i % 7 === 3 ? 17 : 0); // a few records off the 10-minute grid
      const r = random();
      const v = r < 0.06 ? null : (random() - 0.3) * 60 + random() * 1e-3 + Math.sin(i) * 1e-7;
      records.push({ t, v });
    }
    path = await makeSeries(PRECISION, records.map((r) => [epoch(r.t), r.v] as [string, number | null]), "Etc/GMT-3");
  }, 120_000);

  const iso = (s: number) => epoch(s).replace(".000Z", "Z");
  /** A naive local text (display zone UTC+3) for epoch s. */
  const naive = (s: number) => epoch(s + ZONE_OFFSET).slice(0, 19);

  const cases: { name: string; query: () => string; S?: () => number; E?: () => number; N?: number }[] = [
    { name: "the whole series, default points", query: () => "" },
    { name: "the whole series, points=2000", query: () => "?points=2000", N: 2000 },
    { name: "the whole series, points=1", query: () => "?points=1", N: 1 },
    { name: "the whole series, points=7", query: () => "?points=7", N: 7 },
    { name: "unaligned aware bounds, points=13", N: 13,
      query: () => `?points=13&start_date=${iso(T0 + 1234567)}&end_date=${iso(T0 + 9876543)}`, S: () => T0 + 1234567, E: () => T0 + 9876543 },
    { name: "naive bounds in the display zone, points=333", N: 333,
      query: () => `?points=333&start_date=${naive(T0 + 86400 * 17 + 3333)}&end_date=${naive(T0 + 86400 * 150 + 77)}`, S: () => T0 + 86400 * 17 + 3333, E: () => T0 + 86400 * 150 + 77 },
    { name: "only start_date (E = last record)", query: () => `?start_date=${iso(T0 + 86400 * 100 + 1)}`, S: () => T0 + 86400 * 100 + 1 },
    { name: "only end_date (S = first record), points=61", N: 61, query: () => `?points=61&end_date=${iso(T0 + 86400 * 45 + 599)}`, E: () => T0 + 86400 * 45 + 599 },
    { name: "bounds beyond both ends, points=1999", N: 1999,
      query: () => `?points=1999&start_date=2020-06-01T00:00:00Z&end_date=2022-01-01T00:00:00Z`, S: () => Date.UTC(2020, 5, 1) / 1000, E: () => Date.UTC(2022, 0, 1) / 1000 },
    { name: "a range shorter than the number of points (D < N)", N: 1000,
      query: () => `?points=1000&start_date=${iso(T0 + 600 * 500 - 37)}&end_date=${iso(T0 + 600 * 501 + 5)}`, S: () => T0 + 600 * 500 - 37, E: () => T0 + 600 * 501 + 5 },
    { name: "one day, from midnight to midnight local, points=144", N: 144,
      query: () => `?points=144&start_date=2021-03-10&end_date=2021-03-11`, S: () => Date.UTC(2021, 2, 9, 21) / 1000, E: () => Date.UTC(2021, 2, 10, 21) / 1000 },
    { name: "fractional bounds (start up, end down), points=9", N: 9,
      query: () => `?points=9&start_date=${iso(T0 + 600 * 99 - 1).replace("Z", ".2Z")}&end_date=${iso(T0 + 600 * 3000).replace("Z", ".9Z")}`,
      S: () => T0 + 600 * 99, E: () => T0 + 600 * 3000 },
    { name: "bounds on record instants, width not an integer, points=1997", N: 1997,
      query: () => `?points=1997&start_date=${iso(T0 + 600 * 10)}&end_date=${iso(T0 + 600 * 29990)}`, S: () => T0 + 600 * 10, E: () => T0 + 600 * 29990 },
  ];

  it.each(cases.map((c) => [c.name, c] as const))("%s", async (_name, c) => {
    const r = await http.get(`${path}/chart/${c.query()}`);
    expect(r.status).toBe(200);
    const got: Point[] = r.json;
    const { points: expected, means } = reference(records, PRECISION, { S: c.S?.(), E: c.E?.(), N: c.N });
    expect(got.length).toBe(expected.length);
    const mismatches: string[] = [];
    for (let i = 0; i < expected.length; i++) {
      const g = got[i];
      const e = expected[i];
      const keysOk = JSON.stringify(Object.keys(g)) === '["timestamp","min","max","mean"]';
      const meanOk = g.mean === e.mean || (means[i] !== null && nearTie(means[i]!, PRECISION));
      if (!keysOk || g.timestamp !== e.timestamp || g.min !== e.min || g.max !== e.max || !meanOk) {
        mismatches.push(`[${i}] got ${JSON.stringify(g)} expected ${JSON.stringify(e)}`);
      }
    }
    expect(mismatches.slice(0, 10)).toEqual([]);
  });

  it("the chart of the whole series is the same on the short path", async () => {
    const parts = path.split("/");
    const short = `/api/stations/${parts[3]}/timeseries/${parts[7]}`;
    const a = await http.get(`${path}/chart/?points=500`);
    const b = await http.get(`${short}/chart/?points=500`);
    expect(b.status).toBe(200);
    expect(b.text).toBe(a.text);
  });
});
