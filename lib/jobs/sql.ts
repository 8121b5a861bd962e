import type { Statement } from "better-sqlite3";
import { db, Prisma, sqliteValue } from "@/lib/db";
import { jobsQueued, queuingWork } from "@/lib/db/queued-work";
import type { SqliteDatabase } from "@/lib/db/sqlite";


/**
 * How the queue runs its statements. SQLite: on the native connection, under the process's write
 * lock, synchronously (the connection also serves concurrent reads, so nothing may wait inside a
 * transaction); several statements in one BEGIN IMMEDIATE transaction. PostgreSQL: on the pool,
 * one autocommitted statement at a time (row locks and SKIP LOCKED do the rest).
 */
export type Row = Record<string, unknown>;

const statements = new WeakMap<SqliteDatabase, Map<string, Statement>>();

function prepared(conn: SqliteDatabase, text: string): Statement {
  let cache = statements.get(conn);
  if (!cache) statements.set(conn, (cache = new Map()));
  let stmt = cache.get(text);
  if (!stmt) {
    stmt = conn.prepare(text);
    if (cache.size > 200) cache.clear();
    cache.set(text, stmt);
  }
  return stmt;
}

/** Whether the open sqliteTransaction ran a statement that queues work (its commit wakes the runners). */
let transactionQueued = false;

/** Runs one statement on the native SQLite connection (the caller holds the write lock); its rows, if it returns any. */
export function sqliteRows(conn: SqliteDatabase, sql: Prisma.Sql): Row[] {
  if (queuingWork([sql])) transactionQueued = true;
  const stmt = prepared(conn, sql.sql);
  const values = sql.values.map(sqliteValue);
  if (stmt.reader) return stmt.all(values) as Row[];
  stmt.run(values);
  return [];
}

/** Runs `fn` in one BEGIN IMMEDIATE transaction under the write lock; `fn` must stay synchronous. */
export function sqliteTransaction<T>(fn: (conn: SqliteDatabase) => T): Promise<T> {
  const current = db();
  const conn = current.sqlite!;
  return current.withWriteLock(() => {
    conn.exec("BEGIN IMMEDIATE");
    transactionQueued = false;
    try {
      const value = fn(conn);
      conn.exec("COMMIT");
      if (transactionQueued) jobsQueued();
      return value;
    } catch (e) {
      if (conn.inTransaction) conn.exec("ROLLBACK");
      throw e;
    } finally {
      transactionQueued = false;
    }
  });
}

/** Runs one writing statement (autocommitted) and returns its rows (RETURNING), on either database. */
export async function write(sql: Prisma.Sql): Promise<Row[]> {
  const current = db();
  const conn = current.sqlite;
  const rows = conn ? await current.withWriteLock(() => sqliteRows(conn, sql)) : await current.query<Row>(sql);
  if (queuingWork([sql])) jobsQueued();
  return rows;
}

/** PostgreSQL's unique_violation: a concurrent enqueue queued the key first. */
export function isUniqueViolation(error: unknown): boolean {
  return (error as { code?: unknown })?.code === "23505";
}
