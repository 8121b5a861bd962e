import { existsSync, mkdtempSync, readdirSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { secretKey } from "@/lib/auth/secret";
import { backup, restore } from "@/lib/db/backup";
import { reloadSettings } from "@/lib/config";
import { openSqlite } from "@/lib/db/sqlite";
import { sendMail } from "@/lib/mail";
import { storeContent } from "@/lib/stations/attachment-writes";

/**
 * Files at rest are the service's user's only (lib/runtime/private-files.ts): every file the service
 * creates is 0600 and every directory 0700 with a umask of 000 (which would otherwise leave them
 * readable and writable by everyone). The SQLite database, its WAL and SHM, an SQLite backup
 * and restore, the development outbox, uploaded media and the generated secret key. (The
 * server's own files on both databases, and pg_dump's backups: tests/http/files-at-rest.test.ts.)
 */
let dir: string;
let umask: number;
const mode = (path: string) => (statSync(path).mode & 0o777).toString(8);

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "enhydris-private-"));
  umask = process.umask(0);
});
afterAll(() => {
  process.umask(umask);
  rmSync(dir, { recursive: true, force: true });
});

describe("with a umask of 000", () => {
  it("the SQLite database, its WAL and SHM, and the directories made for it", () => {
    const path = join(dir, "new", "nested", "enhydris.db");
    const conn = openSqlite(path);
    try {
      conn.exec("CREATE TABLE t (x INTEGER); INSERT INTO t VALUES (1)");
      expect([mode(path), mode(`${path}-wal`), mode(`${path}-shm`)]).toEqual(["600", "600", "600"]);
      expect([mode(join(dir, "new")), mode(join(dir, "new", "nested"))]).toEqual(["700", "700"]);
    } finally {
      conn.close();
    }
  });

  it("an SQLite backup, and the database a restore creates", async () => {
    const source = join(dir, "source.db");
    const conn = openSqlite(source);
    conn.exec("CREATE TABLE t (x INTEGER); INSERT INTO t VALUES (42)");
    conn.close();
    const file = join(dir, "backup.sqlite");
    await backup({ dialect: "sqlite", path: source }, file);
    expect(mode(file)).toBe("600");
    const restored = join(dir, "restored", "enhydris.db");
    await restore({ dialect: "sqlite", path: restored }, file);
    expect(mode(restored)).toBe("600");
    expect(mode(join(dir, "restored"))).toBe("700");
    const check = openSqlite(restored);
    expect(check.prepare("SELECT x FROM t").pluck().get()).toBe(42);
    expect([mode(`${restored}-wal`), mode(`${restored}-shm`)]).toEqual(["600", "600"]);
    check.close();
  });

  it("the development outbox and its messages", async () => {
    const outbox = join(dir, "data", "outbox");
    process.env.ENHYDRIS_OUTBOX_DIR = outbox;
    process.env.ENHYDRIS_EMAIL_HOST = "";
    reloadSettings();
    await sendMail({ to: "a@example.org", from: "noreply@example.org", subject: "Password reset", text: "a link" });
    const [file] = readdirSync(outbox);
    expect([mode(join(dir, "data")), mode(outbox), mode(join(outbox, file))]).toEqual(["700", "700", "600"]);
  });

  it("uploaded media and their directory", async () => {
    process.env.ENHYDRIS_MEDIA_DIR = join(dir, "media", "files");
    reloadSettings();
    const stored = await storeContent({ name: "report.pdf", bytes: async () => new TextEncoder().encode("%PDF-1.4") });
    expect([mode(join(dir, "media")), mode(join(dir, "media", "files")), mode(join(dir, "media", "files", stored))]).toEqual(["700", "700", "600"]);
  });

  it("the generated secret key and its directory", () => {
    const file = join(dir, "keys", "secret_key");
    delete process.env.ENHYDRIS_SECRET_KEY;
    process.env.ENHYDRIS_SECRET_KEY_FILE = file;
    reloadSettings();
    expect(secretKey()).toMatch(/^[\w-]{64}$/);
    expect(existsSync(file)).toBe(true);
    expect([mode(join(dir, "keys")), mode(file)]).toEqual(["700", "600"]);
  });
});
