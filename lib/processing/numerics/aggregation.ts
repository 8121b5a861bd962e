/**
 * The aggregation process: regularize the source to its time step (instantaneous mode for
 * mean, interval mode otherwise), then aggregate (see aggregate.ts), as Enhydris does.
 *
 * Incremental runs. A change from T on changes the regularized points whose window
 * [t − step/2, t + step/2) reaches T. It may also change the point whose window holds the last
 * record before T (P): the grid ends at the last record rounded, so when the change adds or
 * removes the last records, a P half a step after a point that rounds down (to even) gains or
 * loses the point after it, whose window begins at P. So the intervals from the one holding
 * the first point whose window reaches min(T, P) (label A) on may change. Intervals before A
 * keep their values and flags, but those after the last valued one before A were trailing
 * empties if nothing valued followed, and dropped; whether they stay depends on what follows.
 * So a run recomputes from the interval after the last target record with a value before A
 * (found in the stored target by the caller), reading the source from the window of that
 * interval's first grid point. What depends on the whole
 * source is passed in: its first timestamp (the grid and the intervals are anchored on it)
 * and its last (the grid's end and the three-records rule). A run starts from scratch when:
 * there is no such valued record (the leading empties are then the result's start); the
 * change reaches the first record (the anchors move); the regularized series has fewer than
 * three records; or the first record sits where the reference's regularization wraps around
 * (every value then depends on the whole series, see regularize.ts).
 */
import { aggregateIntervals, AggregationError, binningOf, labelAtOrAfter, AGGREGATION_METHODS, type AggregationMethod, type Binning } from "./aggregate";
import { FROM_SCRATCH, IncrementalContextError, type IncrementalPlan } from "./incremental";
import { regularGrid, regularizationWraps, regularizeOnGrid, type RegularGrid } from "./regularize";
import { EMPTY, floorMod, type RecordBatch } from "./series";
import { stepSeconds, timestampOffsetSeconds } from "./steps";

export interface AggregationConfig {
  target_time_step: string;
  method: AggregationMethod;
  max_missing: number;
  resulting_timestamp_offset: string;
}

/** What an aggregation needs to know about its whole source series. */
export interface AggregationSource {
  /** The source series' `time_step`. */
  readonly timeStep: string;
  /** The station's display time zone, as an offset from UTC. */
  readonly zoneOffsetSeconds: number;
  /** The first and last timestamps of the whole current source (null: no records). */
  readonly first: number | null;
  readonly last: number | null;
}

export { AggregationError };

interface Parsed {
  step: number;
  target: number;
  offset: number;
  zone: number;
  method: AggregationMethod;
  maxMissing: number;
}

function parse(config: AggregationConfig, source: AggregationSource): Parsed {
  if (source.timeStep === "") {
    throw new AggregationError("The source time series has no time step, so it cannot be regularized and aggregated.");
  }
  const step = stepSeconds(source.timeStep);
  if (step.seconds === null) throw new AggregationError(`Source time step: ${step.reason}`);
  const target = stepSeconds(config.target_time_step);
  if (target.seconds === null) throw new AggregationError(`Target time step: ${target.reason}`);
  const offset = timestampOffsetSeconds(config.resulting_timestamp_offset);
  if (offset.seconds === null) throw new AggregationError(offset.reason);
  if (!AGGREGATION_METHODS.includes(config.method)) throw new AggregationError(`"${config.method}" is not an aggregation method.`);
  if (!Number.isInteger(config.max_missing) || config.max_missing < 0) throw new AggregationError("max_missing must be a non-negative integer.");
  return {
    step: step.seconds,
    target: target.seconds,
    offset: offset.seconds,
    zone: source.zoneOffsetSeconds,
    method: config.method,
    maxMissing: config.max_missing,
  };
}

const WEEK = 7 * 86_400;

/** The grid and intervals of the whole source, or null when the result is empty. */
function layout(p: Parsed, first: number, last: number): { grid: RegularGrid; binning: Binning } | null {
  const grid = regularGrid(first, last, p.step, p.zone);
  const binning = binningOf(grid, p.target, p.maxMissing, p.zone);
  if (binning === null) return null;
  if (p.step % WEEK === 0) {
    // pandas infers a weekly source step as an anchored "W-<day>" offset, which the reference
    // cannot divide the target step by: its run fails.
    throw new AggregationError("A source time step of whole weeks cannot be aggregated.");
  }
  return { grid, binning };
}

