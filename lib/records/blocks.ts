/**
 * What the block stores of both databases share (docs/decisions/0019-records-in-blocks.md):
 * days of a batch, a day's row (its summary and encoded records), merging records into a stored
 * day, reading ranges as chunks from fetched day blocks, and aggregating decoded records.
 * A series not yet converted from rows (timeseries_record) is read from its rows: every fetch
 * asks for both in one statement, and a series is wholly in one form at any moment.
 */
import { intervalOf, type ChartAggregates } from "@/lib/formats/chart";
import { decodeBlock, encodeBlock } from "@/lib/records/codec";
import {
  addAggregate, BlockBuilder, blockStart, DAY, EMPTY_BATCH, type FoundRecord, mergeInto, type RangeAggregate, type RecordBatch, type RecordChunk,
} from "@/lib/records/types";

/** A day's row of timeseries_block: the summary of its records and the records encoded. */
export interface DayRow {
  readonly start: number;
  readonly count: number;
  readonly valueCount: number;
  readonly min: number | null;
  readonly max: number | null;
  readonly sum: number | null;
  readonly first: number;
  readonly last: number;
  readonly records: Uint8Array;
}

/** The summary of a day's records as timeseries_block holds it. */
export interface DaySummary {
  readonly count: number;
  readonly valueCount: number;
  readonly min: number | null;
  readonly max: number | null;
  readonly sum: number | null;
}

/** The summary of records (sorted), summed in order from 0 (BlockBuilder: what a write of them computes). */
export function summaryOf(records: RecordBatch): DaySummary {
  const b = new BlockBuilder().add(records).blocks();
  if (b.starts.length === 0) return { count: 0, valueCount: 0, min: null, max: null, sum: null };
  return { count: b.counts[0], valueCount: b.valueCounts[0], min: b.mins[0], max: b.maxs[0], sum: b.sums[0] };
}

/**
 * Two summaries as one, as the row store merged a write's summary into the stored one (ADR 4):
 * the sums added, so that a day's sum is what it was when its records were rows.
 */
export function mergeSummaries(a: DaySummary, b: DaySummary): DaySummary {
  const pick = (x: number | null, y: number | null, f: (x: number, y: number) => number) => (x === null ? y : y === null ? x : f(x, y));
  return {
    count: a.count + b.count, valueCount: a.valueCount + b.valueCount,
    min: pick(a.min, b.min, Math.min), max: pick(a.max, b.max, Math.max), sum: pick(a.sum, b.sum, (x, y) => x + y),
  };
}

/**
 * A sum as the database's SUM computes it, in the order the values are added: SQLite (3.43 and
 * later) with Kahan–Babuška–Neumaier compensation, PostgreSQL plainly. The row store summed
 * records so in SQL, and sums that users see in full (the legacy statistics) must not change.
 */
export class SqlSum {
  private s = 0;
  private error = 0;
  count = 0;

  constructor(private readonly compensated: boolean) {}

  add(v: number): void {
    this.count++;
    if (!this.compensated) {
      this.s = this.count === 1 ? v : this.s + v;
      return;
    }
    const s = this.s;
    const t = s + v;
    if (Math.abs(s) > Math.abs(v)) this.error += (s - t) + v;
    else this.error += (v - t) + s;
    this.s = t;
  }

  /** The sum, or null when nothing was added (SQL's SUM of no values). */
  result(): number | null {
    if (this.count === 0) return null;
    return this.compensated && Number.isFinite(this.error) ? this.s + this.error : this.s;
  }
}

/** The summary of records as the row store's SQL computed it (COUNT, MIN, MAX, SUM: SqlSum). */
export function sqlSummaryOf(records: RecordBatch, compensated: boolean): DaySummary {
  const sum = new SqlSum(compensated);
  let min = Infinity;
  let max = -Infinity;
  for (const v of records.values) {
    if (v !== v) continue;
    sum.add(v);
    if (v < min) min = v;
    if (v > max) max = v;
  }
  const valued = sum.count > 0;
  return { count: records.timestamps.length, valueCount: sum.count, min: valued ? min : null, max: valued ? max : null, sum: sum.result() };
}

