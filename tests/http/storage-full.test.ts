import { execFileSync } from "node:child_process";
import { closeSync, existsSync, mkdirSync, mkdtempSync, openSync, readdirSync, rmSync, writeSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { STORAGE_FULL_DETAIL } from "@/lib/http/errors";
import { api } from "@/tests/support/http";
import * as f from "@/tests/support/fixtures";
import { sample } from "@/tests/support/metrics";
import { expectEverySeriesWhole } from "@/tests/support/series-whole";
import { DIALECT, freePort, ROOT, startServer, type TestServer } from "@/tests/support/server";

/**
 * A disk that fills up (SQLite's file, or a PostgreSQL tablespace, and the media directory on a
 * small tmpfs): writes are refused with 503 and undone whole, reads go on, and writes work again
 * once there is room. Needs root (mount); skipped otherwise.
 */

function canMount(): boolean {
  if (process.getuid?.() !== 0) return false;
  const probe = mkdtempSync(join(tmpdir(), "enhydris-mount-probe-"));
  try {
    execFileSync("mount", ["-t", "tmpfs", "-o", "size=1m", "tmpfs", probe], { stdio: "ignore" });
    execFileSync("umount", [probe], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  } finally {
    rmSync(probe, { recursive: true, force: true });
  }
}

/** Takes every free byte of the file system at `dir` with one file; returns a function that frees it. */
function fillUp(dir: string): () => void {
  const path = join(dir, "filler");
  const fd = openSync(path, "w");
  const chunk = Buffer.alloc(64 * 1024, 1);
  try {
    for (let size = chunk.length; size >= 512; size = Math.floor(size / 2)) {
      try {
        for (;;) writeSync(fd, chunk, 0, size);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== "ENOSPC") throw error;
      }
    }
  } finally {
    closeSync(fd);
  }
  return () => rmSync(path, { force: true });
}

const recordLines = (n: number, start: number) =>
  Array.from({ length: n }, (_, i) => `${new Date((start + i * 600) * 1000).toISOString().slice(0, 16).replace("T", " ")},${(i % 500) / 10},`).join("\n");

/** For PostgreSQL: a cluster of its own (no standby replays its tablespace), the tablespace on the tmpfs. */
async function postgresOnTmpfs(mount: string): Promise<{ url: string; drop(): void }> {
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), "enhydris-full-pg-"));
  rmSync(dir, { recursive: true });
  const cluster = (action: string) => execFileSync("bash", [join(ROOT, "scripts/pg-cluster.sh"), action, String(port), dir], { encoding: "utf8" }).trim();
  const admin = cluster("start");
  const location = join(mount, "pg");
  mkdirSync(location);
  execFileSync("chown", ["postgres:postgres", location]);
  const client = new pg.Client({ connectionString: admin });
  await client.connect();
  try {
    await client.query(`CREATE TABLESPACE small LOCATION '${location}'`);
    await client.query("CREATE DATABASE full_disk OWNER enhydris TABLESPACE small");
  } finally {
    await client.end();
  }
  const url = new URL(admin);
  url.pathname = "/full_disk";
  return { url: url.toString(), drop: () => void cluster("drop") };
}

