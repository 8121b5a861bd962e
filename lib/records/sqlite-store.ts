import type { Statement } from "better-sqlite3";
import { sqliteValue, type Db } from "@/lib/db";
import type { SqliteDatabase } from "@/lib/db/sqlite";
import { newChartAggregates } from "@/lib/formats/chart";
import { logError } from "@/lib/observability/log";
import { concatChunks } from "@/lib/records/blocks";
import { applyCorrection, correctionSpan } from "@/lib/records/correction";
import { chunkReader, type SparseChunk } from "@/lib/records/sqlite-chunks.mjs";
import { SqliteReadAhead } from "@/lib/records/sqlite-read-ahead";
import {
  addAggregate, batchBlocks, type BatchBlocks, BLOCK_PLAN_MIN_WIDTH, BlockBuilder, type BlockRow, blockStart, type ChartAggregates, checkReplacement,
  type ChunkedWriteOptions, type CorrectionPlan, type CorrectOptions, type CorrectResult, countPlan, DAY, DIFF_CHUNK,
  type FoundRecord, type LastRecord, mergeInto, mergeWholeBlocks, newRangeAggregate, type RangeAggregate, readAhead, type RecordBatch,
  type RecordChunk, RecordDifferences, type RecordsStore, type ReplaceOptions, ReplaceRefused, safeBound, type SeriesSummary, storedFrom,
  type StoredRecords, type WriteOptions, type WriteResult,
} from "@/lib/records/types";
import { SqliteConnections } from "@/lib/records/sqlite-shared";

/** Rows per INSERT statement: fewer calls into SQLite, well under its variable limit. */
const ROWS_PER_INSERT = 250;
/** Above every stored timestamp. */
const MAX_TIMESTAMP = Number.MAX_SAFE_INTEGER;

/**
 * The records store on SQLite (better-sqlite3): every write is one synchronous transaction
 * under the process's write lock, with prepared statements; reads take chunks by key.
 */
export class SqliteRecordsStore implements RecordsStore {
  private readonly sql: SqliteConnections;
  /** unflaggedInsert's statements, with the series id they were written for. */
  private readonly unflagged = new Map<SqliteDatabase, Map<string, { seriesId: number; statement: Statement }>>();
  private readChunk: ReturnType<typeof chunkReader> | null = null;
  private readAheadWorker: SqliteReadAhead | null = null;
  /** The reader of stored(): another thread, so that a run reads its target while its source is read. */
  private storedWorker: SqliteReadAhead | null = null;

  constructor(db: Db, private readonly conn: SqliteDatabase) {
    this.sql = new SqliteConnections(db, conn);
  }

  async write(seriesId: number, batch: RecordBatch, options: WriteOptions): Promise<WriteResult> {
    return this.sql.transaction(() => {
      const result = this.writeInTransaction(seriesId, batch, options);
      return { value: result, commit: result.ok && !options.dryRun };
    });
  }

  async replace(seriesId: number, from: number, batch: RecordBatch, options: ReplaceOptions = {}): Promise<number> {
    checkReplacement(from, batch);
    return this.sql.transaction(() => {
      const { onlyIf } = options;
      if (onlyIf && !this.sql.stmt(onlyIf.sql).get(onlyIf.values.map(sqliteValue))) throw new ReplaceRefused("replace: its condition does not hold");
      return { value: this.replaceInTransaction(seriesId, from, batch, options), commit: true };
    });
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
    const deleted = replacing ? this.deleteFrom(conn, seriesId, from, first !== null) : 0;
    const blocks = new BlockBuilder();
    let n = 0;
    let last: RecordBatch | null = null;
    for await (const chunk of chunks) {
      this.insertRecords(seriesId, chunk, conn);
      blocks.add(chunk);
      n += chunk.timestamps.length;
      last = chunk;
    }
    if (n > 0) this.mergeBlocks(seriesId, blocks.blocks(), conn);
    const lastRecord = last === null ? null : lastOf(last);
    if (replacing) {
      if (deleted > 0 || n > 0) this.replacedSummary(conn, seriesId, from, deleted, n, firstT, lastRecord);
    } else if (n > 0) {
      this.sql.appendedSummary(conn, seriesId, n, firstT!, lastRecord!);
    }
    if (n > 0 || replacing) this.sql.runAlso({ also: options.also?.(from) }, conn);
    return n;
  }

