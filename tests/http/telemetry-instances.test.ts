import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { db, Prisma } from "@/lib/db";
import { api } from "@/tests/support/http";
import * as f from "@/tests/support/fixtures";
import { startFakeHttpCsv, type FakeHttpCsv } from "@/tests/support/fake-vendors/http_csv";
import { scratchDatabase, startServer, type ScratchDatabase, type TestServer } from "@/tests/support/server";
import { sleep, until } from "@/tests/support/wait";

/**
 * Two app instances on one database (telemetry.md §3): every telemetry due in a minute is fetched
 * exactly once, by one of them (the tick's UPDATE takes each due telemetry once; a fetch's key
 * lets one runner at a time run it); "fetch now" asked of both at once never runs two fetches of
 * one telemetry at the same time.
 */
let database: ScratchDatabase;
let a: TestServer;
let b: TestServer;
let vendor: FakeHttpCsv;
// One process each: two instances start in time on a busy machine.
const ENV = { ENHYDRIS_OUTBOUND_ALLOW: "127.0.0.1", ENHYDRIS_WORKERS: "1" };
const COUNT = 30;

beforeAll(async () => {
  const now = Date.now();
  vendor = await startFakeHttpCsv({
    columns: ["temperature"],
    rows: { all: [0, 1, 2].map((k) => ({ time: new Date(now - (3 - k) * 600_000).toISOString().slice(0, 19), values: { temperature: k } })) },
  });
  database = await scratchDatabase();
  a = await startServer({ databaseUrl: database.url, env: ENV });
  b = await startServer({ databaseUrl: database.url, migrate: false, env: ENV });
}, 180_000);
afterAll(async () => {
  await a?.stop();
  await b?.stop();
  await vendor?.close();
  await database?.dispose();
});

describe("two instances on one database", () => {
  it("fetch each due telemetry once", async () => {
    const editor = await f.user();
    const telemetries: { sid: number; id: number }[] = [];
    for (let k = 0; k < COUNT; k++) {
      const sid = await f.station({ maintainers: [editor.id] });
      const gid = await f.group(sid);
      const r = await api(k % 2 ? a.url : b.url).put(`/api/stations/${sid}/telemetry/`, { token: editor.token, json: {
        type: "http_csv", data_timezone: "UTC", fetch_interval_minutes: 60, device_locator: `${vendor.url}/data.csv?station=${sid}&from={start}`,
        sensors: [{ sensor_id: "temperature", timeseries_group: gid }],
      } });
      expect(r.status, r.text).toBe(201);
      telemetries.push({ sid, id: r.json.id });
    }
    // All due now: the next tick (a second past the next minute) queues them.
    await db().write((tx) => tx.telemetry.updateMany({ data: { nextFetch: new Date(Date.now() - 60_000) } }));
    const logged = () => db().query<{ telemetry_id: unknown; n: unknown }>(Prisma.sql`SELECT telemetry_id, COUNT(*) AS n FROM telemetry_log GROUP BY telemetry_id`);
    await until(logged, (rows) => rows.length === COUNT, 150_000, 500);
    // Anything that would fetch again would do it now.
    await sleep(5000);
    const rows = await logged();
    expect(rows.map((r) => Number(r.n))).toEqual(new Array(COUNT).fill(1));
    const requests = new Map<string, number>();
    for (const r of vendor.requests) requests.set(r.query.get("station")!, (requests.get(r.query.get("station")!) ?? 0) + 1);
    for (const t of telemetries) expect(requests.get(String(t.sid)), `telemetry of station ${t.sid}`).toBe(1);
    const jobs = await db().prisma.job.findMany({ where: { kind: "telemetry.fetch" } });
    expect(jobs.length).toBe(COUNT);
    expect(jobs.every((j) => j.status === "succeeded")).toBe(true);
    const owners = new Set(jobs.map((j) => j.leaseOwner!.split(":").slice(0, 2).join(":")));
    expect(owners.size, "runners that ran fetches").toBeGreaterThanOrEqual(1);
  }, 240_000);

  it("never run two fetches of one telemetry at once when both are asked to fetch now", async () => {
    const editor = await f.user();
    const sid = await f.station({ maintainers: [editor.id] });
    const gid = await f.group(sid);
    const path = `/api/stations/${sid}/telemetry/`;
    const put = await api(a.url).put(path, { token: editor.token, json: {
      type: "http_csv", data_timezone: "UTC", fetch_interval_minutes: 1440, device_locator: `${vendor.url}/data.csv?station=${sid}&from={start}`,
      sensors: [{ sensor_id: "temperature", timeseries_group: gid }],
    } });
    expect(put.status).toBe(201);
    vendor.fail(`station=${sid}&`, { kind: "slow", ms: 1500 });
    const answers = await Promise.all([a, b, a, b].map((s) => api(s.url).post(`${path}fetch/`, { token: editor.token, json: { wait: true } })));
    expect(answers.map((r) => r.status)).toEqual([200, 200, 200, 200]);
    vendor.clearFaults();
    const runs = (await db().prisma.job.findMany({ where: { key: `telemetry:${put.json.id}` }, orderBy: { startedAt: "asc" } }))
      .map((j) => [j.startedAt!.getTime(), j.finishedAt!.getTime()]);
    for (let i = 1; i < runs.length; i++) expect(runs[i][0], "a fetch started before the one before it ended").toBeGreaterThanOrEqual(runs[i - 1][1]);
    // The records are stored once.
    const [{ n }] = await db().query<{ n: unknown }>(Prisma.sql`SELECT SUM(record_count) AS n FROM timeseries WHERE timeseries_group_id = ${gid}`);
    expect(Number(n)).toBe(3);
  }, 120_000);
});
