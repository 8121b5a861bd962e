import { sqliteValue, type Db } from "@/lib/db";
import type { SqliteDatabase } from "@/lib/db/sqlite";
import {
  asBatch, concatChunks, DayGrouper, dayRow, type DayRow, daysFromRows, daysOf, type DaySummary, decodeDay, lastOf, mergeRecords,
  mergeSummaries, rangePieces, type RangePieces, type RangeRow, replacement, sliceOf, sqlSummaryOf, type StoredDay, type StoredRow, summaryOf,
  type UnionRow, within,
} from "@/lib/records/blocks";
import { type AggregateRow, BlockReads, type Match } from "@/lib/records/block-reads";
import { decodeBlock } from "@/lib/records/codec";
import { applyCorrection, correctionSpan } from "@/lib/records/correction";
import { chunkReader } from "@/lib/records/sqlite-chunks.mjs";
import {
  type BlockRow, blockStart, checkReplacement, type ChunkedWriteOptions, type CorrectionPlan, type CorrectOptions,
  type CorrectResult, DAY, DIFF_CHUNK, EMPTY_BATCH, type LastRecord, type RecordBatch, type RecordChunk, type RecordsStore, type ReplaceOptions,
  ReplaceRefused, type SeriesSummary, type StoredRecords, type WriteOptions, type WriteResult,
} from "@/lib/records/types";
import { SqliteConnections } from "@/lib/records/sqlite-shared";

/** Day rows per INSERT statement (10 values each, well under SQLite's variable limit). */
const ROWS_PER_INSERT = 50;
const BLOCK_COLUMNS = "(timeseries_id, block_start, count, value_count, min, max, sum, first_timestamp, last_timestamp, records)";

/**
 * The records store on SQLite with records in day blocks (docs/decisions/0019): every write is
 * one synchronous transaction under the process's write lock; a series still stored as rows
 * (before migration 0016) is converted in the transaction of its first write, and read from its
 * rows until then (each statement reads both).
 */
export class SqliteBlockStore extends BlockReads implements RecordsStore {
  /** SQLite's SUM compensates (Kahan–Babuška–Neumaier). */
  protected readonly compensatedSum = true;
  private readonly sql: SqliteConnections;

  constructor(db: Db, private readonly conn: SqliteDatabase) {
    super();
    this.sql = new SqliteConnections(db, conn);
  }

  // Fetching: each statement reads the day blocks and the rows of a series not yet converted.

  private fetchRangeOn(conn: SqliteDatabase, seriesId: number, from: number, to: number, maxDays: number, maxRows: number): RangePieces {
    const rows = this.sql.stmt(`
      SELECT block_start, count, records, NULL, NULL, NULL FROM (SELECT block_start, count, records FROM timeseries_block
        WHERE timeseries_id = ? AND block_start >= ? AND block_start <= ? AND records IS NOT NULL ORDER BY block_start LIMIT ?)
      UNION ALL
      SELECT NULL, NULL, NULL, timestamp, value, flags FROM (SELECT timestamp, value, flags FROM timeseries_record
        WHERE timeseries_id = ? AND timestamp >= ? AND timestamp <= ? ORDER BY timestamp LIMIT ?)`, conn).raw(true)
      .all(seriesId, blockStart(from), to, maxDays, seriesId, from, to, maxRows) as [number | null, number | null, Buffer | null, number | null, number | null, string | null][];
    return rangePieces(rows as RangeRow[]);
  }

  /** The stored days of (series, day start) keys, with their summaries, by series and day. */
  private fetchDaysOn(conn: SqliteDatabase, keys: readonly (readonly [number, number])[]): Map<number, Map<number, StoredDay>> {
    const out = new Map<number, Map<number, StoredDay>>();
    if (keys.length === 0) return out;
    const json = JSON.stringify(keys);
    const rows = this.sql.stmt(`
      SELECT b.timeseries_id, b.block_start, b.count, b.value_count, b.min, b.max, b.sum, b.records, NULL, NULL, NULL FROM json_each(?) AS k
        JOIN timeseries_block b ON b.timeseries_id = k.value ->> 0 AND b.block_start = k.value ->> 1
      UNION ALL
      SELECT r.timeseries_id, NULL, NULL, NULL, NULL, NULL, NULL, NULL, r.timestamp, r.value, r.flags FROM json_each(?) AS k
        JOIN timeseries_record r ON r.timeseries_id = k.value ->> 0 AND r.timestamp >= k.value ->> 1 AND r.timestamp < (k.value ->> 1) + ${DAY}`, conn)
      .raw(true).all(json, json) as [number, ...UnionRow][];
    const bySeries = new Map<number, UnionRow[]>();
    for (const [id, ...rest] of rows) {
      let list = bySeries.get(id);
      if (!list) bySeries.set(id, (list = []));
      list.push(rest);
    }
    for (const [id, list] of bySeries) out.set(id, daysFromRows(list));
    return out;
  }