  async correct(seriesId: number, plan: CorrectionPlan, options: CorrectOptions = {}): Promise<CorrectResult> {
    return this.sql.transaction<CorrectResult>(() => {
      if (this.sql.stmt("SELECT 1 FROM timeseries WHERE id = ?").get(seriesId) === undefined) throw new Error(`time series ${seriesId} does not exist`);
      const { lo, hi } = correctionSpan(plan.from, plan.to);
      const read = (this.readChunk ??= chunkReader(this.conn));
      const chunks: RecordChunk[] = [];
      for (let next = lo; next <= hi;) {
        const chunk = denseChunk(read(seriesId, next, hi, DIFF_CHUNK));
        chunks.push(chunk);
        if (chunk.length < DIFF_CHUNK) break;
        next = chunk.timestamps[chunk.length - 1] + 1;
      }
      const applied = applyCorrection(concatChunks(chunks), plan);
      if ("errors" in applied) return { value: { ok: false, errors: applied.errors }, commit: false };
      const { outcome } = applied;
      if (options.dryRun) return { value: { ok: true, ...outcome }, commit: false };
      if (outcome.first !== null) {
        const remove = this.sql.stmt("DELETE FROM timeseries_record WHERE timeseries_id = ? AND timestamp = ?");
        for (const t of applied.remove) remove.run(seriesId, t);
        this.insertRecords(seriesId, outcome.written, this.conn, true);
        const dropBlock = this.sql.stmt("DELETE FROM timeseries_block WHERE timeseries_id = ? AND block_start = ?");
        for (const day of applied.emptiedDays) dropBlock.run(seriesId, day);
        const { blocks } = applied;
        const setBlock = this.sql.stmt(`INSERT OR REPLACE INTO timeseries_block (timeseries_id, block_start, count, value_count, min, max, sum)
          VALUES (?, ?, ?, ?, ?, ?, ?)`);
        for (let k = 0; k < blocks.starts.length; k++) {
          setBlock.run(seriesId, blocks.starts[k], blocks.counts[k], blocks.valueCounts[k], blocks.mins[k], blocks.maxs[k], blocks.sums[k]);
        }
        this.sql.stmt(`UPDATE timeseries SET
            record_count = record_count + ?,
            first_timestamp = (SELECT timestamp FROM timeseries_record WHERE timeseries_id = ? ORDER BY timestamp LIMIT 1),
            (last_timestamp, last_value, last_flags) = (SELECT timestamp, value, flags FROM timeseries_record WHERE timeseries_id = ? ORDER BY timestamp DESC LIMIT 1),
            version = version + 1,
            last_modified = ?
          WHERE id = ?`).run(applied.countDelta, seriesId, seriesId, Date.now(), seriesId);
      }
      this.sql.runAlso({ also: options.also?.(outcome) });
      return { value: { ok: true, ...outcome }, commit: true };
    });
  }

  private writeInTransaction(seriesId: number, batch: RecordBatch, options: WriteOptions): WriteResult {
    const row = this.sql.stmt("SELECT last_timestamp FROM timeseries WHERE id = ?").get(seriesId) as { last_timestamp: number | null } | undefined;
    if (!row) throw new Error(`time series ${seriesId} does not exist`);
    const lastStored = row.last_timestamp;
    const n = batch.timestamps.length;
    const existing = new Set<number>();
    if (options.mode === "insert" && n > 0 && lastStored !== null && batch.timestamps[0] <= lastStored) {
      const found = this.sql.stmt("SELECT timestamp FROM timeseries_record WHERE timeseries_id = ? AND timestamp BETWEEN ? AND ?")
        .pluck().all(seriesId, batch.timestamps[0], batch.timestamps[n - 1]) as number[];
      const wanted = new Set(batch.timestamps);
      for (const t of found) if (wanted.has(t)) existing.add(t);
    }
    const errors = options.validate({ lastStored, existing });
    if (errors.length) return { ok: false, errors };
    if (n === 0 || options.dryRun) return { ok: true, stored: n };

    this.insertRecords(seriesId, batch);
    this.mergeBlocks(seriesId, batchBlocks(batch));
    this.sql.appendedSummary(this.conn, seriesId, n, batch.timestamps[0], lastOf(batch));
    this.sql.runAlso(options);
    return { ok: true, stored: n };
  }

