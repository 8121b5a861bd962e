// Shared by the benchmark and the load test: data generation, the server, memory sampling.
import { spawn, type ChildProcess } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { createServer } from "node:net";
import { join } from "node:path";
import pg from "pg";
import { issueToken } from "@/lib/auth/tokens";
import { reloadSettings } from "@/lib/config";
import { db } from "@/lib/db";
import { migrate } from "@/lib/db/migrate";
import { parseDatabaseUrl } from "@/lib/db/url";
import { createUser } from "@/lib/accounts";
import { searchColumn } from "@/lib/formats/search-normalize";

export const ROOT = process.cwd();
export const STATIONS = 10_000;

export async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = createServer();
    s.listen(0, "127.0.0.1", () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

/** The resident memory of a server: its process and its children (the workers of the multi-process server). */
export function treeRssMb(pid: number): number {
  let children: number[] = [];
  try {
    children = readFileSync(`/proc/${pid}/task/${pid}/children`, "utf8").trim().split(/\s+/).filter(Boolean).map(Number);
  } catch {
    // gone
  }
  return rssMb(pid) + children.reduce((sum, child) => sum + treeRssMb(child), 0);
}

/** CPU time (user + system, ms) used so far by a server: its process and its children. */
export function treeCpuMs(pid: number): number {
  let own = 0;
  let children: number[] = [];
  try {
    // Fields 14 and 15 of /proc/PID/stat (after the parenthesised name) are utime and stime, in ticks of 10 ms.
    const fields = readFileSync(`/proc/${pid}/stat`, "utf8").replace(/^.*\) /, "").split(" ");
    own = (Number(fields[11]) + Number(fields[12])) * 10;
    children = readFileSync(`/proc/${pid}/task/${pid}/children`, "utf8").trim().split(/\s+/).filter(Boolean).map(Number);
  } catch {
    // gone
  }
  return own + children.reduce((sum, child) => sum + treeCpuMs(child), 0);
}

/**
 * CPU time (user + system, ms) used so far by the PostgreSQL backends of one database on this
 * machine (found by their process titles, "postgres: USER DATABASE …"): with the server's CPU, what
 * a request costs the database. Backends that exit between two readings lose their share.
 */
export function postgresBackendsCpuMs(database: string): Map<number, number> {
  const cpu = new Map<number, number>();
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const title = readFileSync(`/proc/${entry}/cmdline`, "utf8").replace(/\0/g, " ");
      if (!title.startsWith("postgres: ") || !title.split(" ").includes(database)) continue;
      const fields = readFileSync(`/proc/${entry}/stat`, "utf8").replace(/^.*\) /, "").split(" ");
      cpu.set(Number(entry), (Number(fields[11]) + Number(fields[12])) * 10);
    } catch {
      // gone
    }
  }
  return cpu;
}

/** The backends' CPU used between two readings of postgresBackendsCpuMs (backends new since the first count from zero). */
export function postgresCpuBetween(before: Map<number, number>, after: Map<number, number>): number {
  let sum = 0;
  for (const [pid, ms] of after) sum += ms - (before.get(pid) ?? 0);
  return sum;
}

export function rssMb(pid: number): number {
  try {
    const m = /VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
    return m ? Number(m[1]) / 1024 : 0;
  } catch {
    return 0;
  }
}

/** Samples the server's resident memory while `fn` runs; returns the peak. */
export async function peakDuring<T>(pid: number, fn: () => Promise<T>): Promise<{ value: T; peak: number; before: number }> {
  const before = rssMb(pid);
  let peak = before;
  const timer = setInterval(() => (peak = Math.max(peak, rssMb(pid))), 10);
  try {
    const value = await fn();
    peak = Math.max(peak, rssMb(pid));
    return { value, peak, before };
  } finally {
    clearInterval(timer);
  }
}

const WORDS = ["Arta", "Ágios", "Kombóti", "Louros", "Árachthos", "Pinios", "Aoos", "Kalamas", "Acheloos", "Evinos", "Mornos", "Sperchios",
  "Axios", "Strymonas", "Nestos", "Evros", "Alfeios", "Pineios", "Tavropos", "Ladonas"];