  private storedDays(conn: SqliteDatabase, seriesId: number, days: readonly number[]): Map<number, StoredDay> {
    return this.fetchDaysOn(conn, days.map((d) => [seriesId, d] as const)).get(seriesId) ?? new Map();
  }

  /** Whether the series still has records stored as rows (before migration 0016). */
  private hasRows(conn: SqliteDatabase, seriesId: number): boolean {
    return this.sql.stmt("SELECT 1 FROM timeseries_record WHERE timeseries_id = ? LIMIT 1", conn).get(seriesId) !== undefined;
  }

  /**
   * Moves the series' rows into its day blocks (in the caller's transaction), keeping the days'
   * summaries as the row store left them; returns the number of records moved.
   */
  private convertIn(conn: SqliteDatabase, seriesId: number): number {
    const read = chunkReader(conn);
    const setRecords = this.sql.stmt(`UPDATE timeseries_block SET first_timestamp = ?, last_timestamp = ?, records = ?
      WHERE timeseries_id = ? AND block_start = ?`, conn);
    const missing: DayRow[] = [];
    let moved = 0;
    let carry: RecordBatch = EMPTY_BATCH;
    const flush = (day: RecordBatch) => {
      const row = dayRow(blockStart(day.timestamps[0]), day);
      if (setRecords.run(row.first, row.last, row.records, seriesId, row.start).changes === 0) missing.push(row);
    };
    for (let next = -Number.MAX_SAFE_INTEGER; ;) {
      const c = read(seriesId, next, Number.MAX_SAFE_INTEGER, DIFF_CHUNK);
      const flags: string[] = new Array(c.length).fill("");
      for (let k = 0; k < c.flagged.length; k++) flags[c.flagged[k]] = c.flagTexts[k];
      const chunk = mergeRecords(carry, { timestamps: c.timestamps, values: c.values, flags });
      const days = daysOf(chunk);
      const done = c.length < DIFF_CHUNK;
      // The last day may go on in the next chunk.
      for (let k = 0; k < days.length - (done ? 0 : 1); k++) flush(sliceOf(chunk, days[k].from, days[k].to));
      carry = done || days.length === 0 ? EMPTY_BATCH : sliceOf(chunk, days[days.length - 1].from, days[days.length - 1].to);
      moved += c.length;
      if (done) break;
      next = c.timestamps[c.length - 1] + 1;
    }
    // A day without its summary (the row store always wrote one): written with one.
    this.writeRows(conn, seriesId, missing);
    this.sql.stmt("DELETE FROM timeseries_record WHERE timeseries_id = ?", conn).run(seriesId);
    return moved;
  }

  private convertIfRows(conn: SqliteDatabase, seriesId: number): void {
    if (this.hasRows(conn, seriesId)) this.convertIn(conn, seriesId);
  }

  async convert(seriesId: number): Promise<number> {
    return this.sql.transaction(() => ({ value: this.hasRows(this.conn, seriesId) ? this.convertIn(this.conn, seriesId) : 0, commit: true }));
  }

  // Writing.

  /** Writes day rows, replacing those of the same days. */
  private writeRows(conn: SqliteDatabase, seriesId: number, rows: readonly DayRow[]): void {
    const params = (r: DayRow) => [seriesId, r.start, r.count, r.valueCount, r.min, r.max, r.sum, r.first, r.last, r.records];
    let i = 0;
    if (rows.length >= ROWS_PER_INSERT) {
      const many = this.sql.stmt(`INSERT OR REPLACE INTO timeseries_block ${BLOCK_COLUMNS} VALUES ${new Array(ROWS_PER_INSERT).fill("(?, ?, ?, ?, ?, ?, ?, ?, ?, ?)").join(", ")}`, conn);
      for (; i + ROWS_PER_INSERT <= rows.length; i += ROWS_PER_INSERT) many.run(rows.slice(i, i + ROWS_PER_INSERT).flatMap(params));
    }
    const one = this.sql.stmt(`INSERT OR REPLACE INTO timeseries_block ${BLOCK_COLUMNS} VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`, conn);
    for (; i < rows.length; i++) one.run(params(rows[i]));
  }

  private deleteDay(conn: SqliteDatabase, seriesId: number, day: number): void {
    this.sql.stmt("DELETE FROM timeseries_block WHERE timeseries_id = ? AND block_start = ?", conn).run(seriesId, day);
  }

