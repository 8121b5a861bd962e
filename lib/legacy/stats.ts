/**
 * The legacy cached statistics of `{site}/timeseries/data/` (formats.md §8) as pure code:
 * interval selection over an abstract record index, down-sampling, statistics and vector
 * statistics. The database side (lib/legacy/record-index.ts, legacy-aggregate.ts) and the HTTP side
 * (lib/legacy/timeseries-data.ts) are separate; the unit tests drive this module with an
 * in-memory index.
 */
import { civilFromDays, daysFromCivil, daysInMonth } from "@/lib/formats/civil";
import type { TimeZone } from "@/lib/formats/timezone";
import { formatValue } from "@/lib/formats/value";

export const LAST_CHOICES = ["hour", "twohour", "day", "week", "month", "year", "moment"] as const;
export type LastChoice = (typeof LAST_CHOICES)[number];

/** The length of `last` (formats.md §8.2): minutes, or calendar months. */
const LAST_LENGTH: Record<LastChoice, { minutes: number } | { months: number }> = {
  hour: { minutes: 60 },
  twohour: { minutes: 120 },
  day: { minutes: 1440 },
  week: { minutes: 10080 },
  month: { months: 1 },
  year: { months: 12 },
  moment: { minutes: 0 },
};

/** The validated selection parameters (legacy.md §7.1); absent ones are null. */
export interface Selection {
  startPos: number | null;
  endPos: number | null;
  last: LastChoice | null;
  /** `YYYY-MM-DD` */
  date: string | null;
  /** `HH:MM` */
  time: string | null;
  /** Minutes, possibly fractional or negative; 0 when absent. */
  startOffset: number;
  exactDatetime: boolean;
}

/**
 * What interval selection needs to know about the stored records (timestamps in epoch
 * seconds, indices 0 … n−1 in timestamp order).
 */
export interface RecordIndex {
  /** n */
  readonly count: number;
  /** The timestamp of the last record (null when n = 0). */
  readonly lastTimestamp: number | null;
  readonly firstTimestamp: number | null;
  /** The number of records with timestamp ≥ t (t an integer). */
  countFrom(t: number): Promise<number>;
  /** The timestamps of the last record before t and of the first at or after t (t an integer). */
  around(t: number): Promise<{ before: number | null; after: number | null }>;
  /** The timestamp of the record with index k (0 ≤ k < n). */
  timestampAt(k: number): Promise<number>;
}

/** An inclusive index range [a, b] with the timestamps of its ends; null timestamps when empty. */
export interface Interval {
  a: number;
  b: number;
  from: number | null;
  to: number | null;
}

const EMPTY: Interval = { a: 0, b: -1, from: null, to: null };

/** The normalized parameters that decide the result (the cache key and ETag inputs, §8.6). */
export function normalizedSelection(s: Selection): unknown[] {
  if (s.startPos !== null && s.endPos !== null) return ["pos", s.startPos, s.endPos];
  if (s.last !== null) return ["last", s.last, s.date, s.date === null ? null : s.time ?? "00:00", s.startOffset, s.exactDatetime];
  return ["all"];
}

/** Adds calendar months to an instant, on the zone's wall clock, the day clamped (§8.2). */
export function addMonths(t: number, months: number, zone: TimeZone): number {
  const offset = zone.offsetSecondsAt(t);
  const local = t + offset;
  const day = Math.floor(local / 86400);
  const secondOfDay = local - day * 86400;
  const [y, m, d] = civilFromDays(day);
  const total = y * 12 + (m - 1) + months;
  const ny = Math.floor(total / 12);
  const nm = total - ny * 12 + 1;
  const nd = Math.min(d, daysInMonth(ny, nm));
  return fromLocal(daysFromCivil(ny, nm, nd) * 86400 + secondOfDay, zone);
}

/** A naive local time (seconds since 1970-01-01T00:00 local) read in the zone. */
function fromLocal(localSeconds: number, zone: TimeZone): number {
  const whole = Math.floor(localSeconds);
  const u = zone.naiveToUtc(whole);
  // Display zones have fixed offsets; a skipped local time is read with the earlier offset.
  const base = u === "nonexistent" ? whole - zone.offsetSecondsAt(whole - 86400) : u;
  return base + (localSeconds - whole);
}

