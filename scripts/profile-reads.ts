// npm run profile:reads — the server's CPU time per request of the single-request edges of
// `npm run bench` (sections reads and legacy), on a one-process server (ENHYDRIS_WORKERS=1), for
// judging a change by CPU time rather than by wall-clock time on a busy machine.
//   PROFILE_DIR=/tmp/x   where the database and its state are kept between runs (made on first use:
//                        10,000 stations, a 10-minute series of 1,051,200 records)
//   DATABASE_URL=postgres://…   PostgreSQL instead: a database of its own on that server, kept
//                        (named after PROFILE_DIR) until a run with PROFILE_DROP=1 drops it
//   PROFILE_WHAT=upload,full,month,legacy   the workloads (default all)
//   PROFILE_REPEAT=N     requests per workload (default: full 5, upload 3, month 300, legacy 1000)
//   LOAD_NODE_ARGS="--cpu-prof --cpu-prof-dir=DIR"   profiles of the server (scripts/profile-summary.mjs)
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import pg from "pg";
import { closeDb } from "@/lib/db";
import { isPostgresUrl, postgresBackendsCpuMs, postgresCpuBetween, prepareDatabase, startServer, stopServer, treeCpuMs } from "./support";
import { recordsBody } from "./upload-body";

const RECORDS = 1_051_200;
const START = Date.UTC(2005, 0, 1) / 1000;
const dir = process.env.PROFILE_DIR ?? "/tmp/enhydris-profile-reads";
const what = (process.env.PROFILE_WHAT ?? "upload,full,month,legacy").split(",").map((s) => s.trim()).filter(Boolean);
const given = process.env.DATABASE_URL;
const postgres = isPostgresUrl(given);
mkdirSync(dir, { recursive: true });
const stateFile = join(dir, postgres ? "state-postgres.json" : "state-sqlite.json");

function databaseUrl(): string {
  if (!postgres) return `file:${join(dir, "profile.sqlite3")}`;
  const url = new URL(given!);
  url.pathname = `/profile_${dir.replace(/[^a-z0-9]/gi, "_").toLowerCase()}`;
  return url.toString();
}

