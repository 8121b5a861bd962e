/**
 * A process's cost grows with the records it reads, not with the span of time they cover nor
 * with the numbers a user typed (issue 36, item 2): the bounded numerics against the dense ones
 * they replace (tests/support/dense-processing.ts) on sources small enough for those, and
 * against the probe's repros on sources they could not handle.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { AggregationError, MAX_EMPTY_INTERVALS } from "@/lib/processing/numerics/aggregate";
import { aggregateSeries, type AggregationConfig } from "@/lib/processing/numerics/aggregation";
import { regularGrid, regularizeOnGrid, type RegularizationMode } from "@/lib/processing/numerics/regularize";
import { addRepeatedly, rateOfChangeFailures, sortThresholds, type RateOfChangeFailure, type RateOfChangeThreshold } from "@/lib/processing/numerics/rate-of-change";
import type { RecordBatch } from "@/lib/processing/numerics/series";
import { cpuTime } from "@/tests/support/cpu-time";
import { denseAggregateSeries, denseRateOfChangeFailures, denseRegularizeOnGrid } from "@/tests/support/dense-processing";

const MIN = 60;
const DAY = 86_400;
const BASE = Date.UTC(2021, 2, 27, 21, 0) / 1000;

function batch(rows: readonly { t: number; v: number }[]): RecordBatch {
  return { timestamps: Float64Array.from(rows, (r) => r.t), values: Float64Array.from(rows, (r) => r.v), flags: rows.map(() => "") };
}

const plain = (r: RecordBatch) => ({ t: Array.from(r.timestamps), v: Array.from(r.values, (v) => (Number.isNaN(v) ? null : v)), f: [...r.flags] });

/** Records on a step with gaps (long ones too), jitter of up to half a step (exact halves included) and empty values. */
function sourceArb(step: number, maxLength = 60): fc.Arbitrary<RecordBatch> {
  const half = step / 2 / MIN;
  return fc.record({
    start: fc.integer({ min: 0, max: 2 * 24 * 60 }).map((m) => BASE + m * MIN),
    // a first record exactly half a step after a grid point makes the reference's walk wrap (regularize.ts)
    halfFirst: fc.boolean(),
    items: fc.array(fc.record({
      skip: fc.oneof({ weight: 20, arbitrary: fc.constant(0) }, { weight: 3, arbitrary: fc.integer({ min: 1, max: 30 }) }, { weight: 1, arbitrary: fc.integer({ min: 200, max: 5_000 }) }),
      jitter: fc.oneof({ weight: 5, arbitrary: fc.constant(0) }, { weight: 2, arbitrary: fc.integer({ min: -Math.floor(half), max: Math.floor(half) }) }),
      v: fc.oneof({ weight: 1, arbitrary: fc.constant(NaN) }, { weight: 6, arbitrary: fc.integer({ min: -400, max: 400 }).map((x) => x / 10) }),
    }), { minLength: 1, maxLength }),
  }).map(({ start, halfFirst, items }) => {
    const rows: { t: number; v: number }[] = [];
    let grid = Math.floor(start / step) * step + (halfFirst ? step / 2 : 0);
    for (const item of items) {
      grid += item.skip * step;
      let t = grid + item.jitter * MIN;
      if (rows.length && t <= rows[rows.length - 1].t) t = rows[rows.length - 1].t + MIN;
      rows.push({ t, v: item.v });
      grid += step;
    }
    return batch(rows);
  });
}

describe("regularization: the points that take a record, whatever the span", () => {
  it("takes the records the dense walk takes, gaps and the reference's wrap included", () => {
    const arb = fc.record({
      step: fc.constantFrom(10 * MIN, 30 * MIN, 60 * MIN, 7 * MIN),
      zone: fc.constantFrom(0, 2 * 3600, -5 * 3600, 30 * MIN),
      mode: fc.constantFrom<RegularizationMode>("instantaneous", "interval"),
    }).chain((c) => fc.record({ c: fc.constant(c), source: sourceArb(c.step) }));
    fc.assert(fc.property(arb, ({ c, source }) => {
      const n = source.timestamps.length;
      const grid = regularGrid(source.timestamps[0], source.timestamps[n - 1], c.step, c.zone);
      const dense = denseRegularizeOnGrid(source, grid, c.mode, true);
      const points = regularizeOnGrid(source, grid, c.mode, true);
      const expected: [number, number, number, number][] = [];
      for (let g = 0; g < grid.count; g++) if (dense.picked[g] >= 0) expected.push([g, dense.values[g], dense.picked[g], dense.inserted[g]]);
      const actual = Array.from({ length: points.length }, (_, p) => [points.index[p], points.values[p], points.picked[p], points.inserted[p]]);
      expect(actual).toEqual(expected);
    }), { numRuns: 1500 });
  });

  it("regularizes two records 300 years apart on a one-minute grid without visiting its 157 million points", async () => {
    for (const halfFirst of [0, 30]) {
      // 30 s after 00:00 on an even minute: the reference's walk wraps to the last record
      const first = Date.UTC(1700, 2, 1, 12, 0) / 1000 + halfFirst;
      const source = batch([{ t: first, v: 1 }, { t: Date.UTC(1999, 10, 1, 6, 0) / 1000, v: 2 }]);
      const grid = regularGrid(first, source.timestamps[1], MIN, 0);
      expect(grid.count).toBeGreaterThan(157_000_000);
      const { result, ms } = await cpuTime(() => regularizeOnGrid(source, grid, "instantaneous", true));
      expect(ms).toBeLessThan(200);
      expect(result.length).toBe(halfFirst ? 1 : 2);
    }
  });
});