  async stored(seriesId: number, from: number): Promise<StoredRecords | null> {
    const version = this.sql.stmt("SELECT version FROM timeseries WHERE id = ?").pluck().get(seriesId) as number | undefined;
    if (version === undefined) return null;
    const reader = (this.storedWorker ??= new SqliteReadAhead(this.conn.name));
    const chunks: RecordChunk[] = [];
    for (let next = Math.max(from, Number.MIN_SAFE_INTEGER); ;) {
      const chunk = denseChunk(await reader.read(seriesId, next, MAX_TIMESTAMP, DIFF_CHUNK));
      if (chunk.length) chunks.push(chunk);
      if (chunk.length < DIFF_CHUNK) break;
      next = chunk.timestamps[chunk.length - 1] + 1;
    }
    return { seriesId, from, version, chunks };
  }

  private replaceInTransaction(seriesId: number, from: number, batch: RecordBatch, options: ReplaceOptions): number {
    const version = this.sql.stmt("SELECT version FROM timeseries WHERE id = ?").pluck().get(seriesId) as number | undefined;
    if (version === undefined) throw new Error(`time series ${seriesId} does not exist`);
    const n = batch.timestamps.length;
    const written = this.writeDifferences(seriesId, from, batch, storedFrom(options.stored, seriesId, from, version));
    let deleted: number;
    if (written) {
      deleted = written.stored;
      if (deleted > 0 || n > 0) this.recountFromDay(this.conn, seriesId, from);
    } else {
      deleted = this.deleteFrom(this.conn, seriesId, from, n > 0);
    }
    if (deleted > 0 || n > 0) {
      if (n > 0) {
        if (!written) this.insertRecords(seriesId, batch);
        this.mergeBlocks(seriesId, batchBlocks(batch));
      }
      this.replacedSummary(this.conn, seriesId, from, deleted, n, n > 0 ? batch.timestamps[0] : null, n > 0 ? lastOf(batch) : null);
    }
    this.sql.runAlso(options);
    return n;
  }

  /**
   * The first half of a replacement: deletes the records from `from` on and, when records were
   * deleted or are to be written, counts the block of the day holding `from` again from its
   * earlier records. Returns the number deleted.
   */
  private deleteFrom(conn: SqliteDatabase, seriesId: number, from: number, writing: boolean): number {
    const deleted = this.sql.stmt("DELETE FROM timeseries_record WHERE timeseries_id = ? AND timestamp >= ?", conn).run(seriesId, from).changes;
    if (deleted === 0 && !writing) return 0;
    this.recountFromDay(conn, seriesId, from);
    return deleted;
  }

  /** Drops the blocks from the day holding `from` on, and counts that day's again from its records before `from`. */
  private recountFromDay(conn: SqliteDatabase, seriesId: number, from: number): void {
    const day = blockStart(from);
    this.sql.stmt("DELETE FROM timeseries_block WHERE timeseries_id = ? AND block_start >= ?", conn).run(seriesId, day);
    this.sql.stmt(`INSERT INTO timeseries_block (timeseries_id, block_start, count, value_count, min, max, sum)
      SELECT ?, ?, COUNT(*), COUNT(value), MIN(value), MAX(value), SUM(value) FROM timeseries_record
      WHERE timeseries_id = ? AND timestamp >= ? AND timestamp < ? HAVING COUNT(*) > 0`, conn).run(seriesId, day, seriesId, day, from);
  }

  /**
   * Makes the stored records ≥ from those of `batch` by writing only those that differ
   * (RecordDifferences); null, having written nothing, when most differ. Returns how many
   * records were stored ≥ from.
   */
  private writeDifferences(seriesId: number, from: number, batch: RecordBatch, known: RecordChunk[] | null): { stored: number } | null {
    const differences = new RecordDifferences(batch);
    if (known) {
      for (const chunk of known) if (!differences.add(chunk)) return null;
    } else {
      const read = (this.readChunk ??= chunkReader(this.conn));
      for (let next = from; ;) {
        const chunk = denseChunk(read(seriesId, next, MAX_TIMESTAMP, DIFF_CHUNK));
        if (!differences.add(chunk)) return null;
        if (chunk.length < DIFF_CHUNK) break;
        next = chunk.timestamps[chunk.length - 1] + 1;
      }
    }
    if (!differences.finish()) return null;
    const remove = this.sql.stmt("DELETE FROM timeseries_record WHERE timeseries_id = ? AND timestamp = ?");
    for (const t of differences.gone) remove.run(seriesId, t);
    this.insertRecords(seriesId, differences.changedRecords(), this.conn, true);
    return { stored: differences.stored };
  }