async function ok(response: Response): Promise<Response> {
  if (!response.ok) throw new Error(`${response.status} ${response.url}: ${(await response.text()).slice(0, 300)}`);
  return response;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

async function main() {
  const url0 = databaseUrl();
  if (process.env.PROFILE_DROP === "1") {
    if (postgres) {
      const admin = new pg.Client({ connectionString: given });
      await admin.connect();
      await admin.query(`DROP DATABASE IF EXISTS "${new URL(url0).pathname.slice(1)}"`);
      await admin.end();
    } else {
      for (const suffix of ["", "-wal", "-shm"]) rmSync(join(dir, `profile.sqlite3${suffix}`), { force: true });
    }
    rmSync(stateFile, { force: true });
    return;
  }
  let state: { token: string; series: number | null } | null = existsSync(stateFile) ? JSON.parse(readFileSync(stateFile, "utf8")) : null;
  if (!state) {
    if (postgres) {
      const admin = new pg.Client({ connectionString: given });
      await admin.connect();
      const name = new URL(url0).pathname.slice(1);
      await admin.query(`DROP DATABASE IF EXISTS "${name}"`);
      await admin.query(`CREATE DATABASE "${name}"`);
      await admin.end();
    }
    console.error("preparing the database (10,000 stations)…");
    state = { token: await prepareDatabase(url0, "profile"), series: null };
    await closeDb();
    writeFileSync(stateFile, JSON.stringify(state));
  }
  const { url, child } = await startServer(url0, dir, { ENHYDRIS_WORKERS: "1" });
  const pid = child.pid!;
  const auth = { Authorization: `Token ${state.token}` };
  const database = postgres ? new URL(url0).pathname.slice(1) : "";
  const report = (name: string, n: number, cpu: number, clientCpu: number, dbCpu: number, times: number[]) =>
    console.log(`${name}: ${(cpu / n).toFixed(3)} ms server CPU per request (n=${n}), client ${(clientCpu / n).toFixed(3)} ms, `
      + `${postgres ? `PostgreSQL backends ${(dbCpu / n).toFixed(3)} ms, ` : ""}wall median ${median(times).toFixed(2)} ms`);
  const clientCpuMs = () => {
    const { user, system } = process.cpuUsage();
    return (user + system) / 1000;
  };
  const measure = async (name: string, n: number, fn: () => Promise<unknown>, warmup = 3) => {
    for (let i = 0; i < warmup; i++) await fn();
    const times: number[] = [];
    const before = treeCpuMs(pid);
    const client = clientCpuMs();
    const db = postgres ? postgresBackendsCpuMs(database) : new Map<number, number>();
    for (let i = 0; i < n; i++) {
      const t = performance.now();
      await fn();
      times.push(performance.now() - t);
    }
    report(name, n, treeCpuMs(pid) - before, clientCpuMs() - client, postgres ? postgresCpuBetween(db, postgresBackendsCpuMs(database)) : 0, times);
  };
  const repeat = (d: number) => Number(process.env.PROFILE_REPEAT ?? d);
  try {
    const upload = async () => {
      const created = await (await ok(await fetch(`${url}/api/stations/1/timeseries/`, {
        method: "POST", headers: { ...auth, "Content-Type": "application/json" },
        body: JSON.stringify({ precision: 1, variable: 1, unit_of_measurement: 1, time_step: "10min", name: "Profile" }),
      }))).json();
      await ok(await fetch(`${url}/api/stations/1/timeseries/${created.id}/data/`, {
        method: "POST", headers: { ...auth, "Content-Type": "application/x-www-form-urlencoded" }, body: recordsBody(RECORDS, START) as unknown as BodyInit,
      }));
      return created.id as number;
    };
    if (state.series === null) {
      state.series = await upload();
      writeFileSync(stateFile, JSON.stringify(state));
    }
    const base = `${url}/api/stations/1/timeseries/${state.series}`;
    if (what.includes("upload")) {
      const body = recordsBody(RECORDS, START);
      const n = repeat(3);
      const times: number[] = [];
      let cpu = 0;
      for (let i = 0; i < n; i++) {
        const created = await (await ok(await fetch(`${url}/api/stations/1/timeseries/`, {
          method: "POST", headers: { ...auth, "Content-Type": "application/json" },
          body: JSON.stringify({ precision: 1, variable: 1, unit_of_measurement: 1, time_step: "10min", name: "Profile" }),
        }))).json();
        const before = treeCpuMs(pid);
        const t = performance.now();
        await ok(await fetch(`${url}/api/stations/1/timeseries/${created.id}/data/`, {
          method: "POST", headers: { ...auth, "Content-Type": "application/x-www-form-urlencoded" }, body: body as unknown as BodyInit,
        }));
        times.push(performance.now() - t);
        // The CPU read a moment later: work the server does after its response (the WAL's checkpoint) counts too.
        await new Promise((resolve) => setTimeout(resolve, 700));
        cpu += treeCpuMs(pid) - before;
      }
      console.log(`upload of ${RECORDS} records: ${(cpu / n).toFixed(0)} ms CPU per upload (n=${n}), wall median ${median(times).toFixed(0)} ms = ${(RECORDS / (median(times) / 1000)).toFixed(0)} rec/s`);
    }
    if (what.includes("full")) {
      await measure("full CSV", repeat(5), async () => (await ok(await fetch(`${base}/data/`))).arrayBuffer(), 1);
    }
    if (what.includes("month")) {
      await measure("one month of CSV", repeat(300), async () => (await ok(await fetch(`${base}/data/?start_date=2020-06-01&end_date=2020-06-30T23:59`))).arrayBuffer(), 20);
    }
    if (what.includes("legacy")) {
      await measure("/timeseries/data/ last=month (cached)", repeat(1000), async () => (await ok(await fetch(`${url}/timeseries/data/?object_id=${state!.series}&last=month`))).arrayBuffer(), 20);
    }
  } finally {
    await stopServer(child);
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
