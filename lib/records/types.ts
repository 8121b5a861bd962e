/**
 * The records store: bulk writes and streaming reads of time-series records on the native
 * drivers, keeping each series' summary (count, first/last timestamp, last record, version)
 * and its daily blocks (count, min, max, sum) current in the same transaction.
 */

/** Records sorted by timestamp, without duplicates. A NaN value is a null. */
export interface RecordBatch {
  readonly timestamps: Float64Array;
  readonly values: Float64Array;
  readonly flags: readonly string[];
}

export interface SeriesSummary {
  readonly count: number;
  readonly first: number | null;
  readonly last: number | null;
  readonly lastValue: number | null;
  readonly lastFlags: string | null;
  readonly version: number;
}

/** What a write's validation sees, inside the write's transaction. */
export interface WriteState {
  /** Timestamp of the latest stored record. */
  readonly lastStored: number | null;
  /** The batch's timestamps that are already stored (computed for mode "insert" only). */
  readonly existing: ReadonlySet<number>;
}

/**
 * Statements (Prisma.sql) run in a write's transaction after its records, before the commit: so
 * the write and what it causes (a queued job, lib/jobs) commit or roll back together. On SQLite
 * they run synchronously on the native connection (`sql.sql`), on PostgreSQL on the write's
 * client (`sql.text`).
 */
export interface AlsoOptions {
  readonly also?: readonly Prisma.Sql[];
}

/**
 * A replacement that only a current holder may make: `onlyIf` runs first in the transaction and
 * must return a row, else nothing is changed and replace throws ReplaceRefused. A job handler
 * passes queue.heldJobSql, so that a run whose job was taken over cannot write (fencing).
 */
export interface ReplaceOptions extends AlsoOptions {
  readonly onlyIf?: Prisma.Sql;
  /**
   * The series' records from a timestamp ≤ from on, as `stored()` read them before: the
   * replacement compares its batch with these instead of reading the records in its transaction,
   * when the series' version is still the one read before them.
   */
  readonly stored?: StoredRecords | null;
}

/**
 * A series' records from `from` on (stored()), with its version as it was before they were read.
 * Every write of records raises the version in its transaction, so while the version is the
 * same the records are still these. A process run reads its target so while it reads its source
 * and computes, and its replacement then only compares (docs/decisions/0011).
 */
export interface StoredRecords {
  readonly seriesId: number;
  readonly from: number;
  readonly version: number;
  readonly chunks: readonly RecordChunk[];
}

/** The chunks of `stored` from `from` on, if they are the series' records now (`version`); else null. */
export function storedFrom(stored: StoredRecords | null | undefined, seriesId: number, from: number, version: number): RecordChunk[] | null {
  if (!stored || stored.seriesId !== seriesId || stored.version !== version || stored.from > from) return null;
  const out: RecordChunk[] = [];
  for (const chunk of stored.chunks) {
    if (chunk.length === 0 || chunk.timestamps[chunk.length - 1] < from) continue;
    if (chunk.timestamps[0] >= from) {
      out.push(chunk);
      continue;
    }
    let k = 0;
    while (chunk.timestamps[k] < from) k++;
    out.push({ timestamps: chunk.timestamps.subarray(k), values: chunk.values.subarray(k), flags: chunk.flags.slice(k), length: chunk.length - k });
  }
  return out;
}

/** replace's `onlyIf` returned no row: nothing was changed. */
export class ReplaceRefused extends Error {
  override readonly name = "ReplaceRefused";
}

/**
 * A read that had to leave its snapshot (lib/db/snapshot.ts: a slow reader of a long range) found
 * the series changed since: it cannot go on without mixing two states, and ends with this.
 */
export class RecordsChangedDuringRead extends Error {
  override readonly name = "RecordsChangedDuringRead";

  constructor(readonly seriesId: number) {
    super(`time series ${seriesId}: its records changed while a read of them was under way`);
  }
}

