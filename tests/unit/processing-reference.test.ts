/**
 * The numerics against results computed with the reference libraries (pthelma's haggregate
 * and rocc, numpy.interp, called as Enhydris calls them): see tests/fixtures/processing/README.md.
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { aggregateSeries, AggregationError, type AggregationConfig } from "@/lib/processing/numerics/aggregation";
import { runChecks, type ChecksConfig } from "@/lib/processing/numerics/checks";
import { runCurveInterpolation, type CurveInterpolationConfig } from "@/lib/processing/numerics/curve-interpolation";
import { EMPTY } from "@/lib/processing/numerics/series";
import { regularize, type RegularizationMode } from "@/lib/processing/numerics/regularize";
import { stepSeconds } from "@/lib/processing/numerics/steps";
import { fromFixture, type FixtureCase, type FixtureRecords } from "@/tests/fixtures/processing/fixtures";

function compute(c: FixtureCase): FixtureRecords | { error: string } {
  const source = fromFixture(c.source);
  const zone = (c.zone_minutes ?? 0) * 60;
  try {
    switch (c.kind) {
      case "checks":
        return toFixture(runChecks(c.config as ChecksConfig, source, EMPTY, -Infinity));
      case "curve_interpolation":
        return toFixture(runCurveInterpolation(c.config as CurveInterpolationConfig, source, -Infinity));
      case "aggregation":
        return toFixture(aggregateSeries(c.config as AggregationConfig, source, c.time_step!, zone));
      case "regularize": {
        const mode = (c.config as { mode: RegularizationMode }).mode;
        return toFixture(regularize(source, stepSeconds(c.time_step!).seconds!, mode, zone));
      }
    }
  } catch (e) {
    if (e instanceof AggregationError) return { error: e.message };
    throw e;
  }
}

function toFixture(r: { timestamps: Float64Array; values: Float64Array; flags: readonly string[] }): FixtureRecords {
  return { t: Array.from(r.timestamps), v: Array.from(r.values, (v) => (Number.isNaN(v) ? null : v)), f: [...r.flags] };
}

/** Values within `tolerance` relative (the independent suite allows 1e-9); timestamps and flags exact. */
function expectSameRecords(actual: FixtureRecords, expected: FixtureRecords, tolerance = 1e-12): void {
  expect(actual.t).toEqual(expected.t);
  expect(actual.f).toEqual(expected.f);
  const mismatches = expected.v.flatMap((e, i) => {
    const a = actual.v[i];
    if (e === null || a === null) return a === e ? [] : [{ i, t: expected.t[i], actual: a, expected: e }];
    return Math.abs(a - e) <= tolerance * Math.max(Math.abs(e), 1e-300) ? [] : [{ i, t: expected.t[i], actual: a, expected: e }];
  });
  expect(mismatches).toEqual([]);
}

for (const file of ["worked-examples.json", "random-cases.json"]) {
  const cases = (JSON.parse(readFileSync(`tests/fixtures/processing/${file}`, "utf8")) as { cases: FixtureCase[] }).cases;
  describe(`processing numerics against the reference: ${file}`, () => {
    it.each(cases.map((c) => [c.name, c] as const))("%s", (_name, c) => {
      const actual = compute(c);
      if ("error" in c.expected) {
        expect(c.hand ?? c.expected).toHaveProperty("error");
        expect(actual).toHaveProperty("error");
        return;
      }
      expect(actual).not.toHaveProperty("error");
      expectSameRecords(actual as FixtureRecords, c.expected);
      // the hand-computed expectation, where the case has one (README), to its precision
      if (c.hand && !("error" in c.hand)) expectSameRecords(actual as FixtureRecords, c.hand, c.hand_tolerance);
    });
  });
}
