// Derives the PostgreSQL schema from prisma/schema.prisma (the SQLite source) and generates
// one Prisma client per dialect. Runs after `npm install`/`npm ci`; works offline.
import { execFileSync } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const source = join(root, "prisma", "schema.prisma");
const postgres = join(root, "prisma", "postgres", "schema.prisma");

export function derivePostgresSchema(text) {
  const derived = text
    .replace('provider = "sqlite"', 'provider = "postgresql"')
    .replace('url      = "file:./prisma-cli.db"', 'url      = "postgresql://localhost/prisma-cli"')
    .replace('output       = "../lib/db/generated/sqlite"', 'output       = "../../lib/db/generated/postgres"');
  if (derived === text || !derived.includes('"postgresql"') || !derived.includes("generated/postgres")) {
    throw new Error("prisma/schema.prisma no longer has the lines this script rewrites");
  }
  return "// GENERATED from prisma/schema.prisma by scripts/prisma-generate.mjs; do not edit.\n" + derived;
}

function main() {
  mkdirSync(dirname(postgres), { recursive: true });
  writeFileSync(postgres, derivePostgresSchema(readFileSync(source, "utf8")));
  const cli = join(root, "node_modules", "prisma", "build", "index.js");
  for (const config of ["sqlite.config.ts", "postgres.config.ts"]) {
    execFileSync(process.execPath, [cli, "generate", "--config", join(root, "prisma", config)], {
      cwd: root,
      stdio: ["ignore", "ignore", "inherit"],
      env: { ...process.env, PRISMA_HIDE_UPDATE_MESSAGE: "1", CHECKPOINT_DISABLE: "1" },
    });
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) main();
