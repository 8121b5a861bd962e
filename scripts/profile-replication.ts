// tsx scripts/profile-replication.ts [postgres-url] — times the copy of one series of 1,051,200
// records from a source server (as npm run bench makes it) into a new target database, with the
// CPU time of this process and of the source's processes (PROFILE_QUERY=mirror: the 1,000
// small stations of the metadata workload instead). Keeps the source database in
// PROFILE_DIR (default /tmp/enhydris-profile-replication) so that later runs start at once.
//   LOAD_NODE_ARGS="--cpu-prof --cpu-prof-dir=DIR"   profiles the source server's processes
//   node --cpu-prof … (on tsx) profiles the copying side
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import pg from "pg";
import { closeDb } from "@/lib/db";
import { generateSource, pointAt, newSourceRow } from "./bench-replication";
import { replicate } from "@/lib/replication";
import { startServer, treeCpuMs } from "./support";

const RECORDS = 1_051_200;
const BIG = "bench big";
/** PROFILE_QUERY=mirror copies the 1,000 small stations instead (the bench's metadata workload). */
const QUERY = process.env.PROFILE_QUERY ?? BIG;

/** CPU time (ms) so far of each PostgreSQL server process on this machine, by pid. */
function postgresCpuMs(): Map<string, number> {
  const out = new Map<string, number>();
  for (const pid of readdirSync("/proc").filter((name) => /^\d+$/.test(name))) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
      if (!/^\d+ \(postgres\)/.test(stat)) continue;
      const fields = stat.replace(/^.*\) /, "").split(" ");
      out.set(pid, (Number(fields[11]) + Number(fields[12])) * 10);
    } catch {
      // gone
    }
  }
  return out;
}

/** The CPU time PostgreSQL's processes used since `before` (those that ended meanwhile left out: a hint on a shared machine). */
function postgresCpuSince(before: Map<string, number>): number {
  let ms = 0;
  for (const [pid, now] of postgresCpuMs()) ms += now - (before.get(pid) ?? 0);
  return ms;
}

async function main(): Promise<void> {
  const dir = process.env.PROFILE_DIR ?? "/tmp/enhydris-profile-replication";
  mkdirSync(dir, { recursive: true });
  const source = `file:${join(dir, "source.db")}`;
  if (!existsSync(join(dir, "source.db"))) {
    await pointAt(source);
    await generateSource();
    await closeDb();
  }
  const given = process.argv[2];
  let target = `file:${join(dir, "target.db")}`;
  let dropTarget = async () => undefined as void;
  if (given) {
    const name = `enhydris_profile_replication_${Date.now()}`;
    const admin = async (sql: string) => {
      const c = new pg.Client({ connectionString: given });
      await c.connect();
      try { await c.query(sql); } finally { await c.end(); }
    };
    await admin(`CREATE DATABASE "${name}"`);
    const url = new URL(given);
    url.pathname = `/${name}`;
    target = url.toString();
    dropTarget = () => admin(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
  } else {
    for (const suffix of ["", "-wal", "-shm"]) rmSync(join(dir, `target.db${suffix}`), { force: true });
  }
  const { url, child } = await startServer(source, join(dir, "server"));
  try {
    await pointAt(target);
    await newSourceRow();
    const serverCpu = treeCpuMs(child.pid!);
    const pgCpu = postgresCpuMs();
    const cpu = process.cpuUsage();
    const t = performance.now();
    const report = await replicate({ sourceId: 1, url, query: QUERY, credentials: {} });
    const seconds = (performance.now() - t) / 1000;
    const used = process.cpuUsage(cpu);
    if (QUERY === BIG && report.records !== RECORDS) throw new Error(`copied ${report.records} records`);
    console.log(`${(report.records / seconds).toFixed(0)} rec/s (${seconds.toFixed(2)} s, ${report.created} objects created); this process CPU ${((used.user + used.system) / 1000).toFixed(0)} ms; source CPU ${(treeCpuMs(child.pid!) - serverCpu).toFixed(0)} ms${given ? `; PostgreSQL CPU ${postgresCpuSince(pgCpu)} ms` : ""}`);
    await closeDb();
  } finally {
    child.kill("SIGTERM");
    await new Promise((r) => child.once("exit", r));
    await dropTarget();
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
