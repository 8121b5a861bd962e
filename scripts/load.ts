// npm run load — the mixed load of issue 8 against the built server: 32 connections for 60 s,
// 40% station list pages, 10% station searches, 20% one-month charts, 20% bottom, 10% uploads of
// 10 records to different series. Reports requests/s, latency percentiles, errors and the
// server's memory. SQLite always; PostgreSQL too when DATABASE_URL is a postgres:// URL (with one
// app instance, then two on one database; LOAD_INSTANCES=1 or 2 for only one of them).
//   LOAD_DURATION=60 LOAD_CONNECTIONS=32 LOAD_MIX=chart,bottom (only these kinds, to profile them;
//   LOAD_MIX=page: anonymous group pages, a kind the default mix leaves out;
//   LOAD_MIX=each: the mix, then every kind alone, each with its server CPU time per request)
//   LOAD_NODE_ARGS="--cpu-prof --cpu-prof-dir=/tmp/prof" (Node options of the server processes)
//   LOAD_PROFILE_DIR=/tmp/prof: every run (with LOAD_MIX=each: the mix, then each kind) on a server
//   of its own, profiled into DIR/<run> (node scripts/profile-summary.mjs DIR/<run>), so that each
//   kind's profile holds only its own requests
//   LOAD_WARMUP=5: a new server first gets this many seconds of the run's requests, not measured
//   LOAD_SQLITE=0: only the PostgreSQL runs. Their table also gives the CPU per request of the
//   database's backends on this machine (read from /proc, like the server's).
// Each instance is the multi-process server with ENHYDRIS_WORKERS workers (default: the cores);
// its memory is that of the primary and its workers together.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import autocannon from "autocannon";
import { closeDb, db } from "@/lib/db";
import { reloadSettings } from "@/lib/config";
import { records } from "@/lib/records";
import { insertSeries } from "@/lib/series";
import {
  isPostgresUrl, postgresBackendsCpuMs, postgresCpuBetween, prepareDatabase, startServer, stopServer, treeCpuMs, treeRssMb, STATIONS, withScratchPostgres,
} from "./support";

const DURATION = Number(process.env.LOAD_DURATION ?? 60);
const CONNECTIONS = Number(process.env.LOAD_CONNECTIONS ?? 32);
/**
 * LOAD_MIX=chart,bottom: only these kinds of request, in equal parts (to profile one kind);
 * LOAD_MIX=each: the mix, then each kind alone, one after the other on the same server.
 */
/** `page` (an anonymous visitor's group page) is not in the default mix; name it to measure it. */
const KINDS = ["list", "search", "chart", "bottom", "upload", "page"] as const;
type Kind = (typeof KINDS)[number];
const EACH = process.env.LOAD_MIX === "each";
const ONLY_KINDS = EACH ? [] : (process.env.LOAD_MIX ?? "").split(",").map((s) => s.trim()).filter(Boolean) as Kind[];
for (const kind of ONLY_KINDS) if (!KINDS.includes(kind)) throw new Error(`LOAD_MIX: unknown kind "${kind}" (${KINDS.join(", ")}, or each)`);
/** The runs of one server: the mix (or LOAD_MIX's kinds), then with LOAD_MIX=each every kind alone. */
const RUNS: Kind[][] = [ONLY_KINDS, ...(EACH ? KINDS.map((kind) => [kind]) : [])];
/** LOAD_WARMUP=5: seconds of requests, not measured, that a new server gets before its first run. */
const WARM_UP = Number(process.env.LOAD_WARMUP ?? 5);
/** LOAD_INSTANCES=1: the PostgreSQL runs with one instance only (default: with one, then with two). */
const INSTANCES = (process.env.LOAD_INSTANCES ?? "1,2").split(",").map(Number);
const READ_SERIES = 50;
const UPLOAD_SERIES = 400;
const START = Date.UTC(2025, 5, 1) / 1000;
const WORDS = ["arta", "agios", "komboti", "louros", "arachthos", "pinios", "aoos", "kalamas", "acheloos", "evinos"];

