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
 *
 * Its cost grows with the records, not with the span they cover: the walk skips the grid points
 * of a gap in one step (at such points it changes nothing, see regularizeOnGrid), and only the
 * points that take a record are returned. Two records 300 years apart on a one-minute grid are
 * two points, not 157 million.
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

/** The grid points that took a source record, in grid order; every other point is empty, with no flags. */
export interface RegularizedPoints {
  readonly length: number;
  /** Each point's index on the grid (its time: grid.first + index × step). */
  readonly index: Float64Array;
  readonly values: Float64Array;
  /** The source record it took. */
  readonly picked: Int32Array;
  /** 1 where that record is not stamped on the point (its flags get DATEINSERT). */
  readonly inserted: Uint8Array;
}

/** Growing typed arrays of the points (a record is taken by one point at most, but for the walk's wrap). */
class Points {
  length = 0;
  index: Float64Array;
  values: Float64Array;
  picked: Int32Array;
  inserted: Uint8Array;

  constructor(capacity: number) {
    const c = Math.max(capacity, 4);
    this.index = new Float64Array(c);
    this.values = new Float64Array(c);
    this.picked = new Int32Array(c);
    this.inserted = new Uint8Array(c);
  }

  push(g: number, value: number, picked: number, inserted: boolean): void {
    if (this.length === this.index.length) {
      const grow = <T extends Float64Array | Int32Array | Uint8Array>(a: T): T => {
        const b = new (a.constructor as new (n: number) => T)(a.length * 2);
        b.set(a);
        return b;
      };
      this.index = grow(this.index);
      this.values = grow(this.values);
      this.picked = grow(this.picked);
      this.inserted = grow(this.inserted);
    }
    const i = this.length++;
    this.index[i] = g;
    this.values[i] = value;
    this.picked[i] = picked;
    this.inserted[i] = inserted ? 1 : 0;
  }
}

/** The index of the first grid point whose window [t − step/2, t + step/2) ends after `x`. */
function firstWindowEndingAfter(grid: RegularGrid, x: number): number {
  const { first, step } = grid;
  const half = step / 2;
  let g = Math.max(0, Math.floor((x - half - first) / step) + 1);
  // the division's rounding, corrected against the comparison itself
  while (g > 0 && first + (g - 1) * step + half > x) g--;
  while (first + g * step + half <= x) g++;
  return g;
}

/**
 * Regularizes `source` onto `grid`: the points that take a record. `fromStart`: the grid begins
 * at the source's first record rounded (a whole regularization, with the reference's walk
 * reproduced exactly). Otherwise the grid begins anywhere at or after the window of the
 * source's first record, and the source must hold every record within the windows of the
 * grid's points (an incremental run); the walk then never wraps.
 *
 * Gaps: at a point whose window lies after the record at the walk's position (a) and before the
 * next one (b), the reference's step finds neither stamped on it nor in its window and leaves
 * the position where it is; so does every point after it until the window of b. The walk jumps
 * there at once.
 */
export function regularizeOnGrid(source: RecordBatch, grid: RegularGrid, mode: RegularizationMode, fromStart: boolean): RegularizedPoints {
  const { timestamps: ts, values: vs } = source;
  const { first, count, step } = grid;
  const n = ts.length;
  const half = step / 2;
  const interval = mode === "interval";
  const points = new Points(Math.min(n, count));
  const at = (i: number): number => (i < 0 ? i + n : i); // Python's reading of a negative index
  let g = 0;
  if (!fromStart && n > 0) {
    // grid points whose window ends before the first record have none
    g = Math.min(count, firstWindowEndingAfter(grid, ts[0]));
  }
  let position = 0;
  for (; g < count && position < n; g++) {
    const t = first + g * step;
    const start = t - half;
    const end = t + half;
    if (ts[at(position)] < start) {
      if (position + 1 >= n) break; // no record after the position: no later point takes one
      const next = ts[at(position + 1)];
      if (next >= end) {
        g = firstWindowEndingAfter(grid, next) - 1;
        continue;
      }
    }
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
      points.push(g, vs[k], k, false);
      position = i;
      continue;
    }
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
    points.push(g, vs[k], k, true);
    position = i + 1;
  }
  return points;
}

/**
 * A whole regularization, one record per grid point, with the flags: the picked record's, plus
 * DATEINSERT where inserted. (Its result is as long as the grid; processes use the points.)
 */
export function regularize(source: RecordBatch, step: number, mode: RegularizationMode, zoneOffsetSeconds = 0): RecordBatch {
  const n = source.timestamps.length;
  if (n === 0) return { timestamps: new Float64Array(0), values: new Float64Array(0), flags: [] };
  const grid = regularGrid(source.timestamps[0], source.timestamps[n - 1], step, zoneOffsetSeconds);
  const points = regularizeOnGrid(source, grid, mode, true);
  const timestamps = new Float64Array(grid.count);
  const values = new Float64Array(grid.count).fill(NaN);
  const flags = new Array<string>(grid.count).fill("");
  for (let g = 0; g < grid.count; g++) timestamps[g] = grid.first + g * step;
  for (let p = 0; p < points.length; p++) {
    const g = points.index[p];
    const k = points.picked[p];
    values[g] = points.values[p];
    flags[g] = points.inserted[p] ? appendFlag(source.flags[k], DATEINSERT) : source.flags[k];
  }
  return { timestamps, values, flags };
}
