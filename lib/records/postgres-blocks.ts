import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import pg from "pg";
import { from as copyFrom } from "pg-copy-streams";
import { activeSnapshot, LINGER_IDLE_MS, postgresValue, type ReadConnections, type ReadSnapshot } from "@/lib/db";
import {
  asBatch, DayGrouper, concatChunks, dayRow, type DayRow, dayRowsOf, daysFromRows, daysOf, type DaySummary, decodeDay, lastOf, mergeRecords,
  mergeSummaries, rangePieces, type RangePieces, type RangeRow, type ReadAhead, readRange, replacement, sliceOf, sqlSummaryOf, type StoredDay, type StoredRow,
  summaryOf, type UnionRow, within,
} from "@/lib/records/blocks";
import { type AggregateRow, BlockReads, type Match } from "@/lib/records/block-reads";
import { decodeBlock } from "@/lib/records/codec";
import { applyCorrection, correctionSpan } from "@/lib/records/correction";
import { DAY_ROW_COLUMNS, dayRowCopyPieces } from "@/lib/records/pg-binary-copy";
import { APPENDED_SUMMARY_SQL, type Done, PgTransactions, q, replacedSummary, seriesSummary, TYPES } from "@/lib/records/pg-shared";
import { copyChunkOn } from "@/lib/records/postgres-store";
import {
  type BlockRow, blockStart, checkReplacement, type ChunkedWriteOptions, chunkedWriteStart, chunksFrom, type CorrectionPlan, type CorrectOptions,
  type CorrectResult, DAY, DIFF_CHUNK, EMPTY_BATCH, firstChunk, type LastRecord, type RecordBatch, type RecordChunk, RecordsChangedDuringRead, type RecordsStore,
  type ReplaceOptions, ReplaceRefused, type SeriesSummary, type StoredRecords, type WriteOptions, type WriteResult,
} from "@/lib/records/types";

/** More day rows than this are written with COPY (after deleting those days), fewer by one upsert. */
const COPY_ROWS = 200;

/** The series row, locked, as a write begins. */
interface Locked {
  readonly first: number | null;
  readonly last: number | null;
  /** Whether the series still has rows in timeseries_record (then converted before the write changes anything). */
  readonly hasRows: boolean;
  /**
   * The stored block of the day asked for, or null: read in the statement that took the lock,
   * valid only when no write committed between that statement's snapshot and the lock (the
   * version it saw is the locked row's); otherwise undefined, and read again.
   */
  readonly day: StoredDay | null | undefined;
}

/**
 * The records store on PostgreSQL with records in day blocks (docs/decisions/0019): writes lock
 * their series' row (`FOR UPDATE`: writes to one series are serialized, different series run in
 * parallel); a series still stored as rows (before migration 0016) is converted in the
 * transaction of its first write, and read from its rows until then (each statement reads both,
 * so a read sees one form or the other, on the primary or a replica). Writes use the primary's
 * pool; reads go through `reads` (a read replica when the request allows, lib/db/replicas.ts).
 */
export class PostgresBlockStore extends BlockReads implements RecordsStore {
  /** PostgreSQL's SUM of float8 adds plainly. */
  protected readonly compensatedSum = false;
  private readonly transactions: PgTransactions;

  /** Bytes a read in a snapshot fetches ahead of its reader (SNAPSHOT_READ_AHEAD; tests make it small). */
  private readonly readAhead: number;

  constructor(private readonly pool: pg.Pool, private readonly reads: ReadConnections, options: { readAhead?: number } = {}) {
    super();
    this.readAhead = options.readAhead ?? SNAPSHOT_READ_AHEAD;
    this.transactions = new PgTransactions(pool);
  }

