/**
 * The curve interpolation process: pointwise, so a run from T reads the source from T and
 * replaces the target from T; no context.
 */
import { FROM_SCRATCH, type IncrementalPlan } from "./incremental";
import { curveInterpolation, type CurvePeriod } from "./interpolate";
import { recordsFrom, type RecordBatch } from "./series";

export interface CurveInterpolationConfig {
  periods: readonly CurvePeriod[];
}

export function planCurveInterpolation(dirtyFrom: number): IncrementalPlan {
  return dirtyFrom === -Infinity ? FROM_SCRATCH : { sourceFrom: dirtyFrom, targetFrom: dirtyFrom };
}

/** The target records from `targetFrom` on, from the source records from the plan's `sourceFrom` on. */
export function runCurveInterpolation(config: CurveInterpolationConfig, source: RecordBatch, targetFrom: number): RecordBatch {
  return curveInterpolation(config.periods, recordsFrom(source, targetFrom));
}
