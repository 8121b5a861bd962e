/**
 * Aggregation of a regularized series, the algorithm of pthelma's `haggregate.aggregate` on
 * pandas (≥ 2.2), in local (display) time:
 *
 * - fewer than three regularized records: no result (pandas cannot infer the step);
 * - the series is reindexed at its step from floor(first − 1 s, target) to ceil(last, target):
 *   only values whose timestamps fall on that grid stay (when the target step is not a
 *   multiple of the source step, possibly none);
 * - `resample(target, closed="right", label="right")`: intervals (L − target, L] labelled L,
 *   anchored at midnight of the reindexed series' first day ("start_day");
 * - an interval with fewer than max(n − max_missing, 1) values is empty, n = ⌊target/step⌋;
 *   an interval with k = n − count ≠ 0 gets MISSING<k>, empty ones included;
 * - sum and mean add the values in time order (the reference's values are Python objects, so
 *   no pairwise summation), mean divides by the count;
 * - leading and trailing empty intervals are dropped, then timestamps move back by the offset.
 */
import { ceilTo, floorMod, floorTo } from "./series";
import type { RegularGrid } from "./regularize";

export type AggregationMethod = "sum" | "mean" | "max" | "min";

export const AGGREGATION_METHODS: readonly AggregationMethod[] = ["sum", "mean", "max", "min"];

const DAY = 86_400;

/** The intervals of an aggregation, from the whole source's regularized grid. */
export interface Binning {
  /** The target step, seconds. */
  readonly target: number;
  /** UTC labels of the first and last intervals. */
  readonly firstLabel: number;
  readonly lastLabel: number;
  /** Whether the reindexing keeps the regularized values (else every interval is empty). */
  readonly aligned: boolean;
  /** n = ⌊target / step⌋: the values an interval should have. */
  readonly expected: number;
  /** max(n − max_missing, 1). */
  readonly minCount: number;
}

/** null when the regularized series has fewer than three records. */
export function binningOf(grid: RegularGrid, target: number, maxMissing: number, zoneOffsetSeconds: number): Binning | null {
  if (grid.count < 3) return null;
  const { step } = grid;
  const first = grid.first + zoneOffsetSeconds;
  const last = first + (grid.count - 1) * step;
  const firstNormalized = floorTo(first - 1, target);
  const endNormalized = ceilTo(last, target);
  const lastNormalized = firstNormalized + Math.floor((endNormalized - firstNormalized) / step) * step;
  const origin = floorTo(firstNormalized, DAY);
  const firstOffset = floorMod(firstNormalized - origin, target);
  const firstEdge = firstOffset > 0 ? firstNormalized - firstOffset : firstNormalized - target;
  const lastOffset = floorMod(lastNormalized - origin, target);
  const lastEdge = lastOffset > 0 ? lastNormalized + (target - lastOffset) : lastNormalized;
  const expected = Math.trunc(target / step);
  return {
    target,
    firstLabel: firstEdge + target - zoneOffsetSeconds,
    lastLabel: lastEdge - zoneOffsetSeconds,
    aligned: floorMod(firstNormalized - first, step) === 0,
    expected,
    minCount: Math.max(expected - maxMissing, 1),
  };
}

/** The smallest interval label ≥ t (UTC). */
export function labelAtOrAfter(binning: Binning, t: number): number {
  return binning.firstLabel + Math.ceil((t - binning.firstLabel) / binning.target) * binning.target;
}

const missingFlags: string[] = [];

function missingFlag(k: number): string {
  if (k === 0) return "";
  if (k < 0 || k > 4096) return `MISSING${k}`;
  return (missingFlags[k] ??= `MISSING${k}`);
}

/**
 * The intervals labelled `fromLabel` … binning.lastLabel over `values`, the regularized values
 * on the grid points `gridFirst + k·step` (k ≥ 0), which must cover every interval asked for.
 * Returns labels, values and flags before leading/trailing removal and the offset.
 */
export function aggregateIntervals(
  binning: Binning,
  method: AggregationMethod,
  values: Float64Array,
  gridFirst: number,
  step: number,
  fromLabel: number,
): { labels: Float64Array; values: Float64Array; flags: string[] } {
  const { target, lastLabel, expected, minCount } = binning;
  const count = fromLabel > lastLabel ? 0 : (lastLabel - fromLabel) / target + 1;
  const labels = new Float64Array(count);
  const out = new Float64Array(count);
  const flags = new Array<string>(count);
  const n = values.length;
  // grid index of the first point after (fromLabel − target)
  let k = Math.max(0, Math.floor((fromLabel - target - gridFirst) / step) + 1);
  for (let b = 0; b < count; b++) {
    const label = fromLabel + b * target;
    labels[b] = label;
    let valueCount = 0;
    let sum = 0;
    let max = -Infinity;
    let min = Infinity;
    if (binning.aligned) {
      for (; k < n && gridFirst + k * step <= label; k++) {
        const v = values[k];
        if (v !== v) continue;
        valueCount++;
        sum += v;
        if (v > max) max = v;
        if (v < min) min = v;
      }
    }
    let value = NaN;
    if (valueCount >= minCount) {
      value = method === "sum" ? sum : method === "mean" ? sum / valueCount : method === "max" ? max : min;
    }
    out[b] = value;
    flags[b] = missingFlag(expected - valueCount);
  }
  return { labels, values: out, flags };
}