  /** The summary after `n` records were appended, the first at `first`. */
  /** The summary after a replacement from `from` that deleted `deleted` records and wrote `n` (the first at `first`, the last `last`). */
  private replacedSummary(conn: SqliteDatabase, seriesId: number, from: number, deleted: number, n: number, first: number | null, last: LastRecord | null): void {
    const lastRecord = last
      ?? (this.sql.stmt("SELECT timestamp, value, flags FROM timeseries_record WHERE timeseries_id = ? AND timestamp < ? ORDER BY timestamp DESC LIMIT 1", conn)
        .raw(true).get(seriesId, from) as LastRecord | undefined) ?? [null, null, null];
    this.sql.replacedSummary(conn, seriesId, from, deleted, n, first, lastRecord);
  }

  /**
   * Inserts the records; `replacing`: a stored record of the same timestamp takes the new value
   * and flags. Runs of ROWS_PER_INSERT records without flags (nearly all) go through a statement
   * with the series id and the empty flags written in: two bound values per record instead of
   * four, which makes a bulk insert about a third cheaper.
   */
  private insertRecords(seriesId: number, batch: RecordBatch, conn = this.conn, replacing = false): void {
    const { timestamps, values, flags } = batch;
    const n = timestamps.length;
    const sqlFor = replacing ? upsertSql : plainInsertSql;
    let full: Statement | null = null;
    let plain: Statement | null = null;
    const params: (number | string | null)[] = new Array(ROWS_PER_INSERT * 4);
    const pairs: (number | null)[] = new Array(ROWS_PER_INSERT * 2);
    let i = 0;
    for (; i + ROWS_PER_INSERT <= n; i += ROWS_PER_INSERT) {
      let flagged = false;
      for (let j = i; j < i + ROWS_PER_INSERT; j++) {
        if (flags[j] !== "") {
          flagged = true;
          break;
        }
      }
      if (flagged) {
        for (let k = 0, p = 0; k < ROWS_PER_INSERT; k++) {
          const j = i + k;
          params[p++] = seriesId;
          params[p++] = timestamps[j];
          params[p++] = nullable(values[j]);
          params[p++] = flags[j];
        }
        (full ??= this.sql.stmt(sqlFor(ROWS_PER_INSERT), conn)).run(params);
      } else {
        for (let k = 0, p = 0; k < ROWS_PER_INSERT; k++) {
          const j = i + k;
          pairs[p++] = timestamps[j];
          pairs[p++] = nullable(values[j]);
        }
        (plain ??= this.unflaggedInsert(conn, seriesId, replacing)).run(pairs);
      }
    }
    const rest = n - i;
    if (rest > 0) {
      const tail: (number | string | null)[] = [];
      for (let j = i; j < n; j++) tail.push(seriesId, timestamps[j], nullable(values[j]), flags[j]);
      this.sql.stmt(sqlFor(rest), conn).run(tail);
    }
  }

  /** The statement inserting ROWS_PER_INSERT records without flags of one series (the last one asked for, per connection and kind). */
  private unflaggedInsert(conn: SqliteDatabase, seriesId: number, replacing: boolean): Statement {
    if (!Number.isSafeInteger(seriesId)) throw new Error(`not a series id: ${seriesId}`);
    const cacheKey = `unflagged insert ${replacing}`;
    let cache = this.unflagged.get(conn);
    if (!cache) this.unflagged.set(conn, (cache = new Map()));
    const cached = cache.get(cacheKey);
    if (cached?.seriesId === seriesId) return cached.statement;
    const statement = conn.prepare(insertSql(ROWS_PER_INSERT, replacing ? UPSERT : "", `(${seriesId}, ?, ?, '')`));
    cache.set(cacheKey, { seriesId, statement });
    return statement;
  }

  private mergeBlocks(seriesId: number, blocks: BatchBlocks, conn = this.conn): void {
    const upsert = this.sql.stmt(`INSERT INTO timeseries_block (timeseries_id, block_start, count, value_count, min, max, sum)
      VALUES (?, ?, ?, ?, ?, ?, ?)
      ON CONFLICT (timeseries_id, block_start) DO UPDATE SET
        count = count + excluded.count,
        value_count = value_count + excluded.value_count,
        min = COALESCE(MIN(min, excluded.min), min, excluded.min),
        max = COALESCE(MAX(max, excluded.max), max, excluded.max),
        sum = CASE WHEN sum IS NULL THEN excluded.sum WHEN excluded.sum IS NULL THEN sum ELSE sum + excluded.sum END`, conn);
    for (let k = 0; k < blocks.starts.length; k++) {
      upsert.run(seriesId, blocks.starts[k], blocks.counts[k], blocks.valueCounts[k], blocks.mins[k], blocks.maxs[k], blocks.sums[k]);
    }
  }

