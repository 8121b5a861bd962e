import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import pg from "pg";
import { from as copyFrom, to as copyTo } from "pg-copy-streams";
import { postgresValue, type Prisma, type ReadConnections } from "@/lib/db";
import { addToChart, newChartAggregates } from "@/lib/formats/chart";
import { applyCorrection, correctionSpan } from "@/lib/records/correction";
import { RecordCopyParser, recordCopyPieces } from "@/lib/records/pg-binary-copy";
import { APPENDED_SUMMARY_SQL, type Done, PgTransactions, q, replacedSummary, seriesSummary, TYPES } from "@/lib/records/pg-shared";
import {
  addAggregate, batchBlocks, type BatchBlocks, BLOCK_PLAN_MIN_WIDTH, BlockBuilder, type BlockRow, blockStart, type ChartAggregates, checkReplacement,
  type ChunkedWriteOptions, chunkedWriteStart, chunksFrom, type CorrectionPlan, type CorrectOptions, type CorrectResult, countPlan, DAY, DIFF_CHUNK,
  firstChunk, type FoundRecord, type LastRecord, mergeInto, mergeWholeBlocks, newRangeAggregate, type RangeAggregate, readAhead, type RecordBatch,
  type RecordChunk, RecordDifferences, type RecordsStore, type ReplaceOptions, ReplaceRefused, safeBound, type SeriesSummary, storedFrom,
  type StoredRecords, type WriteOptions, type WriteResult,
} from "@/lib/records/types";

/**
 * The records store on PostgreSQL (pg): writes lock their series' row, so appends to one series
 * are serialized while writes to different series run in parallel, and stream the records in
 * with COPY. Writes use the primary's pool; reads go through `reads` (a read replica when the
 * request allows, lib/db/replicas.ts).
 */
export class PostgresRecordsStore implements RecordsStore {
  private readonly transactions: PgTransactions;

  constructor(private readonly pool: pg.Pool, private readonly reads: ReadConnections) {
    this.transactions = new PgTransactions(pool);
  }

  /** Runs `fn` in a transaction (PgTransactions.run), BEGIN with the lock of `lockSeries` when given. */
  private transaction<T>(
    fn: (client: pg.PoolClient, locked: { lastTimestamp: number | null } | null) => Promise<Done<T>>, lockSeries?: number,
  ): Promise<T> {
    return this.transactions.run((client) => (lockSeries === undefined ? client.query("BEGIN").then(() => null) : beginLocked(client, lockSeries)), fn);
  }

  async write(seriesId: number, batch: RecordBatch, options: WriteOptions): Promise<WriteResult> {
    return this.transaction(async (client, lastStored) => {
      const { result, also } = await this.writeInTransaction(client, seriesId, lastStored!, batch, options);
      return { value: result, commit: result.ok && !options.dryRun, written: batch.timestamps.length, also };
    }, seriesId);
  }

  async replace(seriesId: number, from: number, batch: RecordBatch, options: ReplaceOptions = {}): Promise<number> {
    checkReplacement(from, batch);
    return this.transaction(async (client) => {
      const { onlyIf } = options;
      if (onlyIf && (await client.query(q(onlyIf.text, onlyIf.values.map(postgresValue)))).rows.length === 0) {
        throw new ReplaceRefused("replace: its condition does not hold");
      }
      const { n, deleted } = await this.replaceInTransaction(client, seriesId, from, batch, options);
      return { value: n, commit: true, written: n + deleted, also: options.also };
    });
  }

  async writeChunks(seriesId: number, chunks: AsyncIterable<RecordBatch>, options: ChunkedWriteOptions = {}): Promise<number> {
    const { first, rest } = await firstChunk(chunks);
    try {
      const replacing = options.replaceFrom !== undefined;
      if (first === null && !replacing) return 0;
      return await this.transaction(async (client, locked) => {
        const firstT = first === null ? null : first.timestamps[0];
        const from = chunkedWriteStart(first, options, locked!.lastTimestamp);
        const deleted = replacing ? await this.deleteFrom(client, seriesId, from, first !== null) : 0;
        const blocks = new BlockBuilder();
        let n = 0;
        let last: RecordBatch | null = null;
        await this.copyRecords(client, seriesId, (async function* () {
          for await (const chunk of chunksFrom(first, rest)) {
            blocks.add(chunk);
            n += chunk.timestamps.length;
            last = chunk;
            yield chunk;
          }
        })());
        if (n > 0) await this.mergeBlocks(client, seriesId, blocks.blocks());
        const lastRecord = last === null ? null : lastOf(last);
        if (replacing) {
          if (deleted > 0 || n > 0) await this.replacedSummaryOf(client, seriesId, from, deleted, n, firstT, lastRecord);
        } else if (n > 0) {
          await this.appendedSummary(client, seriesId, n, firstT!, lastRecord!);
        }
        const also = n > 0 || replacing ? options.also?.(from) : undefined;
        return { value: n, commit: n > 0 || replacing, written: n + deleted, also };
      }, seriesId);
    } finally {
      await rest.return?.();
    }
  }

