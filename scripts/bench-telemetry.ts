// The telemetry workloads of `npm run bench` (telemetry.md §6), with a loopback vendor of the
// http_csv type (one request per sensor, CSV):
// - a year of 10-minute readings (52,560) fetched and stored, by the fetch's own code in this
//   process (fresh series each time; median of 3);
// - 1,000 telemetries due in the same minute, the vendor answering each request after 50 ms,
//   fetched by the built server's job runner: the time until all are done, and the API's p99
//   meanwhile against its p99 idle (the same requests, two clients);
// - the scheduler's tick with 10,000 telemetries configured, each minute of an hour.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { registerCapabilities } from "@/lib/capabilities";
import { closeDb, db } from "@/lib/db";
import { enqueue } from "@/lib/jobs/queue";
import { parseOutboundAllow } from "@/lib/outbound";
import { fetchTelemetry, nextDue, tick, TICK_KIND } from "@/lib/telemetry";
import { pointAt } from "./bench-replication";
import { generateStations, startServer, stopServer } from "./support";

const YEAR = 52_560;
const STORM = 1_000;
const CONFIGURED = 10_000;
const STEP = 600;

export interface TelemetryTimes {
  /** Milliseconds to fetch and store a year of 10-minute readings (median), and the records stored. */
  year: { ms: number; records: number };
  /** 1,000 due telemetries: seconds until all fetched; the API's p99 (and p50) idle and meanwhile. */
  storm: { seconds: number; fetched: number; failed: number; idleP99: number; busyP99: number; idleP50: number; busyP50: number };
  /** The tick with 10,000 telemetries configured: median and worst of an hour's ticks, and how many each queued (median). */
  tick: { median: number; max: number; queued: number };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const percentile = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * p))];
const iso = (t: number) => new Date(t * 1000).toISOString().slice(0, 19);

