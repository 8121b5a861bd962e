/**
 * The checks process (processing.md §3): range check, then rate-of-change check, then (with
 * `remove_failing_values`) empty values for every record whose flags contain TEMPORAL.
 *
 * Incremental runs: the range check is pointwise, the rate-of-change check is not. A record's
 * outcome depends on which earlier records failed, back to 100 × the largest `delta_t` (the
 * implied thresholds' last valid record; explicit ones reach only `delta_t` back). A run from
 * T therefore reads the source and the stored target over [T − 100 × largest delta_t, T) and
 * rebuilds which of those records failed from the target's flags: a record failed exactly when
 * its target flags are its range-checked source flags with TEMPORAL appended, and passed when
 * they are the range-checked flags unchanged. This holds whatever flags the source records
 * carried (TEMPORAL, RANGE and SUSPECT included), because both candidates are computed from
 * them. Any other target flags mean the target is not a previous run's and the run throws
 * IncrementalContextError.
 */
import { IncrementalContextError, FROM_SCRATCH, type IncrementalPlan } from "./incremental";
import { rangeCheckInPlace, type RangeCheckConfig } from "./range-check";
import {
  TEMPORAL,
  applyRateOfChangeOutcome,
  rateOfChangeFailures,
  rateOfChangeReach,
  sortThresholds,
  type RateOfChangeConfig,
} from "./rate-of-change";
import { EMPTY, appendFlag, lowerBound, sliceRecords, type RecordBatch } from "./series";

export interface ChecksConfig {
  range_check: RangeCheckConfig | null;
  rate_of_change_check: RateOfChangeConfig | null;
}

/** `dirtyFrom`: the earliest source timestamp changed since the last successful run (−Infinity: from scratch). */
export function planChecks(config: ChecksConfig, dirtyFrom: number): IncrementalPlan {
  if (dirtyFrom === -Infinity) return FROM_SCRATCH;
  const reach = config.rate_of_change_check ? rateOfChangeReach(config.rate_of_change_check) : 0;
  return { sourceFrom: dirtyFrom - reach, targetFrom: dirtyFrom };
}

/**
 * The target records from `targetFrom` on. `source`: the source records from the plan's
 * `sourceFrom` on; `previousTarget`: the stored target records over [sourceFrom, targetFrom)
 * (more are ignored).
 */
export function runChecks(config: ChecksConfig, source: RecordBatch, previousTarget: RecordBatch, targetFrom: number): RecordBatch {
  const n = source.timestamps.length;
  const start = lowerBound(source.timestamps, targetFrom);
  if (start === n) return EMPTY;
  const roc = config.rate_of_change_check;
  const first = roc ? 0 : start;
  const values = source.values.slice();
  const flags = source.flags.slice();
  if (config.range_check) rangeCheckInPlace(values, flags, config.range_check, first, n);
  if (roc) {
    const failed = new Uint8Array(n);
    failuresFromTarget(source.timestamps, flags, previousTarget, start, failed);
    rateOfChangeFailures(source.timestamps, values, sortThresholds(roc.thresholds), roc.symmetric, failed, start);
    applyRateOfChangeOutcome(roc, failed, values, flags, start);
  }
  return sliceRecords({ timestamps: source.timestamps, values, flags }, start, n);
}

/** Sets failed[i] for the source records before `end` from the target's flags. */
function failuresFromTarget(timestamps: Float64Array, checkedFlags: string[], target: RecordBatch, end: number, failed: Uint8Array): void {
  let j = end > 0 ? lowerBound(target.timestamps, timestamps[0]) : 0;
  for (let i = 0; i < end; i++) {
    const t = timestamps[i];
    while (j < target.timestamps.length && target.timestamps[j] < t) j++;
    if (j === target.timestamps.length || target.timestamps[j] !== t) {
      throw new IncrementalContextError(`The target has no record at ${t}, where the source has one.`);
    }
    const stored = target.flags[j];
    if (stored === checkedFlags[i]) continue;
    if (stored !== appendFlag(checkedFlags[i], TEMPORAL)) {
      throw new IncrementalContextError(`The target's flags at ${t} are not what the checks would have written.`);
    }
    failed[i] = 1;
  }
}