  async correct(seriesId: number, plan: CorrectionPlan, options: CorrectOptions = {}): Promise<CorrectResult> {
    const { lo, hi } = correctionSpan(plan.from, plan.to);
    return this.transaction<CorrectResult>(async (client) => {
      const applied = applyCorrection(await copyChunkOn(client, seriesId, lo, hi, Number.MAX_SAFE_INTEGER), plan);
      if ("errors" in applied) return { value: { ok: false, errors: applied.errors }, commit: false, written: 0 };
      const { outcome } = applied;
      if (options.dryRun) return { value: { ok: true, ...outcome }, commit: false, written: 0 };
      if (outcome.first !== null) {
        const { written } = outcome;
        // The records deleted and upserted, the days' blocks computed again (disjoint sets of keys: the
        // statements of one WITH do not see each other's changes).
        await client.query(q(`WITH removed AS (
            DELETE FROM timeseries_record WHERE timeseries_id = $1 AND timestamp = ANY($2::bigint[])
          ), upserted AS (
            INSERT INTO timeseries_record (timeseries_id, timestamp, value, flags)
            SELECT $1, * FROM unnest($3::bigint[], $4::float8[], $5::text[])
            ON CONFLICT (timeseries_id, timestamp) DO UPDATE SET value = excluded.value, flags = excluded.flags
          ), emptied AS (
            DELETE FROM timeseries_block WHERE timeseries_id = $1 AND block_start = ANY($6::bigint[])
          )
          INSERT INTO timeseries_block (timeseries_id, block_start, count, value_count, min, max, sum)
          SELECT $1, * FROM unnest($7::bigint[], $8::int[], $9::int[], $10::float8[], $11::float8[], $12::float8[])
          ON CONFLICT (timeseries_id, block_start) DO UPDATE SET
            count = excluded.count, value_count = excluded.value_count, min = excluded.min, max = excluded.max, sum = excluded.sum`,
        [seriesId, Array.from(applied.remove), Array.from(written.timestamps), Array.from(written.values, nullable), written.flags,
          applied.emptiedDays, applied.blocks.starts, applied.blocks.counts, applied.blocks.valueCounts, applied.blocks.mins, applied.blocks.maxs, applied.blocks.sums]));
        await client.query(q(`UPDATE timeseries SET
            record_count = record_count + $1,
            first_timestamp = (SELECT timestamp FROM timeseries_record WHERE timeseries_id = $2 ORDER BY timestamp LIMIT 1),
            (last_timestamp, last_value, last_flags) = (SELECT timestamp, value, flags FROM timeseries_record WHERE timeseries_id = $2 ORDER BY timestamp DESC LIMIT 1),
            version = version + 1,
            last_modified = to_timestamp($3::float8 / 1000) AT TIME ZONE 'UTC'
          WHERE id = $2`, [applied.countDelta, seriesId, Date.now()]));
      }
      return { value: { ok: true, ...outcome }, commit: true, written: outcome.before.timestamps.length + outcome.written.timestamps.length, also: options.also?.(outcome) };
    }, seriesId);
  }

