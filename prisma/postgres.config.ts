// Prisma CLI configuration for the derived PostgreSQL schema (generate, migrate diff).
// No database is contacted by `generate` or `migrate diff --from/--to-schema-datamodel`.
import { defineConfig } from "prisma/config";
import { PrismaPg } from "@prisma/adapter-pg";

export default defineConfig({
  schema: "postgres/schema.prisma",
  experimental: { adapter: true },
  engine: "js",
  adapter: async () =>
    new PrismaPg({ connectionString: process.env.PRISMA_CLI_DATABASE_URL ?? "postgresql://localhost/prisma-cli" }),
});