/** `date` (+ `time`, default 00:00) in the zone, as an instant. */
export function dateTimeInstant(date: string, time: string | null, zone: TimeZone): number {
  const [y, mo, d] = date.split("-").map(Number);
  const [h, mi] = (time ?? "00:00").split(":").map(Number);
  return fromLocal(daysFromCivil(y, mo, d) * 86400 + h * 3600 + mi * 60, zone);
}

/** The targets T_b and T_e of a `last` selection (§8.2); null when there is no record to count back from. */
export function targets(s: Selection, lastTimestamp: number | null, zone: TimeZone): { tb: number; te: number } | null {
  const length = LAST_LENGTH[s.last!];
  const offset = s.startOffset * 60;
  const plus = (t: number, sign: 1 | -1) => ("months" in length ? addMonths(t, sign * length.months, zone) : t + sign * length.minutes * 60);
  if (s.date !== null) {
    const B = dateTimeInstant(s.date, s.time, zone);
    return { tb: B + offset, te: plus(B, 1) };
  }
  if (lastTimestamp === null) return null;
  return { tb: plus(lastTimestamp, -1) + offset, te: lastTimestamp };
}

/** The index and timestamp of the record nearest to T (ties to the earlier); n > 0. */
async function nearest(index: RecordIndex, T: number): Promise<{ k: number; t: number }> {
  const n = index.count;
  if (index.firstTimestamp !== null && T <= index.firstTimestamp) return { k: 0, t: index.firstTimestamp };
  if (index.lastTimestamp !== null && T >= index.lastTimestamp) return { k: n - 1, t: index.lastTimestamp };
  const ceil = Math.ceil(T);
  const [atOrAfter, { before, after }] = await Promise.all([index.countFrom(ceil), index.around(ceil)]);
  const k = n - atOrAfter; // records before T; record k is the first at or after T
  if (after === null) return { k: n - 1, t: before! };
  if (before === null) return { k: 0, t: after };
  return T - before <= after - T ? { k: k - 1, t: before } : { k, t: after };
}

/** Does a record have exactly this timestamp? */
async function exists(index: RecordIndex, T: number): Promise<boolean> {
  if (!Number.isInteger(T) || index.count === 0) return false;
  if (T === index.lastTimestamp || T === index.firstTimestamp) return true;
  if (T < index.firstTimestamp! || T > index.lastTimestamp!) return false;
  return (await index.around(T)).after === T;
}

/**
 * Interval selection (formats.md §8.2). Returns null when `exact_datetime` cannot be
 * satisfied (the body is then the JSON literal `null`).
 */
export async function selectInterval(s: Selection, index: RecordIndex, zone: TimeZone): Promise<Interval | null> {
  const n = index.count;
  if (s.startPos !== null && s.endPos !== null) {
    const a = s.startPos;
    const b = Math.min(s.endPos, n - 1);
    if (a > b) return EMPTY;
    const [from, to] = await Promise.all([index.timestampAt(a), index.timestampAt(b)]);
    return { a, b, from, to };
  }
  if (s.last !== null) {
    const t = targets(s, index.lastTimestamp, zone);
    if (s.exactDatetime) {
      if (t === null) return null;
      const [bOk, eOk] = await Promise.all([exists(index, t.tb), exists(index, t.te)]);
      if (!bOk || !eOk) return null;
    }
    if (n === 0 || t === null) return EMPTY;
    const [start, end] = await Promise.all([nearest(index, t.tb), nearest(index, t.te)]);
    if (start.k > end.k) return EMPTY;
    return { a: start.k, b: end.k, from: start.t, to: end.t };
  }
  if (n === 0) return EMPTY;
  return { a: 0, b: n - 1, from: index.firstTimestamp, to: index.lastTimestamp };
}

// ---------------------------------------------------------------------------------------
// Data points and statistics (§8.3–8.5)

export interface LegacyStats {
  min: number | null;
  min_tstmp: number | null;
  max: number | null;
  max_tstmp: number | null;
  avg: number | null;
  vavg: number | null;
  count: number;
  last: number | null;
  last_tstmp: number | null;
  sum: number | null;
  vsum: [number, number] | null;
  vectors: number[] | null;
}

export type DataPoint = [number, string | null, number];

