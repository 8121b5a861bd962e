/**
 * What a synoptic view says about a station and its values (synoptic.md §1, as the reference's
 * synoptic app computes it): the last common date, freshness, each value's status, and the
 * rate-of-change check at the last common date. Pure functions, shared by latest/, the pages and
 * the alarm evaluation.
 */
import { formatValue } from "@/lib/formats/value";
import {
  rateOfChangeFailures, sortThresholds, type RateOfChangeFailure,
} from "@/lib/processing";
import type { SynopticRateOfChange } from "@/lib/synoptic/config";

export type ValueStatus = "ok" | "low" | "high" | "error";
export type Freshness = "recent" | "old";

/**
 * The earliest of the last timestamps of the station's series (those with records): the
 * reference's approximation of the last date at which every series has a value.
 */
export function lastCommonDate(lastTimestamps: Iterable<number | null>): number | null {
  let result: number | null = null;
  for (const t of lastTimestamps) if (t !== null && (result === null || t < result)) result = t;
  return result;
}

/** `old` when the last common date is more than `limitSeconds` before `now` (or there is none). */
export function freshness(lastCommon: number | null, nowSeconds: number, limitSeconds: number): Freshness {
  return lastCommon === null || nowSeconds - lastCommon > limitSeconds ? "old" : "recent";
}

/** Compares the stored value (not its rounding) with the limits, the low one first, as the reference does. */
export function valueStatus(value: number | null | undefined, low: number | null, high: number | null): ValueStatus {
  if (value === null || value === undefined || !Number.isFinite(value)) return "error";
  if (low !== null && value < low) return "low";
  if (high !== null && value > high) return "high";
  return "ok";
}

/** The value with the group's precision (formats.md §1), as a JSON number. */
export function roundedValue(value: number | null | undefined, precision: number): number | null {
  if (value === null || value === undefined || !Number.isFinite(value)) return null;
  return Number(formatValue(value, precision));
}

/**
 * Whether the record at `at`, the last of those given, fails the rate-of-change check over
 * them, and why; null when it passes or is not there.
 */
export function rateOfChangeFailureAt(timestamps: Float64Array, values: Float64Array, config: SynopticRateOfChange, at: number): RateOfChangeFailure | null {
  const n = timestamps.length;
  if (n === 0 || timestamps[n - 1] !== at) return null;
  let failure: RateOfChangeFailure | null = null;
  rateOfChangeFailures(timestamps, values, sortThresholds(config.thresholds), config.symmetric, new Uint8Array(n), 0, (f) => {
    if (f.index === n - 1) failure = f;
  });
  return failure;
}
