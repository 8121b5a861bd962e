import { spawn } from "node:child_process";
import { closeSync, existsSync, openSync, readSync, renameSync, rmSync, statSync } from "node:fs";
import { basename, dirname, join, resolve } from "node:path";
import Database from "better-sqlite3";
import pg from "pg";
import type { DatabaseTarget } from "@/lib/db/url";
import { createPrivateFile, ensurePrivateSqliteFile } from "@/lib/runtime/private-files";

/**
 * Backups that restore (`npm run backup`, `npm run restore`). A backup is one file holding a
 * consistent copy of the database taken while the service runs:
 * - SQLite: the online backup API copying every page in one step, i.e. inside one read
 *   transaction (WAL lets writers go on meanwhile), so that the copy is one committed state;
 * - PostgreSQL: `pg_dump --format=custom`, which reads one snapshot.
 * A restore goes into an empty database only, so that it can never mix two states. Uploaded files
 * and images (ENHYDRIS_MEDIA_DIR) are not in the database: copy that directory as well.
 */
export class BackupError extends Error {}

const SQLITE_MAGIC = "SQLite format 3\0";
const PG_DUMP_MAGIC = "PGDMP";

/** "sqlite", "postgres" (a pg_dump custom-format archive) or null, from the file's first bytes. */
export function backupKind(file: string): "sqlite" | "postgres" | null {
  const fd = openSync(file, "r");
  try {
    const head = Buffer.alloc(16);
    const n = readSync(fd, head, 0, 16, 0);
    const text = head.subarray(0, n).toString("latin1");
    if (text === SQLITE_MAGIC) return "sqlite";
    if (text.startsWith(PG_DUMP_MAGIC)) return "postgres";
    return null;
  } finally {
    closeSync(fd);
  }
}

/** Takes a backup of the database into `file` (written beside it first, then renamed). */
export async function backup(target: DatabaseTarget, file: string): Promise<{ bytes: number }> {
  const out = resolve(file);
  if (!existsSync(dirname(out))) throw new BackupError(`The directory of ${out} does not exist.`);
  if (target.dialect === "sqlite" && resolve(target.path) === out) throw new BackupError("The backup file cannot be the database itself.");
  const partial = join(dirname(out), `.${basename(out)}.partial-${process.pid}`);
  rmSync(partial, { force: true });
  try {
    // A backup holds everything the database does: 0600 whatever the umask (SQLite and pg_dump write into it as it is).
    createPrivateFile(partial);
    if (target.dialect === "sqlite") await backupSqlite(target.path, partial);
    else await run("pg_dump", ["--format=custom", "--no-owner", "--no-privileges", `--file=${partial}`], target.url);
    renameSync(partial, out);
  } finally {
    rmSync(partial, { force: true });
  }
  return { bytes: statSync(out).size };
}

async function backupSqlite(path: string, to: string): Promise<void> {
  if (!existsSync(path)) throw new BackupError(`There is no database at ${path}.`);
  const source = new Database(path, { readonly: true, fileMustExist: true, timeout: 15_000 });
  try {
    // The first step only opens the backup; the progress callback then asks for every page at
    // once (2^31 − 1), so the rest is copied in one step: one read transaction, one state.
    await source.backup(to, { progress: () => 0x7fffffff });
  } finally {
    source.close();
  }
}

/** Restores a backup into the database, which must be empty (no tables). */
export async function restore(target: DatabaseTarget, file: string): Promise<void> {
  const from = resolve(file);
  if (!existsSync(from)) throw new BackupError(`There is no backup at ${from}.`);
  const kind = backupKind(from);
  if (kind === null) throw new BackupError(`${from} is neither an SQLite database nor a pg_dump archive.`);
  if (kind !== target.dialect) {
    throw new BackupError(`${from} is a ${kind === "sqlite" ? "SQLite" : "PostgreSQL"} backup and DATABASE_URL is a ${target.dialect === "sqlite" ? "SQLite" : "PostgreSQL"} database: restore it into the same kind.`);
  }
  if (target.dialect === "sqlite") await restoreSqlite(from, target.path);
  else await restorePostgres(from, target.url);
}

async function restoreSqlite(from: string, path: string): Promise<void> {
  if (existsSync(path)) {
    const existing = new Database(path, { readonly: true, fileMustExist: true });
    try {
      const tables = existing.prepare("SELECT count(*) FROM sqlite_master WHERE type = 'table'").pluck().get() as number;
      if (tables > 0) throw new BackupError(`The database at ${path} is not empty: restore into a new file (or move this one away).`);
    } finally {
      existing.close();
    }
  }
  const source = new Database(from, { readonly: true, fileMustExist: true });
  try {
    const check = source.prepare("PRAGMA quick_check").pluck().get();
    if (check !== "ok") throw new BackupError(`${from} is damaged: ${String(check)}`);
    ensurePrivateSqliteFile(path);
    await source.backup(path, { progress: () => 0x7fffffff });
  } finally {
    source.close();
  }
}

async function restorePostgres(from: string, url: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query<{ n: number }>(
      "SELECT count(*)::int AS n FROM pg_tables WHERE schemaname NOT IN ('pg_catalog', 'information_schema')");
    if (rows[0].n > 0) throw new BackupError("The PostgreSQL database is not empty: restore into a new database (createdb).");
  } finally {
    await client.end();
  }
  // One transaction: a restore that fails leaves the database empty.
  await run("pg_restore", ["--no-owner", "--no-privileges", "--exit-on-error", "--single-transaction", from], url);
}

/**
 * Runs a PostgreSQL client program on the database of `url`: the password goes through
 * PGPASSWORD, not the command line (which other users of the machine can read).
 */
function run(program: string, args: string[], url: string): Promise<void> {
  const parsed = new URL(url);
  const password = decodeURIComponent(parsed.password);
  parsed.password = "";
  const argv = [`--dbname=${parsed.toString()}`, ...args];
  return new Promise((resolvePromise, reject) => {
    const child = spawn(program, argv, {
      env: { ...process.env, ...(password ? { PGPASSWORD: password } : {}) },
      stdio: ["ignore", "inherit", "pipe"],
    });
    let stderr = "";
    child.stderr!.on("data", (d) => (stderr += d));
    child.on("error", (e) => reject(new BackupError(`Cannot run ${program}: ${e.message} (install PostgreSQL's client programs).`)));
    child.on("exit", (code) => (code === 0 ? resolvePromise() : reject(new BackupError(`${program} failed (exit ${code}): ${stderr.trim()}`))));
  });
}
