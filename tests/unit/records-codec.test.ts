import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { decodeRecords, encodeRecords } from "@/lib/records/codec";
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

const value = fc.oneof(
  fc.double(),
  fc.double({ min: -1e-300, max: 1e-300 }),
  fc.integer({ min: -1_000_000, max: 1_000_000 }).map((k) => k / 100),
  fc.constantFrom(0, -0, NaN, Number.MIN_VALUE, -Number.MIN_VALUE, Number.MAX_VALUE, Infinity, -Infinity, 2.2250738585072014e-308),
);
const flag = fc.oneof({ weight: 5, arbitrary: fc.constant("") }, fc.constantFrom("MISS", "RANGE SUSPECT"), fc.string({ unit: "grapheme" }));

const batches = timestamps.chain((ts) =>
  fc.tuple(fc.array(value, { minLength: ts.length, maxLength: ts.length }), fc.array(flag, { minLength: ts.length, maxLength: ts.length }))
    .map(([values, flags]): RecordBatch => ({ timestamps: Float64Array.from(ts), values: Float64Array.from(values), flags })));

describe("records encoding", () => {
  it("round-trips timestamps, values bit for bit (-0, subnormals, NaN as the null) and flags", () => {
    fc.assert(fc.property(batches, (batch) => expectSame(decodeRecords(encodeRecords(batch)), batch)), { numRuns: 500 });
  });

  it("round-trips an empty batch, and refuses bytes that are cut short or run on", () => {
    const empty = { timestamps: new Float64Array(0), values: new Float64Array(0), flags: [] };
    expectSame(decodeRecords(encodeRecords(empty)), empty);
    const batch = { timestamps: Float64Array.of(0, 600, 1200), values: Float64Array.of(1.5, NaN, -0), flags: ["", "X", ""] };
    const bytes = encodeRecords(batch);
    for (let n = 0; n < bytes.length; n++) expect(() => decodeRecords(bytes.subarray(0, n))).toThrow();
    expect(() => decodeRecords(Uint8Array.of(...bytes, 0))).toThrow(/after the records/);
    expect(() => decodeRecords(Uint8Array.of(99, ...bytes.subarray(1)))).toThrow(/version/);
  });

  it("takes about two bytes per timestamp of a regular series, plus each value", () => {
    const n = 144 * 365;
    const batch = { timestamps: Float64Array.from({ length: n }, (_, i) => 1.6e9 + 600 * i), values: new Float64Array(n).fill(1.25), flags: new Array(n).fill("") };
    expect(encodeRecords(batch).length).toBeLessThan(n * 8 + n * 1.1 + 20);
  });
});