/** The row of a day holding `records` (sorted, not empty) with their summary (by default computed from them in order). */
export function dayRow(start: number, records: RecordBatch, summary: DaySummary = summaryOf(records)): DayRow {
  const n = records.timestamps.length;
  return { start, ...summary, first: records.timestamps[0], last: records.timestamps[n - 1], records: encodeBlock(records, start) };
}

/** Whether a day row holds the bytes and summary a stored row has already. */
export function sameRow(row: DayRow, bytes: Uint8Array, stored: DaySummary): boolean {
  return row.count === stored.count && row.valueCount === stored.valueCount && Object.is(row.min, stored.min) && Object.is(row.max, stored.max)
    && Object.is(row.sum, stored.sum) && sameBytes(row.records, bytes);
}

/** A day of a sorted batch: its start and the batch's indices [from, to). */
export interface DaySpan {
  readonly start: number;
  readonly from: number;
  readonly to: number;
}

/** The days of a sorted batch. */
export function daysOf(batch: RecordBatch): DaySpan[] {
  const { timestamps } = batch;
  const out: DaySpan[] = [];
  for (let i = 0; i < timestamps.length;) {
    const start = blockStart(timestamps[i]);
    const end = start + DAY;
    let j = i + 1;
    while (j < timestamps.length && timestamps[j] < end) j++;
    out.push({ start, from: i, to: j });
    i = j;
  }
  return out;
}

export function sliceOf(batch: RecordBatch, from: number, to: number): RecordBatch {
  return { timestamps: batch.timestamps.subarray(from, to), values: batch.values.subarray(from, to), flags: batch.flags.slice(from, to) };
}

/** The records of `chunk` with lo ≤ timestamp ≤ hi. */
export function within(chunk: RecordChunk, lo: number, hi: number): RecordChunk {
  const { timestamps } = chunk;
  let i = 0;
  while (i < chunk.length && timestamps[i] < lo) i++;
  let j = chunk.length;
  while (j > i && timestamps[j - 1] > hi) j--;
  if (i === 0 && j === chunk.length) return chunk;
  return { timestamps: timestamps.subarray(i, j), values: chunk.values.subarray(i, j), flags: chunk.flags.slice(i, j), length: j - i };
}

/**
 * The sorted records `stored` and `added` together. A timestamp in both throws, as the row store's
 * primary key did: writes that may meet stored records check for them first.
 */
export function mergeRecords(stored: RecordBatch, added: RecordBatch): RecordBatch {
  const a = stored.timestamps.length;
  const b = added.timestamps.length;
  if (a === 0) return added;
  if (b === 0) return stored;
  if (stored.timestamps[a - 1] < added.timestamps[0]) return concat(stored, added);
  const timestamps = new Float64Array(a + b);
  const values = new Float64Array(a + b);
  const flags: string[] = new Array(a + b);
  let i = 0;
  let j = 0;
  for (let k = 0; k < a + b; k++) {
    const s = i < a ? stored.timestamps[i] : Infinity;
    const t = j < b ? added.timestamps[j] : Infinity;
    if (s === t) throw new Error(`records: the timestamp ${s} is stored already`);
    const from = s < t ? stored : added;
    const at = s < t ? i++ : j++;
    timestamps[k] = from.timestamps[at];
    values[k] = from.values[at];
    flags[k] = from.flags[at];
  }
  return { timestamps, values, flags };
}

/**
 * Groups a chunked write's records by UTC day, synchronously, chunk by chunk: the first day
 * `day0` begun with `kept` (what stays of the stored day, summarized by `base`); a day may go on
 * in the next chunk. Counts the records and keeps the last chunk as they pass.
 */
export class DayGrouper {
  /** How many records were added. */
  n = 0;
  /** The last chunk added (null when none). */
  last: RecordBatch | null = null;
  private pending: RecordBatch;
  private pendingDay: number;
  private pendingBase: DaySummary | null;
  /** How many of the pending records came from the stored day (summarized by `pendingBase`). */
  private pendingStored: number;

  constructor(day0: number, kept: RecordBatch, base: DaySummary | null) {
    this.pending = kept;
    this.pendingDay = day0;
    this.pendingBase = base;
    this.pendingStored = kept.timestamps.length;
  }