/** A write's `also` runs only when it stores records: not for a dry run, a failed validation or an empty batch. */
export interface WriteOptions extends AlsoOptions {
  readonly mode: "append" | "insert";
  /** Validate and roll back. */
  readonly dryRun?: boolean;
  /** Returns error messages; any message aborts the write with nothing stored. */
  readonly validate: (state: WriteState) => string[];
}

export type WriteResult = { ok: true; stored: number } | { ok: false; errors: string[] };

/** How `writeChunks` stores the records: appended (the default), or replacing the series' records from `replaceFrom` on. */
export interface ChunkedWriteOptions {
  /**
   * Replace, as `replace` does, the records from this timestamp on (from the first chunk's first
   * record when that is earlier).
   */
  readonly replaceFrom?: number;
  /**
   * The write's statements (as AlsoOptions.also), given the first timestamp written (a
   * replacement's effective `from`); not called when an append stores nothing.
   */
  readonly also?: (first: number) => readonly Prisma.Sql[];
}

/**
 * What a correction does to the stored records of its range (RecordsStore.correct): the stored
 * timestamps to delete, and the records to insert or overwrite (sorted, without duplicates,
 * every timestamp within the correction's range and not among `remove`).
 */
export interface CorrectionChange {
  readonly remove: Float64Array;
  readonly upsert: RecordBatch;
}

/** What a correction changed. Records that end up identical are in neither image. */
export interface CorrectionOutcome {
  /** The stored records it deleted or whose value or flags it changed, as they were. */
  readonly before: RecordBatch;
  /** The records it inserted or changed, as they are now. */
  readonly written: RecordBatch;
  /** The earliest and latest timestamp whose record changed; null when nothing changed. */
  readonly first: number | null;
  readonly last: number | null;
}

/** A correction of the records with from ≤ timestamp ≤ to, computed from them in the correction's transaction. */
export interface CorrectionPlan {
  readonly from: number;
  readonly to: number;
  /** Given the stored records of the range; error messages refuse the correction with nothing changed. */
  change(current: RecordBatch): CorrectionChange | { errors: string[] };
}

export interface CorrectOptions {
  /** Compute the outcome and roll back. */
  readonly dryRun?: boolean;
  /**
   * Statements run in the correction's transaction (as AlsoOptions.also), given its outcome: the
   * caller's record of the correction, the processing it queues. Called for every correction
   * that is applied (not for a dry run or a refused one), also when nothing changed.
   */
  readonly also?: (outcome: CorrectionOutcome) => readonly Prisma.Sql[];
}

export type CorrectResult = ({ ok: true } & CorrectionOutcome) | { ok: false; errors: string[] };

/** An append whose first record is not later than the last stored one: nothing was written. */
export class RecordsOverlap extends Error {
  override readonly name = "RecordsOverlap";
}

/** A chunk of records read in timestamp order. `values` has NaN for null. */
export interface RecordChunk {
  readonly timestamps: Float64Array;
  readonly values: Float64Array;
  readonly flags: string[];
  readonly length: number;
}

/** A record found by a lookup. */
export interface FoundRecord {
  readonly timestamp: number;
  readonly value: number | null;
  readonly flags: string;
}

/** Count, sum, minimum and maximum of the non-null values of a range (min Infinity and max -Infinity when count is 0). */
export interface RangeAggregate {
  count: number;
  sum: number;
  min: number;
  max: number;
}

import type { Prisma } from "@/lib/db";
import { intervalOf, type ChartAggregates } from "@/lib/formats/chart";

export type { ChartAggregates };

