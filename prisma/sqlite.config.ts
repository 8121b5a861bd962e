// Prisma CLI configuration for the SQLite schema (generate, migrate diff). The CLI's JS
// schema engine needs a driver adapter; the app itself never uses this file.
import { defineConfig } from "prisma/config";
import { PrismaBetterSQLite3 } from "@prisma/adapter-better-sqlite3";

export default defineConfig({
  schema: "schema.prisma",
  experimental: { adapter: true },
  engine: "js",
  adapter: async () => new PrismaBetterSQLite3({ url: "file::memory:" }),
});