  /** Adds a chunk; `done` gets the row of each day it completes. */
  add(chunk: RecordBatch, done: (row: DayRow) => void): void {
    for (const { start, from: i, to: j } of daysOf(chunk)) {
      const part = sliceOf(chunk, i, j);
      if (start === this.pendingDay) {
        this.pending = mergeRecords(this.pending, part);
      } else {
        this.finish(done);
        this.pending = part;
        this.pendingDay = start;
        this.pendingStored = 0;
        this.pendingBase = null;
      }
    }
    this.n += chunk.timestamps.length;
    this.last = chunk;
  }

  /** Gives the row of the day being gathered, if it has records. */
  finish(done: (row: DayRow) => void): void {
    const { pending } = this;
    if (!pending.timestamps.length) return;
    const added = summaryOf(sliceOf(pending, this.pendingStored, pending.timestamps.length));
    done(dayRow(this.pendingDay, pending, this.pendingBase ? mergeSummaries(this.pendingBase, added) : added));
  }
}

/** The day rows of a chunked write (DayGrouper), as the chunks arrive. */
export async function* dayRowsOf(chunks: AsyncIterable<RecordBatch>, grouper: DayGrouper): AsyncGenerator<DayRow> {
  const rows: DayRow[] = [];
  const done = (row: DayRow) => rows.push(row);
  for await (const chunk of chunks) {
    grouper.add(chunk, done);
    yield* rows.splice(0);
  }
  grouper.finish(done);
  yield* rows;
}

function concat(a: RecordBatch, b: RecordBatch): RecordBatch {
  const n = a.timestamps.length + b.timestamps.length;
  const timestamps = new Float64Array(n);
  timestamps.set(a.timestamps);
  timestamps.set(b.timestamps, a.timestamps.length);
  const values = new Float64Array(n);
  values.set(a.values);
  values.set(b.values, a.timestamps.length);
  return { timestamps, values, flags: [...a.flags, ...b.flags] };
}

/** The records of a stored day (a block's bytes, or a series' rows not yet converted) and its summary. */
export type StoredDay = ({ readonly start: number; readonly bytes: Uint8Array } | { readonly start: number; readonly rows: RecordChunk })
  & { readonly summary: DaySummary };

export function decodeDay(day: StoredDay): RecordChunk {
  return "bytes" in day ? decodeBlock(day.bytes, day.start) : day.rows;
}

/**
 * A fetched row of a union of a day's summary row (start, count, value count, min, max, sum,
 * and its encoded records, null before conversion) and of records stored as rows (timestamp,
 * value, flags); the other fields null.
 */
export type UnionRow = readonly [
  start: number | null, count: number | null, valueCount: number | null, min: number | null, max: number | null, sum: number | null,
  bytes: Uint8Array | null, t: number | null, v: number | null, f: string | null,
];

/** The days of fetched union rows (blocks, or records grouped by day, with their summaries), by day start. */
export function daysFromRows(rows: readonly UnionRow[]): Map<number, StoredDay> {
  const out = new Map<number, StoredDay>();
  const summaries = new Map<number, DaySummary>();
  const records: [number, number, string][] = [];
  for (const [start, count, valueCount, min, max, sum, bytes, t, v, f] of rows) {
    if (start === null) {
      records.push([Number(t), v === null ? NaN : Number(v), f ?? ""]);
      continue;
    }
    const d = Number(start);
    const summary = { count: Number(count), valueCount: Number(valueCount), min: numberOrNull(min), max: numberOrNull(max), sum: numberOrNull(sum) };
    if (bytes !== null) out.set(d, { start: d, bytes, summary });
    else summaries.set(d, summary);
  }
  if (records.length) {
    records.sort((x, y) => x[0] - y[0]);
    const all: RecordChunk = {
      timestamps: Float64Array.from(records, (r) => r[0]), values: Float64Array.from(records, (r) => r[1]), flags: records.map((r) => r[2]), length: records.length,
    };
    for (const span of daysOf(all)) {
      const part = sliceOf(all, span.from, span.to);
      // The row store kept every day's summary; a missing one is computed (as if written once).
      const summary = summaries.get(span.start) ?? summaryOf(part);
      out.set(span.start, { start: span.start, rows: { ...part, flags: [...part.flags], length: span.to - span.from }, summary });
    }
  }
  return out;
}

