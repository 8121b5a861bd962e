/**
 * Rate-of-change check (processing.md §3), the algorithm of pthelma's `rocc`:
 *
 * - explicit thresholds: a record fails when its difference from any earlier record that has
 *   not failed, at most `delta_t` before it, exceeds that threshold's `allowed_diff`;
 * - implied thresholds: a record also fails when its difference from the last valid record
 *   (not failed, not empty) exceeds the thresholds summed greedily over the time between them,
 *   largest `delta_t` first, the smallest one covering any remainder; records more than
 *   100 × the largest `delta_t` after the last valid one skip this comparison.
 *
 * Symmetric: absolute differences against absolute thresholds. Otherwise a positive threshold
 * bounds rises and a negative one falls; a zero one bounds nothing. Empty values never fail.
 */
import { appendFlag, lowerBound, type RecordBatch } from "./series";
import { stepSeconds } from "./steps";

export interface RateOfChangeThreshold {
  delta_t: string;
  allowed_diff: number;
}

export interface RateOfChangeConfig {
  symmetric: boolean;
  remove_failing_values: boolean;
  thresholds: readonly RateOfChangeThreshold[];
}

/** Implied thresholds reach back this many times the largest `delta_t`. */
export const IMPLIED_REACH = 100;

export const TEMPORAL = "TEMPORAL";

/** Thresholds in the order rocc sorts them: by `delta_t`, then by `allowed_diff`. */
export interface SortedThresholds {
  readonly deltas: Float64Array;
  readonly diffs: Float64Array;
}

export function sortThresholds(thresholds: readonly RateOfChangeThreshold[]): SortedThresholds {
  if (thresholds.length === 0) throw new Error("A rate-of-change check needs at least one threshold.");
  const parsed = thresholds.map((t) => {
    const step = stepSeconds(t.delta_t);
    if (step.seconds === null) throw new Error(step.reason);
    return { delta: step.seconds, diff: t.allowed_diff };
  });
  parsed.sort((a, b) => a.delta - b.delta || a.diff - b.diff);
  return { deltas: Float64Array.from(parsed, (t) => t.delta), diffs: Float64Array.from(parsed, (t) => t.diff) };
}

/** How far back (seconds) a record's result depends on earlier records. */
export function rateOfChangeReach(config: RateOfChangeConfig): number {
  const { deltas } = sortThresholds(config.thresholds);
  return IMPLIED_REACH * deltas[deltas.length - 1];
}

function exceeds(diff: number, allowed: number, symmetric: boolean): boolean {
  return symmetric ? Math.abs(diff) > Math.abs(allowed) : (allowed > 0 && diff > allowed) || (allowed < 0 && diff < allowed);
}

/**
 * `s` with `x` added `q` times, each sum rounded as the reference's loop rounds it (x and s of one
 * sign, or s = 0), in a number of steps that grows with the binades crossed, not with q. Within
 * the binade of s, once s ≥ x, every addition adds the same multiple of s's unit in the last place
 * (a tie rounds to even, so its increment may change once, after the first addition): the
 * additions that stay within the binade are one multiplication.
 */
export function addRepeatedly(s: number, x: number, q: number): number {
  if (q <= 0 || x === 0) return s;
  if (x < 0) return -addRepeatedly(-s, -x, q);
  while (q > 0) {
    if (s < x || q < 4) {
      s += x;
      q--;
      continue;
    }
    const s1 = s + x;
    const s2 = s1 + x;
    const c = s1 - s;
    if (c === 0) return s; // x is below half of s's unit in the last place: nothing changes s any more
    if (s2 - s1 !== c) {
      s = s1;
      q--;
      continue;
    }
    // s + j·c + x stays below the binade's top for the j < m taken here (a margin of one)
    const top = binadeTop(s);
    const m = Math.min(q, Math.floor((top - s - x) / c) - 1);
    if (m < 2) {
      s = s1;
      q--;
      continue;
    }
    s += m * c;
    q -= m;
  }
  return s;
}