  /** The write, its series locked; the `also` statements to run with the COMMIT when it stored records. */
  private async writeInTransaction(
    client: pg.PoolClient, seriesId: number, { lastTimestamp: lastStored }: { lastTimestamp: number | null }, batch: RecordBatch, options: WriteOptions,
  ): Promise<{ result: WriteResult; also?: readonly Prisma.Sql[] }> {
    const n = batch.timestamps.length;
    const existing = new Set<number>();
    if (options.mode === "insert" && n > 0 && lastStored !== null && batch.timestamps[0] <= lastStored) {
      const found = await client.query(q(
        "SELECT timestamp FROM timeseries_record WHERE timeseries_id = $1 AND timestamp BETWEEN $2 AND $3",
        [seriesId, batch.timestamps[0], batch.timestamps[n - 1]]));
      const wanted = new Set(batch.timestamps);
      for (const r of found.rows) if (wanted.has(r.timestamp)) existing.add(r.timestamp);
    }
    const errors = options.validate({ lastStored, existing });
    if (errors.length) return { result: { ok: false, errors } };
    if (n === 0 || options.dryRun) return { result: { ok: true, stored: n } };

    if (n <= SMALL_WRITE) {
      await this.writeSmall(client, seriesId, batch);
    } else {
      await this.copyRecords(client, seriesId, [batch]);
      await this.mergeBlocks(client, seriesId, batchBlocks(batch));
      await this.appendedSummary(client, seriesId, n, batch.timestamps[0], lastOf(batch));
    }
    return { result: { ok: true, stored: n }, also: options.also };
  }

  async stored(seriesId: number, from: number): Promise<StoredRecords | null> {
    // On the primary: the replacement compares with the primary's records.
    const client = await this.pool.connect();
    try {
      const { rows } = await client.query(q("SELECT version FROM timeseries WHERE id = $1", [seriesId]));
      if (rows.length === 0) return null;
      const chunk = await copyChunkOn(client, seriesId, Math.max(Math.ceil(from), Number.MIN_SAFE_INTEGER), Number.MAX_SAFE_INTEGER, Number.MAX_SAFE_INTEGER);
      return { seriesId, from, version: rows[0].version as number, chunks: [chunk] };
    } finally {
      client.release();
    }
  }

  private async replaceInTransaction(client: pg.PoolClient, seriesId: number, from: number, batch: RecordBatch, options: ReplaceOptions) {
    const { rows } = await client.query(q("SELECT version FROM timeseries WHERE id = $1 FOR UPDATE", [seriesId]));
    if (rows.length === 0) throw new Error(`time series ${seriesId} does not exist`);
    const n = batch.timestamps.length;
    const written = await this.writeDifferences(client, seriesId, from, batch, storedFrom(options.stored, seriesId, from, rows[0].version as number));
    let deleted: number;
    if (written) {
      deleted = written.stored;
      if (deleted > 0 || n > 0) await this.recountFromDay(client, seriesId, from);
    } else {
      deleted = await this.deleteFrom(client, seriesId, from, n > 0);
    }
    if (deleted > 0 || n > 0) {
      if (n > 0) {
        if (!written) await this.copyRecords(client, seriesId, [batch]);
        await this.mergeBlocks(client, seriesId, batchBlocks(batch));
      }
      await this.replacedSummaryOf(client, seriesId, from, deleted, n, n > 0 ? batch.timestamps[0] : null, n > 0 ? lastOf(batch) : null);
    }
    return { n, deleted };
  }

  /**
   * Makes the stored records ≥ from those of `batch` by writing only those that differ
   * (RecordDifferences), read on the transaction's client; null, having written nothing, when
   * most differ. Returns how many records were stored ≥ from.
   */
  private async writeDifferences(
    client: pg.PoolClient, seriesId: number, from: number, batch: RecordBatch, known: RecordChunk[] | null,
  ): Promise<{ stored: number } | null> {
    const differences = new RecordDifferences(batch);
    if (known) {
      for (const chunk of known) if (!differences.add(chunk)) return null;
    } else {
      for (let next = Math.max(Math.ceil(from), Number.MIN_SAFE_INTEGER); ;) {
        const chunk = await copyChunkOn(client, seriesId, next, Number.MAX_SAFE_INTEGER, DIFF_CHUNK);
        if (!differences.add(chunk)) return null;
        if (chunk.length < DIFF_CHUNK) break;
        next = chunk.timestamps[chunk.length - 1] + 1;
      }
    }
    if (!differences.finish()) return null;
    if (differences.gone.length) {
      await client.query(q("DELETE FROM timeseries_record WHERE timeseries_id = $1 AND timestamp = ANY($2::bigint[])", [seriesId, differences.gone]));
    }
    const changed = differences.changedRecords();
    if (changed.timestamps.length) {
      await client.query(q(`INSERT INTO timeseries_record (timeseries_id, timestamp, value, flags)
        SELECT $1, * FROM unnest($2::bigint[], $3::float8[], $4::text[])
        ON CONFLICT (timeseries_id, timestamp) DO UPDATE SET value = excluded.value, flags = excluded.flags`,
      [seriesId, Array.from(changed.timestamps), Array.from(changed.values, nullable), changed.flags]));
    }
    return { stored: differences.stored };
  }

