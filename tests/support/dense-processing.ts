/**
 * The numerics of processing as they were before their cost was bounded by the records
 * (issue 36, item 2): walking every grid point, every interval and every record of each
 * threshold's window. Kept as the oracle the bounded versions must agree with, on sources small
 * enough for them.
 */
import { binningOf, type AggregationMethod, type Binning } from "@/lib/processing/numerics/aggregate";
import type { AggregationConfig } from "@/lib/processing/numerics/aggregation";
import { regularGrid, type RegularGrid, type RegularizationMode } from "@/lib/processing/numerics/regularize";
import type { RateOfChangeFailure, SortedThresholds } from "@/lib/processing/numerics/rate-of-change";
import { IMPLIED_REACH } from "@/lib/processing/numerics/rate-of-change";
import type { RecordBatch } from "@/lib/processing/numerics/series";
import { stepSeconds, timestampOffsetSeconds } from "@/lib/processing/numerics/steps";

const missingFlag = (k: number) => (k === 0 ? "" : `MISSING${k}`);

function exceeds(diff: number, allowed: number, symmetric: boolean): boolean {
  return symmetric ? Math.abs(diff) > Math.abs(allowed) : (allowed > 0 && diff > allowed) || (allowed < 0 && diff < allowed);
}

/** The dense regularization: for each grid point, its value, the record it took (−1: none) and whether inserted. */
export function denseRegularizeOnGrid(source: RecordBatch, grid: RegularGrid, mode: RegularizationMode, fromStart: boolean): { values: Float64Array; picked: Int32Array; inserted: Uint8Array } {
  const { timestamps: ts, values: vs } = source;
  const { first, count, step } = grid;
  const n = ts.length;
  const half = step / 2;
  const interval = mode === "interval";
  const values = new Float64Array(count).fill(NaN);
  const picked = new Int32Array(count).fill(-1);
  const inserted = new Uint8Array(count);
  const at = (i: number): number => (i < 0 ? i + n : i); // Python's reading of a negative index
  let g = 0;
  if (!fromStart) {
    // grid points whose window ends before the first record have none
    while (g < count && first + g * step + half <= ts[0]) g++;
  }
  let position = 0;
  for (; g < count && position < n; g++) {
    const t = first + g * step;
    let i = position;
    let found = false;
    for (; i < n; i++) {
      const k = at(i);
      if (ts[k] === t && (interval || vs[k] === vs[k])) {
        found = true;
        break;
      }
      if (ts[k] > t) break;
    }
    if (found) {
      const k = at(i);
      values[g] = vs[k];
      picked[g] = k;
      position = i;
      continue;
    }
    const start = t - half;
    const end = t + half;
    let candidates = 0;
    let nearest = -1;
    let broke = false;
    for (i = position; i < n; i++) {
      const k = at(i);
      const ti = ts[k];
      if (ti >= start && ti < end && (interval || vs[k] === vs[k])) {
        candidates++;
        // the reference keeps the earlier of equally near records, but treats a previous
        // candidate at a negative index as no candidate
        if (interval || nearest < 0 || Math.abs(t - ti) < Math.abs(t - ts[at(nearest)])) nearest = i;
      }
      if (ti >= end) {
        i -= 1;
        broke = true;
        break;
      }
    }
    if (!broke) i = n - 1;
    if (candidates < 1 || (candidates > 1 && interval)) {
      position = i;
      continue;
    }
    const k = at(nearest);
    values[g] = vs[k];
    picked[g] = k;
    inserted[g] = 1;
    position = i + 1;
  }
  return { values, picked, inserted };
}


/** The dense intervals, before the leading and trailing empty ones are dropped. */
export function denseAggregateIntervals(
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

/** A whole aggregation, the dense way (the layout as lib/processing/numerics/aggregation.ts makes it). */
export function denseAggregateSeries(config: AggregationConfig, records: RecordBatch, timeStep: string, zone: number): RecordBatch {
  const n = records.timestamps.length;
  const empty = { timestamps: new Float64Array(0), values: new Float64Array(0), flags: [] };
  if (n === 0) return empty;
  const step = stepSeconds(timeStep).seconds!;
  const grid: RegularGrid = regularGrid(records.timestamps[0], records.timestamps[n - 1], step, zone);
  const binning = binningOf(grid, stepSeconds(config.target_time_step).seconds!, config.max_missing, zone);
  if (binning === null) return empty;
  const mode: RegularizationMode = config.method === "mean" ? "instantaneous" : "interval";
  const { values } = denseRegularizeOnGrid(records, grid, mode, true);
  const bins = denseAggregateIntervals(binning, config.method, values, grid.first, step, binning.firstLabel);
  let start = 0;
  while (start < bins.values.length && bins.values[start] !== bins.values[start]) start++;
  let end = bins.values.length;
  while (end > start && bins.values[end - 1] !== bins.values[end - 1]) end--;
  const offset = timestampOffsetSeconds(config.resulting_timestamp_offset).seconds!;
  const timestamps = bins.labels.slice(start, end).map((t) => t - offset);
  return { timestamps, values: bins.values.slice(start, end), flags: bins.flags.slice(start, end) };
}

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


/** The check record by record over each threshold's window, the implied thresholds summed one delta_t at a time. */
export function denseRateOfChangeFailures(
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