  /** The rows of the batch's days, each merged with the records stored that day. */
  private mergedRows(batch: RecordBatch, stored: Map<number, StoredDay>): DayRow[] {
    return daysOf(batch).map(({ start, from, to }) => {
      const part = sliceOf(batch, from, to);
      const day = stored.get(start);
      return day ? dayRow(start, mergeRecords(asBatch(decodeDay(day)), part), mergeSummaries(day.summary, summaryOf(part))) : dayRow(start, part);
    });
  }

  /** The stored days that the batch's days may meet: those within the series' first and last record. */
  private daysMet(conn: SqliteDatabase, seriesId: number, batch: RecordBatch, first: number | null, last: number | null): Map<number, StoredDay> {
    if (first === null || last === null || batch.timestamps.length === 0) return new Map();
    const lo = blockStart(first);
    const hi = blockStart(last);
    const days = daysOf(batch).map((d) => d.start).filter((d) => d >= lo && d <= hi);
    return this.storedDays(conn, seriesId, days);
  }

  async write(seriesId: number, batch: RecordBatch, options: WriteOptions): Promise<WriteResult> {
    return this.sql.transaction<WriteResult>(() => {
      const conn = this.conn;
      const row = this.sql.stmt("SELECT first_timestamp, last_timestamp FROM timeseries WHERE id = ?").get(seriesId) as
        { first_timestamp: number | null; last_timestamp: number | null } | undefined;
      if (!row) throw new Error(`time series ${seriesId} does not exist`);
      const n = batch.timestamps.length;
      const stored = this.daysMet(conn, seriesId, batch, row.first_timestamp, row.last_timestamp);
      const existing = new Set<number>();
      if (options.mode === "insert" && stored.size > 0) {
        const wanted = new Set(batch.timestamps);
        for (const day of stored.values()) for (const t of decodeDay(day).timestamps) if (wanted.has(t)) existing.add(t);
      }
      const errors = options.validate({ lastStored: row.last_timestamp, existing });
      if (errors.length) return { value: { ok: false, errors }, commit: false };
      if (n === 0 || options.dryRun) return { value: { ok: true, stored: n }, commit: false };
      this.convertIfRows(conn, seriesId);
      this.writeRows(conn, seriesId, this.mergedRows(batch, stored));
      this.sql.appendedSummary(conn, seriesId, n, batch.timestamps[0], lastOf(batch));
      this.sql.runAlso(options);
      return { value: { ok: true, stored: n }, commit: true };
    });
  }

  async replace(seriesId: number, from: number, batch: RecordBatch, options: ReplaceOptions = {}): Promise<number> {
    checkReplacement(from, batch);
    return this.sql.transaction(() => {
      const conn = this.conn;
      const { onlyIf } = options;
      if (onlyIf && !this.sql.stmt(onlyIf.sql).get(onlyIf.values.map(sqliteValue))) throw new ReplaceRefused("replace: its condition does not hold");
      if (this.sql.stmt("SELECT 1 FROM timeseries WHERE id = ?").get(seriesId) === undefined) throw new Error(`time series ${seriesId} does not exist`);
      this.convertIfRows(conn, seriesId);
      const day0 = blockStart(from);
      const stored = this.sql.stmt(`SELECT block_start, count, value_count, min, max, sum, records FROM timeseries_block
        WHERE timeseries_id = ? AND block_start >= ? ORDER BY block_start`).raw(true).all(seriesId, day0) as StoredRow[];
      const n = batch.timestamps.length;
      const { writes, emptied, deleted, kept } = replacement(stored, from, batch, true);
      for (const start of emptied) this.deleteDay(conn, seriesId, start);
      this.writeRows(conn, seriesId, writes);
      if (deleted > 0 || n > 0) {
        const last = n > 0 ? lastOf(batch) : kept.timestamps.length > 0 ? lastOf(kept) : this.lastBefore(conn, seriesId, day0);
        this.sql.replacedSummary(conn, seriesId, from, deleted, n, n > 0 ? batch.timestamps[0] : null, last);
      }
      this.sql.runAlso(options);
      return { value: n, commit: true };
    });
  }

  /** The last record of the days before `day`, as [timestamp, value, flags] (nulls when none). */
  private lastBefore(conn: SqliteDatabase, seriesId: number, day: number): LastRecord {
    const row = this.sql.stmt(`SELECT block_start, records FROM timeseries_block WHERE timeseries_id = ? AND block_start < ? AND records IS NOT NULL
      ORDER BY block_start DESC LIMIT 1`, conn).raw(true).get(seriesId, day) as [number, Buffer] | undefined;
    if (!row) return [null, null, null];
    return lastOf(asBatch(decodeBlock(row[1], row[0])));
  }