const numberOrNull = (v: number | null) => (v === null ? null : Number(v));

/** What a range fetch returns: blocks (in order) or a series' rows (in order, up to the limit asked for). */
export interface RangePieces {
  readonly blocks: readonly { readonly start: number; readonly count: number; readonly bytes: Uint8Array }[];
  readonly rows: RecordChunk | null;
}

/**
 * Fetches the blocks of the days from the one holding `from` to `to` (at most `maxDays`), and
 * the rows with from ≤ timestamp ≤ to (at most `maxRows`), in one statement.
 */
/** A row of a range's statement: a day's block (start, count, bytes) or a record stored as a row (t, value, flags). */
export type RangeRow = readonly [number | null, number | null, Uint8Array | null, number | null, number | null, string | null];

/** The range's blocks and rows from the rows of its statement (both stores ask for both forms in one statement). */
export function rangePieces(rows: readonly RangeRow[]): RangePieces {
  const blocks: { start: number; count: number; bytes: Uint8Array }[] = [];
  const timestamps: number[] = [];
  const values: number[] = [];
  const flags: string[] = [];
  for (const [start, count, bytes, t, v, f] of rows) {
    if (bytes !== null) {
      blocks.push({ start: start!, count: count!, bytes });
    } else {
      timestamps.push(t!);
      values.push(v ?? NaN);
      flags.push(f!);
    }
  }
  return { blocks, rows: timestamps.length ? { timestamps: Float64Array.from(timestamps), values: Float64Array.from(values), flags, length: timestamps.length } : null };
}

export type FetchRange = (from: number, to: number, maxDays: number, maxRows: number) => RangePieces | Promise<RangePieces>;

const MIN_DAYS = 4;
const MAX_DAYS = 4096;

/** The first size of a chunk's arrays in readRange (they grow up to the chunk size asked for). */
const FIRST_CAPACITY = 4096;

/** How far a read fetches ahead of its reader (readRange), and what it tells its caller. */
export interface ReadAhead {
  /**
   * Bytes fetched and not yet decoded (encoded blocks; rows at 24 bytes each) below which the
   * read fetches on without waiting for its reader. With 0 (the default) one fetch waits at most.
   */
  readonly bytes: number;
  /** The read needs no more fetches: it has all it reads, it stopped, or a fetch failed. Called once. */
  fetched?(): void;
  /**
   * The bytes ahead reached the limit with more to fetch: fetching waits until the reader has
   * taken some (`room` resolves then, or when the read stops).
   */
  full?(room: Promise<void>): void;
}

/** The bytes a fetch holds until decoded. */
function sizeOf(pieces: RangePieces): number {
  let n = (pieces.rows?.length ?? 0) * 24;
  for (const b of pieces.blocks) n += b.bytes.length;
  return n;
}

/**
 * The records with from ≤ timestamp ≤ to in chunks of `chunkSize` (the last shorter), fetched a
 * bounded number of days at a time: as many as the days fetched so far suggest the chunk needs.
 * Fetching runs ahead of the reader: the next fetch starts as soon as one arrives (PostgreSQL
 * fetches while the chunk is written out), and once the first chunk is out, goes on while fewer
 * than `ahead.bytes` wait to be decoded. A chunk may end inside a day: the rest of that day
 * starts the next one.
 */
