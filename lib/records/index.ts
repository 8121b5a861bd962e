import { db } from "@/lib/db";
import { jobsQueued, queuingWork } from "@/lib/db/queued-work";
import { metrics } from "@/lib/observability/metrics.mjs";
import { PostgresBlockStore } from "@/lib/records/postgres-blocks";
import { SqliteBlockStore } from "@/lib/records/sqlite-blocks";
import type { ChunkedWriteOptions, CorrectResult, RecordBatch, RecordChunk, RecordsStore, WriteOptions, WriteResult } from "@/lib/records/types";

export type * from "@/lib/records/types";
export { RecordsChangedDuringRead, RecordsOverlap, ReplaceRefused } from "@/lib/records/types";
export { decodeRecords, encodeRecords } from "@/lib/records/codec";
export { concatBatches } from "@/lib/records/batches";
export { recordsExistSql } from "@/lib/records/sql";

/**
 * A store that counts the records written and read, for the metrics, notes writes (read
 * replicas), and wakes the job runners after a write whose `also` statements queued work
 * (lib/db/queued-work.ts).
 */
class CountedStore implements RecordsStore {
  constructor(private readonly store: RecordsStore) {}

  async write(seriesId: number, batch: RecordBatch, options: WriteOptions): Promise<WriteResult> {
    const result = await this.store.write(seriesId, batch, options);
    if (result.ok && !options.dryRun) {
      metrics().recordsWritten.inc(result.stored);
      if (queuingWork(options.also)) jobsQueued();
      await db().replicas?.noteWrite();
    }
    return result;
  }

  async *read(seriesId: number, from: number, to: number, chunkSize?: number): AsyncGenerator<RecordChunk> {
    const counter = metrics().recordsRead;
    for await (const chunk of this.store.read(seriesId, from, to, chunkSize)) {
      counter.inc(chunk.length);
      yield chunk;
    }
  }

  async replace(...args: Parameters<RecordsStore["replace"]>): Promise<number> {
    const written = await this.store.replace(...args);
    metrics().recordsWritten.inc(written);
    if (queuingWork(args[3]?.also)) jobsQueued();
    await db().replicas?.noteWrite();
    return written;
  }

  async writeChunks(seriesId: number, chunks: AsyncIterable<RecordBatch>, options: ChunkedWriteOptions = {}): Promise<number> {
    const also = options.also;
    let queued = false;
    const written = await this.store.writeChunks(seriesId, chunks, also ? {
      ...options,
      also: (from) => {
        const statements = also(from);
        queued ||= queuingWork(statements);
        return statements;
      },
    } : options);
    if (written > 0 || options.replaceFrom !== undefined) {
      metrics().recordsWritten.inc(written);
      if (queued) jobsQueued();
      await db().replicas?.noteWrite();
    }
    return written;
  }

  async correct(...args: Parameters<RecordsStore["correct"]>): Promise<CorrectResult> {
    const result = await this.store.correct(...args);
    // Applied, it wrote its `also` statements at least (a correction that changed nothing is still recorded).
    if (result.ok && !args[2]?.dryRun) {
      metrics().recordsWritten.inc(result.written.timestamps.length);
      await db().replicas?.noteWrite();
    }
    return result;
  }

  stored: RecordsStore["stored"] = (seriesId, from) => this.store.stored(seriesId, from);
  summary: RecordsStore["summary"] = (seriesId) => this.store.summary(seriesId);
  count: RecordsStore["count"] = (seriesId, from, to) => this.store.count(seriesId, from, to);
  aggregate: RecordsStore["aggregate"] = (seriesId, S, E, N) => this.store.aggregate(seriesId, S, E, N);
  latest: RecordsStore["latest"] = (...args) => this.store.latest(...args);
  earliest: RecordsStore["earliest"] = (...args) => this.store.earliest(...args);
  readDays: RecordsStore["readDays"] = (...args) => this.store.readDays(...args);
  recordsAt: RecordsStore["recordsAt"] = (...args) => this.store.recordsAt(...args);
  aggregateRanges: RecordsStore["aggregateRanges"] = (...args) => this.store.aggregateRanges(...args);
  convert = (seriesId: number): Promise<number> => this.store.convert?.(seriesId) ?? Promise.resolve(0);
  close(): void {
    this.store.close?.();
  }
}

const KEY = Symbol.for("enhydris.records");
type Holder = { [KEY]?: { store: RecordsStore; db: unknown } };

/** Closes the process's records store, if one is open (a script at its exit, before closeDb). */
export function closeRecords(): void {
  const holder = globalThis as Holder;
  holder[KEY]?.store.close?.();
  delete holder[KEY];
}

/** The records store of the process's database. */
export function records(): RecordsStore {
  const holder = globalThis as Holder;
  const current = db();
  if (!holder[KEY] || holder[KEY].db !== current) {
    holder[KEY]?.store.close?.();
    const store = current.sqlite ? new SqliteBlockStore(current, current.sqlite) : new PostgresBlockStore(current.pool!, current.reads!);
    holder[KEY] = { store: new CountedStore(store), db: current };
  }
  return holder[KEY].store;
}
