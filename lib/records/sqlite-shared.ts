import type { Statement } from "better-sqlite3";
import { sqliteValue, type Db } from "@/lib/db";
import { openSqlite, type SqliteDatabase } from "@/lib/db/sqlite";
import {
  type AlsoOptions, chunkedWriteStart, chunksFrom, type ChunkedWriteOptions, firstChunk, type LastRecord, type RecordBatch, type SeriesSummary,
} from "@/lib/records/types";

/**
 * What the records stores on SQLite share about their connections: prepared statements cached
 * per connection, synchronous transactions under the process's write lock, the connection of
 * chunked writes, and the series' summary row.
 */
export class SqliteConnections {
  private readonly statements = new Map<SqliteDatabase, Map<string, Statement>>();
  /**
   * The connection of chunked writes, whose transaction stays open while their chunks arrive:
   * readers on the process's connection go on seeing the last commit meanwhile.
   */
  private chunkConn: SqliteDatabase | null = null;

  constructor(readonly db: Db, readonly conn: SqliteDatabase) {}

  /** The statement of `sql` on the connection, prepared once. */
  stmt(sql: string, conn = this.conn): Statement {
    let cache = this.statements.get(conn);
    if (!cache) this.statements.set(conn, (cache = new Map()));
    let s = cache.get(sql);
    if (!s) {
      s = conn.prepare(sql);
      cache.set(sql, s);
    }
    return s;
  }

  /** Runs `fn` in one synchronous transaction under the process's write lock. */
  transaction<T>(fn: () => { value: T; commit: boolean }): Promise<T> {
    return this.db.withWriteLock(() => {
      const conn = this.conn;
      conn.exec("BEGIN IMMEDIATE");
      try {
        const { value, commit } = fn();
        conn.exec(commit ? "COMMIT" : "ROLLBACK");
        return value;
      } catch (e) {
        if (conn.inTransaction) conn.exec("ROLLBACK");
        throw e;
      }
    });
  }

  /** The write's `also` statements, on this connection, inside its transaction. */
  runAlso(options: AlsoOptions, conn = this.conn): void {
    for (const sql of options.also ?? []) this.stmt(sql.sql, conn).run(sql.values.map(sqliteValue));
  }

  /**
   * A chunked write (writeChunksLocked) to the series on the connection of chunked writes;
   * `write` is given where it begins (chunkedWriteStart, checked against the last stored record).
   */
  writeChunks(seriesId: number, chunks: AsyncIterable<RecordBatch>, options: ChunkedWriteOptions,
    write: (conn: SqliteDatabase, first: RecordBatch | null, chunks: AsyncIterable<RecordBatch>, from: number) => Promise<number>): Promise<number> {
    return writeChunksLocked(this.db, () => (this.chunkConn ??= openSqlite(this.conn.name)), chunks, options, (conn, first, all) => {
      const row = this.stmt("SELECT last_timestamp FROM timeseries WHERE id = ?", conn).get(seriesId) as { last_timestamp: number | null } | undefined;
      if (!row) throw new Error(`time series ${seriesId} does not exist`);
      return write(conn, first, all, chunkedWriteStart(first, options, row.last_timestamp));
    });
  }

  /** Closes the connection of chunked writes; `forget` drops what the store kept for it. */
  close(forget?: (conn: SqliteDatabase) => void): void {
    if (this.chunkConn) {
      this.statements.delete(this.chunkConn);
      forget?.(this.chunkConn);
      this.chunkConn.close();
    }
    this.chunkConn = null;
  }

  async summary(seriesId: number): Promise<SeriesSummary | null> {
    const row = this.stmt(`SELECT record_count, first_timestamp, last_timestamp, last_value, last_flags, version
      FROM timeseries WHERE id = ?`).get(seriesId) as Record<string, number | string | null> | undefined;
    if (!row) return null;
    return {
      count: row.record_count as number,
      first: row.first_timestamp as number | null,
      last: row.last_timestamp as number | null,
      lastValue: row.last_value as number | null,
      lastFlags: row.last_flags as string | null,
      version: row.version as number,
    };
  }

  /** The summary after `n` records were appended, the first at `first`. */
  appendedSummary(conn: SqliteDatabase, seriesId: number, n: number, first: number, last: LastRecord): void {
    const [t, value, flags] = last;
    this.stmt(`UPDATE timeseries SET
        record_count = record_count + ?,
        first_timestamp = CASE WHEN first_timestamp IS NULL OR first_timestamp > ? THEN ? ELSE first_timestamp END,
        last_value = CASE WHEN last_timestamp IS NULL OR last_timestamp < ? THEN ? ELSE last_value END,
        last_flags = CASE WHEN last_timestamp IS NULL OR last_timestamp < ? THEN ? ELSE last_flags END,
        last_timestamp = CASE WHEN last_timestamp IS NULL OR last_timestamp < ? THEN ? ELSE last_timestamp END,
        version = version + 1,
        last_modified = ?
      WHERE id = ?`, conn).run(n, first, first, t, value, t, flags, t, t, Date.now(), seriesId);
  }

  /** The summary after a replacement from `from` that deleted `deleted` records and wrote `n` (the first at `first`), the last record now `last`. */
  replacedSummary(conn: SqliteDatabase, seriesId: number, from: number, deleted: number, n: number, first: number | null, last: LastRecord): void {
    this.stmt(`UPDATE timeseries SET
        record_count = record_count - ? + ?,
        first_timestamp = CASE WHEN first_timestamp < ? THEN first_timestamp ELSE ? END,
        last_timestamp = ?, last_value = ?, last_flags = ?,
        version = version + 1,
        last_modified = ?
      WHERE id = ?`, conn).run(deleted, n, from, first, ...last, Date.now(), seriesId);
  }
}

/**
 * What the records stores on SQLite share: a chunked write (an upload read as it arrives) in one
 * IMMEDIATE transaction on a connection of its own, under the database's write lock; committed
 * when it wrote something or replaced a span, rolled back otherwise and on any error. `write`
 * does the work inside the transaction, given the first chunk and all of them.
 */
export async function writeChunksLocked(
  db: Db, connection: () => SqliteDatabase, chunks: AsyncIterable<RecordBatch>, options: ChunkedWriteOptions,
  write: (conn: SqliteDatabase, first: RecordBatch | null, chunks: AsyncIterable<RecordBatch>) => Promise<number>,
): Promise<number> {
  const { first, rest } = await firstChunk(chunks);
  try {
    if (first === null && options.replaceFrom === undefined) return 0;
    return await db.withWriteLock(async () => {
      const conn = connection();
      conn.exec("BEGIN IMMEDIATE");
      try {
        const written = await write(conn, first, chunksFrom(first, rest));
        conn.exec(written > 0 || options.replaceFrom !== undefined ? "COMMIT" : "ROLLBACK");
        return written;
      } catch (e) {
        if (conn.inTransaction) conn.exec("ROLLBACK");
        throw e;
      }
    });
  } finally {
    await rest.return?.();
  }
}
