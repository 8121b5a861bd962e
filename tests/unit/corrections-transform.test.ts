/**
 * The transforms of corrections (lib/series/transform.ts): decimal arithmetic on the operands'
 * places, flags added and removed as words, interpolation rounded as the data are shown.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  addFlags, decimalsOf, interpolatedValue, offsetValue, removeFlags, scaleValue, transformRecords,
} from "@/lib/series/transform";

describe("decimal arithmetic", () => {
  it("counts the places of the shortest decimal form", () => {
    expect([20.45, 1, 0, 1e-7, 1.5e21, 2.675, -3.125, 1e21, 123456.000001].map(decimalsOf)).toEqual([2, 0, 0, 7, 0, 3, 3, 0, 6]);
  });

  it("gives what decimal arithmetic gives: 20.45 + 0.1 is 20.55, 0.1 + 0.2 is 0.3, 20.45 × 1.1 is 22.495", () => {
    expect(offsetValue(20.45, 0.1)).toBe(20.55);
    expect(offsetValue(0.1, 0.2)).toBe(0.3);
    expect(scaleValue(20.45, 1.1)).toBe(22.495);
    expect(Object.is(offsetValue(-0.5, 0.5), 0)).toBe(true);
    expect(offsetValue(NaN, 1)).toBeNaN();
    expect(scaleValue(1e308, 10)).toBe(Infinity);
  });

  it("equals the exact decimal result for values of up to 6 places, where a double can hold it (15 digits; property)", () => {
    const decimal = fc.tuple(fc.integer({ min: -1e9, max: 1e9 }), fc.integer({ min: 0, max: 6 })).map(([m, d]) => ({ m, d, v: Number(`${m}e-${d}`) }));
    fc.assert(fc.property(decimal, decimal, (x, y) => {
      // Exact integer arithmetic on the scaled values, then the nearest double of the result's text.
      const d = Math.max(x.d, y.d);
      const sum = BigInt(x.m) * 10n ** BigInt(d - x.d) + BigInt(y.m) * 10n ** BigInt(d - y.d);
      const fits = (n: bigint) => (n < 0n ? -n : n) < 10n ** 15n;
      if (fits(sum)) expect(offsetValue(x.v, y.v)).toBe(Number(`${sum}e-${d}`) || 0);
      const product = BigInt(x.m) * BigInt(y.m);
      if (fits(product)) expect(scaleValue(x.v, y.v)).toBe(Number(`${product}e-${x.d + y.d}`) || 0);
    }), { numRuns: 2000 });
  });
});

describe("flags", () => {
  it("adds missing words at the end, in order, and removes words", () => {
    expect(addFlags("", "X A")).toBe("X A");
    expect(addFlags("A", "X A")).toBe("A X");
    expect(addFlags("MISS", "X")).toBe("MISS X");
    expect(removeFlags("A B A", "A")).toBe("B");
    expect(removeFlags("", "A")).toBe("");
    expect(removeFlags("AB", "A")).toBe("AB");
  });
});

describe("interpolation", () => {
  it("rounds to the precision as the data are shown (the exact binary value, ties to even)", () => {
    const before = { t: 0, v: 2 };
    const after = { t: 2400, v: 6.25 };
    expect([600, 1200, 1800].map((t) => interpolatedValue(t, before, after, 2))).toEqual([3.06, 4.12, 5.19]);
    expect(interpolatedValue(1200, { t: 0, v: 100 }, { t: 2400, v: 300 }, -2)).toBe(200);
  });

  it("keeps the timestamps and leaves the flags of value operations", () => {
    const current = { timestamps: Float64Array.of(1, 2), values: Float64Array.of(1, NaN), flags: ["A", ""] };
    const set = transformRecords(current, { operation: "set", amount: null });
    expect([Array.from(set.timestamps), Array.from(set.values), set.flags]).toEqual([[1, 2], [NaN, NaN], ["A", ""]]);
    const flagged = transformRecords(current, { operation: "flag", flags: "B" });
    expect([Array.from(flagged.values), flagged.flags]).toEqual([[1, NaN], ["A B", "B"]]);
  });
});
