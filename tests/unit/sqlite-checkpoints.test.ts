import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { deferredCheckpoints, openSqlite, type SqliteDatabase } from "@/lib/db/sqlite";

const dirs: string[] = [];
const conns: SqliteDatabase[] = [];
afterEach(() => {
  for (const c of conns.splice(0)) c.close();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function database(): SqliteDatabase {
  const dir = mkdtempSync(join(tmpdir(), "checkpoints-"));
  dirs.push(dir);
  const conn = openSqlite(join(dir, "db.sqlite3"));
  conns.push(conn);
  conn.exec("CREATE TABLE t (k INTEGER PRIMARY KEY, v BLOB)");
  return conn;
}

/** Frames in the WAL, and those of them already checkpointed (a PASSIVE checkpoint that finds nothing to do says so). */
const walState = (conn: SqliteDatabase) => (conn.pragma("wal_checkpoint(PASSIVE)") as { log: number; checkpointed: number }[])[0];
const nextTurn = () => new Promise((resolve) => setImmediate(resolve));

function write(conn: SqliteDatabase, from: number, bytes: number): void {
  const insert = conn.prepare("INSERT INTO t (k, v) VALUES (?, zeroblob(?))");
  conn.transaction(() => {
    for (let k = from; k < from + bytes / 4096; k++) insert.run(k, 4000);
  })();
}

describe("deferredCheckpoints (SQLite WAL checkpoints off the write's path)", () => {
  it("leaves the commit without a checkpoint, and checkpoints a WAL past 4 MB once the current callbacks are done", async () => {
    const conn = database();
    const checkpoints = deferredCheckpoints(conn, (error) => {
      throw error;
    });
    expect(conn.pragma("wal_autocheckpoint", { simple: true })).toBe(0);
    write(conn, 0, 6 * 1024 * 1024);
    const walBytes = statSync(`${conn.name}-wal`).size;
    expect(walBytes).toBeGreaterThan(4 * 1024 * 1024);
    checkpoints.afterWrite();
    checkpoints.afterWrite(); // one checkpoint for both
    // Not yet: the commit took no checkpoint (the pages are in the WAL only), and afterWrite waits for the next turn.
    expect(statSync(conn.name).size).toBeLessThan(1024 * 1024);
    await nextTurn();
    await nextTurn();
    expect(statSync(conn.name).size).toBeGreaterThan(6 * 1024 * 1024);
    const { log, checkpointed } = walState(conn);
    expect(checkpointed).toBe(log);
  });

  it("does not checkpoint a small WAL (its frames wait for more writes)", async () => {
    const conn = database();
    const checkpoints = deferredCheckpoints(conn, (error) => {
      throw error;
    });
    write(conn, 0, 64 * 1024);
    checkpoints.afterWrite();
    await nextTurn();
    await nextTurn();
    const other = openSqlite(conn.name);
    conns.push(other);
    other.pragma("wal_autocheckpoint = 0");
    expect(other.prepare("SELECT COUNT(*) FROM t").pluck().get()).toBe(16);
    expect(statSync(`${conn.name}-wal`).size).toBeGreaterThan(64 * 1024);
    expect(statSync(conn.name).size).toBeLessThan(64 * 1024);
  });

  it("after a checkpoint, waits again until the WAL's new frames pass 4 MB (the file is cut back when the WAL restarts)", async () => {
    const conn = database();
    const checkpoints = deferredCheckpoints(conn, (error) => {
      throw error;
    });
    write(conn, 0, 6 * 1024 * 1024);
    checkpoints.afterWrite();
    await nextTurn();
    await nextTurn();
    const checkpointedSize = statSync(conn.name).size;
    write(conn, 100_000, 64 * 1024); // restarts the WAL from its start
    expect(statSync(`${conn.name}-wal`).size).toBeLessThanOrEqual(4 * 1024 * 1024);
    checkpoints.afterWrite();
    await nextTurn();
    await nextTurn();
    expect(statSync(conn.name).size).toBe(checkpointedSize); // the small write's pages wait in the WAL
    write(conn, 200_000, 6 * 1024 * 1024);
    checkpoints.afterWrite();
    await nextTurn();
    await nextTurn();
    expect(statSync(conn.name).size).toBeGreaterThan(checkpointedSize + 6 * 1024 * 1024);
  });

  it("reports a checkpoint that keeps failing (a full disk) once, and again when one succeeds", async () => {
    const conn = database();
    const checkpoint = conn.pragma.bind(conn);
    let diskFull = true;
    conn.pragma = ((source: string, options?: { simple?: boolean }) => {
      if (diskFull && source.startsWith("wal_checkpoint")) throw Object.assign(new Error("database or disk is full"), { code: "SQLITE_FULL" });
      return checkpoint(source, options);
    }) as SqliteDatabase["pragma"];
    const errors: unknown[] = [];
    const recoveries: number[] = [];
    const checkpoints = deferredCheckpoints(conn, (error) => errors.push(error), (failures) => recoveries.push(failures));
    write(conn, 0, 6 * 1024 * 1024);
    for (let i = 0; i < 3; i++) {
      checkpoints.afterWrite();
      await nextTurn();
      await nextTurn();
    }
    expect(errors.map((e) => (e as { code: string }).code)).toEqual(["SQLITE_FULL"]);
    expect(recoveries).toEqual([]);
    diskFull = false;
    checkpoints.afterWrite();
    await nextTurn();
    await nextTurn();
    expect(recoveries).toEqual([3]);
    expect(statSync(conn.name).size).toBeGreaterThan(6 * 1024 * 1024);
    diskFull = true;
    write(conn, 100_000, 6 * 1024 * 1024);
    checkpoints.afterWrite();
    await nextTurn();
    await nextTurn();
    expect(errors).toHaveLength(2); // a new run of failures is reported again
  });
});