export interface LegacyResult {
  stats: LegacyStats;
  data: DataPoint[];
}

/** Down-sampling (§8.3): the bucket length for an interval of `len` records (1 = no down-sampling). */
export function bucketStep(len: number): number {
  return len <= 400 ? 1 : Math.floor(len / 200);
}

/** The sector of a normalized direction d ∈ [0, 360): 0 = N … 7 = NW (§8.5). */
export function sectorOf(d: number): number {
  return Math.floor((d + 22.5) / 45) % 8;
}

/** v mod 360 into [0, 360) (§8.5 step 1). */
export function normalizeDirection(v: number): number {
  return ((v % 360) + 360) % 360;
}

/**
 * Accumulates the records of an interval [a, b], chunk by chunk in timestamp order, into the
 * data points and statistics of §8.3–8.5.
 */
export class LegacyAccumulator {
  private readonly step: number;
  private readonly data: DataPoint[] = [];
  private index: number;
  // the current bucket
  private bucketFill = 0;
  private bucketMax = -Infinity;
  private bucketHasValue = false;
  // statistics
  private count = 0;
  private sum = 0;
  private min = Infinity;
  private minT = 0;
  private max = -Infinity;
  private maxT = 0;
  private lastV = 0;
  private lastT = 0;
  private seenT = 0;
  private sx = 0;
  private sy = 0;
  private readonly sectors = [0, 0, 0, 0, 0, 0, 0, 0];

  constructor(private readonly a: number, private readonly b: number, private readonly precision: number, private readonly vector: boolean) {
    this.step = bucketStep(b - a + 1);
    this.index = a;
  }

  /** Records in timestamp order: epoch seconds and values (NaN = null). */
  add(timestamps: ArrayLike<number>, values: ArrayLike<number>, length = timestamps.length): void {
    const step = this.step;
    const vector = this.vector;
    for (let i = 0; i < length; i++) {
      if (this.index > this.b) return;
      const t = timestamps[i];
      const v = values[i];
      this.seenT = t;
      // NaN is null; an infinity (no upload stores one, only a direct write) is read as null too.
      const isValue = v - v === 0;
      if (isValue) {
        this.count++;
        this.sum += v;
        if (v <= this.min) {
          this.min = v;
          this.minT = t;
        }
        if (v >= this.max) {
          this.max = v;
          this.maxT = t;
        }
        this.lastV = v;
        this.lastT = t;
        if (vector) {
          const d = ((v % 360) + 360) % 360;
          const r = (d * Math.PI) / 180;
          this.sx += Math.sin(r);
          this.sy += Math.cos(r);
          this.sectors[Math.floor((d + 22.5) / 45) % 8]++;
        }
      }
      if (step === 1) {
        this.data.push([t * 1000, isValue ? formatValue(v, this.precision) : null, this.index]);
      } else {
        if (isValue && v > this.bucketMax) this.bucketMax = v;
        if (isValue) this.bucketHasValue = true;
        this.bucketFill++;
        if (this.bucketFill === step || this.index === this.b) this.flushBucket(t);
      }
      this.index++;
    }
  }

  private flushBucket(t: number): void {
    this.data.push([t * 1000, this.bucketHasValue ? formatValue(this.bucketMax, this.precision) : null, this.index]);
    this.bucketFill = 0;
    this.bucketMax = -Infinity;
    this.bucketHasValue = false;
  }

  result(): LegacyResult {
    // Fewer records than expected (a concurrent change): close the open bucket.
    if (this.bucketFill > 0) {
      this.index--;
      this.flushBucket(this.seenT);
      this.index++;
    }
    return { stats: this.stats(), data: this.data };
  }

  private stats(): LegacyStats {
    const count = this.count;
    if (count === 0) {
      return {
        min: null, min_tstmp: null, max: null, max_tstmp: null, avg: null, vavg: null, count: 0,
        last: null, last_tstmp: null, sum: null, vsum: null, vectors: null,
      };
    }
    let vavg: number | null = null;
    let vsum: [number, number] = [0, 0];
    let vectors = [0, 0, 0, 0, 0, 0, 0, 0];
    if (this.vector) {
      vsum = [this.sx, this.sy];
      vectors = this.sectors.map((c) => (100 * c) / count);
      vavg = vectorAverage(this.sx, this.sy, count);
    }
    return {
      min: this.min, min_tstmp: this.minT * 1000, max: this.max, max_tstmp: this.maxT * 1000,
      avg: this.sum / count, vavg, count, last: this.lastV, last_tstmp: this.lastT * 1000, sum: this.sum, vsum, vectors,
    };
  }
}

