/**
 * The chart of `<time series>/chart/` (formats.md §7.2), as pure functions on integer epoch
 * seconds.
 */
import { formatValue } from "@/lib/formats/value";

export interface ChartPoint {
  timestamp: number;
  min: string | null;
  max: string | null;
  mean: string | null;
}

/** Per-interval aggregates of the non-null values. */
export interface ChartAggregates {
  min: Float64Array;
  max: Float64Array;
  sum: Float64Array;
  /** Number of non-null values. */
  count: Int32Array;
}

export const DEFAULT_CHART_POINTS = 200;
export const MAX_CHART_POINTS = 2000;

/**
 * The range [S, E] of §7.2 steps 1–2: the bounds, or the first/last record's timestamp for a
 * missing bound (null when the series has no records). Null means the result is `[]`.
 */
export function chartRange(
  start: number | null,
  end: number | null,
  firstRecord: number | null,
  lastRecord: number | null,
): { S: number; E: number } | null {
  const S = start ?? firstRecord;
  const E = end ?? lastRecord;
  if (S === null || E === null || E < S) return null;
  return { S, E };
}

const SAFE = Number.MAX_SAFE_INTEGER;

/** floor(num / den) for integers, den > 0, exact. */
function floorDiv(num: number, den: number): number {
  if (num > SAFE || num < -SAFE) {
    return Number(bigFloorDiv(BigInt(num), BigInt(den)));
  }
  let q = Math.floor(num / den);
  // the division may have rounded: correct with exact products (|q·den| ≤ |num| + den)
  while (q * den > num) q--;
  while ((q + 1) * den <= num) q++;
  return q;
}

function bigFloorDiv(num: bigint, den: bigint): bigint {
  const q = num / den; // truncates toward zero
  return num % den !== BigInt(0) && num < BigInt(0) ? q - BigInt(1) : q;
}

/**
 * The interval index (0 … N−1) of a record at t, S ≤ t ≤ E: floor((t − S)·N / D), N−1 for
 * t = E, and N−1 for every record when D = 0 (§7.2 steps 3–4).
 */
export function intervalOf(t: number, S: number, E: number, N: number): number {
  const D = E - S;
  if (D === 0) return N - 1;
  const i = floorDiv((t - S) * N, D);
  return i >= N ? N - 1 : i;
}

/** The timestamp of interval i: floor((2·S·N + (2i+1)·D) / (2N)), exact (§7.2 step 6). */
export function chartTimestamp(i: number, S: number, E: number, N: number): number {
  const D = E - S;
  const a = 2 * S * N;
  const b = (2 * i + 1) * D;
  const num = a + b;
  if (a > SAFE || a < -SAFE || b > SAFE || num > SAFE || num < -SAFE) {
    const n = BigInt(2) * BigInt(S) * BigInt(N) + BigInt(2 * i + 1) * BigInt(D);
    return Number(bigFloorDiv(n, BigInt(2 * N)));
  }
  return floorDiv(num, 2 * N);
}

/** Empty aggregates for N intervals. */
export function newChartAggregates(N: number): ChartAggregates {
  return {
    min: new Float64Array(N).fill(Infinity),
    max: new Float64Array(N).fill(-Infinity),
    sum: new Float64Array(N),
    count: new Int32Array(N),
  };
}

/** Adds a record; null/NaN values and instants outside [S, E] are ignored. */
export function addToChart(agg: ChartAggregates, t: number, v: number | null, S: number, E: number, N: number): void {
  if (v === null || v !== v || t < S || t > E) return;
  const i = intervalOf(t, S, E, N);
  if (v < agg.min[i]) agg.min[i] = v;
  if (v > agg.max[i]) agg.max[i] = v;
  agg.sum[i] += v;
  agg.count[i]++;
}

/**
 * A point's value; null when it is not finite: a mean of huge values overflows, and a value
 * written into the store directly may be infinite (the chart then leaves it out).
 */
function chartValue(x: number, precision: number): string | null {
  return Number.isFinite(x) ? formatValue(x, precision) : null;
}

/** The N points of §7.2 step 6 from per-interval aggregates. */
export function chartPoints(S: number, E: number, N: number, agg: ChartAggregates, precision: number): ChartPoint[] {
  const out: ChartPoint[] = new Array(N);
  for (let i = 0; i < N; i++) {
    const timestamp = chartTimestamp(i, S, E, N);
    const c = agg.count[i];
    if (c > 0) {
      out[i] = { timestamp, min: chartValue(agg.min[i], precision), max: chartValue(agg.max[i], precision), mean: chartValue(agg.sum[i] / c, precision) };
    } else {
      out[i] = { timestamp, min: null, max: null, mean: null };
    }
  }
  return out;
}

/** The reference chart from records (any order); used by tests and as a fallback. */
export function chartFromRecords(
  records: Iterable<{ timestamp: number; value: number | null }>,
  S: number,
  E: number,
  N: number,
  precision: number,
): ChartPoint[] {
  const agg = newChartAggregates(N);
  for (const r of records) addToChart(agg, r.timestamp, r.value, S, E, N);
  return chartPoints(S, E, N, agg, precision);
}