  writeChunks(seriesId: number, chunks: AsyncIterable<RecordBatch>, options: ChunkedWriteOptions = {}): Promise<number> {
    return this.sql.writeChunks(seriesId, chunks, options,
      (conn, first, all, from) => this.writeChunksInTransaction(conn, seriesId, first, all, from, options));
  }

  private async writeChunksInTransaction(
    conn: SqliteDatabase, seriesId: number, first: RecordBatch | null, chunks: AsyncIterable<RecordBatch>, from: number, options: ChunkedWriteOptions,
  ): Promise<number> {
    const firstT = first === null ? null : first.timestamps[0];
    const replacing = options.replaceFrom !== undefined;
    this.convertIfRows(conn, seriesId);
    // The records of the day being gathered (it may go on in the next chunk), begun with what
    // is kept of the stored day holding the first record (or `from`), and its summary.
    const day0 = blockStart(from);
    const stored = this.sql.stmt("SELECT count, value_count, min, max, sum, records FROM timeseries_block WHERE timeseries_id = ? AND block_start = ?", conn)
      .raw(true).get(seriesId, day0) as [number, number, number | null, number | null, number | null, Buffer | null] | undefined;
    let deleted = 0;
    let kept: RecordBatch = EMPTY_BATCH;
    let base: DaySummary | null = null;
    if (stored) {
      const [count, valueCount, min, max, sum, bytes] = stored;
      kept = asBatch(within(decodeBlock(bytes!, day0), -Infinity, from - 1));
      deleted += count - kept.timestamps.length;
      base = replacing ? sqlSummaryOf(kept, true) : { count, valueCount, min, max, sum };
    }
    if (replacing) {
      deleted += (this.sql.stmt("SELECT COALESCE(SUM(count), 0) FROM timeseries_block WHERE timeseries_id = ? AND block_start > ?", conn).pluck()
        .get(seriesId, day0) as number);
      // Nothing stored from `from` on and nothing to write: nothing changes (the day's summary neither).
      if (deleted === 0 && first === null) {
        this.sql.runAlso({ also: options.also?.(from) }, conn);
        return 0;
      }
      this.sql.stmt("DELETE FROM timeseries_block WHERE timeseries_id = ? AND block_start > ?", conn).run(seriesId, day0);
    }
    if (stored) this.deleteDay(conn, seriesId, day0);
    // Synchronously in the loop (not through the async generator dayRowsOf): the rows are
    // inserted as the days complete, and uploads measured about 10% slower through it.
    const grouper = new DayGrouper(day0, kept, base);
    const rows: DayRow[] = [];
    const done = (row: DayRow) => {
      rows.push(row);
      if (rows.length >= ROWS_PER_INSERT) this.writeRows(conn, seriesId, rows.splice(0));
    };
    for await (const chunk of chunks) grouper.add(chunk, done);
    grouper.finish(done);
    this.writeRows(conn, seriesId, rows);
    const { n, last } = grouper;
    const lastRecord = last === null ? null : lastOf(last);
    if (replacing) {
      if (deleted > 0 || n > 0) {
        this.sql.replacedSummary(conn, seriesId, from, deleted, n, firstT, lastRecord ?? (kept.timestamps.length ? lastOf(kept) : this.lastBefore(conn, seriesId, day0)));
      }
    } else if (n > 0) {
      this.sql.appendedSummary(conn, seriesId, n, firstT!, lastRecord!);
    }
    if (n > 0 || replacing) this.sql.runAlso({ also: options.also?.(from) }, conn);
    return n;
  }

  async correct(seriesId: number, plan: CorrectionPlan, options: CorrectOptions = {}): Promise<CorrectResult> {
    return this.sql.transaction<CorrectResult>(() => {
      const conn = this.conn;
      if (this.sql.stmt("SELECT 1 FROM timeseries WHERE id = ?").get(seriesId) === undefined) throw new Error(`time series ${seriesId} does not exist`);
      const { lo, hi } = correctionSpan(plan.from, plan.to);
      const chunks: RecordChunk[] = [];
      for (let next = lo; next <= hi;) {
        const { blocks, rows } = this.fetchRangeOn(conn, seriesId, next, hi, 512, DIFF_CHUNK);
        if (rows) chunks.push(rows);
        for (const b of blocks) chunks.push(decodeBlock(b.bytes, b.start));
        if (blocks.length < 512 && (rows?.length ?? 0) < DIFF_CHUNK) break;
        next = rows ? rows.timestamps[rows.length - 1] + 1 : blocks[blocks.length - 1].start + DAY;
      }
      const applied = applyCorrection(concatChunks(chunks), plan);
      if ("errors" in applied) return { value: { ok: false, errors: applied.errors }, commit: false };
      const { outcome } = applied;
      if (options.dryRun) return { value: { ok: true, ...outcome }, commit: false };
      if (outcome.first !== null) {
        this.convertIfRows(conn, seriesId);
        for (const day of applied.emptiedDays) this.deleteDay(conn, seriesId, day);
        this.writeRows(conn, seriesId, applied.days.map((d) => dayRow(d.start, d.records)));
        this.correctedSummary(conn, seriesId, applied.countDelta);
      }
      this.sql.runAlso({ also: options.also?.(outcome) });
      return { value: { ok: true, ...outcome }, commit: true };
    });
  }

