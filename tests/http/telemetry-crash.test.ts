import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { db, Prisma } from "@/lib/db";
import { records } from "@/lib/records";
import { api } from "@/tests/support/http";
import * as f from "@/tests/support/fixtures";
import { startFakeAddupi, type FakeAddupi } from "@/tests/support/fake-vendors/addupi";
import { startFakeHttpCsv, type FakeHttpCsv } from "@/tests/support/fake-vendors/http_csv";
import { scratchDatabase, startServer, type ScratchDatabase, type TestServer } from "@/tests/support/server";
import { sleep, until } from "@/tests/support/wait";

/**
 * kill -9 during a fetch (telemetry.md §3): a fetch never stores a partial sensor, never a
 * duplicate, whatever is killed when; the next fetch completes what the killed one left.
 */
let database: ScratchDatabase;
let server: TestServer | null = null;
let addupi: FakeAddupi;
let csvVendor: FakeHttpCsv;
// One worker process: each restart (four of them) starts faster on a busy machine.
const ENV = { ENHYDRIS_OUTBOUND_ALLOW: "127.0.0.1", ENHYDRIS_JOB_LEASE_SECONDS: "2", ENHYDRIS_WORKERS: "1" };
const T0 = Date.UTC(2025, 0, 1) / 1000;
const N = 20_000;
const COLUMNS = ["s1", "s2", "s3", "s4"];
const valueOf = (i: number, c: number) => Math.round(Math.sin(i / 50 + c) * 1000) / 10;

beforeAll(async () => {
  database = await scratchDatabase();
  addupi = await startFakeAddupi({
    readings: {
      "42a": [0, 1, 2].map((k) => ({ t: T0 + k * 600, value: String(k), s: 0 })),
      "43b": [0, 1, 2].map((k) => ({ t: T0 + k * 600, value: String(10 + k), s: 0 })),
    },
  });
  csvVendor = await startFakeHttpCsv({
    columns: COLUMNS,
    rows: { all: Array.from({ length: N }, (_, i) => ({ time: new Date((T0 + i * 600) * 1000).toISOString().slice(0, 19), values: Object.fromEntries(COLUMNS.map((c, k) => [c, valueOf(i, k)])) })) },
  });
  server = await startServer({ databaseUrl: database.url, env: ENV });
}, 180_000);
afterAll(async () => {
  await server?.stop();
  await addupi?.close();
  await csvVendor?.close();
  await database?.dispose();
});

/** kill -9 of every process of the server (its database stays). */
async function kill(): Promise<void> {
  server!.kill();
  await sleep(200);
}

/** A restart; on a machine too busy for the server to answer within startServer's minute, tried again (the database is the same). */
async function startAgain(): Promise<TestServer> {
  for (let attempt = 1; ; attempt++) {
    try {
      server = await startServer({ databaseUrl: database.url, migrate: false, env: ENV });
      return server;
    } catch (error) {
      if (attempt >= 3 || !String(error).includes("server did not start")) throw error;
    }
  }
}

/**
 * A POST that a freshly restarted server may answer 503 while its pool opens its connections on a
 * busy machine (the database is reached through a new connection after each kill): tried again.
 */
async function post(path: string, token: string, json: unknown) {
  for (let attempt = 0; ; attempt++) {
    const r = await api(server!.url).post(path, { token, json });
    if (r.status !== 503 || attempt >= 10) return r;
    await sleep(2000);
  }
}

/** The records of a group's Initial series, as the store has them, with its summary. */
async function stored(groupId: number) {
  const series = await db().prisma.timeseries.findFirst({ where: { groupId, type: 1 } });
  if (!series) return { count: 0, timestamps: [] as number[], values: [] as number[], summaryCount: 0 };
  const timestamps: number[] = [];
  const values: number[] = [];
  for await (const chunk of records().read(series.id, -1e12, 1e12)) {
    for (let i = 0; i < chunk.length; i++) {
      timestamps.push(chunk.timestamps[i]);
      values.push(chunk.values[i]);
    }
  }
  const [{ n }] = await db().query<{ n: unknown }>(Prisma.sql`SELECT record_count AS n FROM timeseries WHERE id = ${series.id}`);
  return { count: timestamps.length, timestamps, values, summaryCount: Number(n) };
}

