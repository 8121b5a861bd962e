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
 *
 * Its cost grows with the regularized points that have a value and with the intervals of the
 * result: the intervals between are written without visiting the grid. A gap in the source is a
 * run of empty intervals in the result (the reference keeps them), so their number is bounded.
 */
import { ceilTo, floorMod, floorTo } from "./series";
import type { RegularGrid, RegularizedPoints } from "./regularize";

export type AggregationMethod = "sum" | "mean" | "max" | "min";

export const AGGREGATION_METHODS: readonly AggregationMethod[] = ["sum", "mean", "max", "min"];

/** A configuration or source the reference cannot aggregate, or a result too large to write; the run fails with this message. */
export class AggregationError extends Error {
  override readonly name = "AggregationError";
}

/**
 * At most this many intervals without a value in a result: gaps in the source are empty
 * intervals in the target, so that a source with records centuries apart aggregated to a short
 * step would otherwise write millions of empty records (its run fails instead).
 */
export const MAX_EMPTY_INTERVALS = 1_000_000;

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
 * The intervals labelled `fromLabel` … binning.lastLabel over `points`, the regularized points
 * of the grid `gridFirst + k·step` that took a record (those of every interval asked for), the
 * leading empty intervals dropped when `dropLeading`, the trailing ones always. Returns labels,
 * values and flags before the offset.
 */
export function aggregateIntervals(
  binning: Binning,
  method: AggregationMethod,
  points: RegularizedPoints,
  gridFirst: number,
  step: number,
  fromLabel: number,
  dropLeading: boolean,
): { labels: Float64Array; values: Float64Array; flags: string[] } {
  const { target, lastLabel, expected, minCount } = binning;
  // The intervals that hold values, in order: label, count, sum, maximum and minimum of each.
  const capacity = binning.aligned ? points.length : 0;
  const oLabel = new Float64Array(capacity);
  const oCount = new Int32Array(capacity);
  const oSum = new Float64Array(capacity);
  const oMax = new Float64Array(capacity);
  const oMin = new Float64Array(capacity);
  let occupied = 0;
  let valued = 0;
  let firstValued = NaN;
  let lastValued = NaN;
  for (let p = 0; p < capacity; p++) {
    const v = points.values[p];
    if (v !== v) continue;
    const time = gridFirst + points.index[p] * step;
    if (time <= fromLabel - target || time > lastLabel) continue;
    const label = fromLabel + Math.ceil((time - fromLabel) / target) * target;
    if (occupied === 0 || oLabel[occupied - 1] !== label) {
      oLabel[occupied] = label;
      oMax[occupied] = -Infinity;
      oMin[occupied] = Infinity;
      occupied++;
    }
    const o = occupied - 1;
    if (++oCount[o] === minCount) {
      valued++;
      if (valued === 1) firstValued = label;
      lastValued = label;
    }
    oSum[o] += v;
    if (v > oMax[o]) oMax[o] = v;
    if (v < oMin[o]) oMin[o] = v;
  }
  if (valued === 0) return { labels: new Float64Array(0), values: new Float64Array(0), flags: [] };
  const startLabel = dropLeading ? firstValued : fromLabel;
  const count = (lastValued - startLabel) / target + 1;
  const empty = count - valued;
  if (empty > MAX_EMPTY_INTERVALS) {
    throw new AggregationError(`The aggregation would write ${count} intervals, ${empty} of them empty because of gaps in the source; `
      + `at most ${MAX_EMPTY_INTERVALS} empty intervals are written. Check the source for records far from the others, or aggregate to a longer time step.`);
  }
  const labels = new Float64Array(count);
  const values = new Float64Array(count);
  const flags = new Array<string>(count);
  let o = 0;
  while (o < occupied && oLabel[o] < startLabel) o++;
  for (let b = 0; b < count; b++) {
    const label = startLabel + b * target;
    labels[b] = label;
    if (o < occupied && oLabel[o] === label) {
      const c = oCount[o];
      values[b] = c < minCount ? NaN : method === "sum" ? oSum[o] : method === "mean" ? oSum[o] / c : method === "max" ? oMax[o] : oMin[o];
      flags[b] = missingFlag(expected - c);
      o++;
    } else {
      values[b] = NaN;
      flags[b] = missingFlag(expected);
    }
  }
  return { labels, values, flags };
}
