import { connect } from "node:net";
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { db } from "@/lib/db";
import { api } from "@/tests/support/http";
import * as f from "@/tests/support/fixtures";
import { DIALECT, freePort, ROOT, scratchDatabase, startServer, type TestServer } from "@/tests/support/server";
import { readAllOf } from "@/tests/support/records-oracle";

/** Faults (issue 8): nothing is lost or half-written, and the service recovers. */

function recordLines(n: number, startEpoch: number): string {
  const lines: string[] = new Array(n);
  for (let i = 0; i < n; i++) lines[i] = `${new Date((startEpoch + i * 600) * 1000).toISOString().slice(0, 16)}Z,${(i % 1000) / 10},`;
  return lines.join("\n");
}

/** The series' records as the database has them: the summary, and a real count. */
async function state(seriesId: number) {
  const t = await db().prisma.timeseries.findUniqueOrThrow({ where: { id: seriesId } });
  const n = (await readAllOf(seriesId)).length;
  return { summary: t.recordCount, actual: n, last: t.lastTimestamp === null ? null : Number(t.lastTimestamp), version: t.version };
}

describe("an upload cut off by the client", () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer();
  });
  afterAll(() => server?.stop());

  it("stores nothing and the server keeps serving", async () => {
    const u = await f.user({ superuser: true });
    const sid = await f.station();
    const tid = await f.series(await f.group(sid));
    await f.addRecords(tid, [["2000-01-01T00:00:00Z", 1]]);
    const before = await state(tid);
    const body = Buffer.from(`timeseries_records=${encodeURIComponent(recordLines(100_000, Date.UTC(2001, 0, 1) / 1000))}`);
    const { port } = new URL(server.url);
    await new Promise<void>((resolve, reject) => {
      const socket = connect(Number(port), "127.0.0.1", () => {
        socket.write(`POST /api/stations/${sid}/timeseries/${tid}/data/ HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Token ${u.token}\r\n`
          + `Content-Type: application/x-www-form-urlencoded\r\nContent-Length: ${body.length}\r\n\r\n`);
        socket.write(body.subarray(0, Math.floor(body.length / 2)), () => setTimeout(() => {
          socket.destroy();
          resolve();
        }, 200));
      });
      socket.on("error", reject);
    });
    await new Promise((r) => setTimeout(r, 500));
    expect(await state(tid)).toEqual(before);
    const http = api(server.url);
    expect((await http.get(`/api/stations/${sid}/timeseries/${tid}/bottom/`)).status).toBe(200);
    expect((await http.post(`/api/stations/${sid}/timeseries/${tid}/data/`, { token: u.token, form: { timeseries_records: "2002-01-01 00:00,5," } })).status).toBe(204);
  });
});

describe("a server killed with SIGKILL during an upload", () => {
  it("leaves every series whole, and restarts cleanly", async () => {
    const database = await scratchDatabase();
    const databaseUrl = database.url;
    let server = await startServer({ databaseUrl });
    const u = await f.user({ superuser: true });
    const sid = await f.station();
    const tid = await f.series(await f.group(sid));
    await f.addRecords(tid, [["2000-01-01T00:00:00Z", 1]]);
    const n = 300_000;
    const body = new URLSearchParams({ timeseries_records: recordLines(n, Date.UTC(2001, 0, 1) / 1000) }).toString();
    const outcomes: string[] = [];
    for (const delay of [150, 450, 900]) {
      const before = await state(tid);
      const upload = fetch(`${server.url}/api/stations/${sid}/timeseries/${tid}/data/`, {
        method: "POST", headers: { Authorization: `Token ${u.token}`, "Content-Type": "application/x-www-form-urlencoded" }, body,
      }).then((r) => `answered ${r.status}`, () => "cut");
      await new Promise((r) => setTimeout(r, delay));
      server.kill();
      outcomes.push(await upload);
      await server.stop();
      server = await startServer({ databaseUrl, migrate: false });
      const after = await state(tid);
      // All or nothing: the summary matches the records, and either none or all were stored.
      expect(after.actual).toBe(after.summary);
      expect([before.actual, before.actual + n]).toContain(after.actual);
      if (after.actual === before.actual) {
        expect(after.version).toBe(before.version);
      } else {
        // This upload committed before the kill: put the series back as it was for the next round.
        const keep = BigInt(Date.UTC(2000, 1, 1) / 1000);
        await db().write(async (tx) => {
          await tx.timeseriesRecord.deleteMany({ where: { timeseriesId: tid, timestamp: { gt: keep } } });
          await tx.timeseriesBlock.deleteMany({ where: { timeseriesId: tid, blockStart: { gt: keep } } });
          await tx.timeseries.update({ where: { id: tid }, data: { recordCount: 1, lastTimestamp: BigInt(Date.UTC(2000, 0, 1) / 1000), lastValue: 1, lastFlags: "" } });
        });
      }
    }
    // The restarted server serves and accepts writes.
    const http = api(server.url);
    expect((await http.get(`/api/stations/${sid}/timeseries/${tid}/data/?end_date=2000-12-31`)).text).toBe("2000-01-01 02:00,1.00,\r\n");
    expect((await http.post(`/api/stations/${sid}/timeseries/${tid}/data/`, { token: u.token, form: { timeseries_records: "2030-01-01 00:00,5," } })).status).toBe(204);
    expect(outcomes.some((o) => o === "cut")).toBe(true);
    await server.stop();
    await database.dispose();
    // Four starts of a server with its workers.
  }, 180_000);
});

describe.runIf(DIALECT === "postgres")("a database that goes away (PostgreSQL)", () => {
  let server: TestServer;
  let port: number;
  let dir: string;
  const cluster = (action: string) => execFileSync(join(ROOT, "scripts", "pg-cluster.sh"), [action, String(port), dir], { encoding: "utf8" }).trim();

  beforeAll(async () => {
    port = await freePort();
    dir = mkdtempSync(join(tmpdir(), "enhydris-pg-away-"));
    const admin = cluster("start");
    const client = new pg.Client({ connectionString: admin });
    await client.connect();
    await client.query("CREATE DATABASE away");
    await client.end();
    const url = new URL(admin);
    url.pathname = "/away";
    server = await startServer({ databaseUrl: url.toString() });
  }, 120_000);
  afterAll(async () => {
    await server?.stop();
    cluster("drop");
    rmSync(dir, { recursive: true, force: true });
  });

  it("answers 503 JSON with Retry-After, and recovers when it returns", async () => {
    const http = api(server.url);
    await f.station({ name: "Still here" });
    expect((await http.get("/api/stations/")).json.count).toBe(1);
    cluster("stop");
    for (const path of ["/api/stations/", "/api/stations/1/", "/api/variables/"]) {
      const r = await http.get(path);
      expect(r.status, path).toBe(503);
      expect(r.json).toEqual({ detail: "The service is temporarily unavailable." });
      expect(Number(r.headers.get("retry-after"))).toBeGreaterThan(0);
    }
    cluster("start");
    let recovered = 0;
    for (let i = 0; i < 50 && recovered !== 200; i++) {
      recovered = (await http.get("/api/stations/")).status;
      if (recovered !== 200) await new Promise((r) => setTimeout(r, 200));
    }
    expect(recovered).toBe(200);
    expect((await http.get("/api/stations/")).json.count).toBe(1);
  }, 60_000);
});