export async function* readRange(fetch: FetchRange, from: number, to: number, chunkSize: number, ahead: ReadAhead = { bytes: 0 }): AsyncGenerator<RecordChunk> {
  const first = Math.max(Math.ceil(from), -Number.MAX_SAFE_INTEGER);
  const last = Math.min(Math.floor(to), Number.MAX_SAFE_INTEGER);
  if (!(first <= last) || chunkSize < 1) {
    ahead.fetched?.();
    return;
  }
  let days = 0;
  let counted = 0;
  const daysFor = (records: number) => (counted === 0 ? 32 : Math.min(MAX_DAYS, Math.max(MIN_DAYS, Math.ceil((records * days) / counted) + 1)));

  // The fetching side: fetches in order, each from where the last one ended, into `arrived`.
  /** Fetches that arrived and that the reader has not taken yet. */
  const arrived: RangePieces[] = [];
  /** Bytes fetched and not decoded yet (in `arrived` and in the reader's queue). */
  let waiting = 0;
  let finished = false;
  let failure: { error: unknown } | null = null;
  let stopped = false;
  let wakeReader: (() => void) | null = null;
  let wakeFetcher: (() => void) | null = null;
  /** What fetching waits for, while it waits for the reader. */
  let fetchRoom: Promise<void> | null = null;
  /** Whether the first chunk went out: until then one fetch ahead at most, so that it is not slowed by the rest. */
  let begun = false;
  const hasRoom = () => stopped || arrived.length === 0 || (begun && waiting < ahead.bytes);
  const signal = (which: "reader" | "fetcher") => {
    const wake = which === "reader" ? wakeReader : wakeFetcher;
    if (which === "reader") wakeReader = null;
    else wakeFetcher = null;
    wake?.();
  };
  const fetching = (async () => {
    try {
      for (let start = first; ;) {
        const maxDays = daysFor(chunkSize);
        const fetched = await fetch(start, last, maxDays, chunkSize);
        if (stopped) return;
        for (const b of fetched.blocks) {
          days++;
          counted += b.count;
        }
        if (fetched.rows?.length && fetched.blocks.length) throw new Error("records: a series read both as rows and as blocks");
        const more = fetched.blocks.length === maxDays || (fetched.rows !== null && fetched.rows.length === chunkSize);
        const end = fetched.rows?.length ? fetched.rows.timestamps[fetched.rows.length - 1] + 1
          : fetched.blocks.length ? fetched.blocks[fetched.blocks.length - 1].start + DAY : Infinity;
        arrived.push(fetched);
        waiting += sizeOf(fetched);
        signal("reader");
        if (!(more && end <= last)) return;
        start = end;
        if (!hasRoom()) {
          fetchRoom = new Promise<void>((resolve) => (wakeFetcher = resolve));
          // Before the first chunk is out, fetching waits for it, not for a slow reader.
          if (begun) ahead.full?.(fetchRoom);
          await fetchRoom;
          fetchRoom = null;
          if (stopped) return;
        }
      }
    } catch (error) {
      failure = { error };
    } finally {
      finished = true;
      ahead.fetched?.();
      signal("reader");
    }
  })();

  /** The next fetch, once it arrived; null when there are no more. */
  const take = async (): Promise<RangePieces | null> => {
    while (arrived.length === 0) {
      if (failure) throw failure.error;
      if (finished) return null;
      await new Promise<void>((resolve) => (wakeReader = resolve));
    }
    const pieces = arrived.shift()!;
    if (hasRoom()) signal("fetcher");
    return pieces;
  };

  /** Decoded records not yet handed out, and where they start. */
  let piece: RecordChunk | null = null;
  let at = 0;
  let want = first;
  /** Pieces taken, not yet decoded. */
  let queue: (RecordChunk | { start: number; bytes: Uint8Array })[] = [];
  try {
    for (;;) {
      // The chunk's arrays start small and grow: a month's read (4,320 records) need not clear
      // the 50,000 of a whole chunk.
      let capacity = Math.min(chunkSize, FIRST_CAPACITY);
      let timestamps = new Float64Array(capacity);
      let values = new Float64Array(capacity);
      let flags: string[] = new Array(capacity).fill("");
      const room = (needed: number) => {
        if (needed <= capacity) return;
        capacity = Math.min(chunkSize, Math.max(capacity * 2, needed));
        const [t, v] = [new Float64Array(capacity), new Float64Array(capacity)];
        t.set(timestamps);
        v.set(values);
        [timestamps, values] = [t, v];
        flags = flags.concat(new Array(capacity - flags.length).fill(""));
      };
      let n = 0;
      while (n < chunkSize) {
        if (piece === null || at >= piece.length) {
          piece = null;
          if (queue.length === 0) {
            const fetched = await take();
            if (fetched === null) break;
            queue = fetched.rows?.length ? [fetched.rows] : [...fetched.blocks];
            if (queue.length === 0) continue;
          }
          const item = queue.shift()!;
          if ("bytes" in item) {
            piece = decodeBlock(item.bytes, item.start);
            waiting -= item.bytes.length;
          } else {
            piece = item;
            waiting -= item.length * 24;
          }
          if (hasRoom()) signal("fetcher");
          at = 0;
          while (at < piece.length && piece.timestamps[at] < want) at++;
          continue;
        }
        if (piece.timestamps[at] > last) {
          stopped = true;
          signal("fetcher");
          queue = [];
          arrived.length = 0;
          piece = null;
          break;
        }
        let end = Math.min(piece.length, at + chunkSize - n);
        while (end > at && piece.timestamps[end - 1] > last) end--;
        room(n + end - at);
        timestamps.set(piece.timestamps.subarray(at, end), n);
        values.set(piece.values.subarray(at, end), n);
        for (let i = at; i < end; i++) {
          const f = piece.flags[i];
          if (f !== "") flags[n + i - at] = f;
        }
        n += end - at;
        at = end;
        want = timestamps[n - 1] + 1;
      }
      if (n > 0) {
        if (!begun) {
          begun = true;
          if (hasRoom()) signal("fetcher");
          else if (fetchRoom) ahead.full?.(fetchRoom);
        }
        yield n === chunkSize ? { timestamps, values, flags, length: n }
          : { timestamps: timestamps.subarray(0, n), values: values.subarray(0, n), flags: flags.slice(0, n), length: n };
      }
      if (n < chunkSize) return;
    }
  } finally {
    // A reader that stopped early leaves the fetch on its way to finish (and free its connection);
    // `fetching` catches its own failures.
    stopped = true;
    signal("fetcher");
    void fetching;
  }
}