export interface RecordsStore {
  write(seriesId: number, batch: RecordBatch, options: WriteOptions): Promise<WriteResult>;
  /**
   * In one transaction: deletes the series' records with timestamp ≥ from and stores `batch`
   * (every timestamp ≥ from), keeping the summary and the daily blocks exact; then runs `also`.
   * Returns the number of records written. Readers see the old records or the new, never a mixture.
   */
  replace(seriesId: number, from: number, batch: RecordBatch, options?: ReplaceOptions): Promise<number>;
  /**
   * An append (or a replacement) whose records arrive in chunks, each sorted and later than the
   * one before, without holding them all in memory: one transaction, begun once the first
   * non-empty chunk (or the end) has arrived, into which each chunk is written as it comes; a
   * failure of `chunks` rolls it back, so readers see all the records or none. Returns the
   * number of records written. An append that overlaps the stored records throws RecordsOverlap.
   */
  writeChunks(seriesId: number, chunks: AsyncIterable<RecordBatch>, options?: ChunkedWriteOptions): Promise<number>;
  /**
   * The series' records from `from` on, read after its version, for a later `replace` from a
   * timestamp ≥ from (ReplaceOptions.stored); read on the primary, by a worker thread on SQLite.
   * Null when the series does not exist.
   */
  stored(seriesId: number, from: number): Promise<StoredRecords | null>;
  /**
   * In one transaction, serialized with the series' other writes: reads the stored records of
   * [from, to], asks `plan.change` what to do with them, applies it keeping the summary, the
   * version (raised only when a record changed) and the daily blocks exact, runs `also` and
   * commits (a dry run rolls back). Values are normalized as uploads store them (NaN is null,
   * -0 is 0); a timestamp outside the store's range or a value that is not finite refuses the
   * correction. A change that breaks CorrectionChange's rules throws.
   */
  correct(seriesId: number, plan: CorrectionPlan, options?: CorrectOptions): Promise<CorrectResult>;
  /** Records with from ≤ timestamp ≤ to, in order, in chunks (bounded memory). */
  read(seriesId: number, from: number, to: number, chunkSize?: number): AsyncGenerator<RecordChunk>;
  /** The latest record with lo ≤ timestamp ≤ hi; with `valued`, the latest with a value; with `value`, the latest with exactly that value. */
  latest(seriesId: number, lo: number, hi: number, match?: { valued?: boolean; value?: number }): Promise<FoundRecord | null>;
  /** The earliest record with lo ≤ timestamp ≤ hi. */
  earliest(seriesId: number, lo: number, hi: number): Promise<FoundRecord | null>;
  /** The records of each UTC day given by its start (blockStart), in the order given. */
  readDays(seriesId: number, days: readonly number[]): Promise<RecordChunk[]>;
  /** The record of each (series, timestamp) pair, or null where there is none. */
  recordsAt(pairs: readonly (readonly [seriesId: number, timestamp: number])[]): Promise<(FoundRecord | null)[]>;
  /** Count, sum, min and max of the non-null values of each range [lo, hi]: whole days from the daily blocks, the rest from the records. */
  aggregateRanges(seriesId: number, ranges: readonly (readonly [lo: number, hi: number])[]): Promise<RangeAggregate[]>;
  /**
   * Stores that keep records in day blocks: moves a series' records stored as rows (before
   * migration 0016) into its blocks, in one transaction; returns how many it moved.
   */
  convert?(seriesId: number): Promise<number>;
  summary(seriesId: number): Promise<SeriesSummary | null>;
  /** The number of records with from ≤ timestamp ≤ to, from the blocks and the records of the edge days. */
  count(seriesId: number, from: number, to: number): Promise<number>;
  /**
   * Aggregates over N intervals of [S, E] as the chart defines them (formats.md §7.2): record t
   * goes to floor((t − S)·N / D), the last interval taking E (and everything when D = 0).
   */
  aggregate(seriesId: number, S: number, E: number, N: number): Promise<ChartAggregates>;
  /** Frees what the store holds besides the database connection (a reader thread). */
  close?(): void;
}

/** A chunk being fetched: how many records were asked for, and the promise of them. */
export interface ChunkRequest {
  readonly limit: number;
  readonly chunk: Promise<RecordChunk>;
}

/**
 * The chunks from `from` on, each fetched while the consumer handles the previous one (at most
 * one waits). `fetch(from, k)` asks for the k-th chunk; one shorter than asked for is the last.
 */