/** The vector average of §8.5 step 3, in degrees [0, 360), or null when the directions cancel out. */
export function vectorAverage(sx: number, sy: number, count: number): number | null {
  if (Math.hypot(sx, sy) <= 1e-9 * count) return null;
  let angle = (Math.atan2(sx, sy) * 180) / Math.PI;
  if (angle < 0) angle += 360;
  if (angle >= 360) angle -= 360;
  return angle;
}

/** The last index of each down-sampling bucket of [a, b] (len > 400): a+step−1, a+2·step−1, …, b (§8.3). */
export function bucketEnds(a: number, b: number): number[] {
  const step = bucketStep(b - a + 1);
  const ends: number[] = [];
  for (let e = a + step - 1; e < b; e += step) ends.push(e);
  ends.push(b);
  return ends;
}

/** Aggregates of the non-null values of one bucket (timestamps lo…hi, last record index `end`). */
export interface BucketAggregate {
  readonly hi: number;
  readonly end: number;
  readonly count: number;
  readonly sum: number;
  readonly min: number;
  readonly max: number;
}

/** Where the extreme and last values lie; found by the caller in the buckets that `extremeBuckets` names. */
export interface Extremes {
  minT: number;
  maxT: number;
  lastT: number;
  lastV: number;
}

/**
 * The buckets holding the later of the smallest values, the later of the largest values and
 * the last non-null value (§8.4: ties go to the later record); null when no bucket has a value.
 */
export function extremeBuckets(buckets: readonly BucketAggregate[]): { min: number; max: number; minBucket: number; maxBucket: number; lastBucket: number } | null {
  let min = Infinity;
  let max = -Infinity;
  let minBucket = -1;
  let maxBucket = -1;
  let lastBucket = -1;
  for (let j = 0; j < buckets.length; j++) {
    const bk = buckets[j];
    if (bk.count === 0) continue;
    if (bk.min <= min) {
      min = bk.min;
      minBucket = j;
    }
    if (bk.max >= max) {
      max = bk.max;
      maxBucket = j;
    }
    lastBucket = j;
  }
  return lastBucket < 0 ? null : { min, max, minBucket, maxBucket, lastBucket };
}

/** The result of a down-sampled interval from its bucket aggregates (§8.3–8.4, without vector statistics). */
export function resultFromBuckets(buckets: readonly BucketAggregate[], extremes: Extremes | null, precision: number): LegacyResult {
  const data: DataPoint[] = buckets.map((bk) => [bk.hi * 1000, bk.count ? formatValue(bk.max, precision) : null, bk.end]);
  const ext = extremeBuckets(buckets);
  if (!ext || !extremes) return { stats: new LegacyAccumulator(0, -1, precision, false).result().stats, data };
  let count = 0;
  let sum = 0;
  for (const bk of buckets) {
    if (!bk.count) continue;
    count += bk.count;
    sum += bk.sum;
  }
  return {
    stats: {
      min: ext.min, min_tstmp: extremes.minT * 1000, max: ext.max, max_tstmp: extremes.maxT * 1000, avg: sum / count, vavg: null, count,
      last: extremes.lastV, last_tstmp: extremes.lastT * 1000, sum, vsum: [0, 0], vectors: [0, 0, 0, 0, 0, 0, 0, 0],
    },
    data,
  };
}

/** The whole computation over in-memory records of [a, b] (tests; the endpoint streams chunks). */
export function legacyResult(timestamps: ArrayLike<number>, values: ArrayLike<number>, a: number, b: number, precision: number, vector: boolean): LegacyResult {
  const acc = new LegacyAccumulator(a, b, precision, vector);
  if (b >= a) acc.add(timestamps, values);
  return acc.result();
}

/** The response body: compact JSON with the keys in the order of §8.4. */
export function legacyJson(result: LegacyResult | null): string {
  return JSON.stringify(result);
}