  /**
   * The first half of a replacement: deletes the records from `from` on and, when records were
   * deleted or are to be written, counts the block of the day holding `from` again from its
   * earlier records. Returns the number deleted.
   */
  private async deleteFrom(client: pg.PoolClient, seriesId: number, from: number, writing: boolean): Promise<number> {
    const deleted = (await client.query(q("DELETE FROM timeseries_record WHERE timeseries_id = $1 AND timestamp >= $2", [seriesId, from]))).rowCount ?? 0;
    if (deleted === 0 && !writing) return 0;
    await this.recountFromDay(client, seriesId, from);
    return deleted;
  }

  /** Drops the blocks from the day holding `from` on, and counts that day's again from its records before `from`. */
  private async recountFromDay(client: pg.PoolClient, seriesId: number, from: number): Promise<void> {
    const day = blockStart(from);
    await client.query(q("DELETE FROM timeseries_block WHERE timeseries_id = $1 AND block_start >= $2", [seriesId, day]));
    await client.query(q(`INSERT INTO timeseries_block (timeseries_id, block_start, count, value_count, min, max, sum)
      SELECT $1, $2, COUNT(*), COUNT(value), MIN(value), MAX(value), SUM(value) FROM timeseries_record
      WHERE timeseries_id = $1 AND timestamp >= $2 AND timestamp < $3 HAVING COUNT(*) > 0`, [seriesId, day, from]));
  }

  /**
   * A small batch's records, its blocks merged and the summary in one statement (one round trip,
   * where the COPY, the blocks and the summary take four): what copyRecords, mergeBlocks and
   * appendedSummary do, for the loggers' uploads of a few records.
   */
  private async writeSmall(client: pg.PoolClient, seriesId: number, batch: RecordBatch): Promise<void> {
    const blocks = batchBlocks(batch);
    const [t, value, flags] = lastOf(batch);
    await client.query(q(`WITH records AS (
        INSERT INTO timeseries_record (timeseries_id, timestamp, value, flags)
        SELECT $1, * FROM unnest($2::bigint[], $3::float8[], $4::text[])
      ), blocks AS (
        ${MERGE_BLOCKS_SQL("$1", "$5", "$6", "$7", "$8", "$9", "$10")}
      )
      ${APPENDED_SUMMARY_SQL("$11", "$12", "$13", "$14", "$15", "$16", "$1")}`,
    [seriesId, Array.from(batch.timestamps), Array.from(batch.values, nullable), batch.flags,
      blocks.starts, blocks.counts, blocks.valueCounts, blocks.mins, blocks.maxs, blocks.sums,
      batch.timestamps.length, batch.timestamps[0], t, value, flags, Date.now()]));
  }

  /** The summary after `n` records were appended, the first at `first`. */
  private async appendedSummary(client: pg.PoolClient, seriesId: number, n: number, first: number, last: LastRecord): Promise<void> {
    const [t, value, flags] = last;
    await client.query(q(APPENDED_SUMMARY_SQL("$1", "$2", "$3", "$4", "$5", "$6", "$7"), [n, first, t, value, flags, Date.now(), seriesId]));
  }

  /** The summary after a replacement from `from` that deleted `deleted` records and wrote `n` (the first at `first`, the last `last`). */
  private async replacedSummaryOf(
    client: pg.PoolClient, seriesId: number, from: number, deleted: number, n: number, first: number | null, last: LastRecord | null,
  ): Promise<void> {
    const lastRecord = last
      ?? (await client.query({
        ...q("SELECT timestamp, value, flags FROM timeseries_record WHERE timeseries_id = $1 AND timestamp < $2 ORDER BY timestamp DESC LIMIT 1",
          [seriesId, from]),
        rowMode: "array",
      })).rows[0] ?? [null, null, null];
    await replacedSummary(client, seriesId, from, deleted, n, first, lastRecord as LastRecord);
  }

  /** Streams the records of the batches in with one binary COPY. */
  private async copyRecords(client: pg.PoolClient, seriesId: number, batches: Iterable<RecordBatch> | AsyncIterable<RecordBatch>): Promise<void> {
    await pipeline(Readable.from(recordCopyPieces(seriesId, batches)), client.query(copyFrom(
      "COPY timeseries_record (timeseries_id, timestamp, value, flags) FROM STDIN (FORMAT binary)")));
  }