  read(seriesId: number, from: number, to: number, chunkSize = 20_000): AsyncGenerator<RecordChunk> {
    // The first chunk is read here: most reads end with it. A longer read goes on in the
    // read-ahead worker, which reads each next chunk while this thread writes out the current one.
    // Should the worker fail, the chunk is read here after all.
    const readHere = (next: number) => denseChunk((this.readChunk ??= chunkReader(this.conn))(seriesId, next, to, chunkSize));
    return readAhead(from, (next, k) => ({
      limit: chunkSize,
      chunk: k === 0
        ? Promise.resolve(readHere(next))
        : (this.readAheadWorker ??= new SqliteReadAhead(this.conn.name)).read(seriesId, next, to, chunkSize).then(denseChunk, (error) => {
          logError("records read-ahead worker", error);
          return readHere(next);
        }),
    }));
  }

  close(): void {
    this.readAheadWorker?.close();
    this.storedWorker?.close();
    this.sql.close((conn) => this.unflagged.delete(conn));
  }

  summary(seriesId: number): Promise<SeriesSummary | null> {
    return this.sql.summary(seriesId);
  }

  async count(seriesId: number, from: number, to: number): Promise<number> {
    const plan = countPlan(from, to);
    let n = plan.wholeFrom <= plan.wholeTo
      ? (this.sql.stmt("SELECT COALESCE(SUM(count), 0) FROM timeseries_block WHERE timeseries_id = ? AND block_start >= ? AND block_start <= ?")
        .pluck().get(seriesId, plan.wholeFrom, plan.wholeTo) as number)
      : 0;
    const edge = this.sql.stmt("SELECT COUNT(*) FROM timeseries_record WHERE timeseries_id = ? AND timestamp >= ? AND timestamp <= ?").pluck();
    for (const [lo, hi] of plan.edges) n += edge.get(seriesId, lo, hi) as number;
    return n;
  }

  async aggregate(seriesId: number, S: number, E: number, N: number): Promise<ChartAggregates> {
    const out = newChartAggregates(N);
    const D = E - S;
    if (D / N < BLOCK_PLAN_MIN_WIDTH) {
      this.aggregateRecords(out, seriesId, S, E, N, [[S, E]]);
      return out;
    }
    const blocks = this.sql.stmt(`SELECT block_start, value_count, min, max, sum FROM timeseries_block
      WHERE timeseries_id = ? AND block_start >= ? AND block_start <= ? ORDER BY block_start`).raw(true)
      .all(seriesId, S - DAY + 1, E) as BlockRow[];
    this.aggregateRecords(out, seriesId, S, E, N, mergeWholeBlocks(out, S, E, N, blocks));
    return out;
  }

  async latest(seriesId: number, lo: number, hi: number, match: { valued?: boolean; value?: number } = {}): Promise<FoundRecord | null> {
    const condition = match.value !== undefined ? "AND value = ?" : match.valued ? "AND value IS NOT NULL" : "";
    const row = this.sql.stmt(`SELECT timestamp, value, flags FROM timeseries_record WHERE timeseries_id = ? AND timestamp >= ? AND timestamp <= ? ${condition}
      ORDER BY timestamp DESC LIMIT 1`).raw(true).get(seriesId, safeBound(lo), safeBound(hi), ...(match.value !== undefined ? [match.value] : [])) as LastRecord | undefined;
    return row ? { timestamp: row[0]!, value: row[1], flags: row[2]! } : null;
  }

  async earliest(seriesId: number, lo: number, hi: number): Promise<FoundRecord | null> {
    const row = this.sql.stmt(`SELECT timestamp, value, flags FROM timeseries_record WHERE timeseries_id = ? AND timestamp >= ? AND timestamp <= ?
      ORDER BY timestamp LIMIT 1`).raw(true).get(seriesId, safeBound(lo), safeBound(hi)) as LastRecord | undefined;
    return row ? { timestamp: row[0]!, value: row[1], flags: row[2]! } : null;
  }

  async readDays(seriesId: number, days: readonly number[]): Promise<RecordChunk[]> {
    const read = (this.readChunk ??= chunkReader(this.conn));
    return days.map((d) => denseChunk(read(seriesId, d, d + DAY - 1, 1 << 30)));
  }

