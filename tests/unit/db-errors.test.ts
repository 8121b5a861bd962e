import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { isDatabaseUnavailable, isStorageFull } from "@/lib/db/errors";
import { openSqlite } from "@/lib/db/sqlite";

/** How lib/db/errors.ts tells a full disk (→ 503, nothing stored) from other failures. */
describe("isStorageFull", () => {
  it("knows SQLite's own error for a database that cannot grow", () => {
    const dir = mkdtempSync(join(tmpdir(), "storage-full-"));
    const conn = openSqlite(join(dir, "db.sqlite3"));
    try {
      conn.exec("CREATE TABLE t (v BLOB)");
      conn.pragma(`max_page_count = ${conn.pragma("page_count", { simple: true })}`);
      let thrown: unknown;
      try {
        conn.prepare("INSERT INTO t VALUES (zeroblob(1000000))").run();
      } catch (error) {
        thrown = error;
      }
      expect((thrown as { code?: string }).code).toBe("SQLITE_FULL");
      expect(isStorageFull(thrown)).toBe(true);
      expect(isStorageFull(new Error("wrapped", { cause: thrown }))).toBe(true);
      expect(isDatabaseUnavailable(thrown)).toBe(false);
    } finally {
      conn.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("knows PostgreSQL's disk_full, as pg and Prisma's adapter give it, and the file system's", () => {
    expect(isStorageFull(Object.assign(new Error('could not extend file "base/1/2": No space left on device'), { code: "53100" }))).toBe(true);
    expect(isStorageFull({ name: "PrismaClientKnownRequestError", meta: { driverAdapterError: { cause: { originalCode: "53100" } } } })).toBe(true);
    expect(isStorageFull(Object.assign(new Error("ENOSPC: no space left on device, write"), { code: "ENOSPC" }))).toBe(true);
    expect(isStorageFull(Object.assign(new Error("EDQUOT: disk quota exceeded"), { code: "EDQUOT" }))).toBe(true);
  });

  it("leaves other failures alone", () => {
    expect(isStorageFull(Object.assign(new Error("UNIQUE constraint failed"), { code: "SQLITE_CONSTRAINT_UNIQUE" }))).toBe(false);
    expect(isStorageFull(Object.assign(new Error("connect ECONNREFUSED"), { code: "ECONNREFUSED" }))).toBe(false);
    expect(isStorageFull(null)).toBe(false);
  });
});