  /** Merges daily aggregates into the stored blocks. */
  private async mergeBlocks(client: pg.PoolClient, seriesId: number, blocks: BatchBlocks): Promise<void> {
    await client.query(q(MERGE_BLOCKS_SQL("$1", "$2", "$3", "$4", "$5", "$6", "$7"),
      [seriesId, blocks.starts, blocks.counts, blocks.valueCounts, blocks.mins, blocks.maxs, blocks.sums]));
  }

  read(seriesId: number, from: number, to: number, chunkSize = 50_000): AsyncGenerator<RecordChunk> {
    const last = Math.min(Math.floor(to), Number.MAX_SAFE_INTEGER);
    return readAhead(Math.max(Math.ceil(from), Number.MIN_SAFE_INTEGER), (next) => ({
      limit: chunkSize, chunk: this.copyChunk(seriesId, next, last, chunkSize),
    }));
  }

  /**
   * Up to `limit` records from `from` on, through a binary COPY (lib/records/pg-binary-copy.ts).
   * COPY takes no parameters: the bounds are integers checked here.
   */
  private copyChunk(seriesId: number, from: number, to: number, limit: number): Promise<RecordChunk> {
    return this.reads.withClient((client) => copyChunkOn(client, seriesId, from, to, limit));
  }

  summary(seriesId: number): Promise<SeriesSummary | null> {
    return seriesSummary(this.reads, seriesId);
  }

  async count(seriesId: number, from: number, to: number): Promise<number> {
    const plan = countPlan(from, to);
    const { rows } = await this.reads.query(q(`SELECT
        (SELECT COALESCE(SUM(count), 0)::bigint FROM timeseries_block WHERE timeseries_id = $1 AND block_start >= $2 AND block_start <= $3)
        + (SELECT COUNT(*) FROM unnest($4::bigint[], $5::bigint[]) AS e(lo, hi)
           JOIN timeseries_record r ON r.timeseries_id = $1 AND r.timestamp BETWEEN e.lo AND e.hi) AS n`,
    [seriesId, plan.wholeFrom, plan.wholeTo, plan.edges.map((e) => e[0]), plan.edges.map((e) => e[1])]));
    return Number(rows[0].n);
  }

  async aggregate(seriesId: number, S: number, E: number, N: number): Promise<ChartAggregates> {
    const out = newChartAggregates(N);
    const D = E - S;
    if (D / N < BLOCK_PLAN_MIN_WIDTH) {
      await this.aggregateRecords(out, seriesId, S, E, N, [[S, E]]);
      return out;
    }
    const { rows } = await this.reads.query({
      ...q(`SELECT block_start, value_count, min, max, sum FROM timeseries_block
        WHERE timeseries_id = $1 AND block_start >= $2 AND block_start <= $3 ORDER BY block_start`, [seriesId, S - DAY + 1, E]),
      rowMode: "array",
    });
    await this.aggregateRecords(out, seriesId, S, E, N, mergeWholeBlocks(out, S, E, N, rows as BlockRow[]));
    return out;
  }

  async latest(seriesId: number, lo: number, hi: number, match: { valued?: boolean; value?: number } = {}): Promise<FoundRecord | null> {
    const condition = match.value !== undefined ? "AND value = $4" : match.valued ? "AND value IS NOT NULL" : "";
    const { rows } = await this.reads.query(q(`SELECT timestamp, value, flags FROM timeseries_record WHERE timeseries_id = $1 AND timestamp >= $2 AND timestamp <= $3 ${condition}
      ORDER BY timestamp DESC LIMIT 1`, [seriesId, safeBound(lo), safeBound(hi), ...(match.value !== undefined ? [match.value] : [])]));
    return rows.length ? { timestamp: rows[0].timestamp, value: rows[0].value, flags: rows[0].flags } : null;
  }

  async earliest(seriesId: number, lo: number, hi: number): Promise<FoundRecord | null> {
    const { rows } = await this.reads.query(q(`SELECT timestamp, value, flags FROM timeseries_record WHERE timeseries_id = $1 AND timestamp >= $2 AND timestamp <= $3
      ORDER BY timestamp LIMIT 1`, [seriesId, safeBound(lo), safeBound(hi)]));
    return rows.length ? { timestamp: rows[0].timestamp, value: rows[0].value, flags: rows[0].flags } : null;
  }

