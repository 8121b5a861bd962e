import { statSync } from "node:fs";
import Database from "better-sqlite3";
import { ensurePrivateSqliteFile } from "@/lib/runtime/private-files";

export type SqliteDatabase = Database.Database;

/** Opens a native connection with the settings every connection of the service uses. */
export function openSqlite(path: string): SqliteDatabase {
  ensurePrivateSqliteFile(path);
  const db = new Database(path, { timeout: 15_000 });
  db.pragma("journal_mode = WAL");
  db.pragma("synchronous = NORMAL");
  db.pragma("foreign_keys = ON");
  db.pragma("temp_store = MEMORY");
  db.pragma("cache_size = -65536");
  return db;
}

/** The WAL size past which a connection whose own checkpoints are off checkpoints after a write (SQLite's default: 1,000 pages). */
const CHECKPOINT_WAL_BYTES = 4 * 1024 * 1024;

/**
 * Checkpoints of `conn`'s WAL taken off its writes' path: SQLite's automatic checkpoint runs inside
 * the COMMIT that takes the WAL past 1,000 pages, so the request that wrote waits for it (about a
 * quarter of a second after the 35 MB of an upload of a million records). With it off, afterWrite()
 * checks the WAL's size once the current callbacks are done (the response sent) and then runs the
 * same PASSIVE checkpoint. Other connections keep their automatic checkpoints. A checkpoint that
 * keeps failing (a full disk: every write tries again) is reported once, and again when one succeeds.
 */
export function deferredCheckpoints(conn: SqliteDatabase, onError: (error: unknown) => void,
  onRecovered: (failures: number) => void = () => {}): { afterWrite(): void } {
  conn.pragma("wal_autocheckpoint = 0");
  // A WAL file keeps its size after a checkpoint: without a limit, one that once passed 4 MB would
  // make every later write checkpoint. With it, restarting the WAL truncates the file to 4 MB, so
  // its size passes the threshold again only when new frames do.
  conn.pragma(`journal_size_limit = ${CHECKPOINT_WAL_BYTES}`);
  const wal = `${conn.name}-wal`;
  let scheduled = false;
  let failures = 0;
  const run = () => {
    scheduled = false;
    try {
      if (!conn.open || conn.inTransaction) return;
      let size = 0;
      try {
        size = statSync(wal).size;
      } catch {
        return; // no WAL file
      }
      if (size <= CHECKPOINT_WAL_BYTES) return;
      conn.pragma("wal_checkpoint(PASSIVE)");
      if (failures > 0) onRecovered(failures);
      failures = 0;
    } catch (error) {
      if (failures++ === 0) onError(error);
    }
  };
  return {
    afterWrite() {
      if (scheduled) return;
      scheduled = true;
      setImmediate(run);
    },
  };
}
