/**
 * Range check (processing.md §3), as Enhydris's RangeCheck does it: values outside the hard
 * bounds become empty and get RANGE; the remaining values outside the soft bounds get
 * SUSPECT. Bounds are inclusive; a missing soft bound is ±1e38; empty values are never flagged.
 */
import { appendFlag, type RecordBatch } from "./series";

export interface RangeCheckConfig {
  lower_bound: number;
  upper_bound: number;
  soft_lower_bound: number | null;
  soft_upper_bound: number | null;
}

const NO_BOUND = 1e38;

/** The range check over records [start, end) of `values` and `flags`, changing them in place. */
export function rangeCheckInPlace(values: Float64Array, flags: string[], config: RangeCheckConfig, start = 0, end = values.length): void {
  const { lower_bound: lower, upper_bound: upper } = config;
  const softLower = config.soft_lower_bound ?? -NO_BOUND;
  const softUpper = config.soft_upper_bound ?? NO_BOUND;
  for (let i = start; i < end; i++) {
    const v = values[i];
    if (v !== v) continue;
    if (!(v >= lower && v <= upper)) {
      values[i] = NaN;
      flags[i] = appendFlag(flags[i], "RANGE");
    } else if (!(v >= softLower && v <= softUpper)) {
      flags[i] = appendFlag(flags[i], "SUSPECT");
    }
  }
}

/** The range check of a batch, as new records. */
export function rangeCheck(records: RecordBatch, config: RangeCheckConfig): RecordBatch {
  const values = records.values.slice();
  const flags = records.flags.slice();
  rangeCheckInPlace(values, flags, config);
  return { timestamps: records.timestamps, values, flags };
}
