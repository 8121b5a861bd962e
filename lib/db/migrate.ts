import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import pg from "pg";
import type { DatabaseTarget, Dialect } from "@/lib/db/url";
import { openSqlite } from "@/lib/db/sqlite";

/**
 * Applies the committed SQL migrations (prisma/migrations/<dialect>/NNNN_name.sql) that the
 * database has not seen, in order, each in a transaction, recording them in `_migrations`.
 * Safe when several instances start at once: SQLite's write lock (BEGIN IMMEDIATE) or a
 * PostgreSQL advisory lock lets one apply them while the others wait and then find nothing to do.
 */
const ADVISORY_LOCK_ID = 727_400_001;

export interface Migration {
  name: string;
  sql: string;
}

export function migrationsDirectory(): string {
  return resolve(/* turbopackIgnore: true */ process.env.ENHYDRIS_MIGRATIONS_DIR ?? join(process.cwd(), "prisma", "migrations"));
}

export function loadMigrations(dialect: Dialect, dir = migrationsDirectory()): Migration[] {
  const folder = join(/* turbopackIgnore: true */ dir, dialect);
  if (!existsSync(/* turbopackIgnore: true */ folder)) throw new Error(`No migrations folder ${folder}`);
  return readdirSync(/* turbopackIgnore: true */ folder)
    .filter((f) => /^\d{4}_[\w-]+\.sql$/.test(f))
    .sort()
    .map((f) => ({ name: f.replace(/\.sql$/, ""), sql: readFileSync(join(/* turbopackIgnore: true */ folder, f), "utf8") }));
}

/** Returns the names of the migrations it applied. */
export async function migrate(target: DatabaseTarget): Promise<string[]> {
  const migrations = loadMigrations(target.dialect);
  return target.dialect === "sqlite" ? migrateSqlite(target.path, migrations) : migratePostgres(target.url, migrations);
}

function migrateSqlite(path: string, migrations: Migration[]): string[] {
  const db = openSqlite(path);
  try {
    db.exec("BEGIN IMMEDIATE");
    try {
      db.exec('CREATE TABLE IF NOT EXISTS "_migrations" ("name" TEXT PRIMARY KEY, "applied_at" TEXT NOT NULL)');
      const done = new Set(db.prepare('SELECT "name" FROM "_migrations"').pluck().all() as string[]);
      const applied: string[] = [];
      for (const m of migrations) {
        if (done.has(m.name)) continue;
        db.exec(m.sql);
        db.prepare('INSERT INTO "_migrations" ("name", "applied_at") VALUES (?, ?)').run(m.name, new Date().toISOString());
        applied.push(m.name);
      }
      db.exec("COMMIT");
      return applied;
    } catch (e) {
      db.exec("ROLLBACK");
      throw e;
    }
  } finally {
    db.close();
  }
}

async function migratePostgres(url: string, migrations: Migration[]): Promise<string[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query("BEGIN");
    try {
      await client.query("SELECT pg_advisory_xact_lock($1)", [ADVISORY_LOCK_ID]);
      await client.query('CREATE TABLE IF NOT EXISTS "_migrations" ("name" TEXT PRIMARY KEY, "applied_at" TIMESTAMPTZ NOT NULL DEFAULT now())');
      const { rows } = await client.query<{ name: string }>('SELECT "name" FROM "_migrations"');
      const done = new Set(rows.map((r) => r.name));
      const applied: string[] = [];
      for (const m of migrations) {
        if (done.has(m.name)) continue;
        await client.query(m.sql);
        await client.query('INSERT INTO "_migrations" ("name") VALUES ($1)', [m.name]);
        applied.push(m.name);
      }
      await client.query("COMMIT");
      return applied;
    } catch (e) {
      await client.query("ROLLBACK");
      throw e;
    }
  } finally {
    await client.end();
  }
}