interface Setup { token: string; readSeries: [number, number, number][]; uploadSeries: [number, number][] }

/** Stations, 50 series with two months of 10-minute records, 400 series for uploads. */
async function prepare(databaseUrl: string): Promise<Setup> {
  const token = await prepareDatabase(databaseUrl, "load");
  const groups = await db().prisma.timeseriesGroup.findMany({ where: { stationId: { lte: READ_SERIES + UPLOAD_SERIES } }, orderBy: { id: "asc" } });
  const readSeries: [number, number, number][] = [];
  const uploadSeries: [number, number][] = [];
  const n = 60 * 144;
  for (const [k, g] of groups.entries()) {
    const id = await db().write((tx) => insertSeries(tx, g.id, { type: 1, timeStep: "10min", name: "", publiclyAvailable: true }));
    if (k < READ_SERIES) {
      const timestamps = Float64Array.from({ length: n }, (_, i) => START + i * 600);
      const values = Float64Array.from({ length: n }, (_, i) => 15 + 8 * Math.sin(i / 144 * 2 * Math.PI) + (i % 7) / 10);
      const result = await records().write(id, { timestamps, values, flags: new Array(n).fill("") }, { mode: "append", validate: () => [] });
      if (!result.ok) throw new Error(result.errors.join());
      readSeries.push([g.stationId, id, g.id]);
    } else {
      uploadSeries.push([g.stationId, id]);
    }
  }
  // The measured runs start from a settled database: without this, autovacuum (new tables, no
  // statistics yet) ran during the first run on PostgreSQL, with plans made without statistics.
  if (db().dialect === "postgres") await db().pool!.query("VACUUM (ANALYZE)");
  await closeDb();
  return { token, readSeries, uploadSeries };
}

function pick<T>(xs: T[]): T {
  return xs[Math.floor(Math.random() * xs.length)];
}

const pad = (n: number) => String(n).padStart(2, "0");
function localDate(epoch: number): string {
  const d = new Date(epoch * 1000);
  return `${d.getUTCFullYear()}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())}`;
}

/** Uploads made so far: each gets instants no earlier upload used, across runs on one database. */
let uploads = 0;

/**
 * `database`: the PostgreSQL database whose backends' CPU is counted too; `warmUp`: a new server,
 * first given WARM_UP seconds of the same requests that are not counted.
 */
