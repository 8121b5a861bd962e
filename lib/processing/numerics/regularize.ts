/**
 * Regularization to a time step, the algorithm of pthelma's `haggregate.regularize`:
 *
 * The grid runs from the first source timestamp rounded to the step to the last one rounded,
 * in local (display) time, halves to even. A grid point takes the source record stamped
 * exactly on it (in instantaneous mode only if its value is not empty); otherwise the records
 * within [t − step/2, t + step/2): instantaneous mode takes the nearest non-empty one (the
 * earlier on a tie), interval mode the only record there if there is exactly one (its value
 * may be empty); either way its flags get DATEINSERT. Otherwise the point is empty with no
 * flags.
 *
 * The reference walks the source with a position carried from one grid point to the next.
 * When the first record lies exactly half a step after the first grid point (rounded down to
 * the even multiple), that position becomes −1, which Python reads as the last record: the
 * walk then goes through the series from its end for a while. This is reproduced here, index
 * for index, because the results of the reference are the contract.
 */
import { appendFlag, roundHalfEvenTo, type RecordBatch } from "./series";

export type RegularizationMode = "instantaneous" | "interval";

export const DATEINSERT = "DATEINSERT";

/** The grid of a regularization, UTC seconds. */
export interface RegularGrid {
  readonly first: number;
  readonly count: number;
  readonly step: number;
}

/** The grid for a source whose first and last timestamps are given. */
export function regularGrid(first: number, last: number, step: number, zoneOffsetSeconds: number): RegularGrid {
  const gridFirst = roundHalfEvenTo(first + zoneOffsetSeconds, step) - zoneOffsetSeconds;
  const gridLast = roundHalfEvenTo(last + zoneOffsetSeconds, step) - zoneOffsetSeconds;
  return { first: gridFirst, count: (gridLast - gridFirst) / step + 1, step };
}

/**
 * Whether the reference's walk wraps to the end of the series (see above): then every
 * regularized value may depend on the whole source.
 */
export function regularizationWraps(first: number, step: number, zoneOffsetSeconds: number): boolean {
  const local = first + zoneOffsetSeconds;
  return local - roundHalfEvenTo(local, step) === step / 2;
}

/** For each grid point, the source record it took (−1: none) and whether it was inserted. */
export interface Regularized {
  readonly values: Float64Array;
  readonly picked: Int32Array;
  readonly inserted: Uint8Array;
}

/**
 * Regularizes `source` onto `grid`. `fromStart`: the grid begins at the source's first
 * record rounded (a whole regularization, with the reference's walk reproduced exactly).
 * Otherwise the grid begins anywhere at or after the window of the source's first record, and
 * the source must hold every record within the windows of the grid's points (an incremental
 * run); the walk then never wraps.
 */
export function regularizeOnGrid(source: RecordBatch, grid: RegularGrid, mode: RegularizationMode, fromStart: boolean): Regularized {
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

/** A whole regularization, with the flags: the picked record's, plus DATEINSERT where inserted. */
export function regularize(source: RecordBatch, step: number, mode: RegularizationMode, zoneOffsetSeconds = 0): RecordBatch {
  const n = source.timestamps.length;
  if (n === 0) return { timestamps: new Float64Array(0), values: new Float64Array(0), flags: [] };
  const grid = regularGrid(source.timestamps[0], source.timestamps[n - 1], step, zoneOffsetSeconds);
  const { values, picked, inserted } = regularizeOnGrid(source, grid, mode, true);
  const timestamps = new Float64Array(grid.count);
  const flags = new Array<string>(grid.count);
  for (let g = 0; g < grid.count; g++) {
    timestamps[g] = grid.first + g * step;
    const k = picked[g];
    flags[g] = k < 0 ? "" : inserted[g] ? appendFlag(source.flags[k], DATEINSERT) : source.flags[k];
  }
  return { timestamps, values, flags };
}