  /**
   * A transaction begun with the lock of the series' row, in one round trip (a simple-protocol
   * query of two statements; the ids are checked integers), which also reads the block of `day`.
   */
  private locked<T>(seriesId: number, day: number | null, fn: (client: pg.PoolClient, locked: Locked) => Promise<Done<T>>): Promise<T> {
    return this.transactions.run(async (client) => {
      if (!Number.isSafeInteger(seriesId)) throw new TypeError(`not a time series id: ${seriesId}`);
      if (day !== null && !Number.isSafeInteger(day)) throw new TypeError(`not a day: ${day}`);
      const results = await client.query({
        text: `BEGIN; SELECT last_timestamp, first_timestamp, version, (SELECT s.version FROM timeseries s WHERE s.id = ${seriesId}) AS seen, `
          + `EXISTS (SELECT 1 FROM timeseries_record r WHERE r.timeseries_id = ${seriesId}) AS has_rows, `
          + (day === null ? "NULL AS day, NULL AS day_summary "
            : `(SELECT b.records FROM timeseries_block b WHERE b.timeseries_id = ${seriesId} AND b.block_start = ${day}) AS day, `
            + `(SELECT ARRAY[b.count, b.value_count, b.min, b.max, b.sum]::float8[] FROM timeseries_block b WHERE b.timeseries_id = ${seriesId} `
            + `AND b.block_start = ${day}) AS day_summary `)
          + `FROM timeseries WHERE id = ${seriesId} FOR UPDATE`,
        types: TYPES,
      });
      const { rows } = (results as unknown as pg.QueryResult[])[1];
      if (rows.length === 0) throw new Error(`time series ${seriesId} does not exist`);
      const r = rows[0];
      return {
        first: r.first_timestamp as number | null, last: r.last_timestamp as number | null, hasRows: r.has_rows as boolean,
        day: r.seen !== r.version || r.has_rows ? undefined : r.day === null ? null : storedDay(day!, r.day as Buffer, r.day_summary as (number | null)[]),
      };
    }, fn);
  }

  // Fetching: each statement reads the day blocks and the rows of a series not yet converted.

  private async fetchRangeOn(
    on: Queryable, seriesId: number, from: number, to: number, maxDays: number, maxRows: number,
  ): Promise<RangePieces> {
    const { rows } = await on.query({
      ...q(`(SELECT block_start, count, records, NULL::bigint, NULL::float8, NULL::text FROM timeseries_block
          WHERE timeseries_id = $1 AND block_start >= $2 AND block_start <= $3 AND records IS NOT NULL ORDER BY block_start LIMIT $4)
        UNION ALL
        (SELECT NULL, NULL, NULL, timestamp, value, flags FROM timeseries_record
          WHERE timeseries_id = $1 AND timestamp >= $5 AND timestamp <= $3 ORDER BY timestamp LIMIT $6)`,
      [seriesId, blockStart(from), to, maxDays, from, maxRows]),
      rowMode: "array",
    });
    return rangePieces(rows as RangeRow[]);
  }

  private async fetchDaysOn(on: Queryable, keys: readonly (readonly [number, number])[]): Promise<Map<number, Map<number, StoredDay>>> {
    const out = new Map<number, Map<number, StoredDay>>();
    if (keys.length === 0) return out;
    const { rows } = await on.query({
      ...q(`SELECT b.timeseries_id, b.block_start, b.count, b.value_count, b.min, b.max, b.sum, b.records, NULL::bigint, NULL::float8, NULL::text
          FROM unnest($1::int[], $2::bigint[]) AS k(id, d) JOIN timeseries_block b ON b.timeseries_id = k.id AND b.block_start = k.d
        UNION ALL
        SELECT r.timeseries_id, NULL, NULL, NULL, NULL, NULL, NULL, NULL, r.timestamp, r.value, r.flags
          FROM unnest($1::int[], $2::bigint[]) AS k(id, d) JOIN timeseries_record r ON r.timeseries_id = k.id AND r.timestamp >= k.d AND r.timestamp < k.d + ${DAY}`,
      [keys.map((k) => k[0]), keys.map((k) => k[1])]),
      rowMode: "array",
    });
    const bySeries = new Map<number, UnionRow[]>();
    for (const [id, ...rest] of rows as [number, ...UnionRow][]) {
      let list = bySeries.get(id);
      if (!list) bySeries.set(id, (list = []));
      list.push(rest);
    }
    for (const [id, list] of bySeries) out.set(id, daysFromRows(list));
    return out;
  }

  private async storedDays(client: pg.ClientBase, seriesId: number, days: readonly number[]): Promise<Map<number, StoredDay>> {
    return (await this.fetchDaysOn(client, days.map((d) => [seriesId, d] as const))).get(seriesId) ?? new Map();
  }