/** Records of a chunk with lo ≤ t ≤ hi. */
export interface Piece {
  readonly chunk: RecordChunk;
  readonly lo: number;
  readonly hi: number;
}

/**
 * Adds the non-null values of the pieces' records to the chart's intervals over [S, E] as the
 * row store's grouped query did: per interval their count, min, max and SqlSum (in the pieces'
 * order), merged into `out` once.
 */
export function aggregateInto(out: ChartAggregates, S: number, E: number, N: number, pieces: readonly Piece[], compensated: boolean): void {
  const groups = new Map<number, { sum: SqlSum; min: number; max: number }>();
  for (const { chunk, lo, hi } of pieces) {
    const { timestamps, values } = chunk;
    for (let k = 0; k < chunk.length; k++) {
      const t = timestamps[k];
      const v = values[k];
      if (t < lo || t > hi || v !== v) continue;
      const i = intervalOf(t, S, E, N);
      let g = groups.get(i);
      if (!g) groups.set(i, (g = { sum: new SqlSum(compensated), min: v, max: v }));
      g.sum.add(v);
      if (v < g.min) g.min = v;
      if (v > g.max) g.max = v;
    }
  }
  for (const [i, g] of groups) mergeInto(out, i, g.sum.count, g.min, g.max, g.sum.result()!);
}

/** The number of records with lo ≤ t ≤ hi. */
export function countWithin(chunk: RecordChunk, lo: number, hi: number): number {
  let n = 0;
  for (let k = 0; k < chunk.length; k++) {
    const t = chunk.timestamps[k];
    if (t >= lo && t <= hi) n++;
  }
  return n;
}

/** Adds the aggregate of the non-null values of the pieces' records (SqlSum in their order) to `a`, as one. */
export function addToRange(a: RangeAggregate, pieces: readonly Piece[], compensated: boolean): void {
  const sum = new SqlSum(compensated);
  let min = Infinity;
  let max = -Infinity;
  for (const { chunk, lo, hi } of pieces) {
    for (let k = 0; k < chunk.length; k++) {
      const t = chunk.timestamps[k];
      const v = chunk.values[k];
      if (t < lo || t > hi || v !== v) continue;
      sum.add(v);
      if (v < min) min = v;
      if (v > max) max = v;
    }
  }
  addAggregate(a, sum.count, sum.result(), sum.count ? min : null, sum.count ? max : null);
}

/** The record at index k of a chunk. */
export function recordAt(chunk: RecordChunk, k: number): FoundRecord {
  const v = chunk.values[k];
  return { timestamp: chunk.timestamps[k], value: v === v ? v : null, flags: chunk.flags[k] };
}

/** The days (starts) that [lo, hi] touches, which must be few (an edge of a plan). */
export function daysOfRange(lo: number, hi: number): number[] {
  const out: number[] = [];
  for (let d = blockStart(lo); d <= hi; d += DAY) out.push(d);
  return out;
}

