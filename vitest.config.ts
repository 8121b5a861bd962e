import { fileURLToPath } from "node:url";
import { configDefaults, defineConfig } from "vitest/config";
import { SQLITE_ONLY } from "./tests/support/databases.mjs";
import { TEST_ENV } from "./tests/support/test-env.mjs";

const root = fileURLToPath(new URL(".", import.meta.url));

export default defineConfig({
  resolve: { alias: { "@": root } },
  test: {
    projects: [
      {
        resolve: { alias: { "@": root } },
        // CPU-bound property tests take 2–10 s on a busy machine: vitest's 5 s default failed them.
        test: {
          name: "unit",
          include: ["tests/unit/**/*.test.ts"],
          environment: "node",
          env: TEST_ENV,
          testTimeout: 60_000,
          setupFiles: ["tests/support/file-accounting.ts", "tests/support/fast-check-seed.ts"],
        },
      },
      {
        resolve: { alias: { "@": root } },
        test: {
          name: "http",
          include: ["tests/http/**/*.test.ts"],
          // The files of the HTTP edge alone run on SQLite only (tests/support/databases.mjs).
          exclude: [...configDefaults.exclude, ...(process.env.TEST_DATABASE === "postgres" ? Object.keys(SQLITE_ONLY) : [])],
          environment: "node",
          env: TEST_ENV,
          testTimeout: 60_000,
          hookTimeout: 120_000,
          fileParallelism: false,
          // The files run one after another in one process that keeps the modules it loaded: each
          // file loading lib/ afresh cost ~3.5 s of CPU (a tenth of the suite). What a file leaves
          // behind is per database and per server, and each file connects its own
          // (tests/support/server.ts: connectFixtures); lib/ keys its handles by the database.
          isolate: false,
          setupFiles: ["tests/support/file-accounting.ts", "tests/support/capabilities.ts"],
        },
      },
    ],
  },
});