  /**
   * Moves the series' rows into its day blocks (in the caller's transaction), keeping the days'
   * summaries as the row store left them; returns the number of records moved.
   */
  private async convertIn(client: pg.ClientBase, seriesId: number): Promise<number> {
    let moved = 0;
    let carry: RecordBatch = EMPTY_BATCH;
    let rows: DayRow[] = [];
    const flush = async () => {
      if (rows.length === 0) return;
      const { rows: updated } = await client.query({
        ...q(`UPDATE timeseries_block b SET first_timestamp = u.f, last_timestamp = u.l, records = u.r
          FROM unnest($2::bigint[], $3::bigint[], $4::bigint[], $5::bytea[]) AS u(d, f, l, r)
          WHERE b.timeseries_id = $1 AND b.block_start = u.d RETURNING b.block_start`,
        [seriesId, rows.map((r) => r.start), rows.map((r) => r.first), rows.map((r) => r.last), rows.map((r) => Buffer.from(r.records))]),
        rowMode: "array",
      });
      // A day without its summary (the row store always wrote one): written with one.
      const done = new Set((updated as [number][]).map((r) => r[0]));
      const missing = rows.filter((r) => !done.has(r.start));
      if (missing.length) await this.upsertRows(client, seriesId, missing);
      rows = [];
    };
    for (let next = -Number.MAX_SAFE_INTEGER; ;) {
      const c = await copyChunkOn(client, seriesId, next, Number.MAX_SAFE_INTEGER, DIFF_CHUNK);
      const chunk = mergeRecords(carry, asBatch(c));
      const days = daysOf(chunk);
      const done = c.length < DIFF_CHUNK;
      for (let k = 0; k < days.length - (done ? 0 : 1); k++) rows.push(dayRow(days[k].start, sliceOf(chunk, days[k].from, days[k].to)));
      carry = done || days.length === 0 ? EMPTY_BATCH : sliceOf(chunk, days[days.length - 1].from, days[days.length - 1].to);
      if (rows.length >= 1000 || done) await flush();
      moved += c.length;
      if (done) break;
      next = c.timestamps[c.length - 1] + 1;
    }
    await client.query(q("DELETE FROM timeseries_record WHERE timeseries_id = $1", [seriesId]));
    return moved;
  }

  async convert(seriesId: number): Promise<number> {
    return this.locked(seriesId, null, async (client, locked) => {
      const moved = locked.hasRows ? await this.convertIn(client, seriesId) : 0;
      return { value: moved, commit: moved > 0, written: moved };
    });
  }

  // Writing.

  /** Upserts day rows (one statement). */
  private async upsertRows(client: pg.ClientBase, seriesId: number, rows: readonly DayRow[], emptied: readonly number[] = []): Promise<void> {
    await client.query(q(`WITH emptied AS (
        DELETE FROM timeseries_block WHERE timeseries_id = $1 AND block_start = ANY($11::bigint[])
      )
      ${UPSERT_ROWS_SQL}`, [seriesId, ...rowArrays(rows), emptied]));
  }

  /** Writes day rows, those of existing days too: by COPY after deleting the days when they are many, else by one upsert. */
  private async writeRows(client: pg.ClientBase, seriesId: number, rows: readonly DayRow[], emptied: readonly number[] = []): Promise<void> {
    if (rows.length <= COPY_ROWS) {
      if (rows.length || emptied.length) await this.upsertRows(client, seriesId, rows, emptied);
      return;
    }
    await client.query(q("DELETE FROM timeseries_block WHERE timeseries_id = $1 AND block_start = ANY($2::bigint[])",
      [seriesId, [...rows.map((r) => r.start), ...emptied]]));
    await this.copyRows(client, seriesId, rows);
  }

  private async copyRows(client: pg.ClientBase, seriesId: number, rows: Iterable<DayRow> | AsyncIterable<DayRow>): Promise<void> {
    await pipeline(Readable.from(dayRowCopyPieces(seriesId, rows)), client.query(copyFrom(`COPY timeseries_block ${DAY_ROW_COLUMNS} FROM STDIN (FORMAT binary)`)));
  }

  /** The rows of the batch's days, each merged with the records stored that day. */
  private mergedRows(batch: RecordBatch, stored: Map<number, StoredDay>): DayRow[] {
    return daysOf(batch).map(({ start, from, to }) => {
      const part = sliceOf(batch, from, to);
      const day = stored.get(start);
      return day ? dayRow(start, mergeRecords(asBatch(decodeDay(day)), part), mergeSummaries(day.summary, summaryOf(part))) : dayRow(start, part);
    });
  }