export async function* readAhead(from: number, fetch: (from: number, k: number) => ChunkRequest): AsyncGenerator<RecordChunk> {
  let request: ChunkRequest | null = fetch(from, 0);
  try {
    for (let k = 1; request; k++) {
      const chunk: RecordChunk = await request.chunk;
      if (chunk.length === 0) return;
      request = chunk.length === request.limit ? fetch(chunk.timestamps[chunk.length - 1] + 1, k) : null;
      yield chunk;
    }
  } finally {
    // A consumer that stopped early leaves the waiting chunk to finish (and free its connection).
    request?.chunk.catch(() => undefined);
  }
}

export const DAY = 86_400;

/** Stored records compared at a time by a replace that writes only the differences. */
export const DIFF_CHUNK = 50_000;

/**
 * What a replace must write to turn the stored records ≥ from into `batch`: the batch's records
 * that are new or differ (value or flags) and the stored timestamps that it lacks. A process run
 * from scratch mostly recomputes what is stored, and reading and comparing the stored records
 * costs far less than deleting and inserting them all. The stores feed the stored records in
 * order, chunk by chunk; `add` says false as soon as more than a quarter of those compared differ
 * (the store then deletes and inserts everything, having read little).
 */
export class RecordDifferences {
  /** Indexes into the batch of the records to insert or update. */
  readonly changed: number[] = [];
  /** Stored timestamps that the batch lacks. */
  readonly gone: number[] = [];
  /** Stored records compared. */
  stored = 0;
  private next = 0;

  constructor(private readonly batch: RecordBatch) {}

  add(chunk: RecordChunk): boolean {
    const { timestamps, values, flags } = this.batch;
    const n = timestamps.length;
    let i = this.next;
    for (let j = 0; j < chunk.length; j++) {
      const t = chunk.timestamps[j];
      while (i < n && timestamps[i] < t) this.changed.push(i++);
      if (i < n && timestamps[i] === t) {
        const v = values[i];
        const old = chunk.values[j];
        if (!(v === old || (v !== v && old !== old)) || flags[i] !== chunk.flags[j]) this.changed.push(i);
        i++;
      } else {
        this.gone.push(t);
      }
    }
    this.next = i;
    this.stored += chunk.length;
    return this.few(Math.max(this.stored, i));
  }

  /** After the last stored record: whether few enough differ. */
  finish(): boolean {
    const n = this.batch.timestamps.length;
    while (this.next < n) this.changed.push(this.next++);
    return this.few(Math.max(this.stored, n));
  }

  /** The batch's records to insert or update. */
  changedRecords(): RecordBatch {
    const pick = Int32Array.from(this.changed);
    const { timestamps, values, flags } = this.batch;
    return { timestamps: Float64Array.from(pick, (k) => timestamps[k]), values: Float64Array.from(pick, (k) => values[k]), flags: Array.from(pick, (k) => flags[k]) };
  }

  private few(compared: number): boolean {
    return 4 * (this.changed.length + this.gone.length) <= Math.max(compared, DIFF_CHUNK);
  }
}

/** Refuses a replacement batch with a record before `from` (it would survive the next replace). */
export function checkReplacement(from: number, batch: RecordBatch): void {
  if (!Number.isSafeInteger(from)) throw new Error(`replace: not an integer timestamp: ${from}`);
  if (batch.timestamps.length && batch.timestamps[0] < from) {
    throw new Error(`replace: the batch starts at ${batch.timestamps[0]}, before ${from}`);
  }
}

/** No records. */
export const EMPTY_BATCH: RecordBatch = { timestamps: new Float64Array(0), values: new Float64Array(0), flags: [] };

/**
 * Where a chunked write begins, given its first chunk (null when empty) and the series' last
 * stored timestamp: `from`, the first record or, for a replacement, the earlier of it and
 * `replaceFrom`. Refuses an append that does not start after the last stored record
 * (RecordsOverlap) and a replacement batch that starts before `from`.
 */