async function runLoad(label: string, urls: string[], pids: number[], setup: Setup, only: Kind[] = [], database?: string, warmUp = false) {
  const list = () => ({ method: "GET" as const, setupRequest: (r: autocannon.Request) => ({ ...r, path: `/api/stations/?page=${1 + Math.floor(Math.random() * (STATIONS / 20))}` }) });
  const search = () => ({ method: "GET" as const, setupRequest: (r: autocannon.Request) => ({ ...r, path: `/api/stations/?q=${pick(WORDS)}` }) });
  const chart = () => ({
    method: "GET" as const,
    setupRequest: (r: autocannon.Request) => {
      const [sid, tid] = pick(setup.readSeries);
      const start = START + Math.floor(Math.random() * 29) * 86400;
      return { ...r, path: `/api/stations/${sid}/timeseries/${tid}/chart/?start_date=${localDate(start)}&end_date=${localDate(start + 30 * 86400)}` };
    },
  });
  const bottom = () => ({
    method: "GET" as const,
    setupRequest: (r: autocannon.Request) => {
      const [sid, tid] = pick(setup.readSeries);
      return { ...r, path: `/api/stations/${sid}/timeseries/${tid}/bottom/` };
    },
  });
  const upload = () => ({
    method: "POST" as const,
    setupRequest: (r: autocannon.Request) => {
      // Each upload goes to the next series in turn, with instants no other upload uses.
      const k = uploads++;
      const [sid, tid] = setup.uploadSeries[k % setup.uploadSeries.length];
      const base = START + Math.floor(k / setup.uploadSeries.length) * 6000;
      const lines = Array.from({ length: 10 }, (_, i) => `${new Date((base + i * 600) * 1000).toISOString().slice(0, 16)}Z,${(10 + i / 10).toFixed(1)},`);
      return {
        ...r,
        path: `/api/stations/${sid}/timeseries/${tid}/data/`,
        headers: { ...r.headers, Authorization: `Token ${setup.token}`, "Content-Type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({ timeseries_records: lines.join("\n"), mode: "insert" }).toString(),
      };
    },
  });
  const page = () => ({
    method: "GET" as const,
    setupRequest: (r: autocannon.Request) => {
      const [sid, tid, gid] = pick(setup.readSeries);
      return { ...r, path: `/stations/${sid}/timeseriesgroups/${gid}/?series=${tid}` };
    },
  });
  const kinds = { list, search, chart, bottom, upload, page };
  const mix = only.length
    ? only.map((kind) => kinds[kind]())
    : [list(), search(), list(), chart(), bottom(), list(), chart(), bottom(), list(), upload()];
  if (warmUp && WARM_UP > 0) {
    // Not measured: the server's first seconds (code loaded and compiled, caches and prepared
    // statements filled) would weigh on the figures of a short run.
    await Promise.all(urls.map((url) => autocannon({ url, connections: Math.max(1, Math.round(CONNECTIONS / urls.length)), duration: WARM_UP, requests: mix, timeout: 20 })));
  }
  let peak = 0;
  const timer = setInterval(() => (peak = Math.max(peak, pids.reduce((sum, pid) => sum + treeRssMb(pid), 0))), 200);
  const cpuBefore = pids.reduce((sum, pid) => sum + treeCpuMs(pid), 0);
  const backendsBefore = database ? postgresBackendsCpuMs(database) : null;
  console.error(`[${label}] ${CONNECTIONS} connections for ${DURATION} s on ${urls.length} instance(s)…`);
  const results = await Promise.all(urls.map((url) => autocannon({
    url, connections: Math.max(1, Math.round(CONNECTIONS / urls.length)), duration: DURATION, requests: mix, timeout: 20,
  })));
  clearInterval(timer);
  const cpu = pids.reduce((sum, pid) => sum + treeCpuMs(pid), 0) - cpuBefore;
  const backendsCpu = backendsBefore && database ? postgresCpuBetween(backendsBefore, postgresBackendsCpuMs(database)) : null;
  const total = results.reduce((s, r) => s + r.requests.total, 0);
  const errors = results.reduce((s, r) => s + r.errors + r.timeouts + r.non2xx, 0);
  const classes = (["1xx", "3xx", "4xx", "5xx"] as const).map((k) => [k, results.reduce((s, r) => s + (r as unknown as Record<string, number>)[k], 0)] as const)
    .filter(([, n]) => n > 0).map(([k, n]) => `${n} ${k}`);
  const socket = results.reduce((s, r) => s + r.errors, 0);
  const timeouts = results.reduce((s, r) => s + r.timeouts, 0);
  if (errors) console.error(`[${label}] errors: ${[...classes, socket ? `${socket} socket errors` : "", timeouts ? `${timeouts} timeouts` : ""].filter(Boolean).join(", ")}`);
  const pct = (k: "p50" | "p90" | "p99") => Math.max(...results.map((r) => (r.latency as unknown as Record<string, number>)[k]));
  return {
    label: only.length ? `${label}: ${only.join(", ")}` : label,
    cpuPerRequest: cpu / total,
    databaseCpuPerRequest: backendsCpu === null ? null : backendsCpu / total,
    rps: total / DURATION,
    total,
    errors,
    p50: pct("p50"),
    p90: pct("p90"),
    p99: pct("p99"),
    max: Math.max(...results.map((r) => r.latency.max)),
    memory: peak,
  };
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), "enhydris-load-"));
  const rows: Awaited<ReturnType<typeof runLoad>>[] = [];
  const given = process.env.DATABASE_URL;
  try {
    const sqlite = `file:${join(dir, "load.db")}`;
    if (process.env.LOAD_SQLITE !== "0") {
      console.error("[SQLite] preparing data…");
      const setup = await prepare(sqlite);
      const profileDir = process.env.LOAD_PROFILE_DIR;
      if (profileDir) {
        for (const only of RUNS) {
          const server = await startServer(sqlite, dir, {}, ["--cpu-prof", `--cpu-prof-dir=${join(profileDir, only.join("+") || "mix")}`]);
          try {
            rows.push(await runLoad("SQLite, 1 instance", [server.url], [server.child.pid!], setup, only, undefined, true));
          } finally {
            await stopServer(server.child);
          }
        }
      } else {
        const server = await startServer(sqlite, dir);
        try {
          for (const [k, only] of RUNS.entries()) rows.push(await runLoad("SQLite, 1 instance", [server.url], [server.child.pid!], setup, only, undefined, k === 0));
        } finally {
          server.child.kill("SIGTERM");
        }
      }
    }
    if (isPostgresUrl(given)) {
      await withScratchPostgres(given, "enhydris_load", async (url) => {
        console.error("[PostgreSQL] preparing data…");
        const pgSetup = await prepare(url);
        for (const instances of INSTANCES) {
          const servers = await Promise.all(Array.from({ length: instances }, () => startServer(url, dir)));
          try {
            for (const [k, only] of RUNS.entries()) {
              rows.push(await runLoad(`PostgreSQL, ${instances} instance${instances > 1 ? "s" : ""}`, servers.map((s) => s.url), servers.map((s) => s.child.pid!), pgSetup, only,
                new URL(url).pathname.slice(1), k === 0));
            }
          } finally {
            for (const s of servers) s.child.kill("SIGTERM");
          }
        }
        // No lost or duplicated record: every series holds a multiple of 10 distinct instants.
        process.env.DATABASE_URL = url;
        reloadSettings();
        const counts = await db().prisma.timeseries.findMany({ where: { id: { in: pgSetup.uploadSeries.map((s) => s[1]) } }, select: { recordCount: true } });
        const stored = counts.reduce((s, c) => s + c.recordCount, 0);
        console.log(`PostgreSQL uploads: ${stored} records stored in ${counts.length} series (${stored % 10 === 0 ? "whole uploads only" : "PARTIAL UPLOAD FOUND"})`);
        await closeDb();
      });
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  console.log(`\nMixed load: ${CONNECTIONS} connections, ${DURATION} s; ${ONLY_KINDS.length ? `only ${ONLY_KINDS.join(", ")}` : "40% lists, 10% searches, 20% month charts, 20% bottom, 10% uploads of 10 records"}`);
  const w = Math.max(25, ...rows.map((r) => r.label.length));
  console.log(`${"run".padEnd(w)} | req/s  | p50 ms | p90 ms | p99 ms | max ms | errors | server CPU per request | PostgreSQL CPU per request | server memory`);
  for (const r of rows) {
    console.log(`${r.label.padEnd(w)} | ${r.rps.toFixed(0).padStart(6)} | ${String(r.p50).padStart(6)} | ${String(r.p90).padStart(6)} | ${String(r.p99).padStart(6)} | ${String(r.max).padStart(6)} | ${String(r.errors).padStart(6)} | ${`${r.cpuPerRequest.toFixed(2)} ms`.padStart(22)} | ${(r.databaseCpuPerRequest === null ? "" : `${r.databaseCpuPerRequest.toFixed(2)} ms`).padStart(26)} | ${r.memory.toFixed(0)} MB`);
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