  /** The summary after a change anywhere in the series: its first and last record from its first and last block. */
  private correctedSummary(conn: SqliteDatabase, seriesId: number, countDelta: number): void {
    const first = this.sql.stmt("SELECT first_timestamp FROM timeseries_block WHERE timeseries_id = ? ORDER BY block_start LIMIT 1", conn).pluck()
      .get(seriesId) as number | undefined;
    const last = this.lastBefore(conn, seriesId, Number.MAX_SAFE_INTEGER);
    this.sql.stmt(`UPDATE timeseries SET record_count = record_count + ?, first_timestamp = ?, last_timestamp = ?, last_value = ?, last_flags = ?,
        version = version + 1, last_modified = ? WHERE id = ?`, conn).run(countDelta, first ?? null, ...last, Date.now(), seriesId);
  }

  // Reading.

  async stored(seriesId: number, from: number): Promise<StoredRecords | null> {
    const version = this.sql.stmt("SELECT version FROM timeseries WHERE id = ?").pluck().get(seriesId) as number | undefined;
    if (version === undefined) return null;
    const chunks: RecordChunk[] = [];
    for await (const chunk of this.read(seriesId, from, Number.MAX_SAFE_INTEGER, DIFF_CHUNK)) chunks.push(chunk);
    return { seriesId, from, version, chunks };
  }

  close(): void {
    this.sql.close();
  }

  summary(seriesId: number): Promise<SeriesSummary | null> {
    return this.sql.summary(seriesId);
  }

  // The queries of BlockReads.

  protected async fetchRange(seriesId: number, from: number, to: number, maxDays: number, maxRows: number): Promise<RangePieces> {
    return this.fetchRangeOn(this.conn, seriesId, from, to, maxDays, maxRows);
  }

  protected async fetchDays(keys: readonly (readonly [number, number])[]): Promise<Map<number, Map<number, StoredDay>>> {
    return this.fetchDaysOn(this.conn, keys);
  }

  protected async countDays(seriesId: number, from: number, to: number): Promise<number> {
    return this.sql.stmt("SELECT COALESCE(SUM(count), 0) FROM timeseries_block WHERE timeseries_id = ? AND block_start >= ? AND block_start <= ?")
      .pluck().get(seriesId, from, to) as number;
  }

  protected async blockRows(seriesId: number, from: number, to: number): Promise<BlockRow[]> {
    return this.sql.stmt(`SELECT block_start, value_count, min, max, sum FROM timeseries_block
      WHERE timeseries_id = ? AND block_start >= ? AND block_start <= ? ORDER BY block_start`).raw(true).all(seriesId, from, to) as BlockRow[];
  }

  protected async aggregateDays(seriesId: number, ranges: readonly (readonly [number, number])[]): Promise<AggregateRow[]> {
    const stmt = this.sql.stmt(`SELECT SUM(value_count), SUM(sum), MIN(min), MAX(max) FROM timeseries_block
      WHERE timeseries_id = ? AND block_start >= ? AND block_start <= ?`).raw(true);
    return ranges.map(([from, to]) => stmt.get(seriesId, from, to) as AggregateRow);
  }

  protected async candidateDays(seriesId: number, from: number, to: number, order: "ASC" | "DESC", match: Match, limit: number): Promise<number[]> {
    const condition = match.value !== undefined ? "AND value_count > 0 AND min <= ? AND max >= ?" : match.valued ? "AND value_count > 0" : "";
    return this.sql.stmt(`SELECT block_start FROM timeseries_block WHERE timeseries_id = ? AND block_start >= ? AND block_start <= ? ${condition}
      ORDER BY block_start ${order} LIMIT ?`).pluck().all(seriesId, from, to, ...(match.value !== undefined ? [match.value, match.value] : []), limit) as number[];
  }
}