  async write(seriesId: number, batch: RecordBatch, options: WriteOptions): Promise<WriteResult> {
    const n = batch.timestamps.length;
    return this.locked(seriesId, n ? blockStart(batch.timestamps[0]) : null, async (client, locked) => {
      // The stored days the batch's days may meet: those within the series' first and last record.
      let stored = new Map<number, StoredDay>();
      if (locked.first !== null && locked.last !== null && n > 0) {
        const lo = blockStart(locked.first);
        const hi = blockStart(locked.last);
        const days = daysOf(batch).map((d) => d.start).filter((d) => d >= lo && d <= hi);
        const firstDay = blockStart(batch.timestamps[0]);
        if (days.length === 1 && days[0] === firstDay && locked.day !== undefined) {
          if (locked.day !== null) stored.set(firstDay, locked.day);
        } else if (days.length > 0) {
          stored = await this.storedDays(client, seriesId, days);
        }
      }
      const existing = new Set<number>();
      if (options.mode === "insert" && stored.size > 0) {
        const wanted = new Set(batch.timestamps);
        for (const day of stored.values()) for (const t of decodeDay(day).timestamps) if (wanted.has(t)) existing.add(t);
      }
      const errors = options.validate({ lastStored: locked.last, existing });
      if (errors.length) return { value: { ok: false, errors } as WriteResult, commit: false, written: 0 };
      if (n === 0 || options.dryRun) return { value: { ok: true, stored: n }, commit: false, written: 0 };
      if (locked.hasRows) await this.convertIn(client, seriesId);
      const rows = this.mergedRows(batch, stored);
      const [t, value, flags] = lastOf(batch);
      if (rows.length <= COPY_ROWS) {
        // The rows and the summary in one statement.
        await client.query(q(`WITH written AS (${UPSERT_ROWS_SQL})
          ${APPENDED_SUMMARY_SQL("$11", "$12", "$13", "$14", "$15", "$16", "$1")}`,
        [seriesId, ...rowArrays(rows), n, batch.timestamps[0], t, value, flags, Date.now()]));
      } else {
        await this.writeRows(client, seriesId, rows);
        await client.query(q(APPENDED_SUMMARY_SQL("$1", "$2", "$3", "$4", "$5", "$6", "$7"), [n, batch.timestamps[0], t, value, flags, Date.now(), seriesId]));
      }
      return { value: { ok: true, stored: n }, commit: true, written: n, also: options.also };
    });
  }

  async replace(seriesId: number, from: number, batch: RecordBatch, options: ReplaceOptions = {}): Promise<number> {
    checkReplacement(from, batch);
    return this.locked(seriesId, null, async (client, locked) => {
      const { onlyIf } = options;
      if (onlyIf && (await client.query(q(onlyIf.text, onlyIf.values.map(postgresValue)))).rows.length === 0) {
        throw new ReplaceRefused("replace: its condition does not hold");
      }
      if (locked.hasRows) await this.convertIn(client, seriesId);
      const day0 = blockStart(from);
      const { rows: stored } = await client.query({
        ...q(`SELECT block_start, count, value_count, min, max, sum, records FROM timeseries_block WHERE timeseries_id = $1 AND block_start >= $2
          ORDER BY block_start`, [seriesId, day0]),
        rowMode: "array",
      });
      const n = batch.timestamps.length;
      const { writes, emptied, deleted, kept } = replacement(stored as StoredRow[], from, batch, false);
      await this.writeRows(client, seriesId, writes, emptied);
      if (deleted > 0 || n > 0) {
        const last = n > 0 ? lastOf(batch) : kept.timestamps.length > 0 ? lastOf(kept) : await this.lastBefore(client, seriesId, day0);
        await replacedSummary(client, seriesId, from, deleted, n, n > 0 ? batch.timestamps[0] : null, last);
      }
      return { value: n, commit: true, written: n + deleted, also: options.also };
    });
  }

  /** The last record of the days before `day`, as [timestamp, value, flags] (nulls when none). */
  private async lastBefore(client: pg.ClientBase, seriesId: number, day: number): Promise<LastRecord> {
    const { rows } = await client.query({
      ...q(`SELECT block_start, records FROM timeseries_block WHERE timeseries_id = $1 AND block_start < $2 AND records IS NOT NULL
        ORDER BY block_start DESC LIMIT 1`, [seriesId, day]),
      rowMode: "array",
    });
    if (rows.length === 0) return [null, null, null];
    return lastOf(asBatch(decodeBlock(rows[0][1], rows[0][0])));
  }

