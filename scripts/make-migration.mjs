// Writes the next migration of both dialects from the change of prisma/schema.prisma since the
// last migration (whose schema is kept in prisma/migrations/schema.snapshot.prisma):
//   npm run db:migration -- <name>
// SQLite needs no database; PostgreSQL's diff needs a server, PRISMA_CLI_DATABASE_URL or the
// private cluster of scripts/pg-cluster.sh (started on demand). Review the files: Prisma cannot
// express everything (partial indexes, triggers), and those are added by hand.
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync, copyFileSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { derivePostgresSchema } from "./prisma-generate.mjs";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const migrations = join(root, "prisma", "migrations");
const snapshot = join(migrations, "schema.snapshot.prisma");
const current = join(root, "prisma", "schema.prisma");
const cli = join(root, "node_modules", "prisma", "build", "index.js");

/** Dialect fixes that every generated migration needs. */
export function postProcess(dialect, sql) {
  if (dialect === "sqlite") {
    // Records and blocks are clustered by their primary key.
    return sql.replace(/(CREATE TABLE "(?:new_)?(?:timeseries_record|timeseries_block)" \([\s\S]*?\n\));/g, "$1 WITHOUT ROWID;");
  }
  // Strings compare by code point everywhere, as SQLite's BINARY does (api.md §4.6).
  return sql.replace(/^(\s+"[a-z_0-9]+" TEXT)/gm, '$1 COLLATE "C"');
}

function diff(config, from, to, env) {
  const args = [cli, "migrate", "diff", "--config", config, "--script", "--to-schema-datamodel", to];
  args.push(...(from ? ["--from-schema-datamodel", from] : ["--from-empty"]));
  return execFileSync(process.execPath, args, { cwd: root, env: { ...process.env, ...env }, encoding: "utf8" });
}

function nextNumber(dir) {
  const numbers = existsSync(dir) ? readdirSync(dir).map((f) => parseInt(f, 10)).filter(Number.isFinite) : [];
  return String((numbers.length ? Math.max(...numbers) : 0) + 1).padStart(4, "0");
}

function main() {
  const name = (process.argv[2] ?? "").replace(/[^a-z0-9_]/gi, "_");
  if (!name) throw new Error("usage: npm run db:migration -- <name>");
  const work = mkdtempSync(join(tmpdir(), "migration-"));
  const from = existsSync(snapshot) ? snapshot : null;
  const pgUrl = process.env.PRISMA_CLI_DATABASE_URL ??
    execFileSync(join(root, "scripts", "pg-cluster.sh"), ["start"], { encoding: "utf8" }).trim();

  const pgFrom = from && join(work, "from.postgres.prisma");
  const pgTo = join(work, "to.postgres.prisma");
  if (pgFrom) writeFileSync(pgFrom, derivePostgresSchema(readFileSync(from, "utf8")));
  writeFileSync(pgTo, derivePostgresSchema(readFileSync(current, "utf8")));

  const scripts = {
    sqlite: diff(join(root, "prisma", "sqlite.config.ts"), from, current, {}),
    postgres: diff(join(root, "prisma", "postgres.config.ts"), pgFrom, pgTo, { PRISMA_CLI_DATABASE_URL: pgUrl }),
  };
  if (Object.values(scripts).every((s) => !/^[A-Z]/m.test(s))) {
    console.log("The schema has not changed since the last migration.");
    return;
  }
  for (const [dialect, sql] of Object.entries(scripts)) {
    const dir = join(migrations, dialect);
    mkdirSync(dir, { recursive: true });
    const file = join(dir, `${nextNumber(dir)}_${name}.sql`);
    writeFileSync(file, postProcess(dialect, sql));
    console.log(`wrote ${file}`);
  }
  copyFileSync(current, snapshot);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) main();
