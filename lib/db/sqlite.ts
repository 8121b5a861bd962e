import Database from "better-sqlite3";
import { ensureParentDirectory } from "@/lib/db/url";

export type SqliteDatabase = Database.Database;

/** Opens a native connection with the settings every connection of the service uses. */
export function openSqlite(path: string): SqliteDatabase {
  ensureParentDirectory(path);
  const db = new Database(path, { timeout: 15_000 });
  db.pragma("journal_mode = WAL");
  db.pragma("synchronous = NORMAL");
  db.pragma("foreign_keys = ON");
  db.pragma("temp_store = MEMORY");
  db.pragma("cache_size = -65536");
  return db;
}