  async writeChunks(seriesId: number, chunks: AsyncIterable<RecordBatch>, options: ChunkedWriteOptions = {}): Promise<number> {
    const { first, rest } = await firstChunk(chunks);
    try {
      const replacing = options.replaceFrom !== undefined;
      if (first === null && !replacing) return 0;
      return await this.locked(seriesId, null, async (client, locked) => {
        const firstT = first === null ? null : first.timestamps[0];
        const from = chunkedWriteStart(first, options, locked.last);
        if (locked.hasRows) await this.convertIn(client, seriesId);
        // The stored day holding the first record (or `from`), and with a replacement the days
        // after it, are deleted; what that day keeps before `from` begins the records gathered,
        // with its summary (the row store's: the stored one for an append, the kept records' for
        // a replacement).
        const day0 = blockStart(from);
        if (replacing && first === null) {
          const { rows } = await client.query({
            ...q(`SELECT COALESCE(SUM(CASE WHEN block_start > $2 THEN count END), 0)::bigint, MAX(last_timestamp)
              FROM timeseries_block WHERE timeseries_id = $1 AND block_start >= $2`, [seriesId, day0]),
            rowMode: "array",
          });
          // Nothing stored from `from` on and nothing to write: nothing changes (the day's summary neither).
          if (Number(rows[0][0]) === 0 && (rows[0][1] === null || rows[0][1] < from)) return { value: 0, commit: true, written: 0, also: options.also?.(from) };
        }
        const { rows: removed } = await client.query({
          ...q(`DELETE FROM timeseries_block WHERE timeseries_id = $1 AND (block_start = $2 OR ($3 AND block_start > $2))
            RETURNING block_start, count, value_count, min, max, sum, CASE WHEN block_start = $2 THEN records END`, [seriesId, day0, replacing]),
          rowMode: "array",
        });
        let deleted = 0;
        let kept: RecordBatch = EMPTY_BATCH;
        let base: DaySummary | null = null;
        for (const [start, count, valueCount, min, max, sum, bytes] of removed as StoredRow[]) {
          deleted += count;
          if (start === day0) {
            kept = asBatch(within(decodeBlock(bytes, day0), -Infinity, from - 1));
            deleted -= kept.timestamps.length;
            base = replacing ? sqlSummaryOf(kept, false) : { count, valueCount, min, max, sum };
          }
        }
        const grouper = new DayGrouper(day0, kept, base);
        await this.copyRows(client, seriesId, dayRowsOf(chunksFrom(first, rest), grouper));
        const { n, last } = grouper;
        const lastRecord = last === null ? null : lastOf(last);
        if (replacing) {
          if (deleted > 0 || n > 0) {
            await replacedSummary(client, seriesId, from, deleted, n, firstT,
              lastRecord ?? (kept.timestamps.length ? lastOf(kept) : await this.lastBefore(client, seriesId, day0)));
          }
        } else if (n > 0) {
          const [t, value, flags] = lastRecord!;
          await client.query(q(APPENDED_SUMMARY_SQL("$1", "$2", "$3", "$4", "$5", "$6", "$7"), [n, firstT, t, value, flags, Date.now(), seriesId]));
        }
        const also = n > 0 || replacing ? options.also?.(from) : undefined;
        return { value: n, commit: n > 0 || replacing, written: n + deleted, also };
      });
    } finally {
      await rest.return?.();
    }
  }