describe("aggregation: the intervals of the result, whatever the span", () => {
  const configArb = fc.record({
    target_time_step: fc.constantFrom("1h", "3h", "1D", "20min", "90min"),
    method: fc.constantFrom<AggregationConfig["method"]>("sum", "mean", "max", "min"),
    max_missing: fc.integer({ min: 0, max: 10 }),
    resulting_timestamp_offset: fc.constantFrom("", "1min", "-30min"),
  });

  it("equals the dense aggregation", () => {
    const arb = fc.record({
      step: fc.constantFrom(10 * MIN, 30 * MIN, 60 * MIN),
      zone: fc.constantFrom(0, 2 * 3600, -5 * 3600),
      config: configArb,
    }).chain((c) => fc.record({ c: fc.constant(c), source: sourceArb(c.step) }));
    fc.assert(fc.property(arb, ({ c, source }) => {
      const timeStep = `${c.step / MIN}min`;
      expect(plain(aggregateSeries(c.config, source, timeStep, c.zone))).toEqual(plain(denseAggregateSeries(c.config, source, timeStep, c.zone)));
    }), { numRuns: 1500 });
  });

  it("aggregates a one-minute series with records in 1700 and 1999 daily in well under a second: every day between, empty but for the two", async () => {
    const first = Date.UTC(1700, 2, 1, 12, 0) / 1000;
    const last = Date.UTC(1999, 10, 1, 6, 0) / 1000;
    const source = batch([{ t: first, v: 1.5 }, { t: first + 60, v: 2.5 }, { t: last, v: 7 }]);
    const config: AggregationConfig = { target_time_step: "1D", method: "sum", max_missing: 1439, resulting_timestamp_offset: "" };
    const { result, ms } = await cpuTime(() => aggregateSeries(config, source, "1min", 0));
    expect(ms).toBeLessThan(1_000);
    const firstLabel = Date.UTC(1700, 2, 2) / 1000;
    const lastLabel = Date.UTC(1999, 10, 2) / 1000;
    const days = (lastLabel - firstLabel) / DAY + 1;
    expect(days).toBe(109_453);
    expect(result.timestamps.length).toBe(days);
    expect(result.timestamps[0]).toBe(firstLabel);
    expect(result.timestamps[days - 1]).toBe(lastLabel);
    expect(result.timestamps.every((t, i) => t === firstLabel + i * DAY)).toBe(true);
    expect([result.values[0], result.values[days - 1]]).toEqual([4, 7]);
    expect(result.values.subarray(1, days - 1).every((v) => Number.isNaN(v))).toBe(true);
    expect([result.flags[0], result.flags[1], result.flags[days - 2], result.flags[days - 1]]).toEqual(["MISSING1438", "MISSING1440", "MISSING1440", "MISSING1439"]);
  });

  it("refuses a result of more than a million empty intervals (a gap of centuries aggregated hourly), naming the counts", () => {
    const source = batch([{ t: Date.UTC(1700, 0, 1) / 1000, v: 1 }, { t: Date.UTC(1700, 0, 1, 0, 1) / 1000, v: 1 }, { t: Date.UTC(1999, 0, 1) / 1000, v: 2 }]);
    const config: AggregationConfig = { target_time_step: "1h", method: "max", max_missing: 59, resulting_timestamp_offset: "" };
    expect(() => aggregateSeries(config, source, "1min", 0)).toThrow(AggregationError);
    expect(() => aggregateSeries(config, source, "1min", 0)).toThrow(/^The aggregation would write 2620969 intervals, 2620966 of them empty because of gaps in the source; at most 1000000 empty intervals are written\./);
    expect(MAX_EMPTY_INTERVALS).toBe(1_000_000);
  });
});

