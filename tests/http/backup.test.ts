import { spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { api } from "@/tests/support/http";
import * as f from "@/tests/support/fixtures";
import { DIALECT, ROOT, scratchDatabase, startServer, type ScratchDatabase, type TestServer } from "@/tests/support/server";

/** `npm run backup` / `npm run restore` (issue 18, item 5), on the database under test. */
function script(name: "backup" | "restore", args: string[], databaseUrl: string): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve) => {
    const child = spawn(join(ROOT, "node_modules", ".bin", "tsx"), ["--tsconfig", "tsconfig.json", `scripts/${name}.ts`, ...args], {
      cwd: ROOT, env: { ...process.env, DATABASE_URL: databaseUrl }, stdio: ["ignore", "pipe", "pipe"],
    });
    let output = "";
    child.stdout.on("data", (d) => (output += d));
    child.stderr.on("data", (d) => (output += d));
    child.on("exit", (code) => resolve({ code, output }));
  });
}

const BATCH = 200;
const STEP = 600;
const START = Date.UTC(2000, 0, 1) / 1000;

/** The lines of upload k of a series: records k·BATCH … (k+1)·BATCH − 1, each value its own index. */
function batch(k: number): string {
  const lines: string[] = [];
  for (let i = k * BATCH; i < (k + 1) * BATCH; i++) lines.push(`${new Date((START + i * STEP) * 1000).toISOString().slice(0, 16)}Z,${i},`);
  return lines.join("\n");
}

describe("a backup taken while uploads run", () => {
  let server: TestServer;
  let dir: string;
  const restored: ScratchDatabase[] = [];

  beforeAll(async () => {
    server = await startServer();
    dir = mkdtempSync(join(tmpdir(), "enhydris-backup-"));
  });
  afterAll(async () => {
    await server?.stop();
    for (const d of restored) await d.dispose();
    rmSync(dir, { recursive: true, force: true });
  });

  it("restores into an empty database with every record committed before it started", async () => {
    const http = api(server.url);
    const u = await f.user({ superuser: true });
    const sid = await f.station();
    const series = [await f.series(await f.group(sid)), await f.series(await f.group(sid)), await f.series(await f.group(sid))];
    // Each series gets uploads one after another; the time of each acknowledgement is kept.
    const acked = new Map<number, number[]>(series.map((t) => [t, []]));
    let running = true;
    const uploaders = series.map(async (tid) => {
      for (let k = 0; running; k++) {
        const r = await http.post(`/api/stations/${sid}/timeseries/${tid}/data/`, { token: u.token, form: { timeseries_records: batch(k) } });
        if (r.status !== 204) throw new Error(`upload ${k} of ${tid}: ${r.status} ${r.text}`);
        acked.get(tid)!.push(performance.now());
      }
    });
    while ([...acked.values()].some((a) => a.length < 5)) await new Promise((r) => setTimeout(r, 20));

    const file = join(dir, DIALECT === "sqlite" ? "enhydris.db" : "enhydris.dump");
    const backupStarted = performance.now();
    const taken = await script("backup", ["--to", file], server.databaseUrl);
    expect(taken.code, taken.output).toBe(0);
    expect(taken.output).toMatch(/^Backed up the database to /);
    const committedBefore = new Map([...acked].map(([tid, times]) => [tid, times.filter((t) => t < backupStarted).length]));
    // Until each series has had an upload acknowledged after the backup started (a fixed wait
    // could end before one did on a busy machine).
    while (series.some((tid) => acked.get(tid)!.length <= committedBefore.get(tid)!)) await new Promise((r) => setTimeout(r, 20));
    running = false;
    await Promise.all(uploaders);
    // Uploads went on during and after the backup.
    for (const tid of series) expect(acked.get(tid)!.length).toBeGreaterThan(committedBefore.get(tid)!);

    const empty = await scratchDatabase();
    restored.push(empty);
    const back = await script("restore", ["--from", file], empty.url);
    expect(back.code, back.output).toBe(0);
    // A restore never goes into a database that holds anything.
    const again = await script("restore", ["--from", file], empty.url);
    expect(again.code).toBe(1);
    expect(again.output).toMatch(/is not empty/);

    const copy = await startServer({ databaseUrl: empty.url });
    try {
      const h = api(copy.url);
      for (const tid of series) {
        const csv = (await h.get(`/api/stations/${sid}/timeseries/${tid}/data/?timezone=UTC`, { token: u.token })).text.trim();
        const values = csv ? csv.split("\n").map((line) => Number(line.split(",")[1])) : [];
        // Whole uploads only, in order, from the first: the state of one instant.
        expect(values.length % BATCH).toBe(0);
        expect(values).toEqual(values.map((_, i) => i));
        // Every upload acknowledged before the backup started is there.
        expect(values.length / BATCH).toBeGreaterThanOrEqual(committedBefore.get(tid)!);
        // The series' summary agrees with its records.
        const bottom = (await h.get(`/api/stations/${sid}/timeseries/${tid}/bottom/?timezone=UTC`, { token: u.token })).text.trim();
        expect(Number(bottom.split(",")[1])).toBe(values.length - 1);
      }
      expect((await h.get("/api/health/")).json.status).toBe("ok");
    } finally {
      await copy.stop();
    }
  }, 180_000);

  it("refuses a file of the wrong kind, a missing file and a missing --to", async () => {
    const junk = join(dir, "junk.bin");
    writeFileSync(junk, "not a backup");
    const empty = await scratchDatabase();
    restored.push(empty);
    const wrong = await script("restore", ["--from", junk], empty.url);
    expect(wrong.code).toBe(1);
    expect(wrong.output).toContain("is neither an SQLite database nor a pg_dump archive");
    const missing = await script("restore", ["--from", join(dir, "nothing.db")], empty.url);
    expect(missing.code).toBe(1);
    expect(missing.output).toContain("There is no backup at");
    const usage = await script("backup", [], server.databaseUrl);
    expect(usage.code).toBe(2);
    expect(usage.output).toContain("usage: npm run backup -- --to FILE");
  }, 60_000);
});