  async recordsAt(pairs: readonly (readonly [number, number])[]): Promise<(FoundRecord | null)[]> {
    const one = this.sql.stmt("SELECT value, flags FROM timeseries_record WHERE timeseries_id = ? AND timestamp = ?").raw(true);
    return pairs.map(([id, t]) => {
      const row = one.get(id, t) as [number | null, string] | undefined;
      return row ? { timestamp: t, value: row[0], flags: row[1] } : null;
    });
  }

  async aggregateRanges(seriesId: number, ranges: readonly (readonly [number, number])[]): Promise<RangeAggregate[]> {
    const whole = this.sql.stmt(`SELECT SUM(value_count), SUM(sum), MIN(min), MAX(max) FROM timeseries_block
      WHERE timeseries_id = ? AND block_start >= ? AND block_start <= ?`).raw(true);
    const part = this.sql.stmt(`SELECT COUNT(value), SUM(value), MIN(value), MAX(value) FROM timeseries_record
      WHERE timeseries_id = ? AND timestamp >= ? AND timestamp <= ?`).raw(true);
    return ranges.map(([lo, hi]) => {
      const out = newRangeAggregate();
      const plan = countPlan(safeBound(lo), safeBound(hi));
      const add = (row: unknown) => {
        const [count, sum, min, max] = row as [number | null, number | null, number | null, number | null];
        addAggregate(out, count, sum, min, max);
      };
      if (plan.wholeFrom <= plan.wholeTo) add(whole.get(seriesId, plan.wholeFrom, plan.wholeTo));
      for (const [a, b] of plan.edges) add(part.get(seriesId, a, b));
      return out;
    });
  }

  /** Aggregates the records of the given ranges, grouped by interval, in one statement. */
  private aggregateRecords(out: ChartAggregates, seriesId: number, S: number, E: number, N: number, ranges: [number, number][]): void {
    if (ranges.length === 0) return;
    const D = E - S;
    // better-sqlite3 binds numbers as REAL: cast, so that the division is an integer one.
    const interval = D === 0 ? `${N - 1}` : `MIN(((r.timestamp - CAST(? AS INTEGER)) * CAST(? AS INTEGER)) / CAST(? AS INTEGER), ${N - 1})`;
    const sql = `SELECT ${interval} AS i, COUNT(r.value), MIN(r.value), MAX(r.value), SUM(r.value)
      FROM json_each(?) AS e
      JOIN timeseries_record r ON r.timeseries_id = ? AND r.timestamp >= e.value ->> 0 AND r.timestamp <= e.value ->> 1
      GROUP BY i`;
    const params: (number | string)[] = D === 0 ? [] : [S, N, D];
    params.push(JSON.stringify(ranges), seriesId);
    const rows = this.sql.stmt(sql).raw(true).all(params) as [number, number, number | null, number | null, number | null][];
    for (const [i, count, min, max, sum] of rows) mergeInto(out, i, count, min ?? Infinity, max ?? -Infinity, sum ?? 0);
  }
}


/** The timestamp, value and flags of a batch's last record. */
function lastOf(batch: RecordBatch): [number, number | null, string] {
  const i = batch.timestamps.length - 1;
  return [batch.timestamps[i], nullable(batch.values[i]), batch.flags[i]];
}

function nullable(v: number): number | null {
  return v === v ? v : null;
}

const insertSqlCache = new Map<string, string>();
function insertSql(rows: number, onConflict: string, row = "(?, ?, ?, ?)"): string {
  const key = `${rows}${onConflict}${row}`;
  let sql = insertSqlCache.get(key);
  if (!sql) {
    sql = `INSERT INTO timeseries_record (timeseries_id, timestamp, value, flags) VALUES ${new Array(rows).fill(row).join(", ")}${onConflict}`;
    if (rows === ROWS_PER_INSERT && row === "(?, ?, ?, ?)") insertSqlCache.set(key, sql);
  }
  return sql;
}
const UPSERT = " ON CONFLICT (timeseries_id, timestamp) DO UPDATE SET value = excluded.value, flags = excluded.flags";
const plainInsertSql = (rows: number) => insertSql(rows, "");
const upsertSql = (rows: number) => insertSql(rows, UPSERT);

/** A chunk with a flag (usually "") for every record. */
function denseChunk(c: SparseChunk): RecordChunk {
  const flags: string[] = new Array(c.length).fill("");
  for (let k = 0; k < c.flagged.length; k++) flags[c.flagged[k]] = c.flagTexts[k];
  return { timestamps: c.timestamps, values: c.values, flags, length: c.length };
}
