import { describe, expect, it } from "vitest";
import { roundedAxis, valueTicks } from "@/components/chart/ticks";
import { chartDomain } from "@/lib/synoptic/chart";

describe("value axes", () => {
  it("tick round values inside the range (the group page's SVG chart)", () => {
    expect(valueTicks(16.3, 27.9)).toEqual([17.5, 20, 22.5, 25, 27.5]);
    expect(valueTicks(0, 1)).toEqual([0, 0.2, 0.4, 0.6, 0.8, 1]);
    expect(valueTicks(5, 5)).toEqual([5]);
  });

  it("begin and end a synoptic chart's axis on round ticks that cover the range", () => {
    // Was 1.6, 4.6, 7.6, 10.6, 13.1 for a domain of about [−0.2, 13.1].
    expect(roundedAxis(0, 13.1)).toEqual([0, 5, 10, 15]);
    expect(roundedAxis(-3.2, 41.7)).toEqual([-10, 0, 10, 20, 30, 40, 50]);
    expect(roundedAxis(0.05, 0.32)).toEqual([0, 0.1, 0.2, 0.3, 0.4]);
  });

  it("pad a synoptic chart's range, but not below zero when no value is negative", () => {
    expect(chartDomain([0, 2, 12.5], [null, null], null, null)).toEqual([0, 13.125]);
    expect(chartDomain([1, 2, 3], [null, 2.5], null, null)).toEqual([0.9, 3.1]);
    const [lo, hi] = chartDomain([-1, 3], [null, null], null, null);
    expect([lo, hi]).toEqual([-1.2, 3.2]);
    // The default chart range widens it.
    expect(chartDomain([0, 2], [null, 1], -5, 10)).toEqual([-5, 10]);
  });
});