describe("kill -9 during a fetch", () => {
  it("leaves the sensor it was fetching with nothing, the one before whole; the next fetch completes it", async () => {
    const editor = await f.user();
    const sid = await f.station({ maintainers: [editor.id] });
    const a = await f.group(sid, { precision: 0 });
    const b = await f.group(sid, { precision: 0 });
    const path = `/api/stations/${sid}/telemetry/`;
    const http = api(server!.url);
    const put = await http.put(path, { token: editor.token, json: {
      type: "addupi", fetch_interval_minutes: 1440, device_locator: addupi.url, username: "alice", password: "topsecretpassword", remote_station_id: "1852",
      sensors: [{ sensor_id: "42a", timeseries_group: a }, { sensor_id: "43b", timeseries_group: b }],
    } });
    expect(put.status, put.text).toBe(201);
    // The second sensor's readings take a minute to come: the server is killed while it waits.
    addupi.fail("id=43b", { kind: "slow", ms: 60_000 }, 1);
    expect((await http.post(`${path}fetch/`, { token: editor.token, json: {} })).status).toBe(202);
    await until(() => Promise.resolve(addupi.requests.filter((r) => r.query.get("id") === "43b").length), (n) => n > 0, 30_000, 50);
    await kill();
    expect((await stored(a)).timestamps).toEqual([T0, T0 + 600, T0 + 1200]);
    expect((await stored(b)).count).toBe(0);
    const restarted = await startAgain();
    // The killed fetch's job is taken over when its lease expires; a fetch asked now waits for it, then finds nothing more.
    expect(restarted.url).toBe(server!.url);
    const again = await post(`${path}fetch/`, editor.token, { wait: true });
    expect(again.status, again.text).toBe(200);
    await until(() => stored(b), (s) => s.count === 3, 30_000, 200);
    const [sa, sb] = [await stored(a), await stored(b)];
    expect(sa).toMatchObject({ count: 3, summaryCount: 3 });
    expect(sb).toMatchObject({ count: 3, summaryCount: 3, values: [10, 11, 12] });
  }, 180_000);

  it("at random moments of a large fetch: every series whole or empty after each kill, complete after the next fetch", async () => {
    const editor = await f.user();
    const sid = await f.station({ maintainers: [editor.id] });
    const groups = await Promise.all(COLUMNS.map(() => f.group(sid, { precision: 1 })));
    const path = `/api/stations/${sid}/telemetry/`;
    const put = await api(server!.url).put(path, { token: editor.token, json: {
      type: "http_csv", data_timezone: "UTC", fetch_interval_minutes: 1440, device_locator: csvVendor.template,
      sensors: COLUMNS.map((c, k) => ({ sensor_id: c, timeseries_group: groups[k] })),
    } });
    expect(put.status, put.text).toBe(201);
    for (const delay of [500, 2500]) {
      const requests = csvVendor.requests.length;
      const queued = await post(`${path}fetch/`, editor.token, {});
      expect(queued.status, `${queued.text}\n${server!.output().slice(-3000)}`).toBe(202);
      await until(() => Promise.resolve(csvVendor.requests.length), (n) => n > requests, 30_000, 10);
      await sleep(delay);
      await kill();
      for (const [k, g] of groups.entries()) {
        const s = await stored(g);
        expect([0, N], `series of ${COLUMNS[k]} after a kill ${delay} ms in`).toContain(s.count);
        expect(s.summaryCount).toBe(s.count);
      }
      await startAgain();
    }
    // The next fetch (on a busy machine it may take longer than the 60 s that wait waits).
    const done = await post(`${path}fetch/`, editor.token, { wait: true });
    expect([200, 202], done.text).toContain(done.status);
    await until(() => Promise.all(groups.map(stored)), (all) => all.every((s) => s.count === N), 180_000, 1000);
    for (const [k, g] of groups.entries()) {
      const s = await stored(g);
      expect(s.summaryCount).toBe(N);
      expect(s.timestamps.every((t, i) => t === T0 + i * 600)).toBe(true);
      expect(s.values.every((v, i) => v === valueOf(i, k))).toBe(true);
    }
  }, 600_000);
});
