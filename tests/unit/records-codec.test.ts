import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { blockLength, decodeBlock, decodeRecords, encodeBlock, encodeRecords } from "@/lib/records/codec";
import type { RecordBatch } from "@/lib/records/types";

/** The bits of each value (every NaN as the canonical one: NaN is the null). */
function bitsOf(values: Float64Array): bigint[] {
  const copy = Float64Array.from(values, (v) => (v === v ? v : NaN));
  return Array.from(new BigUint64Array(copy.buffer));
}

function expectSame(decoded: RecordBatch, batch: RecordBatch): void {
  expect(Array.from(decoded.timestamps)).toEqual(Array.from(batch.timestamps));
  expect(bitsOf(decoded.values)).toEqual(bitsOf(batch.values));
  expect(decoded.flags).toEqual(batch.flags);
}

/** Sorted distinct timestamps: regular steps with gaps, or anywhere in the safe integers. */
const timestamps = fc.oneof(
  fc.uniqueArray(fc.maxSafeInteger(), { maxLength: 300 }).map((ts) => ts.sort((a, b) => a - b)),
  fc.uniqueArray(fc.integer({ min: -9151488000, max: 9151488000 }), { maxLength: 300 }).map((ts) => ts.sort((a, b) => a - b)),
  fc.tuple(fc.integer({ min: -9151488000, max: 9151488000 }), fc.array(fc.oneof(fc.constant(600), fc.constant(600), fc.integer({ min: 1, max: 10_000_000 })), { maxLength: 500 }))
    .map(([start, steps]) => {
      let t = start;
      return [t, ...steps.map((s) => (t += s))];
    }),
);

const decimals = fc.tuple(fc.integer({ min: -(2 ** 40), max: 2 ** 40 }), fc.integer({ min: 0, max: 12 })).map(([k, d]) => k / 10 ** d);
const value = fc.oneof(
  fc.double(),
  decimals,
  fc.double({ min: -1e-300, max: 1e-300 }),
  fc.integer({ min: -1_000_000, max: 1_000_000 }).map((k) => k / 100),
  fc.constantFrom(0, -0, NaN, Number.MIN_VALUE, -Number.MIN_VALUE, Number.MAX_VALUE, Infinity, -Infinity, 2.2250738585072014e-308),
);
const flag = fc.oneof({ weight: 5, arbitrary: fc.constant("") }, fc.constantFrom("MISS", "RANGE SUSPECT"), fc.string({ unit: "grapheme" }));

/** Values of one kind per batch (a sensor's 2-decimal readings, integers…) or mixed, with or without nulls. */
const valuesOf = (n: number) => fc.oneof(
  fc.array(value, { minLength: n, maxLength: n }),
  fc.tuple(fc.integer({ min: 0, max: 6 }), fc.double({ min: 0, max: 0.5, noNaN: true }), fc.integer({ min: -5000, max: 5000 }))
    .chain(([d, nullShare, start]) => fc.array(fc.tuple(fc.double({ min: 0, max: 1, noNaN: true }), fc.integer({ min: -300, max: 300 })), { minLength: n, maxLength: n })
      .map((steps) => {
        let k = start;
        return steps.map(([r, step]) => (r < nullShare ? NaN : (k += r < 0.7 ? 0 : step) / 10 ** d));
      })),
  fc.constant(new Array(n).fill(NaN)),
);

const batches = timestamps.chain((ts) =>
  fc.tuple(valuesOf(ts.length), fc.array(flag, { minLength: ts.length, maxLength: ts.length }))
    .map(([values, flags]): RecordBatch => ({ timestamps: Float64Array.from(ts), values: Float64Array.from(values), flags })));