/** 2^(e+1) for the binade [2^e, 2^(e+1)) that holds s > 0. */
function binadeTop(s: number): number {
  let p = 2 ** Math.floor(Math.log2(s));
  if (p > s) p /= 2;
  else if (p * 2 <= s) p *= 2;
  return p * 2;
}

/**
 * rocc's implied threshold for a difference of the given sign over `delta` seconds: the
 * thresholds summed greedily, the largest delta_t that fits first, as often as it fits.
 */
function impliedAllowedDiff(t: SortedThresholds, symmetric: boolean, delta: number, negative: boolean): number {
  const { deltas, diffs } = t;
  const k = deltas.length;
  let remainder = delta;
  let result = 0;
  // The reference picks the largest fitting delta_t again and again; once one no longer fits, no
  // larger one does: so each is picked ⌊remainder / delta_t⌋ times in a row, largest first.
  for (let j = k - 1; j >= 0 && remainder > 0; j--) {
    if (!symmetric && (negative ? diffs[j] > 0 : diffs[j] < 0)) continue;
    if (deltas[j] > remainder) continue;
    const times = Math.floor(remainder / deltas[j]);
    remainder -= times * deltas[j];
    result = addRepeatedly(result, symmetric ? Math.abs(diffs[j]) : diffs[j], times);
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

/**
 * Why a record failed, as rocc words it: its difference from an earlier record, the allowed
 * difference it exceeds, and over how long (seconds): a threshold's `delta_t`, or for an implied
 * threshold the time since the last valid record.
 */
export interface RateOfChangeFailure {
  readonly index: number;
  readonly diff: number;
  readonly allowed: number;
  readonly seconds: number;
  readonly implied: boolean;
}

/** Windows of at most this many records are compared record by record; longer ones through their extremes. */
const SCANNED_WINDOW = 32;

/**
 * Marks in `failed` the records from index `from` on that fail the check. `failed[0..from)` must
 * hold the outcome for the earlier records (the state a run from `from` continues); the records
 * from `from` on must be 0. `onFailure`, when given, hears why each one from index `reportFrom`
 * on failed.
 *
 * Its cost grows with the records and the thresholds, not with how many records a delta_t
 * spans: a record fails a threshold when its difference from the smallest (rises) or largest
 * (falls) valid value within delta_t before it exceeds it, and those extremes come from
 * monotonic queues of the valid records within the largest delta_t (the first queued minimum
 * from a window's start on is the window's minimum). Short windows are compared record by
 * record, as the reference does.
 */
export function rateOfChangeFailures(
  timestamps: Float64Array,
  values: Float64Array,
  thresholds: SortedThresholds,
  symmetric: boolean,
  failed: Uint8Array,
  from = 0,
  onFailure?: (failure: RateOfChangeFailure) => void,
  reportFrom = 0,
): void {
  const { deltas, diffs } = thresholds;
  const k = deltas.length;
  const largest = deltas[k - 1];
  const impliedReach = IMPLIED_REACH * largest;
  const n = timestamps.length;
  if (from >= n) return;
  let lastValid = -1;
  for (let j = from - 1; j >= 0; j--) {
    if (!failed[j] && values[j] === values[j]) {
      lastValid = j;
      break;
    }
  }
  // Valid records (not failed, not empty) by index: minima increasing, maxima decreasing.
  const minQ = new Int32Array(n);
  const maxQ = new Int32Array(n);
  let minHead = 0;
  let minTail = 0;
  let maxHead = 0;
  let maxTail = 0;
  const enqueue = (j: number) => {
    const v = values[j];
    while (minTail > minHead && values[minQ[minTail - 1]] >= v) minTail--;
    minQ[minTail++] = j;
    while (maxTail > maxHead && values[maxQ[maxTail - 1]] <= v) maxTail--;
    maxQ[maxTail++] = j;
  };
  /** The first queued index at or after `lo` in queue[head, tail), or −1. */
  const firstFrom = (queue: Int32Array, head: number, tail: number, lo: number) => {
    let a = head;
    let b = tail;
    while (a < b) {
      const mid = (a + b) >>> 1;
      if (queue[mid] < lo) a = mid + 1;
      else b = mid;
    }
    return a < tail ? queue[a] : -1;
  };
  for (let j = lowerBound(timestamps, timestamps[from] - largest, 0, from); j < from; j++) {
    if (!failed[j] && values[j] === values[j]) enqueue(j);
  }
  // Each threshold's window starts at lo[m]: the first record within its delta_t.
  const lo = Int32Array.from(deltas, (d) => lowerBound(timestamps, timestamps[from] - d, 0, from));

  /** The latest valid record in [start, i) that exceeds `allowed`, as the reference finds it first. */
  const exceeding = (i: number, start: number, allowed: number) => {
    const value = values[i];
    for (let j = i - 1; j >= start; j--) {
      if (failed[j]) continue;
      if (exceeds(value - values[j], allowed, symmetric)) return j;
    }
    return -1;
  };

  for (let i = from; i < n; i++) {
    const value = values[i];
    if (value !== value) continue; // every comparison with an empty value is false
    const time = timestamps[i];
    while (minHead < minTail && time - timestamps[minQ[minHead]] > largest) minHead++;
    while (maxHead < maxTail && time - timestamps[maxQ[maxHead]] > largest) maxHead++;
    let fails = false;
    for (let m = 0; m < k && !fails; m++) {
      const delta = deltas[m];
      const allowed = symmetric ? Math.abs(diffs[m]) : diffs[m];
      let start = lo[m];
      while (time - timestamps[start] > delta) start++;
      lo[m] = start;
      let j: number;
      if (i - start <= SCANNED_WINDOW) {
        j = exceeding(i, start, allowed);
      } else {
        const low = firstFrom(minQ, minHead, minTail, start);
        if (low < 0) continue; // no valid record within delta_t
        const high = firstFrom(maxQ, maxHead, maxTail, start);
        const rises = exceeds(value - values[low], allowed, symmetric);
        const falls = exceeds(value - values[high], allowed, symmetric);
        if (!rises && !falls) continue;
        j = onFailure && i >= reportFrom ? exceeding(i, start, allowed) : rises ? low : high;
      }
      if (j >= 0) {
        fails = true;
        if (i >= reportFrom) onFailure?.({ index: i, diff: value - values[j], allowed, seconds: delta, implied: false });
      }
    }
    if (!fails && lastValid >= 0) {
      const delta = time - timestamps[lastValid];
      if (delta <= impliedReach) {
        const diff = value - values[lastValid];
        const allowed = impliedAllowedDiff(thresholds, symmetric, delta, diff < 0);
        fails = exceeds(diff, allowed, symmetric);
        if (fails && i >= reportFrom) onFailure?.({ index: i, diff, allowed, seconds: delta, implied: true });
      }
    }
    if (fails) {
      failed[i] = 1;
    } else {
      lastValid = i;
      enqueue(i);
    }
  }
}

/**
 * The flags and values after the check for records [from, n): TEMPORAL appended to the failed
 * ones; with `remove_failing_values`, every value whose flags contain TEMPORAL (including
 * flags the record already had) becomes empty, as Enhydris does.
 */
export function applyRateOfChangeOutcome(
  config: RateOfChangeConfig,
  failed: Uint8Array,
  values: Float64Array,
  flags: string[],
  from = 0,
): void {
  for (let i = from; i < flags.length; i++) {
    if (failed[i]) flags[i] = appendFlag(flags[i], TEMPORAL);
    if (config.remove_failing_values && flags[i].includes(TEMPORAL)) values[i] = NaN;
  }
}

/** The check over a whole batch, as new records. */
export function rateOfChangeCheck(records: RecordBatch, config: RateOfChangeConfig): RecordBatch {
  const values = records.values.slice();
  const flags = records.flags.slice();
  const failed = new Uint8Array(values.length);
  rateOfChangeFailures(records.timestamps, values, sortThresholds(config.thresholds), config.symmetric, failed);
  applyRateOfChangeOutcome(config, failed, values, flags);
  return { timestamps: records.timestamps, values, flags };
}