  async correct(seriesId: number, plan: CorrectionPlan, options: CorrectOptions = {}): Promise<CorrectResult> {
    const { lo, hi } = correctionSpan(plan.from, plan.to);
    return this.locked<CorrectResult>(seriesId, null, async (client, locked) => {
      const chunks: RecordChunk[] = [];
      for (let next = lo; next <= hi;) {
        const { blocks, rows } = await this.fetchRangeOn(client, seriesId, next, hi, 512, DIFF_CHUNK);
        if (rows) chunks.push(rows);
        for (const b of blocks) chunks.push(decodeBlock(b.bytes, b.start));
        if (blocks.length < 512 && (rows?.length ?? 0) < DIFF_CHUNK) break;
        next = rows ? rows.timestamps[rows.length - 1] + 1 : blocks[blocks.length - 1].start + DAY;
      }
      const applied = applyCorrection(concatChunks(chunks), plan);
      if ("errors" in applied) return { value: { ok: false, errors: applied.errors }, commit: false, written: 0 };
      const { outcome } = applied;
      if (options.dryRun) return { value: { ok: true, ...outcome }, commit: false, written: 0 };
      if (outcome.first !== null) {
        if (locked.hasRows) await this.convertIn(client, seriesId);
        await this.writeRows(client, seriesId, applied.days.map((d) => dayRow(d.start, d.records)), applied.emptiedDays);
        // The first and last record from the first and last block.
        const { rows } = await client.query({
          ...q(`SELECT (SELECT first_timestamp FROM timeseries_block WHERE timeseries_id = $1 ORDER BY block_start LIMIT 1),
              (SELECT block_start FROM timeseries_block WHERE timeseries_id = $1 ORDER BY block_start DESC LIMIT 1),
              (SELECT records FROM timeseries_block WHERE timeseries_id = $1 ORDER BY block_start DESC LIMIT 1)`, [seriesId]),
          rowMode: "array",
        });
        const [first, lastDay, lastBytes] = rows[0] as [number | null, number | null, Buffer | null];
        const last: LastRecord = lastBytes ? lastOf(asBatch(decodeBlock(lastBytes, lastDay!))) : [null, null, null];
        await client.query(q(`UPDATE timeseries SET record_count = record_count + $1, first_timestamp = $2, last_timestamp = $3, last_value = $4,
            last_flags = $5, version = version + 1, last_modified = to_timestamp($6::float8 / 1000) AT TIME ZONE 'UTC' WHERE id = $7`,
        [applied.countDelta, first, ...last, Date.now(), seriesId]));
      }
      const written = outcome.before.timestamps.length + outcome.written.timestamps.length;
      return { value: { ok: true, ...outcome }, commit: true, written, also: options.also?.(outcome) };
    });
  }

  // Reading.

  async stored(seriesId: number, from: number): Promise<StoredRecords | null> {
    // On the primary: the replacement compares with the primary's records.
    const { rows } = await this.pool.query(q("SELECT version FROM timeseries WHERE id = $1", [seriesId]));
    if (rows.length === 0) return null;
    const chunks: RecordChunk[] = [];
    const primary: Queryable = { query: (config) => this.pool.query(config) };
    const fetch = (a: number, b: number, maxDays: number, maxRows: number) => this.fetchRangeOn(primary, seriesId, a, b, maxDays, maxRows);
    for await (const chunk of readRange(fetch, from, Number.MAX_SAFE_INTEGER, DIFF_CHUNK)) chunks.push(chunk);
    return { seriesId, from, version: rows[0].version as number, chunks };
  }

  summary(seriesId: number): Promise<SeriesSummary | null> {
    return seriesSummary(this.reads, seriesId);
  }

  /**
   * The records of [from, to]; within a read snapshot (lib/db/snapshot.ts), fetched in it: ahead
   * of the reader up to SNAPSHOT_READ_AHEAD bytes, so that the snapshot (and its connection) is
   * let go as soon as all is fetched, whatever the reader's pace (readSnapshotted).
   */
  override async *read(seriesId: number, from: number, to: number, chunkSize = DIFF_CHUNK): AsyncGenerator<RecordChunk> {
    // At the first next(): the snapshot current where the read begins.
    const snapshot = activeSnapshot();
    if (snapshot) yield* this.readSnapshotted(snapshot, seriesId, from, to, chunkSize);
    else yield* super.read(seriesId, from, to, chunkSize);
  }

  /**
   * A read in a snapshot, holding it until the read has fetched all it needs. When more remains
   * than SNAPSHOT_READ_AHEAD and the reader is slow (a long download), the read keeps the snapshot
   * while it may linger (ReadSnapshot.linger: a quarter of the pool, and while the reader takes
   * something within LINGER_IDLE_MS); otherwise it leaves it, having read the version it saw there,
   * and each later fetch checks in its own statement that the series still has that version: the
   * same records, or RecordsChangedDuringRead (the body ends unfinished, never mixing two states).
   */
  private async *readSnapshotted(snapshot: ReadSnapshot, seriesId: number, from: number, to: number, chunkSize: number): AsyncGenerator<RecordChunk> {
    const release = snapshot.hold();
    let left: Promise<number> | null = null;
    let idle: NodeJS.Timeout | undefined;
    const leave = () => {
      if (left) return;
      clearTimeout(idle);
      left = this.versionIn(snapshot, seriesId);
      left.catch(() => undefined);
      // The statement is sent: it runs before the snapshot's COMMIT.
      release();
    };
    const fetch = async (a: number, b: number, maxDays: number, maxRows: number) => (left === null
      ? this.fetchRangeOn(snapshot, seriesId, a, b, maxDays, maxRows)
      : this.fetchRangeChecked(seriesId, await left, a, b, maxDays, maxRows));
    const ahead: ReadAhead = {
      bytes: this.readAhead,
      fetched: () => {
        clearTimeout(idle);
        release();
      },
      full: (room) => {
        if (left) return;
        if (!snapshot.linger()) {
          leave();
          return;
        }
        clearTimeout(idle);
        idle = setTimeout(leave, LINGER_IDLE_MS);
        idle.unref();
        void room.then(() => clearTimeout(idle));
      },
    };
    try {
      yield* readRange(fetch, from, to, chunkSize, ahead);
    } finally {
      clearTimeout(idle);
      release();
    }
  }