describe("records encoding", () => {
  it("round-trips timestamps, values bit for bit (-0, subnormals, NaN as the null) and flags", () => {
    fc.assert(fc.property(batches, (batch) => expectSame(decodeRecords(encodeRecords(batch)), batch)), { numRuns: 500 });
  });

  it("round-trips blocks relative to their base, and counts their records without decoding them", () => {
    fc.assert(fc.property(batches, fc.integer({ min: -9151488000, max: 9151488000 }), (batch, base) => {
      const bytes = encodeBlock(batch, base);
      const decoded = decodeBlock(bytes, base);
      expect(decoded.length).toBe(batch.timestamps.length);
      expect(blockLength(bytes)).toBe(batch.timestamps.length);
      expectSame(decoded, batch);
    }), { numRuns: 500 });
  });

  it("round-trips an empty batch, and refuses bytes that are cut short or run on", () => {
    const empty = { timestamps: new Float64Array(0), values: new Float64Array(0), flags: [] };
    expectSame(decodeRecords(encodeRecords(empty)), empty);
    const batches = [
      { timestamps: Float64Array.of(0, 600, 1200), values: Float64Array.of(1.5, NaN, -0), flags: ["", "X", ""] },
      { timestamps: Float64Array.of(0, 600, 1200, 1800), values: Float64Array.of(1.5, NaN, 2.25, 2.25), flags: ["", "X", "", ""] },
    ];
    for (const batch of batches) {
      const bytes = encodeRecords(batch);
      for (let n = 0; n < bytes.length; n++) expect(() => decodeRecords(bytes.subarray(0, n))).toThrow();
      expect(() => decodeRecords(Uint8Array.of(...bytes, 0))).toThrow(/after the records/);
      expect(() => decodeRecords(Uint8Array.of(99, ...bytes.subarray(1)))).toThrow(/version/);
    }
  });

  it("reads the first history encoding (version 1)", () => {
    const hex = (h: string) => Uint8Array.from(Buffer.from(h, "hex"));
    // Written by the version-1 encoder (commit f3c92fd): out-of-order timestamps too.
    expectSame(decodeRecords(hex("0105008098f3fe0bb00900e012ffe2b8965000000000000000f43f000000000000f87f00000000000000800100000000000000ae47e17a14ae284002044d49535308ce8fcf81ceb1205803010001010000")), {
      timestamps: Float64Array.of(1609459200, 1609459800, 1609460400, 1609462200, -9151488000),
      values: Float64Array.of(1.25, NaN, -0, 5e-324, 12.34), flags: ["", "MISS", "", "Ώρα X", "MISS"],
    });
    expectSame(decodeRecords(hex("010201ffffffffffff3f43ffffffffffff3fc300000000000000f03f00000000000000400000")), {
      timestamps: Float64Array.of(9007199254740991, -9007199254740991), values: Float64Array.of(1, 2), flags: ["", ""],
    });
    expectSame(decodeRecords(hex("0100")), { timestamps: new Float64Array(0), values: new Float64Array(0), flags: [] });
  });

  it("takes a few bytes per day for the timestamps of a regular series, and about one byte per 2-decimal reading", () => {
    const day = 1.6e9 - (1.6e9 % 86_400);
    const regular = (values: number[]) => ({ timestamps: Float64Array.from(values, (_, i) => day + 600 * i), values: Float64Array.from(values), flags: values.map(() => "") });
    const constant = regular(new Array(144).fill(0));
    expect(encodeBlock(constant, day).length).toBeLessThanOrEqual(20);
    // The readings of npm run bench: a slow wave plus hundredths that jump about.
    const bench = regular(Array.from({ length: 144 }, (_, i) => Number((15 + 10 * Math.sin(i / 4000) + ((i * 7919) % 100) / 100).toFixed(2))));
    const size = encodeBlock(bench, day).length;
    expect(size).toBeLessThan(144 * 1.6);
    expect(size).toBeGreaterThan(144);
    const gappy = { ...bench, timestamps: bench.timestamps.map((t, i) => t + (i > 70 ? 1200 : 0)) };
    expect(encodeBlock(gappy, day).length).toBeLessThan(size + 10);
    // Computed values (no short decimal form) take the XOR path: at most 9 bytes each.
    const computed = regular(Array.from({ length: 144 }, (_, i) => Math.sin(i) * 1e3));
    expect(encodeBlock(computed, day).length).toBeLessThanOrEqual(144 * 9 + 10);
  });
});
