/**
 * Rate-of-change check (processing.md §3), the algorithm of pthelma's `rocc`:
 *
 * - explicit thresholds: a record fails when its difference from any earlier record that has
 *   not failed, at most `delta_t` before it, exceeds that threshold's `allowed_diff`;
 * - implied thresholds: a record also fails when its difference from the last valid record
 *   (not failed, not empty) exceeds the thresholds summed greedily over the time between them,
 *   largest `delta_t` first, the smallest one covering any remainder; records more than
 *   100 × the largest `delta_t` after the last valid one skip this comparison.
 *
 * Symmetric: absolute differences against absolute thresholds. Otherwise a positive threshold
 * bounds rises and a negative one falls; a zero one bounds nothing. Empty values never fail.
 */
import { appendFlag, type RecordBatch } from "./series";
import { stepSeconds } from "./steps";

export interface RateOfChangeThreshold {
  delta_t: string;
  allowed_diff: number;
}

export interface RateOfChangeConfig {
  symmetric: boolean;
  remove_failing_values: boolean;
  thresholds: readonly RateOfChangeThreshold[];
}

/** Implied thresholds reach back this many times the largest `delta_t`. */
export const IMPLIED_REACH = 100;

export const TEMPORAL = "TEMPORAL";

/** Thresholds in the order rocc sorts them: by `delta_t`, then by `allowed_diff`. */
export interface SortedThresholds {
  readonly deltas: Float64Array;
  readonly diffs: Float64Array;
}

export function sortThresholds(thresholds: readonly RateOfChangeThreshold[]): SortedThresholds {
  if (thresholds.length === 0) throw new Error("A rate-of-change check needs at least one threshold.");
  const parsed = thresholds.map((t) => {
    const step = stepSeconds(t.delta_t);
    if (step.seconds === null) throw new Error(step.reason);
    return { delta: step.seconds, diff: t.allowed_diff };
  });
  parsed.sort((a, b) => a.delta - b.delta || a.diff - b.diff);
  return { deltas: Float64Array.from(parsed, (t) => t.delta), diffs: Float64Array.from(parsed, (t) => t.diff) };
}

/** How far back (seconds) a record's result depends on earlier records. */
export function rateOfChangeReach(config: RateOfChangeConfig): number {
  const { deltas } = sortThresholds(config.thresholds);
  return IMPLIED_REACH * deltas[deltas.length - 1];
}

function exceeds(diff: number, allowed: number, symmetric: boolean): boolean {
  return symmetric ? Math.abs(diff) > Math.abs(allowed) : (allowed > 0 && diff > allowed) || (allowed < 0 && diff < allowed);
}

/** rocc's implied threshold for a difference of the given sign over `delta` seconds. */
function impliedAllowedDiff(t: SortedThresholds, symmetric: boolean, delta: number, negative: boolean): number {
  const { deltas, diffs } = t;
  const k = deltas.length;
  let remainder = delta;
  let result = 0;
  for (;;) {
    let pick = -1;
    for (let j = k - 1; j >= 0; j--) {
      if (!symmetric && (negative ? diffs[j] > 0 : diffs[j] < 0)) continue;
      if (deltas[j] <= remainder) {
        pick = j;
        break;
      }
    }
    if (pick < 0) break;
    remainder -= deltas[pick];
    result += symmetric ? Math.abs(diffs[pick]) : diffs[pick];
  }
  if (remainder > 0) {
    if (symmetric) {
      result += Math.abs(diffs[0]);
    } else {
      for (let j = 0; j < k; j++) {
        if (negative ? diffs[j] < 0 : diffs[j] > 0) {
          result += diffs[j];
          break;
        }
      }
    }
  }
  return result;
}

/**
 * Why a record failed, as rocc words it: its difference from an earlier record, the allowed
 * difference it exceeds, and over how long (seconds): a threshold's `delta_t`, or for an implied
 * threshold the time since the last valid record.
 */
export interface RateOfChangeFailure {
  readonly index: number;
  readonly diff: number;
  readonly allowed: number;
  readonly seconds: number;
  readonly implied: boolean;
}

/**
 * Marks in `failed` the records from index `from` on that fail the check. `failed[0..from)` must
 * hold the outcome for the earlier records (the state a run from `from` continues); the records
 * from `from` on must be 0. `onFailure`, when given, hears why each one failed.
 */
export function rateOfChangeFailures(
  timestamps: Float64Array,
  values: Float64Array,
  thresholds: SortedThresholds,
  symmetric: boolean,
  failed: Uint8Array,
  from = 0,
  onFailure?: (failure: RateOfChangeFailure) => void,
): void {
  const { deltas, diffs } = thresholds;
  const k = deltas.length;
  const impliedReach = IMPLIED_REACH * deltas[k - 1];
  let lastValid = -1;
  for (let j = from - 1; j >= 0; j--) {
    if (!failed[j] && values[j] === values[j]) {
      lastValid = j;
      break;
    }
  }
  const n = timestamps.length;
  for (let i = from; i < n; i++) {
    const value = values[i];
    if (value !== value) continue; // every comparison with an empty value is false
    const time = timestamps[i];
    let fails = false;
    for (let m = 0; m < k && !fails; m++) {
      const delta = deltas[m];
      const allowed = symmetric ? Math.abs(diffs[m]) : diffs[m];
      for (let j = i - 1; j >= 0; j--) {
        if (time - timestamps[j] > delta) break;
        if (failed[j]) continue;
        if (exceeds(value - values[j], allowed, symmetric)) {
          fails = true;
          onFailure?.({ index: i, diff: value - values[j], allowed, seconds: delta, implied: false });
          break;
        }
      }
    }
    if (!fails && lastValid >= 0) {
      const delta = time - timestamps[lastValid];
      if (delta <= impliedReach) {
        const diff = value - values[lastValid];
        const allowed = impliedAllowedDiff(thresholds, symmetric, delta, diff < 0);
        fails = exceeds(diff, allowed, symmetric);
        if (fails) onFailure?.({ index: i, diff, allowed, seconds: delta, implied: true });
      }
    }
    if (fails) failed[i] = 1;
    else lastValid = i;
  }
}

/**
 * The flags and values after the check for records [from, n): TEMPORAL appended to the failed
 * ones; with `remove_failing_values`, every value whose flags contain TEMPORAL (including
 * flags the record already had) becomes empty, as Enhydris does.
 */
export function applyRateOfChangeOutcome(
  config: RateOfChangeConfig,
  failed: Uint8Array,
  values: Float64Array,
  flags: string[],
  from = 0,
): void {
  for (let i = from; i < flags.length; i++) {
    if (failed[i]) flags[i] = appendFlag(flags[i], TEMPORAL);
    if (config.remove_failing_values && flags[i].includes(TEMPORAL)) values[i] = NaN;
  }
}

/** The check over a whole batch, as new records. */
export function rateOfChangeCheck(records: RecordBatch, config: RateOfChangeConfig): RecordBatch {
  const values = records.values.slice();
  const flags = records.flags.slice();
  const failed = new Uint8Array(values.length);
  rateOfChangeFailures(records.timestamps, values, sortThresholds(config.thresholds), config.symmetric, failed);
  applyRateOfChangeOutcome(config, failed, values, flags);
  return { timestamps: records.timestamps, values, flags };
}
