import { describe, expect, it } from "vitest";
import { chartFromRecords, chartPoints, chartRange, chartTimestamp, intervalOf, newChartAggregates } from "@/lib/formats/chart";
import { parseDateParam } from "@/lib/formats/date-param";
import { resolveTimeZone } from "@/lib/formats/timezone";

const S0 = 1577836800; // 2020-01-01T00:00:00Z
// formats.md §7.3 fixture: time series 13, precision 2, display zone Etc/GMT
const TS13 = [
  { timestamp: S0, value: 1.0 },
  { timestamp: S0 + 600, value: 2.0 },
  { timestamp: S0 + 900, value: 3.0 },
  { timestamp: S0 + 2400, value: null },
  { timestamp: S0 + 3600, value: 4.125 },
];
const zone = resolveTimeZone("Etc/GMT")!;
const param = (v: string, b: "start" | "end") => parseDateParam(v, zone, b) as number;
const first = (recs: { timestamp: number }[]) => (recs.length ? recs[0].timestamp : null);
const last = (recs: { timestamp: number }[]) => (recs.length ? recs[recs.length - 1].timestamp : null);

function chart(recs: { timestamp: number; value: number | null }[], N: number, start: string | null, end: string | null, precision = 2) {
  const range = chartRange(start === null ? null : param(start, "start"), end === null ? null : param(end, "end"), first(recs), last(recs));
  if (range === null) return [];
  return chartFromRecords(recs, range.S, range.E, N, precision);
}

const NULLS = { min: null, max: null, mean: null };

describe("chart (formats.md §7.3)", () => {
  it("TS13/chart/?points=4", () => {
    expect(JSON.stringify(chart(TS13, 4, null, null))).toBe(
      '[{"timestamp":1577837250,"min":"1.00","max":"2.00","mean":"1.50"},' +
        '{"timestamp":1577838150,"min":"3.00","max":"3.00","mean":"3.00"},' +
        '{"timestamp":1577839050,"min":null,"max":null,"mean":null},' +
        '{"timestamp":1577839950,"min":"4.12","max":"4.12","mean":"4.12"}]',
    );
  });

  it("TS13/chart/ (N = 200)", () => {
    const pts = chart(TS13, 200, null, null);
    expect(pts.length).toBe(200);
    expect(pts[0]).toEqual({ timestamp: 1577836809, min: "1.00", max: "1.00", mean: "1.00" });
    expect(pts[33]).toEqual({ timestamp: 1577837403, min: "2.00", max: "2.00", mean: "2.00" });
    expect(pts[50]).toEqual({ timestamp: 1577837709, min: "3.00", max: "3.00", mean: "3.00" });
    expect(pts[133]).toEqual({ timestamp: 1577839203, ...NULLS });
    expect(pts[199]).toEqual({ timestamp: 1577840391, min: "4.12", max: "4.12", mean: "4.12" });
    const nonNull = pts.map((p, i) => (p.min !== null ? i : -1)).filter((i) => i >= 0);
    expect(nonNull).toEqual([0, 33, 50, 199]);
  });

  it("?points=2&start_date=2020-01-01T00:30", () => {
    expect(chart(TS13, 2, "2020-01-01T00:30", null)).toEqual([
      { timestamp: 1577839050, ...NULLS },
      { timestamp: 1577839950, min: "4.12", max: "4.12", mean: "4.12" },
    ]);
  });

  it("?points=3, D = 0", () => {
    expect(chart(TS13, 3, "2020-01-01T00:10", "2020-01-01T00:10")).toEqual([
      { timestamp: 1577837400, ...NULLS },
      { timestamp: 1577837400, ...NULLS },
      { timestamp: 1577837400, min: "2.00", max: "2.00", mean: "2.00" },
    ]);
  });

  it("a series with one record, no bounds", () => {
    const pts = chart([{ timestamp: S0 + 600, value: 2.0 }], 200, null, null);
    expect(pts.length).toBe(200);
    expect(pts.every((p) => p.timestamp === 1577837400)).toBe(true);
    expect(pts.slice(0, 199).every((p) => p.min === null && p.max === null && p.mean === null)).toBe(true);
    expect(pts[199]).toEqual({ timestamp: 1577837400, min: "2.00", max: "2.00", mean: "2.00" });
  });

  it("?points=2, D = 7", () => {
    expect(JSON.stringify(chart(TS13, 2, "2020-01-01T00:00:00", "2020-01-01T00:00:07"))).toBe(
      '[{"timestamp":1577836801,"min":"1.00","max":"1.00","mean":"1.00"},{"timestamp":1577836805,"min":null,"max":null,"mean":null}]',
    );
  });

  it("end before start, and series without records", () => {
    expect(chart(TS13, 200, "2020-01-01T01:00", "2020-01-01T00:00")).toEqual([]);
    expect(chart([], 200, null, null)).toEqual([]);
    expect(chart([], 200, "2020-01-01T00:00", null)).toEqual([]);
    expect(chart([], 2, "2020-01-01T00:00", "2020-01-01T01:00")).toEqual([
      { timestamp: 1577837700, ...NULLS },
      { timestamp: 1577839500, ...NULLS },
    ]);
  });

  it("means are formatted with the precision", () => {
    const recs = [{ timestamp: 0, value: 0.1 }, { timestamp: 10, value: 0.2 }, { timestamp: 20, value: 2 }, { timestamp: 30, value: 3 }];
    expect(JSON.stringify(chartFromRecords(recs, 0, 30, 2, 2))).toBe(
      '[{"timestamp":7,"min":"0.10","max":"0.20","mean":"0.15"},{"timestamp":22,"min":"2.00","max":"3.00","mean":"2.50"}]',
    );
    expect(JSON.stringify(chartFromRecords([{ timestamp: 0, value: 2 }, { timestamp: 10, value: 3 }], 0, 10, 1, 0))).toBe(
      '[{"timestamp":5,"min":"2","max":"3","mean":"2"}]',
    );
  });

  it("floors negative timestamps", () => {
    const pts = chartFromRecords([{ timestamp: -7, value: 1 }, { timestamp: 0, value: 2 }], -7, 0, 2, 0);
    expect(pts.map((p) => p.timestamp)).toEqual([-6, -2]);
    expect(pts.map((p) => p.mean)).toEqual(["1", "2"]);
  });
});