  /** The series' version in the snapshot. */
  private async versionIn(snapshot: ReadSnapshot, seriesId: number): Promise<number> {
    const { rows } = await snapshot.query({ ...q("SELECT version FROM timeseries WHERE id = $1", [seriesId]), rowMode: "array" });
    if (rows.length === 0) throw new RecordsChangedDuringRead(seriesId);
    return Number(rows[0][0]);
  }

  /** fetchRangeOn, in a statement that also reads the series' version: RecordsChangedDuringRead unless it is `version`. */
  private async fetchRangeChecked(seriesId: number, version: number, from: number, to: number, maxDays: number, maxRows: number): Promise<RangePieces> {
    const { rows } = await this.reads.query({
      ...q(`(SELECT block_start, count, records, NULL::bigint, NULL::float8, NULL::text FROM timeseries_block
          WHERE timeseries_id = $1 AND block_start >= $2 AND block_start <= $3 AND records IS NOT NULL ORDER BY block_start LIMIT $4)
        UNION ALL
        (SELECT NULL, NULL, NULL, timestamp, value, flags FROM timeseries_record
          WHERE timeseries_id = $1 AND timestamp >= $5 AND timestamp <= $3 ORDER BY timestamp LIMIT $6)
        UNION ALL
        (SELECT NULL, version, NULL, NULL, NULL, NULL FROM timeseries WHERE id = $1)`,
      [seriesId, blockStart(from), to, maxDays, from, maxRows]),
      rowMode: "array",
    });
    // The version's row: the only one with a count and no day.
    const at = (rows as RangeRow[]).findIndex((r) => r[0] === null && r[1] !== null);
    if (at < 0 || Number(rows[at][1]) !== version) throw new RecordsChangedDuringRead(seriesId);
    rows.splice(at, 1);
    return rangePieces(rows as RangeRow[]);
  }

  // The queries of BlockReads.

  protected fetchRange(seriesId: number, from: number, to: number, maxDays: number, maxRows: number): Promise<RangePieces> {
    return this.fetchRangeOn(this.reads, seriesId, from, to, maxDays, maxRows);
  }

  protected fetchDays(keys: readonly (readonly [number, number])[]): Promise<Map<number, Map<number, StoredDay>>> {
    return this.fetchDaysOn(this.reads, keys);
  }

  protected async countDays(seriesId: number, from: number, to: number): Promise<number> {
    const { rows } = await this.reads.query({
      ...q("SELECT COALESCE(SUM(count), 0)::bigint FROM timeseries_block WHERE timeseries_id = $1 AND block_start >= $2 AND block_start <= $3", [seriesId, from, to]),
      rowMode: "array",
    });
    return Number(rows[0][0]);
  }

  protected async blockRows(seriesId: number, from: number, to: number): Promise<BlockRow[]> {
    const { rows } = await this.reads.query({
      ...q(`SELECT block_start, value_count, min, max, sum FROM timeseries_block
        WHERE timeseries_id = $1 AND block_start >= $2 AND block_start <= $3 ORDER BY block_start`, [seriesId, from, to]),
      rowMode: "array",
    });
    return rows as BlockRow[];
  }

