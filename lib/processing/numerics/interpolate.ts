/**
 * Curve interpolation (processing.md §3): numpy's `interp(x, xp, fp, left=NaN, right=NaN)` on
 * each period's curve, for the records from the period's start date 00:00 to its end date
 * 23:59 UTC, both inclusive. Other records, and empty values, become empty; flags are empty.
 */
import { lowerBound, type RecordBatch } from "./series";

export interface CurvePeriod {
  start_date: string;
  end_date: string;
  points: readonly (readonly [number, number])[];
}

const DAY = 86_400;
const LAST_MINUTE = DAY - 60;

/** A curve's points sorted by x. */
export interface Curve {
  readonly x: Float64Array;
  readonly y: Float64Array;
}

export function curveOf(points: readonly (readonly [number, number])[]): Curve {
  const sorted = [...points].sort((a, b) => a[0] - b[0]);
  return { x: Float64Array.from(sorted, (p) => p[0]), y: Float64Array.from(sorted, (p) => p[1]) };
}

/** The index j with x[j] ≤ value < x[j + 1]; −1 below the curve, x.length above it. */
function segmentOf(x: Float64Array, value: number): number {
  const n = x.length;
  if (value > x[n - 1]) return n;
  if (value < x[0]) return -1;
  let lo = 0;
  let hi = n; // x[lo] ≤ value < x[hi] (x[n] taken as +∞)
  while (hi - lo > 1) {
    const mid = (lo + hi) >>> 1;
    if (value >= x[mid]) lo = mid;
    else hi = mid;
  }
  return lo;
}

/** numpy.interp of one value with NaN outside the curve, the same arithmetic included. */
export function interpolate(curve: Curve, value: number): number {
  if (value !== value) return NaN;
  const { x, y } = curve;
  const n = x.length;
  const j = segmentOf(x, value);
  if (j < 0 || j === n) return NaN;
  if (j === n - 1 || x[j] === value) return y[j];
  const slope = (y[j + 1] - y[j]) / (x[j + 1] - x[j]);
  let result = slope * (value - x[j]) + y[j];
  if (result !== result) {
    result = slope * (value - x[j + 1]) + y[j + 1];
    if (result !== result && y[j] === y[j + 1]) result = y[j];
  }
  return result;
}

function utcDay(date: string): number {
  const t = Date.parse(`${date}T00:00:00Z`);
  if (Number.isNaN(t)) throw new Error(`"${date}" is not a date.`);
  return t / 1000;
}

/** One target record per source record; the curves of later-starting periods win where periods overlap. */
export function curveInterpolation(periods: readonly CurvePeriod[], source: RecordBatch): RecordBatch {
  const { timestamps, values: x } = source;
  const n = timestamps.length;
  const values = new Float64Array(n).fill(NaN);
  const ordered = [...periods].sort((a, b) => utcDay(a.start_date) - utcDay(b.start_date));
  for (const period of ordered) {
    const curve = curveOf(period.points);
    const start = lowerBound(timestamps, utcDay(period.start_date));
    const end = lowerBound(timestamps, utcDay(period.end_date) + LAST_MINUTE + 1, start);
    for (let i = start; i < end; i++) values[i] = interpolate(curve, x[i]);
  }
  return { timestamps, values, flags: new Array<string>(n).fill("") };
}