describe("rate-of-change check: records × thresholds, however many records a delta_t spans", () => {
  it("adds a threshold repeatedly as the reference's loop does, one binade at a time", () => {
    const naive = (s: number, x: number, q: number) => {
      for (let i = 0; i < q; i++) s += x;
      return s;
    };
    // values with few bits (ties of the rounding) and with many
    const valueArb = fc.oneof(
      fc.integer({ min: 1, max: 2 ** 20 }).chain((m) => fc.integer({ min: -30, max: 10 }).map((e) => m * 2 ** e)),
      fc.double({ min: 1e-6, max: 1e6, noNaN: true }),
      fc.integer({ min: 1, max: 1000 }).map((x) => x / 10),
    );
    fc.assert(fc.property(valueArb, valueArb, fc.integer({ min: 0, max: 3000 }), fc.boolean(), (s0, x, q, negative) => {
      const s = Math.random() < 0.3 ? 0 : s0;
      const sign = negative ? -1 : 1;
      expect(addRepeatedly(sign * s, sign * x, q)).toBe(naive(sign * s, sign * x, q));
    }), { numRuns: 20_000 });
    expect(addRepeatedly(0, 0.1, 3)).toBe(0.1 + 0.1 + 0.1);
  });

  const thresholdsArb = fc.uniqueArray(fc.record({
    minutes: fc.oneof(fc.constantFrom(10, 20, 30, 60, 180), fc.integer({ min: 1, max: 3000 })),
    allowed_diff: fc.oneof(fc.integer({ min: -30, max: 30 }), fc.integer({ min: -300, max: 300 })).filter((d) => d !== 0).map((x) => x / 10),
  }), { minLength: 1, maxLength: 6, selector: (t) => `${t.minutes} ${Math.sign(t.allowed_diff)}` })
    .map((ts) => ts.map((t): RateOfChangeThreshold => ({ delta_t: `${t.minutes}min`, allowed_diff: t.allowed_diff })));

  it("fails the records the record-by-record check fails, with the same reasons, from any point on", () => {
    const arb = fc.record({
      source: sourceArb(10 * MIN, 400),
      thresholds: thresholdsArb,
      symmetric: fc.boolean(),
      cut: fc.double({ min: 0, max: 1, noNaN: true }),
    });
    fc.assert(fc.property(arb, ({ source, thresholds, symmetric, cut }) => {
      const t = sortThresholds(symmetric ? thresholds.map((x) => ({ ...x, allowed_diff: Math.abs(x.allowed_diff) })) : thresholds);
      const n = source.timestamps.length;
      const expectedFailed = new Uint8Array(n);
      const expectedWhy: RateOfChangeFailure[] = [];
      denseRateOfChangeFailures(source.timestamps, source.values, t, symmetric, expectedFailed, 0, (f) => expectedWhy.push(f));
      const failed = new Uint8Array(n);
      const why: RateOfChangeFailure[] = [];
      rateOfChangeFailures(source.timestamps, source.values, t, symmetric, failed, 0, (f) => why.push(f));
      expect(Array.from(failed)).toEqual(Array.from(expectedFailed));
      expect(why).toEqual(expectedWhy);
      // continuing from a point with the outcome before it, as an incremental run does
      const from = Math.floor(cut * n);
      const continued = new Uint8Array(n);
      continued.set(expectedFailed.subarray(0, from));
      rateOfChangeFailures(source.timestamps, source.values, t, symmetric, continued, from, undefined);
      expect(Array.from(continued)).toEqual(Array.from(expectedFailed));
    }), { numRuns: 600 });
  });

  it("checks 50,000 ten-minute records against 50 thresholds of up to 50 days in well under a second", async () => {
    const n = 50_000;
    const timestamps = Float64Array.from({ length: n }, (_, i) => BASE + i * 600);
    const values = Float64Array.from({ length: n }, (_, i) => 15 + 10 * Math.sin(i / 300) + ((i * 7919) % 13) / 10);
    // wide enough that nothing fails: the record-by-record check then compares every record of every window (≈ 10⁹ pairs)
    const thresholds = Array.from({ length: 50 }, (_, i) => ({ delta_t: `${i + 1}D`, allowed_diff: 100 + i }));
    const { result: failed, ms } = await cpuTime(() => {
      const out = new Uint8Array(n);
      rateOfChangeFailures(timestamps, values, sortThresholds(thresholds), true, out);
      return out;
    });
    expect(ms).toBeLessThan(1_000);
    expect(failed.every((f) => f === 0)).toBe(true);
  });

  it("sums a short delta_t over a long time for the implied threshold without adding it once per step", async () => {
    // a rise after 100 days against a 1-minute rise bound: the reference adds it 144,000 times; here a few dozen additions
    const timestamps = Float64Array.from([BASE, BASE + 100 * DAY]);
    const values = Float64Array.from([0, 1e9]);
    const thresholds = sortThresholds([{ delta_t: "1min", allowed_diff: 0.1 }, { delta_t: "1000D", allowed_diff: -1 }]);
    const failed = new Uint8Array(2);
    const why: RateOfChangeFailure[] = [];
    const dense = new Uint8Array(2);
    const denseWhy: RateOfChangeFailure[] = [];
    denseRateOfChangeFailures(timestamps, values, thresholds, false, dense, 0, (f) => denseWhy.push(f));
    const { ms } = await cpuTime(() => {
      for (let i = 0; i < 1_000; i++) {
        failed.fill(0);
        why.length = 0;
        rateOfChangeFailures(timestamps, values, thresholds, false, failed, 0, (f) => why.push(f));
      }
    });
    expect(why).toEqual(denseWhy);
    expect(why).toHaveLength(1);
    expect(ms).toBeLessThan(500);
  });
});