describe.runIf(canMount())(`a disk that fills up (${DIALECT})`, () => {
  let mount: string;
  let server: TestServer;
  let dropPostgres = () => {};
  let token: string;
  let sid: number;
  let tid: number;
  let freeSpace: () => void = () => {};
  let bottom: string;
  const http = () => api(server.url);
  const data = () => `/api/stations/${sid}/timeseries/${tid}/data/`;
  const media = () => join(mount, "media");
  const big = recordLines(300_000, Date.UTC(2001, 0, 1) / 1000);

  beforeAll(async () => {
    mount = mkdtempSync(join(tmpdir(), "enhydris-full-"));
    execFileSync("mount", ["-t", "tmpfs", "-o", "size=64m", "tmpfs", mount]);
    let databaseUrl = `file:${join(mount, "db.sqlite")}`;
    if (DIALECT === "postgres") {
      const database = await postgresOnTmpfs(mount);
      databaseUrl = database.url;
      dropPostgres = database.drop;
    }
    server = await startServer({ databaseUrl, env: { ENHYDRIS_MEDIA_DIR: media() } });
    token = (await f.user({ superuser: true })).token;
    sid = await f.station();
    tid = await f.series(await f.group(sid));
    expect((await http().post(data(), { token, form: { timeseries_records: recordLines(1000, Date.UTC(2000, 0, 1) / 1000) } })).status).toBe(204);
    bottom = (await http().get(`/api/stations/${sid}/timeseries/${tid}/bottom/`, { token })).text;
    freeSpace = fillUp(mount);
  }, 120_000);

  afterAll(async () => {
    freeSpace();
    await server?.stop();
    dropPostgres();
    if (mount) {
      execFileSync("umount", [mount]);
      rmSync(mount, { recursive: true, force: true });
    }
  }, 60_000);

  it("refuses an upload with 503 and Retry-After, and stores none of it", async () => {
    const r = await http().post(data(), { token, form: { timeseries_records: big } });
    expect(r.status).toBe(503);
    expect(r.json).toEqual({ detail: STORAGE_FULL_DETAIL });
    expect(r.headers.get("retry-after")).toBe("60");
    const csv = await http().get(data(), { token });
    expect(csv.status).toBe(200);
    expect(csv.text.trim().split("\n")).toHaveLength(1000);
    expect((await http().get(`/api/stations/${sid}/timeseries/${tid}/bottom/`, { token })).text).toBe(bottom);
    expect(bottom).toMatch(/^2000-01-07 22:30,/);
    await expectEverySeriesWhole();
  });

  it("refuses a file with 503 and leaves no part of it in the media directory", async () => {
    const form = new FormData();
    form.append("descr", "report");
    form.append("content", new Blob([Buffer.alloc(4 * 1024 * 1024, 7)]), "report.pdf");
    const r = await fetch(`${server.url}/api/stations/${sid}/files/`, { method: "POST", headers: { Authorization: `Token ${token}` }, body: form });
    expect(r.status).toBe(503);
    expect(await r.json()).toEqual({ detail: STORAGE_FULL_DETAIL });
    expect(existsSync(media()) ? readdirSync(media()) : []).toEqual([]);
    expect((await http().get(`/api/stations/${sid}/files/`, { token })).json.count).toBe(0);
  });

  it("goes on answering reads and pages while full", async () => {
    expect((await http().get("/api/stations/")).status).toBe(200);
    expect((await http().get(`/stations/${sid}/`)).status).toBe(200);
    expect((await http().get("/api/health/")).status).toBe(200);
  });

  it("shows the full volumes in /metrics", async () => {
    const metrics = (await http().get("/metrics")).text;
    const volumes = DIALECT === "sqlite" ? ["database", "media"] : ["media"];
    for (const volume of volumes) {
      expect(sample(metrics, "enhydris_storage_size_bytes", { volume }), volume).toBe(64 * 1024 * 1024);
      expect(sample(metrics, "enhydris_storage_available_bytes", { volume }), volume).toBeLessThan(64 * 1024);
    }
  });

  it("stores the same upload and file once there is room again, and logged why it refused them", async () => {
    freeSpace();
    freeSpace = () => {};
    const r = await http().post(data(), { token, form: { timeseries_records: big } });
    expect(r.status).toBe(204);
    expect((await http().get(data(), { token })).text.trim().split("\n")).toHaveLength(301_000);
    const form = new FormData();
    form.append("descr", "report");
    form.append("content", new Blob([Buffer.alloc(4 * 1024 * 1024, 7)]), "report.pdf");
    const file = await fetch(`${server.url}/api/stations/${sid}/files/`, { method: "POST", headers: { Authorization: `Token ${token}` }, body: form });
    expect(file.status).toBe(201);
    expect(readdirSync(media())).toHaveLength(1);
    await new Promise((done) => setTimeout(done, 1100)); // past the reading the last scrape made
    expect(sample((await http().get("/metrics")).text, "enhydris_storage_available_bytes", { volume: "media" })).toBeGreaterThan(16 * 1024 * 1024);
    await expectEverySeriesWhole();
    expect(server.output()).toContain("no disk space left");
    expect(server.output()).not.toContain("unexpected error");
  });
});