export function chunkedWriteStart(first: RecordBatch | null, options: ChunkedWriteOptions, lastStored: number | null): number {
  const firstT = first === null ? null : first.timestamps[0];
  if (options.replaceFrom !== undefined) {
    const from = Math.min(options.replaceFrom, firstT ?? Infinity);
    checkReplacement(from, first ?? EMPTY_BATCH);
    return from;
  }
  if (lastStored !== null && firstT! <= lastStored) {
    throw new RecordsOverlap(`the records start at ${firstT}, not after the last stored one (${lastStored})`);
  }
  return firstT!;
}

/** The start of the UTC day holding t. */
export function blockStart(t: number): number {
  return Math.floor(t / DAY) * DAY;
}

/** Per-block aggregates of a sorted batch, to merge into the stored blocks. */
export interface BatchBlocks {
  starts: number[];
  counts: number[];
  valueCounts: number[];
  mins: (number | null)[];
  maxs: (number | null)[];
  sums: (number | null)[];
}

/**
 * The first non-empty chunk of `chunks` (null at their end), and the iterator to read the rest
 * from: a chunked write reads it before it begins its transaction.
 */
export async function firstChunk(chunks: AsyncIterable<RecordBatch>): Promise<{ first: RecordBatch | null; rest: AsyncIterator<RecordBatch> }> {
  const rest = chunks[Symbol.asyncIterator]();
  for (;;) {
    const next = await rest.next();
    if (next.done) return { first: null, rest };
    if (next.value.timestamps.length > 0) return { first: next.value, rest };
  }
}

/** The chunks `first` and then the non-empty ones of `rest`, each checked to follow the one before. */
export async function* chunksFrom(first: RecordBatch | null, rest: AsyncIterator<RecordBatch>): AsyncGenerator<RecordBatch> {
  if (first === null) return;
  yield first;
  let last = first.timestamps[first.timestamps.length - 1];
  for (;;) {
    const next = await rest.next();
    if (next.done) return;
    const chunk = next.value;
    const n = chunk.timestamps.length;
    if (n === 0) continue;
    if (chunk.timestamps[0] <= last) throw new Error(`writeChunks: a chunk starts at ${chunk.timestamps[0]}, not after ${last}`);
    last = chunk.timestamps[n - 1];
    yield chunk;
  }
}

/**
 * The daily blocks of records added in order, chunk after chunk: a day that spans two chunks is
 * summed on in the same order as in one batch, so the blocks are those of the whole batch.
 */
export class BlockBuilder {
  readonly out: BatchBlocks = { starts: [], counts: [], valueCounts: [], mins: [], maxs: [], sums: [] };
  private start = NaN;
  private count = 0;
  private valueCount = 0;
  private min = Infinity;
  private max = -Infinity;
  private sum = 0;

  add(batch: RecordBatch): this {
    const { timestamps, values } = batch;
    let end = this.start + DAY;
    for (let i = 0; i < timestamps.length; i++) {
      const t = timestamps[i];
      if (!(t < end)) {
        this.close();
        this.start = blockStart(t);
        end = this.start + DAY;
      }
      this.count++;
      const v = values[i];
      if (v === v) {
        this.valueCount++;
        if (v < this.min) this.min = v;
        if (v > this.max) this.max = v;
        this.sum += v;
      }
    }
    return this;
  }

  /** The blocks of everything added. */
  blocks(): BatchBlocks {
    this.close();
    return this.out;
  }

  private close(): void {
    if (this.count > 0) {
      const { out, valueCount } = this;
      out.starts.push(this.start);
      out.counts.push(this.count);
      out.valueCounts.push(valueCount);
      out.mins.push(valueCount ? this.min : null);
      out.maxs.push(valueCount ? this.max : null);
      out.sums.push(valueCount ? this.sum : null);
    }
    this.start = NaN;
    this.count = 0;
    this.valueCount = 0;
    this.min = Infinity;
    this.max = -Infinity;
    this.sum = 0;
  }
}

export function batchBlocks(batch: RecordBatch): BatchBlocks {
  return new BlockBuilder().add(batch).blocks();
}

