import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { periodsErrors, rateOfChangeErrors, RULES, type CurvePeriod } from "@/lib/processing/config";
import { cpuTime } from "@/tests/support/cpu-time";

/** The rules of a curve interpolation's periods (processing.md §1). */
const day = (i: number) => new Date(Date.UTC(2000, 0, 1) + i * 86_400_000).toISOString().slice(0, 10);
const period = (start: number, end: number): CurvePeriod => ({ start_date: day(start), end_date: day(end), points: [[0, 0], [1, 1]] });

/** The rule as written: each period against every earlier one, the first that overlaps it named. */
function overlapsByEveryPair(periods: CurvePeriod[]): string[] {
  const d = (s: string) => Date.parse(`${s}T00:00:00Z`);
  const errors: string[] = [];
  for (let i = 0; i < periods.length; i++) {
    const j = periods.findIndex((b, j) => j < i && d(periods[i].start_date) <= d(b.end_date) && d(b.start_date) <= d(periods[i].end_date));
    if (j >= 0) errors.push(RULES.overlap(i, j));
  }
  return errors;
}

describe("periodsErrors", () => {
  it("names each period that overlaps an earlier one, with the first such, as a scan of every pair does", () => {
    fc.assert(fc.property(fc.array(fc.tuple(fc.integer({ min: 0, max: 60 }), fc.integer({ min: -5, max: 20 })), { minLength: 1, maxLength: 12 }), (spans) => {
      const periods = spans.map(([start, length]) => period(start, start + length));
      const overlaps = periodsErrors(periods).filter((e) => e.includes(" overlaps "));
      expect(overlaps).toEqual(overlapsByEveryPair(periods).slice(0, 10));
    }), { numRuns: 2000, seed: 61 });
  });

  it("checks 100,000 periods in well under 2 s, with or without overlaps (a scan of every pair took minutes)", async () => {
    // CPU time: the wall-clock time of a busy machine was three times the bound.
    const disjoint = Array.from({ length: 100_000 }, (_, i) => period(2 * i, 2 * i));
    const clean = await cpuTime(() => periodsErrors(disjoint));
    expect(clean.result).toEqual([]);
    expect(clean.ms).toBeLessThan(2_000);
    // Pairs of equal periods: every second one overlaps the one before it; ten messages at most.
    const pairs = Array.from({ length: 100_000 }, (_, i) => period(4 * (i >> 1), 4 * (i >> 1) + 1));
    const overlapping = await cpuTime(() => periodsErrors(pairs));
    expect(overlapping.result).toEqual(Array.from({ length: 10 }, (_, k) => RULES.overlap(2 * k + 1, 2 * k)));
    expect(overlapping.ms).toBeLessThan(2_000);
  });
});

/** Asymmetric rate-of-change thresholds: one rise and one fall bound per delta_t (processing.md §1, issue 36 item 6). */
describe("rateOfChangeErrors", () => {
  const check = (symmetric: boolean, thresholds: [string, number][]) =>
    rateOfChangeErrors({ symmetric, remove_failing_values: false, thresholds: thresholds.map(([delta_t, allowed_diff]) => ({ delta_t, allowed_diff })) });

  it("accepts a rise and a fall bound for the same delta_t, however written, without symmetric", () => {
    expect(check(false, [["10min", 2], ["10min", -3]])).toEqual([]);
    expect(check(false, [["1h", -5], ["60min", 4], ["1D", 9]])).toEqual([]);
  });

  it("refuses two bounds of one sign for the same delta_t, naming them", () => {
    expect(check(false, [["10min", 2], ["10min", -3], ["10min", 4]])).toEqual([
      'thresholds: Each delta_t may have one rise bound and one fall bound ("10min" has two rise bounds (allowed_diff > 0)).',
    ]);
    expect(check(false, [["1h", -1], ["60min", -2]])).toEqual([
      'thresholds: Each delta_t may have one rise bound and one fall bound ("1h" and "60min" are the same duration, both fall bounds (allowed_diff < 0)).',
    ]);
  });

  it("refuses a zero bound without symmetric, and the same delta_t twice with symmetric whatever the signs", () => {
    expect(check(false, [["10min", 0], ["10min", 1]])).toEqual([
      "thresholds[0].allowed_diff: Without symmetric thresholds an allowed_diff must not be 0 (a positive one bounds rises, a negative one falls).",
    ]);
    expect(check(true, [["10min", 2], ["10min", 3]])).toEqual(['thresholds: Each delta_t may appear only once ("10min" appears twice).']);
    expect(check(true, [["10min", 2], ["10min", -3]])).toEqual([
      'thresholds: Each delta_t may appear only once ("10min" appears twice).',
      "thresholds[1].allowed_diff: With symmetric thresholds every allowed_diff must be greater than 0.",
    ]);
  });
});
