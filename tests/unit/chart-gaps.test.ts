import { describe, expect, it } from "vitest";
import { drawnRows, stepSeconds } from "@/components/chart/gaps";
import { timeStepToMinutesMonths } from "@/lib/formats/time-step";

/** Rows as the chart endpoint gives them: `values[i]` null for an empty interval; min = mean − 1, max = mean + 1. */
const rows = (width: number, values: (number | null)[]) =>
  values.map((v, i) => ({ t: 1000 + i * width, mean: v, range: v === null ? null : [v - 1, v + 1] as [number, number] }));

describe("the chart's gaps (components/chart/gaps.ts)", () => {
  it("turn time steps into seconds, a month as 31 days, irregular as null", () => {
    expect(stepSeconds(timeStepToMinutesMonths("10min"))).toBe(600);
    expect(stepSeconds(timeStepToMinutesMonths("1D"))).toBe(86400);
    expect(stepSeconds(timeStepToMinutesMonths("1M"))).toBe(31 * 86400);
    expect(stepSeconds(timeStepToMinutesMonths(""))).toBeNull();
  });

  it("join records sparser than the intervals (a day of 10-minute data in 200 intervals of 432 s)", () => {
    const drawn = drawnRows(rows(432, [1, null, 3, 4, null, 6]), 600);
    expect(drawn.map((d) => d.line)).toEqual([1, 2, 3, 4, 5, 6]);
    expect(drawn.map((d) => d.band)).toEqual([[0, 2], [1, 3], [2, 4], [3, 5], [4, 6], [5, 7]]);
    expect(drawn.some((d) => d.alone)).toBe(false);
  });

  it("interpolate an empty interval on the straight line between its neighbours' times", () => {
    const r = [{ t: 0, mean: 0, range: null }, { t: 100, mean: null, range: null }, { t: 400, mean: 4, range: null }];
    expect(drawnRows(r, 1000).map((d) => d.line)).toEqual([0, 1, 4]);
  });

  it("keep a real gap: no record for longer than a step plus an interval", () => {
    // 10-minute records in 60 s intervals: 780 s between two of them means a record is missing.
    const holes = Array(12).fill(null);
    const drawn = drawnRows(rows(60, [1, ...holes, 2, 3]), 600);
    expect(drawn.map((d) => d.line)).toEqual([1, ...holes, 2, 3]);
    // …and a record alone beside a gap gets a dot.
    expect(drawn.map((d) => d.alone)).toEqual([true, ...holes.map(() => false), false, false]);
  });

  it("join at exactly a step plus an interval, not beyond", () => {
    const width = 100;
    const at = (gapIntervals: number) => drawnRows(rows(width, [1, ...Array(gapIntervals - 1).fill(null), 2]), 600)[1].line;
    expect(at(7)).not.toBeNull(); // 700 s = 600 + 100
    expect(at(8)).toBeNull(); // 800 s
  });

  it("always join the points of an irregular series, and dot a single point", () => {
    expect(drawnRows(rows(3600, [5, null, null, null, null, 7]), null).map((d) => d.line)).toEqual([5, 5.4, 5.8, 6.2, 6.6, 7].map((v) => expect.closeTo(v, 9)));
    expect(drawnRows(rows(3600, [null, null, 5, null]), null).map((d) => d.alone)).toEqual([false, false, true, false]);
    expect(drawnRows(rows(3600, [null, null, 5, null]), null).map((d) => d.line)).toEqual([null, null, 5, null]);
  });

  it("leave a mean without a band (and the reverse) to each their own joins", () => {
    const r = [{ t: 0, mean: 1, range: null }, { t: 10, mean: null, range: null }, { t: 20, mean: 3, range: [2, 4] as [number, number] }];
    const drawn = drawnRows(r, 60);
    expect(drawn.map((d) => d.line)).toEqual([1, 2, 3]);
    expect(drawn.map((d) => d.band)).toEqual([null, null, [2, 4]]);
  });
});