function fromScratch(p: Parsed, dirtyFrom: number, source: AggregationSource): boolean {
  const { first, last } = source;
  if (dirtyFrom === -Infinity || first === null || last === null || dirtyFrom <= first) return true;
  if (regularizationWraps(first, p.step, p.zone)) return true;
  return layout(p, first, last) === null;
}

/**
 * First step of planning: null when the run is from scratch; otherwise the timestamp before
 * which the caller must find the last stored target record that has a value (for planAggregation).
 * `lastBefore`: the timestamp of the source's last record before dirtyFrom (null if none).
 */
export function aggregationLookback(config: AggregationConfig, dirtyFrom: number, source: AggregationSource, lastBefore: number | null): number | null {
  const p = parse(config, source);
  if (fromScratch(p, dirtyFrom, source)) return null;
  const { grid, binning } = layout(p, source.first!, source.last!)!;
  const reach = lastBefore === null ? dirtyFrom : Math.min(dirtyFrom, lastBefore);
  // the first grid point whose window [t − step/2, t + step/2) ends after `reach`
  const firstAffected = grid.first + Math.max(0, Math.floor((reach - p.step / 2 - grid.first) / p.step) + 1) * p.step;
  return labelAtOrAfter(binning, firstAffected) - p.offset;
}

/**
 * `lastValuedTarget`: the timestamp of the last stored target record with a value before
 * aggregationLookback's timestamp (null if none, or if that returned null).
 */
export function planAggregation(
  config: AggregationConfig,
  dirtyFrom: number,
  source: AggregationSource,
  lastValuedTarget: number | null,
): IncrementalPlan {
  const p = parse(config, source);
  if (lastValuedTarget === null || fromScratch(p, dirtyFrom, source)) return FROM_SCRATCH;
  const { grid, binning } = layout(p, source.first!, source.last!)!;
  const label = lastValuedTarget + p.offset;
  if (floorMod(label - binning.firstLabel, binning.target) !== 0 || label < binning.firstLabel) {
    throw new IncrementalContextError(`The target record at ${lastValuedTarget} is not on the aggregation's intervals.`);
  }
  const k = Math.max(0, Math.floor((label - grid.first) / p.step) + 1);
  return { sourceFrom: grid.first + k * p.step - p.step / 2, targetFrom: lastValuedTarget + binning.target };
}

/**
 * The target records from plan.targetFrom on. `source`: the source records from
 * plan.sourceFrom on (to its end). From scratch (plan.targetFrom = −Infinity) the whole source,
 * and `source.first`/`last` may be null.
 */
export function runAggregation(config: AggregationConfig, records: RecordBatch, source: AggregationSource, plan: IncrementalPlan): RecordBatch {
  const p = parse(config, source);
  const n = records.timestamps.length;
  if (n === 0) return EMPTY;
  const whole = plan.targetFrom === -Infinity;
  const first = whole ? records.timestamps[0] : source.first!;
  const l = layout(p, first, records.timestamps[n - 1]);
  if (l === null) return EMPTY;
  const { grid, binning } = l;
  const fromLabel = whole ? binning.firstLabel : plan.targetFrom + p.offset;
  // the grid points from the first one of the interval labelled fromLabel
  const k0 = Math.max(0, Math.floor((fromLabel - binning.target - grid.first) / p.step) + 1);
  const partial: RegularGrid = { first: grid.first + k0 * p.step, count: Math.max(0, grid.count - k0), step: p.step };
  const mode = p.method === "mean" ? "instantaneous" : "interval";
  const points = regularizeOnGrid(records, partial, mode, whole);
  const bins = aggregateIntervals(binning, p.method, points, partial.first, p.step, fromLabel, whole);
  for (let i = 0; i < bins.labels.length; i++) bins.labels[i] -= p.offset;
  return { timestamps: bins.labels, values: bins.values, flags: bins.flags };
}

/** One aggregation of a whole source series. */
export function aggregateSeries(config: AggregationConfig, records: RecordBatch, timeStep: string, zoneOffsetSeconds: number): RecordBatch {
  return runAggregation(config, records, { timeStep, zoneOffsetSeconds, first: null, last: null }, FROM_SCRATCH);
}
