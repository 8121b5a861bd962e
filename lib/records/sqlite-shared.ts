import type { Db } from "@/lib/db";
import type { SqliteDatabase } from "@/lib/db/sqlite";
import { chunksFrom, type ChunkedWriteOptions, firstChunk, type RecordBatch } from "@/lib/records/types";

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