describe("chart helpers", () => {
  it("intervalOf: boundaries go right, E goes to the last interval, D = 0 to N−1", () => {
    expect(intervalOf(S0 + 900, S0, S0 + 3600, 4)).toBe(1);
    expect(intervalOf(S0 + 899, S0, S0 + 3600, 4)).toBe(0);
    expect(intervalOf(S0 + 3600, S0, S0 + 3600, 4)).toBe(3);
    expect(intervalOf(S0, S0, S0, 5)).toBe(4);
    expect(intervalOf(-7, -7, 0, 2)).toBe(0);
    expect(intervalOf(-4, -7, 0, 2)).toBe(0);
    expect(intervalOf(-3, -7, 0, 2)).toBe(1);
    // the full range with the largest N
    expect(intervalOf(9151488000, -9151488000, 9151488000, 2000)).toBe(1999);
    expect(intervalOf(9151488000 - 1, -9151488000, 9151488000, 2000)).toBe(1999);
    expect(intervalOf(-9151488000 + 9151488, -9151488000, 9151488000, 2000)).toBe(1);
    expect(intervalOf(-9151488000 + 9151487, -9151488000, 9151488000, 2000)).toBe(0);
  });

  it("chartTimestamp is exact and floors", () => {
    expect(chartTimestamp(0, -9151488000, 9151488000, 2000)).toBe(-9151488000 + 4575744);
    expect(chartTimestamp(1999, -9151488000, 9151488000, 2000)).toBe(9151488000 - 4575744);
    expect(chartTimestamp(0, -9151488000, -9151487999, 2000)).toBe(-9151488000);
    expect(chartTimestamp(1, -1, 0, 2)).toBe(-1); // (−4 + 3)/4 = −0.25 → −1
    // brute force against BigInt
    for (const [S, E, N] of [[-9151488000, 9151488000, 1999], [1577836800, 1577840400, 7], [-13, 29, 11]]) {
      for (let i = 0; i < N; i += Math.max(1, Math.floor(N / 50))) {
        const num = 2n * BigInt(S) * BigInt(N) + BigInt(2 * i + 1) * BigInt(E - S);
        const den = BigInt(2 * N);
        let q = num / den;
        if (num % den !== 0n && num < 0n) q -= 1n;
        expect(chartTimestamp(i, S, E, N)).toBe(Number(q));
      }
    }
  });

  it("chartPoints uses per-interval aggregates", () => {
    const agg = newChartAggregates(2);
    agg.min[1] = -0.5;
    agg.max[1] = 2.5;
    agg.sum[1] = 2;
    agg.count[1] = 2;
    expect(chartPoints(0, 10, 2, agg, 0)).toEqual([
      { timestamp: 2, ...NULLS },
      { timestamp: 7, min: "-0", max: "2", mean: "1" },
    ]);
  });

  it("chartRange", () => {
    expect(chartRange(null, null, null, null)).toBeNull();
    expect(chartRange(5, null, null, null)).toBeNull();
    expect(chartRange(5, 6, null, null)).toEqual({ S: 5, E: 6 });
    expect(chartRange(null, null, 1, 9)).toEqual({ S: 1, E: 9 });
    expect(chartRange(10, null, 1, 9)).toBeNull();
    expect(chartRange(9, null, 1, 9)).toEqual({ S: 9, E: 9 });
  });
});