/** The loopback vendor: `/data.csv?from=…` answers the readings at or after `from` (naive UTC), after `delayMs`. */
async function vendor(readings: { t: number; v: number }[], delayMs: number): Promise<{ url: string; requests: () => number; close(): Promise<void> }> {
  let requests = 0;
  const lines = readings.map((r) => `${iso(r.t)},${r.v}`);
  const server: Server = createServer((req, res) => {
    requests++;
    const from = new URL(req.url ?? "/", "http://x").searchParams.get("from") ?? "";
    const first = lines.findIndex((l) => l.slice(0, 19) >= from);
    const body = `timestamp,value\n${first < 0 ? "" : `${lines.slice(first).join("\n")}\n`}`;
    setTimeout(() => res.writeHead(200, { "Content-Type": "text/csv" }).end(body), delayMs);
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests: () => requests,
    close: () => new Promise((r) => { server.closeAllConnections(); server.close(() => r()); }),
  };
}

/** Telemetries of the http_csv type, one sensor ("value") each, for the groups of these stations; their ids. */
async function telemetries(stationIds: number[], template: string, nextFetch: (k: number) => Date, schedule: (k: number) => [number, number] = () => [10, 0]): Promise<number[]> {
  const groups = await db().prisma.timeseriesGroup.findMany({ where: { stationId: { in: stationIds } }, select: { id: true, stationId: true } });
  const groupOf = new Map(groups.map((g) => [g.stationId, g.id]));
  const now = new Date();
  const ids: number[] = [];
  for (let from = 0; from < stationIds.length; from += 1000) {
    const slice = stationIds.slice(from, from + 1000);
    await db().write(async (tx) => {
      await tx.telemetry.createMany({
        data: slice.map((stationId, i) => {
          const [iv, off] = schedule(from + i);
          return {
            stationId, type: "http_csv", dataTimezone: "UTC", fetchIntervalMinutes: iv, fetchOffsetMinutes: off, deviceLocator: template.replace("STATION", String(stationId)),
            nextFetch: nextFetch(from + i), created: now, lastModified: now,
          };
        }),
      });
      const made = await tx.telemetry.findMany({ where: { stationId: { in: slice } }, select: { id: true, stationId: true } });
      await tx.telemetrySensor.createMany({ data: made.map((t) => ({ telemetryId: t.id, sensorId: "value", timeseriesGroupId: groupOf.get(t.stationId)! })) });
      ids.push(...made.map((t) => t.id));
    });
  }
  // Gathered a thousand at a time: one query for all would pass more parameters than a database takes.
  return ids.sort((a, b) => a - b);
}

async function yearFetch(databaseUrl: string): Promise<TelemetryTimes["year"]> {
  await pointAt(databaseUrl);
  await generateStations();
  const end = Math.floor(Date.now() / 1000 / STEP) * STEP;
  const source = await vendor(Array.from({ length: YEAR }, (_, i) => ({ t: end - (YEAR - 1 - i) * STEP, v: Math.round((15 + 8 * Math.sin(i / 144)) * 10) / 10 })), 0);
  const parsed = parseOutboundAllow("127.0.0.1");
  const context = { allow: parsed.ok ? parsed.allow : { hosts: [], ranges: [] }, timeoutMs: 60_000, maxBytes: 100 * 1024 * 1024 };
  try {
    const ids = await telemetries([1, 2, 3, 4], `${source.url}/data.csv?station=STATION&from={start}`, () => new Date(Date.UTC(2100, 0, 1)));
    const times: number[] = [];
    let records = 0;
    for (const [k, id] of ids.entries()) {
      const t = performance.now();
      const summary = await fetchTelemetry(id, { context });
      const ms = performance.now() - t;
      if (summary?.status !== "ok") throw new Error(`the year's fetch failed: ${JSON.stringify(summary)}`);
      records = summary.records;
      if (k > 0) times.push(ms);
    }
    return { ms: median(times), records };
  } finally {
    await source.close();
    await closeDb();
  }
}

/** GETs of a station's API answer by `clients` clients until `stop` says so; their latencies (ms). */
async function apiLoad(url: string, stop: () => boolean, clients = 2): Promise<number[]> {
  const times: number[] = [];
  await Promise.all(Array.from({ length: clients }, async (_, c) => {
    for (let i = 0; !stop(); i++) {
      const t = performance.now();
      const r = await fetch(`${url}/api/stations/${1 + ((i * 7 + c) % 500)}/`);
      await r.arrayBuffer();
      times.push(performance.now() - t);
    }
  }));
  return times;
}

async function storm(databaseUrl: string, dir: string): Promise<TelemetryTimes["storm"]> {
  await pointAt(databaseUrl);
  await generateStations();
  const recent = Math.floor(Date.now() / 1000 / STEP) * STEP;
  const source = await vendor([0, 1, 2].map((k) => ({ t: recent - (3 - k) * STEP, v: k })), 50);
  const stations = Array.from({ length: STORM }, (_, k) => k + 1);
  await telemetries(stations, `${source.url}/data.csv?station=STATION&from={start}`, () => new Date(Date.UTC(2100, 0, 1)));
  await closeDb();
  const { url, child } = await startServer(databaseUrl, dir, { ENHYDRIS_OUTBOUND_ALLOW: "127.0.0.1", ENHYDRIS_WORKERS: "2", ENHYDRIS_LOG_LEVEL: "error" });
  try {
    await apiLoad(url, (() => { const until = Date.now() + 3000; return () => Date.now() > until; })());
    const idleUntil = Date.now() + 15_000;
    const idle = await apiLoad(url, () => Date.now() > idleUntil);
    // All due now, and the tick now rather than at the next minute.
    await pointAt(databaseUrl);
    await db().write((tx) => tx.telemetry.updateMany({ data: { nextFetch: new Date(Date.now() - 60_000) } }));
    const started = Date.now();
    await enqueue({ kind: TICK_KIND, key: "telemetry:tick", maxAttempts: 1 });
    let done = 0;
    let failed = 0;
    let finished = 0;
    const watch = (async () => {
      for (;;) {
        // Telemetries, not jobs: one fetched early in the storm may be due again (its next 10-minute
        // slot) before the last is fetched, and its second job is not one of the thousand.
        const since = new Date(started);
        const [fetchedOk, fetchedWithError] = await Promise.all([
          db().prisma.telemetry.count({ where: { lastFetch: { gte: since }, status: "ok" } }),
          db().prisma.telemetry.count({ where: { lastFetch: { gte: since }, status: "error" } }),
        ]);
        const row = { done: fetchedOk + fetchedWithError, failed: fetchedWithError };
        done = Number(row.done ?? 0);
        failed = Number(row.failed ?? 0);
        if (done >= STORM || Date.now() - started > 180_000) {
          finished = Date.now();
          return;
        }
        await new Promise((r) => setTimeout(r, 200));
      }
    })();
    const busy = await apiLoad(url, () => finished > 0);
    await watch;
    return {
      seconds: (finished - started) / 1000, fetched: done - failed, failed,
      idleP99: percentile(idle, 0.99), busyP99: percentile(busy, 0.99), idleP50: percentile(idle, 0.5), busyP50: percentile(busy, 0.5),
    };
  } finally {
    await stopServer(child);
    await source.close();
    await closeDb();
  }
}

async function ticks(databaseUrl: string): Promise<TelemetryTimes["tick"]> {
  await pointAt(databaseUrl);
  await generateStations();
  const T0 = Date.UTC(2031, 0, 6);
  const intervals = [10, 15, 20, 30, 60, 120, 1440];
  const schedule = (k: number): [number, number] => {
    const iv = intervals[k % intervals.length];
    return [iv, (k * 7) % iv];
  };
  await telemetries(Array.from({ length: CONFIGURED }, (_, k) => k + 1), "http://192.0.2.1/data.csv?from={start}", (k) => new Date(nextDue(T0, ...schedule(k))), schedule);
  try {
    const times: number[] = [];
    const queued: number[] = [];
    for (let m = 0; m < 60; m++) {
      const t = performance.now();
      queued.push((await tick(T0 + m * 60_000 + 1000)).length);
      times.push(performance.now() - t);
    }
    // The first ticks warm the statements up.
    const measured = times.slice(3);
    return { median: median(measured), max: Math.max(...measured), queued: median(queued) };
  } finally {
    await closeDb();
  }
}

export async function telemetryBench(dir: string, database: (name: string) => Promise<string>): Promise<TelemetryTimes> {
  registerCapabilities();
  console.error("  telemetry: a year of readings…");
  const year = await yearFetch(await database("year"));
  console.error("  telemetry: the scheduler's tick with 10,000 telemetries…");
  const tick = await ticks(await database("tick"));
  console.error("  telemetry: 1,000 telemetries due at once…");
  const stormTimes = await storm(await database("storm"), dir);
  return { year, storm: stormTimes, tick };
}