  async readDays(seriesId: number, days: readonly number[]): Promise<RecordChunk[]> {
    return Promise.all(days.map((d) => this.copyChunk(seriesId, d, d + DAY - 1, Number.MAX_SAFE_INTEGER)));
  }

  async recordsAt(pairs: readonly (readonly [number, number])[]): Promise<(FoundRecord | null)[]> {
    const { rows } = await this.reads.query(q(`SELECT k.n, r.value, r.flags FROM unnest($1::int[], $2::bigint[]) WITH ORDINALITY AS k(id, t, n)
      JOIN timeseries_record r ON r.timeseries_id = k.id AND r.timestamp = k.t`, [pairs.map((p) => p[0]), pairs.map((p) => p[1])]));
    const out: (FoundRecord | null)[] = pairs.map(() => null);
    for (const r of rows) out[Number(r.n) - 1] = { timestamp: pairs[Number(r.n) - 1][1], value: r.value, flags: r.flags };
    return out;
  }

  async aggregateRanges(seriesId: number, ranges: readonly (readonly [number, number])[]): Promise<RangeAggregate[]> {
    const plans = ranges.map(([lo, hi]) => countPlan(safeBound(lo), safeBound(hi)));
    const parts: { j: number; lo: number; hi: number; whole: boolean }[] = [];
    plans.forEach((plan, j) => {
      if (plan.wholeFrom <= plan.wholeTo) parts.push({ j, lo: plan.wholeFrom, hi: plan.wholeTo, whole: true });
      for (const [lo, hi] of plan.edges) parts.push({ j, lo, hi, whole: false });
    });
    const out = ranges.map(() => newRangeAggregate());
    if (parts.length === 0) return out;
    // Whole days from the blocks, the rest from the records: one range scan each.
    const { rows } = await this.reads.query({
      ...q(`SELECT e.j, a.n, a.s, a.lo, a.hi FROM unnest($2::int[], $3::bigint[], $4::bigint[], $5::bool[]) AS e(j, lo, hi, whole)
        CROSS JOIN LATERAL (
          SELECT SUM(value_count)::int AS n, SUM(sum) AS s, MIN(min) AS lo, MAX(max) AS hi FROM timeseries_block
            WHERE e.whole AND timeseries_id = $1 AND block_start >= e.lo AND block_start <= e.hi
          UNION ALL
          SELECT COUNT(value)::int, SUM(value), MIN(value), MAX(value) FROM timeseries_record
            WHERE NOT e.whole AND timeseries_id = $1 AND timestamp >= e.lo AND timestamp <= e.hi) a`,
      [seriesId, parts.map((p) => p.j), parts.map((p) => p.lo), parts.map((p) => p.hi), parts.map((p) => p.whole)]),
      rowMode: "array",
    });
    for (const [j, n, s, lo, hi] of rows as [number, number | null, number | null, number | null, number | null][]) addAggregate(out[j], n, s, lo, hi);
    return out;
  }

  private async aggregateRecords(out: ChartAggregates, seriesId: number, S: number, E: number, N: number, ranges: [number, number][]): Promise<void> {
    if (ranges.length === 0) return;
    const D = E - S;
    const interval = D === 0 ? `${N - 1}` : `LEAST(((r.timestamp - $4::bigint) * $5::bigint) / $6::bigint, ${N - 1})`;
    let rows: unknown[];
    try {
      ({ rows } = await this.reads.query({
        ...q(`SELECT ${interval} AS i, COUNT(r.value)::int, MIN(r.value), MAX(r.value), SUM(r.value)
          FROM unnest($2::bigint[], $3::bigint[]) AS e(lo, hi)
          JOIN timeseries_record r ON r.timeseries_id = $1 AND r.timestamp BETWEEN e.lo AND e.hi
          GROUP BY 1`, [seriesId, ranges.map((r) => r[0]), ranges.map((r) => r[1]), ...(D === 0 ? [] : [S, N, D])]),
        rowMode: "array",
      }));
    } catch (error) {
      if ((error as { code?: unknown }).code !== NUMERIC_OUT_OF_RANGE) throw error;
      // A sum of values near ±1.8e308 overflows, which PostgreSQL refuses: summed here instead, to ±Infinity.
      for (const [lo, hi] of ranges) {
        for await (const c of this.read(seriesId, lo, hi)) for (let k = 0; k < c.length; k++) addToChart(out, c.timestamps[k], c.values[k], S, E, N);
      }
      return;
    }
    for (const [i, count, min, max, sum] of rows as [number, number, number | null, number | null, number | null][]) {
      mergeInto(out, i, count, min ?? Infinity, max ?? -Infinity, sum ?? 0);
    }
  }
}