/** 10,000 stations with owners, types, variables and a group each, written in bulk. */
export async function generateStations(): Promise<void> {
  const p = db().prisma;
  const now = new Date();
  await db().write(async (tx) => {
    for (let i = 1; i <= 50; i++) {
      const name = `${WORDS[i % WORDS.length]} Water Authority ${i}`;
      await tx.lentity.create({ data: { kind: "organization", organization: { create: { name, acronym: `WA${i}`, searchNorm: searchColumn(name, `WA${i}`), lastModified: now } } } });
    }
    await tx.variable.create({ data: { descr: "Temperature", descrNorm: "temperature", lastModified: now } });
    await tx.variable.create({ data: { descr: "Precipitation", descrNorm: "precipitation", lastModified: now } });
    await tx.unitOfMeasurement.create({ data: { symbol: "°C", lastModified: now } });
    await tx.stationType.create({ data: { descr: "Meteorological", descrNorm: "meteorological", lastModified: now } });
  });
  const batch = 1000;
  for (let from = 0; from < STATIONS; from += batch) {
    const ids = Array.from({ length: batch }, (_, k) => from + k + 1);
    await db().write(async (tx) => {
      await tx.gentity.createMany({ data: ids.map((id) => ({ id, kind: "station" })) });
      await tx.station.createMany({
        data: ids.map((id) => {
          const name = `${WORDS[id % WORDS.length]} ${WORDS[(id * 7) % WORDS.length]} ${id}`;
          const code = `S${id}`;
          const remarks = id % 10 === 0 ? "Automatic station, telemetry" : "";
          return {
            id, name, code, remarks, lon: 19.5 + ((id * 7919) % 9000) / 1000, lat: 35 + ((id * 104729) % 6500) / 1000,
            altitude: (id * 37) % 2000, displayTimezone: "Etc/GMT-2", ownerId: (id % 50) + 1, lastModified: now,
            originalSrid: 4326, searchNorm: searchColumn(name, code, remarks),
          };
        }),
      });
      await tx.timeseriesGroup.createMany({
        data: ids.map((id) => ({ stationId: id, name: "Temperature", precision: 1, variableId: id % 3 === 0 ? 2 : 1, unitId: 1, lastModified: now })),
      });
    });
  }
  if (db().dialect === "postgres") await p.$executeRawUnsafe(`SELECT setval(pg_get_serial_sequence('gentity', 'id'), ${STATIONS})`);
}



export async function startServer(databaseUrl: string, dir: string, env: Record<string, string> = {}, nodeArgs: string[] = []): Promise<{ url: string; child: ChildProcess }> {
  const port = await freePort();
  // LOAD_NODE_ARGS passes Node options to the server (e.g. --cpu-prof for profiling).
  const child = spawn(process.execPath, [...(process.env.LOAD_NODE_ARGS?.split(" ").filter(Boolean) ?? []), ...nodeArgs, "server.mjs"], {
    cwd: ROOT,
    env: { ...process.env, NODE_ENV: "production", PORT: String(port), HOSTNAME_BIND: "127.0.0.1", DATABASE_URL: databaseUrl,
      ENHYDRIS_DEMO_DATA: "0", ENHYDRIS_MEDIA_DIR: join(dir, "media"), ENHYDRIS_SECRET_KEY: "bench", ENHYDRIS_MAX_PAGE_SIZE: "1000",
      // Request lines would drown the report (warnings and errors still show).
      ENHYDRIS_ALLOWED_HOSTS: "127.0.0.1,localhost", ENHYDRIS_LOG_LEVEL: "warn", ...env },
    stdio: ["ignore", "inherit", "inherit"],
  });
  const url = `http://127.0.0.1:${port}`;
  for (let i = 0; i < 300; i++) {
    try {
      if ((await fetch(`${url}/api/`)).ok) return { url, child };
    } catch { /* not yet */ }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error("server did not start");
}

/** Stops a server of startServer and waits for it to exit (its profiles written, its port free). */
export async function stopServer(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once("exit", resolve));
  child.kill("SIGTERM");
  await exited;
}

/**
 * Runs `fn` on a new database of the PostgreSQL server that `given` (a postgres:// URL whose
 * role may create databases) points at; the database is dropped afterwards.
 */
export async function withScratchPostgres<T>(given: string, prefix: string, fn: (url: string) => Promise<T>): Promise<T> {
  const name = `${prefix}_${Date.now()}`;
  const admin = new pg.Client({ connectionString: given });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE "${name}"`);
    const url = new URL(given);
    url.pathname = `/${name}`;
    return await fn(url.toString());
  } finally {
    await admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
    await admin.end();
  }
}

export const isPostgresUrl = (url: string | undefined): url is string => !!url && /^postgres(ql)?:\/\//.test(url);

/**
 * Points this process at a new database, migrates it, fills it with the generated stations and
 * creates a superuser; returns that user's API token.
 */
export async function prepareDatabase(databaseUrl: string, username: string): Promise<string> {
  await migrate(parseDatabaseUrl(databaseUrl));
  process.env.DATABASE_URL = databaseUrl;
  reloadSettings();
  await generateStations();
  const userId = await createUser({ username, password: `${username}-password`, isSuperuser: true });
  return issueToken(userId);
}

