/**
 * Records as the numerics handle them: the records store's RecordBatch (parallel typed arrays,
 * NaN for an empty value, one flags string per record). No object per record.
 */
import type { RecordBatch } from "@/lib/records/types";

export type { RecordBatch };

export const EMPTY: RecordBatch = { timestamps: new Float64Array(0), values: new Float64Array(0), flags: [] };

/** The index of the first timestamp ≥ t (timestamps ascending). */
export function lowerBound(timestamps: Float64Array, t: number, from = 0, to = timestamps.length): number {
  let lo = from;
  let hi = to;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (timestamps[mid] < t) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** Records [start, end) of a batch, sharing its memory. */
export function sliceRecords(records: RecordBatch, start: number, end = records.timestamps.length): RecordBatch {
  if (start <= 0 && end >= records.timestamps.length) return records;
  return {
    timestamps: records.timestamps.subarray(start, end),
    values: records.values.subarray(start, end),
    flags: records.flags.slice(start, end),
  };
}

/** Records with timestamp ≥ t. */
export function recordsFrom(records: RecordBatch, t: number): RecordBatch {
  return sliceRecords(records, lowerBound(records.timestamps, t));
}

/** A flag appended to a record's flags, space-separated, as the reference appends them. */
export function appendFlag(flags: string, flag: string): string {
  return flags === "" ? flag : `${flags} ${flag}`;
}

/** Python's `%` (the result has the sign of the divisor), which pandas' floor and ceil use. */
export function floorMod(a: number, b: number): number {
  const r = a % b;
  return r !== 0 && (r < 0) !== (b < 0) ? r + b : r;
}

/** `Timestamp.floor(step)`, on seconds. */
export function floorTo(t: number, step: number): number {
  return t - floorMod(t, step);
}

/** `Timestamp.ceil(step)`, on seconds. */
export function ceilTo(t: number, step: number): number {
  const r = floorMod(t, step);
  return r === 0 ? t : t + (step - r);
}

/** `Timestamp.round(step)`: to the nearest multiple, halves to the even multiple. */
export function roundHalfEvenTo(t: number, step: number): number {
  const r = floorMod(t, step);
  const q = (t - r) / step;
  const half = step / 2;
  return r > half || (r === half && floorMod(q, 2) === 1) ? t - r + step : t - r;
}