  /**
   * The ranges' aggregates in one statement (a read snapshot runs its statements one after the
   * other: one per range would cost a round trip each). PostgreSQL's SUM refuses to overflow (days'
   * sums near ±1.8e308), and an error would end a snapshot's transaction: a range whose sums could
   * overflow (the largest |sum| times their number beyond 1e308) is not summed there ("risky"), but
   * here from its days' rows, to ±Infinity as IEEE arithmetic has it.
   */
  protected async aggregateDays(seriesId: number, ranges: readonly (readonly [number, number])[]): Promise<AggregateRow[]> {
    const { rows } = await this.reads.query({
      ...q(`SELECT a.count, a.sum, a.min, a.max, r.risky
        FROM unnest($2::bigint[], $3::bigint[]) WITH ORDINALITY AS k(lo, hi, n)
        CROSS JOIN LATERAL (SELECT COALESCE(MAX(abs(sum)) > 1e308 / NULLIF(COUNT(sum), 0), false) AS risky FROM timeseries_block
          WHERE timeseries_id = $1 AND block_start >= k.lo AND block_start <= k.hi) r
        CROSS JOIN LATERAL (SELECT SUM(value_count)::bigint AS count, SUM(sum) FILTER (WHERE NOT r.risky) AS sum, MIN(min) AS min, MAX(max) AS max
          FROM timeseries_block WHERE timeseries_id = $1 AND block_start >= k.lo AND block_start <= k.hi) a
        ORDER BY k.n`, [seriesId, ranges.map((r) => r[0]), ranges.map((r) => r[1])]),
      rowMode: "array",
    });
    return Promise.all((rows as [...AggregateRow, boolean][]).map(async ([count, sum, min, max, risky], k) => {
      if (!risky) return [count, sum, min, max] as AggregateRow;
      let total: number | null = null;
      for (const [, , , , daySum] of await this.blockRows(seriesId, ranges[k][0], ranges[k][1])) if (daySum !== null) total = (total ?? 0) + daySum;
      return [count, total, min, max] as AggregateRow;
    }));
  }

  protected async candidateDays(seriesId: number, from: number, to: number, order: "ASC" | "DESC", match: Match, limit: number): Promise<number[]> {
    const condition = match.value !== undefined ? "AND value_count > 0 AND min <= $5 AND max >= $5" : match.valued ? "AND value_count > 0" : "";
    const { rows } = await this.reads.query({
      ...q(`SELECT block_start FROM timeseries_block WHERE timeseries_id = $1 AND block_start >= $2 AND block_start <= $3 ${condition}
        ORDER BY block_start ${order} LIMIT $4`, [seriesId, from, to, limit, ...(match.value !== undefined ? [match.value] : [])]),
      rowMode: "array",
    });
    return (rows as [number][]).map((r) => r[0]);
  }
}


/** A connection, a pool or the read connections: what runs a query. */
type Queryable = Pick<ReadConnections, "query">;

/** Upserts the day rows of rowArrays ($2–$10) of series $1. */
const UPSERT_ROWS_SQL = `INSERT INTO timeseries_block AS b ${DAY_ROW_COLUMNS}
  SELECT $1, * FROM unnest($2::bigint[], $3::int[], $4::int[], $5::float8[], $6::float8[], $7::float8[], $8::bigint[], $9::bigint[], $10::bytea[])
  ON CONFLICT (timeseries_id, block_start) DO UPDATE SET count = excluded.count, value_count = excluded.value_count, min = excluded.min,
    max = excluded.max, sum = excluded.sum, first_timestamp = excluded.first_timestamp, last_timestamp = excluded.last_timestamp, records = excluded.records`;

/** The day rows as the arrays of UPSERT_ROWS_SQL's parameters $2–$10. */
function rowArrays(rows: readonly DayRow[]): unknown[] {
  return [
    rows.map((r) => r.start), rows.map((r) => r.count), rows.map((r) => r.valueCount), rows.map((r) => r.min), rows.map((r) => r.max),
    rows.map((r) => r.sum), rows.map((r) => r.first), rows.map((r) => r.last), rows.map((r) => Buffer.from(r.records.buffer, r.records.byteOffset, r.records.length)),
  ];
}

/**
 * Bytes of encoded blocks a read in a snapshot fetches ahead of its reader: about 750,000
 * ten-minute records (14 years), so that most reads let their snapshot go once fetched, and a
 * download's memory stays small.
 */
const SNAPSHOT_READ_AHEAD = 1024 * 1024;

/** A stored day from its bytes and its summary as an array (count, value count, min, max, sum). */
function storedDay(start: number, bytes: Uint8Array, summary: (number | null)[]): StoredDay {
  const [count, valueCount, min, max, sum] = summary;
  return { start, bytes, summary: { count: count!, valueCount: valueCount!, min, max, sum } };
}