/**
 * BEGIN and the lock of the series' row, in one round trip (a simple-protocol query of two
 * statements; the id is a checked integer). Throws when the series does not exist.
 */
async function beginLocked(client: pg.PoolClient, seriesId: number): Promise<{ lastTimestamp: number | null }> {
  if (!Number.isSafeInteger(seriesId)) throw new TypeError(`not a time series id: ${seriesId}`);
  const results = await client.query({ text: `BEGIN; SELECT last_timestamp FROM timeseries WHERE id = ${seriesId} FOR UPDATE`, types: TYPES });
  const { rows } = (results as unknown as pg.QueryResult[])[1];
  if (rows.length === 0) throw new Error(`time series ${seriesId} does not exist`);
  return { lastTimestamp: rows[0].last_timestamp as number | null };
}

/** PostgreSQL's SQLSTATE of an arithmetic overflow (a float8 sum beyond ±1.8e308). */
const NUMERIC_OUT_OF_RANGE = "22003";

/** Batches up to this size are written by one statement (writeSmall), larger ones by COPY. */
const SMALL_WRITE = 1000;

/** Merges daily aggregates (series, block starts, counts, value counts, minima, maxima, sums: the parameters named) into the stored blocks. */
const MERGE_BLOCKS_SQL = (series: string, starts: string, counts: string, valueCounts: string, mins: string, maxs: string, sums: string) =>
  `INSERT INTO timeseries_block AS b (timeseries_id, block_start, count, value_count, min, max, sum)
      SELECT ${series}, * FROM unnest(${starts}::bigint[], ${counts}::int[], ${valueCounts}::int[], ${mins}::float8[], ${maxs}::float8[], ${sums}::float8[])
      ON CONFLICT (timeseries_id, block_start) DO UPDATE SET
        count = b.count + excluded.count,
        value_count = b.value_count + excluded.value_count,
        min = LEAST(b.min, excluded.min),
        max = GREATEST(b.max, excluded.max),
        sum = CASE WHEN b.sum IS NULL THEN excluded.sum WHEN excluded.sum IS NULL THEN b.sum ELSE ${IEEE_SUM("b.sum", "excluded.sum")} END`;

/**
 * a + b of two float8 expressions as IEEE arithmetic (and SQLite, and JavaScript) has it: ±Infinity
 * where PostgreSQL refuses an overflow with an error, which would fail an upload of values near
 * ±1.8e308 into a day that holds some. Halves never overflow: a + b does iff their sum exceeds
 * half the largest double.
 */
const IEEE_SUM = (a: string, b: string) =>
  `(CASE WHEN abs(${a} / 2 + ${b} / 2) > ${Number.MAX_VALUE / 2} THEN sign(${a} / 2 + ${b} / 2) * 'Infinity'::float8 ELSE ${a} + ${b} END)`;

/** The timestamp, value and flags of a batch's last record. */
function lastOf(batch: RecordBatch): [number, number | null, string] {
  const i = batch.timestamps.length - 1;
  return [batch.timestamps[i], nullable(batch.values[i]), batch.flags[i]];
}

function nullable(v: number): number | null {
  return v === v ? v : null;
}

/** copyChunk on a given client (a transaction's, to read what it is about to change). */
export async function copyChunkOn(client: pg.ClientBase, seriesId: number, from: number, to: number, limit: number): Promise<RecordChunk> {
  for (const n of [seriesId, from, to, limit]) if (!Number.isSafeInteger(n)) throw new Error(`not an integer bound: ${n}`);
  if (from > to) return { timestamps: new Float64Array(0), values: new Float64Array(0), flags: [], length: 0 };
  const parser = new RecordCopyParser();
  const stream = client.query(copyTo(`COPY (SELECT timestamp, value, flags FROM timeseries_record
    WHERE timeseries_id = ${seriesId} AND timestamp >= ${from} AND timestamp <= ${to} ORDER BY timestamp LIMIT ${limit})
    TO STDOUT (FORMAT binary)`));
  for await (const piece of stream) parser.push(piece as Buffer);
  return parser.chunk();
}
