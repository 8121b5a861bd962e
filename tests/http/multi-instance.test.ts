import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { db, Prisma } from "@/lib/db";
import { api } from "@/tests/support/http";
import * as f from "@/tests/support/fixtures";
import { scratchDatabase, startServer, type ScratchDatabase, type TestServer } from "@/tests/support/server";
import { readAllOf } from "@/tests/support/records-oracle";

/**
 * Two app instances on one database (issue 8): start-up migrations do not collide; appends
 * through both never lose, duplicate or interleave records; nothing cached goes stale.
 */
let a: TestServer;
let b: TestServer;
let database: ScratchDatabase;

beforeAll(async () => {
  database = await scratchDatabase();
  const databaseUrl = database.url;
  // Both start on an empty database at the same time: each applies the migrations under a lock.
  [a, b] = await Promise.all([startServer({ databaseUrl, migrate: false }), startServer({ databaseUrl, migrate: false })]);
}, 120_000);
afterAll(async () => {
  await a?.stop();
  await b?.stop();
  await database?.dispose();
});

const lines = (from: number, n: number) =>
  Array.from({ length: n }, (_, i) => `${new Date((from + i * 600) * 1000).toISOString().slice(0, 16)}Z,${i},`).join("\n");

describe("two instances on one database", () => {
  it("applied the migrations once", async () => {
    const rows = await db().query<{ name: string }>(Prisma.sql`SELECT name FROM _migrations`);
    expect(rows.map((r) => r.name)).toEqual([...new Set(rows.map((r) => r.name))]);
    expect(rows.length).toBeGreaterThan(0);
  });

  it("serializes conflicting appends: one succeeds, the other gets 400, and the records are exactly one upload", async () => {
    const u = await f.user({ superuser: true });
    const sid = await f.station();
    const tid = await f.series(await f.group(sid));
    const path = `/api/stations/${sid}/timeseries/${tid}/data/`;
    const start = Date.UTC(2020, 0, 1) / 1000;
    for (let round = 0; round < 5; round++) {
      const base = start + round * 86400 * 30;
      const [ra, rb] = await Promise.all([
        api(a.url).post(path, { token: u.token, form: { timeseries_records: lines(base, 2000) } }),
        api(b.url).post(path, { token: u.token, form: { timeseries_records: lines(base + 300, 2000) } }),
      ]);
      const statuses = [ra.status, rb.status].sort();
      expect(statuses).toEqual([204, 400]);
      const loser = ra.status === 400 ? ra : rb;
      expect(loser.json.timeseries_records[0]).toMatch(/is not later than the last stored record/);
      const rows = (await readAllOf(tid)).filter((r) => r[0] >= base);
      const winnerBase = ra.status === 204 ? base : base + 300;
      expect(rows.map((r) => r[0])).toEqual(Array.from({ length: 2000 }, (_, i) => winnerBase + i * 600));
    }
    const t = await db().prisma.timeseries.findUniqueOrThrow({ where: { id: tid } });
    expect(t.recordCount).toBe(10_000);
  });

  it("stores every record of non-conflicting appends through both, in turn and at once", async () => {
    const u = await f.user({ superuser: true });
    const sid = await f.station();
    const gid = await f.group(sid);
    const series = await Promise.all([1, 2, 3, 4].map(() => f.series(gid, { type: "Aggregated", name: String(Math.random()) })));
    const start = Date.UTC(2021, 0, 1) / 1000;
    // Different series in parallel through both instances.
    const results = await Promise.all(series.map((tid, k) =>
      api(k % 2 ? a.url : b.url).post(`/api/stations/${sid}/timeseries/${tid}/data/`, { token: u.token, form: { timeseries_records: lines(start, 5000) } })));
    expect(results.map((r) => r.status)).toEqual([204, 204, 204, 204]);
    // One series, appends alternating between the instances.
    for (let k = 0; k < 10; k++) {
      const r = await api(k % 2 ? a.url : b.url).post(`/api/stations/${sid}/timeseries/${series[0]}/data/`,
        { token: u.token, form: { timeseries_records: lines(start + 5000 * 600 + k * 6000, 10) } });
      expect(r.status).toBe(204);
    }
    const counts = await Promise.all(series.map((tid) => db().prisma.timeseries.findUniqueOrThrow({ where: { id: tid } })));
    expect(counts.map((t) => t.recordCount)).toEqual([5100, 5000, 5000, 5000]);
    expect((await readAllOf(series[0])).length).toBe(5100);
  });

  it("never serves stale data after a write through the other instance", async () => {
    const u = await f.user({ superuser: true });
    const sid = await f.station();
    const tid = await f.series(await f.group(sid, { precision: 0 }));
    const base = `/api/stations/${sid}/timeseries/${tid}`;
    const start = Date.UTC(2022, 0, 1) / 1000;
    await api(a.url).post(`${base}/data/`, { token: u.token, form: { timeseries_records: lines(start, 100) } });
    const chart1 = await api(a.url).get(`${base}/chart/?points=2`);
    const bottom1 = await api(a.url).get(`${base}/bottom/`);
    expect(bottom1.text).toMatch(/,99,$/);
    await api(b.url).post(`${base}/data/`, { token: u.token, form: { timeseries_records: lines(start + 100 * 600, 100).replace(/,(\d+),/g, (_, v) => `,${1000 + Number(v)},`) } });
    const chart2 = await api(a.url).get(`${base}/chart/?points=2`);
    const bottom2 = await api(a.url).get(`${base}/bottom/`);
    expect(chart2.headers.get("etag")).not.toBe(chart1.headers.get("etag"));
    expect(chart2.json[1].max).toBe("1099");
    expect(bottom2.text).toMatch(/,1099,$/);
    // A conditional request with the old ETag gets the new data, not 304.
    const conditional = await api(a.url).get(`${base}/chart/?points=2`, { headers: { "If-None-Match": chart1.headers.get("etag")! } });
    expect(conditional.status).toBe(200);
    // Metadata written through one instance is read through the other.
    await api(b.url).patch(`/api/stations/${sid}/`, { token: u.token, form: { name: "Renamed through B" } });
    expect((await api(a.url).get(`/api/stations/${sid}/`)).json.name).toBe("Renamed through B");
  });
});
