import { statfs, stat } from "node:fs/promises";
import { dirname, resolve } from "node:path";
import { postgresDatabaseBytes } from "@/lib/db/status";
import { parseDatabaseUrl } from "@/lib/db/url";
import { settings } from "@/lib/config";
import type { StorageUse } from "@/lib/observability/metrics.mjs";

/**
 * How full the service's storage is, for /metrics: the file systems that hold the media directory
 * and (SQLite) the database file, and the database's own size. A disk that fills up refuses
 * writes with 503 (lib/db/errors.ts isStorageFull); these let an operator see it coming.
 */

/** The file system of `path`, or of its nearest existing parent (the media directory is made on first use). */
async function volume(path: string): Promise<{ availableBytes: number; sizeBytes: number } | null> {
  for (let dir = resolve(path); ; dir = dirname(dir)) {
    try {
      const fs = await statfs(dir);
      return { availableBytes: fs.bavail * fs.bsize, sizeBytes: fs.blocks * fs.bsize };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "ENOENT" || dirname(dir) === dir) return null;
    }
  }
}

const fileSize = (path: string) => stat(path).then((s) => s.size, () => 0);

/** The database's bytes on disk: SQLite's file and its write-ahead log, or PostgreSQL's pg_database_size. */
async function databaseBytes(sqlitePath: string | null): Promise<number | null> {
  if (sqlitePath) return (await fileSize(sqlitePath)) + (await fileSize(`${sqlitePath}-wal`));
  return postgresDatabaseBytes();
}

export async function storageUse(): Promise<StorageUse> {
  const target = parseDatabaseUrl(settings().databaseUrl);
  const sqlitePath = target.dialect === "sqlite" && target.path !== ":memory:" ? target.path : null;
  const [media, database, bytes] = await Promise.all([
    volume(settings().mediaDir),
    sqlitePath ? volume(sqlitePath) : null,
    databaseBytes(sqlitePath).catch(() => null),
  ]);
  const volumes: StorageUse["volumes"] = [];
  if (database) volumes.push({ volume: "database", ...database });
  if (media) volumes.push({ volume: "media", ...media });
  return { volumes, databaseBytes: bytes };
}