/** Adds an aggregate of `count` non-null values to interval i. */
export function mergeInto(a: ChartAggregates, i: number, count: number, min: number, max: number, sum: number): void {
  if (count === 0) return;
  a.count[i] += count;
  a.sum[i] += sum;
  if (min < a.min[i]) a.min[i] = min;
  if (max > a.max[i]) a.max[i] = max;
}

/** A stored daily block as the stores read it: start, non-null count, min, max, sum. */
export type BlockRow = [number, number, number | null, number | null, number | null];

/**
 * Merges into `out` the blocks that lie wholly inside one interval, and returns the ranges
 * whose records must be aggregated one by one (planBlocks' edges).
 */
export function mergeWholeBlocks(out: ChartAggregates, S: number, E: number, N: number, blocks: BlockRow[]): [number, number][] {
  const plan = planBlocks(S, E, N, blocks.map((b) => b[0]));
  for (let k = 0; k < blocks.length; k++) {
    const i = plan.whole[k];
    if (i >= 0) {
      const [, count, min, max, sum] = blocks[k];
      mergeInto(out, i, count, min ?? Infinity, max ?? -Infinity, sum ?? 0);
    }
  }
  return plan.edges;
}

/**
 * The plan of an aggregation over daily blocks: blocks that lie wholly inside one interval are
 * taken whole; records of the blocks that straddle an interval boundary (or the range's ends)
 * are aggregated from the records themselves, in `edges` ([lo, hi] inclusive ranges).
 */
export function planBlocks(S: number, E: number, N: number, blockStarts: ArrayLike<number>): { whole: Int32Array; edges: [number, number][] } {
  const whole = new Int32Array(blockStarts.length).fill(-1);
  const edges: [number, number][] = [];
  for (let k = 0; k < blockStarts.length; k++) {
    const b = blockStarts[k];
    const last = b + DAY - 1;
    if (b >= S && last <= E) {
      const i = intervalOf(b, S, E, N);
      if (i === intervalOf(last, S, E, N)) {
        whole[k] = i;
        continue;
      }
    }
    const lo = Math.max(b, S);
    const hi = Math.min(last, E);
    const previous = edges[edges.length - 1];
    if (previous && previous[1] + 1 === lo) previous[1] = hi;
    else edges.push([lo, hi]);
  }
  return { whole, edges };
}

/** Splits [from, to] into whole days (counted from blocks) and the partial days at its ends. */
export function countPlan(from: number, to: number): { wholeFrom: number; wholeTo: number; edges: [number, number][] } {
  const wholeFrom = Math.ceil(from / DAY) * DAY;
  const wholeTo = Math.floor((to + 1) / DAY) * DAY - DAY;
  if (wholeFrom > wholeTo) return { wholeFrom: 1, wholeTo: 0, edges: [[from, to]] };
  const edges: [number, number][] = [];
  if (from < wholeFrom) edges.push([from, wholeFrom - 1]);
  if (to >= wholeTo + DAY) edges.push([wholeTo + DAY, to]);
  return { wholeFrom, wholeTo, edges };
}

export function newRangeAggregate(): RangeAggregate {
  return { count: 0, sum: 0, min: Infinity, max: -Infinity };
}

/** Adds an aggregate of `count` non-null values (the database's nulls when count is 0) to `a`. */
export function addAggregate(a: RangeAggregate, count: number | null, sum: number | null, min: number | null, max: number | null): void {
  if (!count) return;
  a.count += Number(count);
  a.sum += Number(sum);
  if (Number(min) < a.min) a.min = Number(min);
  if (Number(max) > a.max) a.max = Number(max);
}

/** A timestamp bound as a safe integer (±Infinity and beyond clamped), for SQL. */
export function safeBound(t: number): number {
  return Math.min(Math.max(t, -Number.MAX_SAFE_INTEGER), Number.MAX_SAFE_INTEGER);
}

/** Below this interval width, blocks cannot help and records are aggregated directly. */
export const BLOCK_PLAN_MIN_WIDTH = 2 * DAY;

/** A series' last record: timestamp, value, flags (all null when it has none). */
export type LastRecord = [number | null, number | null, string | null];