export const EMPTY_CHUNK: RecordChunk = { timestamps: new Float64Array(0), values: new Float64Array(0), flags: [], length: 0 };

/** The timestamp, value (null for NaN) and flags of a batch's last record. */
export function lastOf(batch: RecordBatch): [number, number | null, string] {
  const i = batch.timestamps.length - 1;
  const v = batch.values[i];
  return [batch.timestamps[i], v === v ? v : null, batch.flags[i]];
}

export function asBatch(chunk: RecordChunk): RecordBatch {
  return { timestamps: chunk.timestamps.subarray(0, chunk.length), values: chunk.values.subarray(0, chunk.length), flags: chunk.flags };
}

export function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && Buffer.compare(a, b) === 0;
}

/** The index of timestamp t in a chunk, or −1. */
export function indexOf(chunk: RecordChunk, t: number): number {
  let lo = 0;
  let hi = chunk.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const m = chunk.timestamps[mid];
    if (m === t) return mid;
    if (m < t) lo = mid + 1;
    else hi = mid - 1;
  }
  return -1;
}

/** Chunks read in order, as one. */
export function concatChunks(chunks: readonly RecordChunk[]): RecordChunk {
  if (chunks.length === 1) return chunks[0];
  const length = chunks.reduce((sum, c) => sum + c.length, 0);
  const timestamps = new Float64Array(length);
  const values = new Float64Array(length);
  const flags: string[] = [];
  let at = 0;
  for (const c of chunks) {
    timestamps.set(c.timestamps.subarray(0, c.length), at);
    values.set(c.values.subarray(0, c.length), at);
    for (let i = 0; i < c.length; i++) flags.push(c.flags[i]);
    at += c.length;
  }
  return { timestamps, values, flags, length };
}

/** A stored day's row as a replacement reads it: start, count, value count, min, max, sum, records. */
export type StoredRow = [start: number, count: number, valueCount: number, min: number | null, max: number | null, sum: number | null, bytes: Uint8Array];

/**
 * What replacing the records from `from` on with `batch` writes, given the stored rows of the days
 * from the one holding `from` on (in order): the rows that change (bytes or summary), the days left
 * empty, how many stored records are deleted, and those the day holding `from` keeps before it.
 * The summaries are the row store's: the kept records' as its SQL computed them (SqlSum) merged
 * with the batch's part of that day, and the batch's own for later days. When nothing is stored
 * from `from` on and the batch is empty, nothing changes.
 */
export function replacement(stored: readonly StoredRow[], from: number, batch: RecordBatch, compensated: boolean) {
  const day0 = blockStart(from);
  const days = new Map<number, RecordBatch>(daysOf(batch).map((d) => [d.start, sliceOf(batch, d.from, d.to)]));
  let deleted = 0;
  let kept: RecordBatch = EMPTY_BATCH;
  for (const [start, count, , , , , bytes] of stored) {
    if (start === day0) {
      kept = asBatch(within(decodeBlock(bytes, start), -Infinity, from - 1));
      deleted += count - kept.timestamps.length;
    } else {
      deleted += count;
    }
  }
  const writes: DayRow[] = [];
  const emptied: number[] = [];
  if (deleted === 0 && batch.timestamps.length === 0) return { writes, emptied, deleted, kept };
  const summaries = new Map<number, DaySummary>();
  if (kept.timestamps.length > 0) {
    const part = days.get(day0) ?? EMPTY_BATCH;
    summaries.set(day0, mergeSummaries(sqlSummaryOf(kept, compensated), summaryOf(part)));
    days.set(day0, mergeRecords(kept, part));
  }
  const before = new Map(stored.map((r) => [r[0], r]));
  for (const [start, records] of days) {
    if (records.timestamps.length === 0) continue;
    const row = dayRow(start, records, summaries.get(start) ?? summaryOf(records));
    const old = before.get(start);
    if (!old || !sameRow(row, old[6], { count: old[1], valueCount: old[2], min: old[3], max: old[4], sum: old[5] })) writes.push(row);
  }
  for (const [start] of stored) if (!days.has(start)) emptied.push(start);
  return { writes, emptied, deleted, kept };
}
