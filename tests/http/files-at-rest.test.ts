import { spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { api } from "@/tests/support/http";
import * as f from "@/tests/support/fixtures";
import { DIALECT, ROOT, scratchDatabase, startServer, type ScratchDatabase, type TestServer } from "@/tests/support/server";
import { until } from "@/tests/support/wait";

/**
 * Files at rest (issue 36, item 5), on the database under test: a server started with a umask of
 * 000 creates its database (SQLite: the file, its WAL and SHM, and the directories above them),
 * the uploaded media, the development outbox and the generated secret key readable by its own
 * user only (files 0600, directories 0700); so does `npm run backup` (SQLite's copy, or
 * pg_dump's archive).
 */
let dir: string;
let data: string;
let server: TestServer;
let scratch: ScratchDatabase | undefined;
let databaseUrl: string;
const mode = (path: string) => (statSync(path).mode & 0o777).toString(8);

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "enhydris-at-rest-"));
  data = join(dir, "data");
  databaseUrl = DIALECT === "sqlite" ? `file:${join(data, "db", "enhydris.db")}` : (scratch = await scratchDatabase()).url;
  // The server inherits the umask; the database is created by the server (no migration by the test).
  const umask = process.umask(0);
  try {
    server = await startServer({
      databaseUrl, migrate: false,
      env: {
        ENHYDRIS_MEDIA_DIR: join(data, "media"), ENHYDRIS_OUTBOX_DIR: join(data, "outbox"), ENHYDRIS_EMAIL_HOST: "",
        ENHYDRIS_SECRET_KEY: "", ENHYDRIS_SECRET_KEY_FILE: join(data, "secret_key"),
      },
    });
  } finally {
    process.umask(umask);
  }
}, 120_000);
afterAll(async () => {
  await server?.stop();
  await scratch?.dispose();
  rmSync(dir, { recursive: true, force: true });
});

describe(`a server started with a umask of 000 (${DIALECT})`, () => {
  it("creates its database, media, outbox and secret key 0600 in directories 0700", async () => {
    const http = api(server.url);
    const admin = await f.user({ superuser: true, email: "keeper@example.org" });
    const sid = await f.station();
    const body = new FormData();
    body.append("descr", "Manual");
    body.append("content", new Blob(["%PDF-1.4 manual"]), "manual.pdf");
    const upload = await http.request("POST", `/api/stations/${sid}/files/`, { body, token: admin.token });
    expect(upload.status, upload.text).toBe(201);
    expect((await http.post("/api/auth/password/reset/", { form: { email: "keeper@example.org" } })).status).toBe(200);
    const outbox = join(data, "outbox");
    const [mail] = await until(async () => (existsSync(outbox) ? readdirSync(outbox) : []), (files) => files.length > 0, 20_000);

    const media = join(data, "media");
    const modes: Record<string, string> = {
      [data]: mode(data),
      [media]: mode(media),
      ...Object.fromEntries(readdirSync(media).map((name) => [join(media, name), mode(join(media, name))])),
      [outbox]: mode(outbox),
      [join(outbox, mail)]: mode(join(outbox, mail)),
      [join(data, "secret_key")]: mode(join(data, "secret_key")),
    };
    if (DIALECT === "sqlite") {
      const file = join(data, "db", "enhydris.db");
      for (const path of [join(data, "db"), file, `${file}-wal`, `${file}-shm`]) modes[path] = mode(path);
    }
    expect(readdirSync(media)).toHaveLength(1);
    const expected = Object.fromEntries(Object.keys(modes).map((path) => [path, statSync(path).isDirectory() ? "700" : "600"]));
    expect(modes).toEqual(expected);
  });

  it("npm run backup writes its file 0600", async () => {
    const backups = join(dir, "backups");
    mkdirSync(backups);
    const file = join(backups, DIALECT === "sqlite" ? "enhydris.sqlite" : "enhydris.dump");
    const tsx = join(ROOT, "node_modules", ".bin", "tsx");
    const result = await new Promise<{ code: number | null; output: string }>((resolve) => {
      const child = spawn("sh", ["-c", 'umask 000 && exec "$0" --tsconfig tsconfig.json scripts/backup.ts --to "$1"', tsx, file], {
        cwd: ROOT, env: { ...process.env, DATABASE_URL: databaseUrl }, stdio: ["ignore", "pipe", "pipe"],
      });
      let output = "";
      child.stdout.on("data", (d) => (output += d));
      child.stderr.on("data", (d) => (output += d));
      child.on("exit", (code) => resolve({ code, output }));
    });
    expect(result.code, result.output).toBe(0);
    expect(mode(file)).toBe("600");
    expect(readdirSync(backups)).toEqual([DIALECT === "sqlite" ? "enhydris.sqlite" : "enhydris.dump"]);
  });
});
