/**
 * Processing runs under faults (processing.md §4), with the real process kind and real
 * processes: a worker killed in the middle of a run's replacement leaves the old target whole
 * and the run is retried after its lease; two runner processes on one database execute each
 * run once, and the targets are right; a run queued by an upload survives a restart of the
 * server that would have run it.
 */
import { spawnSync } from "node:child_process";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { type AuthUser, findAuthUser } from "@/lib/auth/users";
import { db, Prisma } from "@/lib/db";
import { resolveTimeZone } from "@/lib/formats/timezone";
import { getJob } from "@/lib/jobs/queue";
import { aggregateSeries } from "@/lib/processing/numerics/aggregation";
import { runChecks } from "@/lib/processing/numerics/checks";
import { EMPTY, type RecordBatch } from "@/lib/processing/numerics/series";
import { PROCESS_KIND, processKey } from "@/lib/processing/state";
import { records } from "@/lib/records";
import { readRecords } from "@/lib/processing/run";
import { createProcess, requestRun, updateProcess } from "@/lib/processing/processes";
import { uploadRecords } from "@/lib/series/upload";
import { api } from "@/tests/support/http";
import * as f from "@/tests/support/fixtures";
import { csv, processesApi, recordLines, seriesApi, upload } from "@/tests/support/processes";
import { DIALECT, inProcessDatabase, ROOT, startServer } from "@/tests/support/server";
import { sleep, until } from "@/tests/support/wait";
import { killWorkers, startWorker as startSharedWorker, type Worker } from "@/tests/support/worker-process";
import { readAllOf } from "@/tests/support/records-oracle";

const database = inProcessDatabase();
let admin: AuthUser;

beforeAll(async () => {
  admin = (await findAuthUser((await f.user({ superuser: true })).id))!;
});

afterEach(killWorkers);

function startWorker(env: Record<string, string> = {}): Worker {
  return startSharedWorker({ DATABASE_URL: database.url, ...env });
}

const T0 = Date.UTC(2015, 0, 1) / 1000;
const RANGE = { lower_bound: 0, upper_bound: 30, soft_lower_bound: null, soft_upper_bound: null };

function source(n: number, t0 = T0): RecordBatch {
  return {
    timestamps: Float64Array.from({ length: n }, (_, i) => t0 + i * 600),
    values: Float64Array.from({ length: n }, (_, i) => 15 + 14 * Math.sin(i / 500) + ((i * 7919) % 13) / 10),
    flags: new Array<string>(n).fill(""),
  };
}

/** A series as stored: its records (summary, real rows, daily blocks agree), the RANGE flags and the values' sum. */
async function stored(tid: number) {
  const [{ blocks }] = await db().query<{ blocks: number }>(Prisma.sql`SELECT COALESCE(SUM(count), 0) AS blocks FROM timeseries_block WHERE timeseries_id = ${tid}`);
  const rows = await readAllOf(tid);
  const summary = (await records().summary(tid))!;
  return {
    count: summary.count, n: rows.length, blocks: Number(blocks), ranged: rows.filter((r) => r[2] === "RANGE").length,
    total: rows.reduce((sum, r) => sum + (r[1] ?? 0), 0),
  };
}

/** What the checks give for `batch` with this range, summarized as `stored` does. */
function expectedChecks(batch: RecordBatch, range: typeof RANGE) {
  const r = runChecks({ range_check: range, rate_of_change_check: null }, batch, EMPTY, -Infinity);
  let total = 0;
  for (const v of r.values) if (v === v) total += v;
  const n = r.timestamps.length;
  return { count: n, n, blocks: n, ranged: r.flags.filter((x) => x === "RANGE").length, total };
}

function sameState(actual: Awaited<ReturnType<typeof stored>>, expected: ReturnType<typeof expectedChecks>) {
  expect({ ...actual, total: 0 }).toEqual({ ...expected, total: 0 });
  expect(actual.total).toBeCloseTo(expected.total, 3);
}

const processJobs = () => db().prisma.job.findMany({ where: { kind: PROCESS_KIND }, orderBy: { id: "asc" } });
const settled = () => until(
  () => db().prisma.job.count({ where: { kind: PROCESS_KIND, OR: [{ status: "running" }, { status: "queued", runAfter: { lte: new Date() } }] } }),
  (n) => n === 0, 60_000, 50);

describe(`a worker killed in the middle of a process run (${DIALECT})`, () => {
  it("leaves the old target whole; the run is taken over after its lease and completes", async () => {
    const N = 300_000;
    const sid = await f.station({ displayTimezone: "UTC" });
    const gid = await f.group(sid);
    const tid = await f.series(gid, { type: "Initial", timeStep: "10min" });
    const batch = source(N);
    expect(await records().write(tid, batch, { mode: "append", validate: () => [] })).toEqual({ ok: true, stored: N });
    const processId = await createProcess(admin, { stationId: sid, groupId: gid }, { enabled: true, definition: { type: "checks", config: { range_check: RANGE, rate_of_change_check: null } } });
    const checked = (await db().prisma.timeseries.findFirstOrThrow({ where: { groupId: gid, type: 2 } })).id;

    const first = startWorker();
    await until(() => processJobs(), (jobs) => jobs.length === 1 && jobs[0].status === "succeeded", 60_000, 50);
    const old = expectedChecks(batch, RANGE);
    expect(old.ranged).toBeGreaterThan(1000);
    sameState(await stored(checked), old);
    first.child.kill("SIGTERM");
    expect(await first.exited()).toBe(0);

    // A change of the process: its next run replaces the whole target.
    const narrower = { ...RANGE, upper_bound: 25 };
    await updateProcess(admin, { stationId: sid, groupId: gid, processId }, { enabled: true, definition: { type: "checks", config: { range_check: narrower, rate_of_change_check: null } } });
    const [, queued] = await processJobs();
    const killed = startWorker();
    await killed.waitFor(new RegExp(`replacing records of series ${checked}\\b`), 60_000);
    await sleep(40);
    killed.child.kill("SIGKILL");
    await killed.exited();
    const dead = (await getJob(queued.id))!;
    expect(dead).toMatchObject({ status: "running", attempts: 1 });
    sameState(await stored(checked), old);

    const second = startWorker();
    const done = await until(() => getJob(queued.id), (j) => j?.status === "succeeded", 60_000, 50);
    expect(done).toMatchObject({ status: "succeeded", attempts: 2, result: { from: null, records_written: N }, error: null });
    expect(done!.startedAt!.getTime()).toBeGreaterThanOrEqual(dead.leaseUntil!.getTime());
    sameState(await stored(checked), expectedChecks(batch, narrower));
    const process = await db().prisma.process.findUniqueOrThrow({ where: { id: processId } });
    expect([process.dirtyFrom, process.runningFrom]).toEqual([null, null]);
    second.child.kill("SIGTERM");
    expect(await second.exited()).toBe(0);
  }, 180_000);
});

describe(`two runner processes on one database (${DIALECT})`, () => {
  it("execute each run once, and the targets equal one run over each whole source", async () => {
    const earlier = (await processJobs()).length;
    const groups: { gid: number; tid: number; checked: number; hourly: number; sid: number }[] = [];
    for (let i = 0; i < 8; i++) {
      const sid = await f.station({ displayTimezone: "Etc/GMT-2" });
      const gid = await f.group(sid);
      const tid = await f.series(gid, { type: "Initial", timeStep: "10min" });
      await createProcess(admin, { stationId: sid, groupId: gid }, { enabled: true, definition: { type: "checks", config: { range_check: RANGE, rate_of_change_check: null } } });
      await createProcess(admin, { stationId: sid, groupId: gid }, { enabled: true, definition: { type: "aggregation", config: { target_time_step: "1h", method: "mean", max_missing: 1, resulting_timestamp_offset: "" } } });
      const series = await db().prisma.timeseries.findMany({ where: { groupId: gid }, orderBy: { id: "asc" } });
      groups.push({ sid, gid, tid, checked: series.find((s) => s.type === 2)!.id, hourly: series.find((s) => s.type === 4)!.id });
    }
    // Leases long enough that a runner starved of CPU on a busy machine does not lose one (the
    // workers' 2 s are for the takeover test above): a run retaken would count a second attempt.
    const runner = { ENHYDRIS_JOB_CONCURRENCY: "2", ENHYDRIS_JOB_LEASE_SECONDS: "30" };
    const a = startWorker(runner);
    const b = startWorker(runner);
    await Promise.all([a.waitFor(/job worker .* running/), b.waitFor(/job worker .* running/)]);
    const all = source(12 * 36, Date.UTC(2020, 5, 1) / 1000);
    const utc = resolveTimeZone("UTC")!;
    for (let round = 0; round < 12; round++) {
      await Promise.all(groups.map((g) => uploadRecords(admin, { seriesId: g.tid }, {
        text: recordLines(new Date((all.timestamps[round * 36]) * 1000).toISOString(), Array.from(all.values.subarray(round * 36, round * 36 + 36))),
        zone: utc, mode: "append", dryRun: false,
      })));
      await sleep(20);
    }
    await settled();
    const jobs = (await processJobs()).slice(earlier);
    expect(jobs.map((j) => [j.status, j.attempts])).toEqual(jobs.map(() => ["succeeded", 1]));
    const owners = new Set(jobs.map((j) => j.leaseOwner));
    console.log(`${jobs.length} process runs by ${owners.size} runners (${DIALECT})`);
    expect(owners.size).toBe(2);
    const checkedAll = runChecks({ range_check: RANGE, rate_of_change_check: null }, all, EMPTY, -Infinity);
    const hourlyAll = aggregateSeries({ target_time_step: "1h", method: "mean", max_missing: 1, resulting_timestamp_offset: "" }, checkedAll, "10min", 7200);
    const plain = (r: RecordBatch) => ({ t: Array.from(r.timestamps), v: Array.from(r.values, (v) => (v === v ? Math.round(v * 1e9) / 1e9 : null)), f: [...r.flags] });
    for (const g of groups) {
      expect(plain(await readRecords(g.checked, -Infinity, Infinity))).toEqual(plain(checkedAll));
      expect(plain(await readRecords(g.hourly, -Infinity, Infinity))).toEqual(plain(hourlyAll));
    }
    a.child.kill("SIGTERM");
    b.child.kill("SIGTERM");
    expect(await Promise.all([a.exited(), b.exited()])).toEqual([0, 0]);
  }, 180_000);
});

describe(`a server restarted between an upload and its runs (${DIALECT})`, () => {
  it("runs them after the restart", async () => {
    const user = await f.user();
    const quiet = await startServer({ databaseUrl: database.url, migrate: false, env: { ENHYDRIS_JOB_RUNNER: "false" } });
    const http = api(quiet.url);
    const sid = await f.station({ displayTimezone: "UTC" }, user.id);
    const gid = await f.group(sid);
    const tid = await f.series(gid, { type: "Initial", timeStep: "10min" });
    const created = await http.post(processesApi(sid, gid), { token: user.token, json: { type: "checks", range_check: RANGE } });
    expect(created.status, created.text).toBe(201);
    await upload(http, user.token, seriesApi(sid, gid, tid), recordLines("2024-01-01T00:00Z", [1, 2, 50, 4]));
    const key = processKey(created.json.id);
    expect((await db().prisma.job.findMany({ where: { key } })).map((j) => j.status)).toEqual(["queued"]);
    await quiet.stop();

    const restarted = await startServer({ databaseUrl: database.url, migrate: false });
    try {
      await until(() => db().prisma.job.findMany({ where: { key } }), (jobs) => jobs[0]?.status === "succeeded", 60_000, 50);
      const [job] = await db().prisma.job.findMany({ where: { key } });
      expect([job.status, job.attempts]).toEqual(["succeeded", 1]);
      // Run by the server's lead worker (or its one process).
      expect(restarted.processes().some((pid) => job.leaseOwner!.includes(`:${pid}:`))).toBe(true);
      expect(await csv(api(restarted.url), seriesApi(sid, gid, created.json.target_timeseries), user.token))
        .toBe("2024-01-01 00:00,1.00,\r\n2024-01-01 00:10,2.00,\r\n2024-01-01 00:20,,RANGE\r\n2024-01-01 00:30,4.00,\r\n");
    } finally {
      await restarted.stop();
    }
  }, 120_000);
});

describe(`npm run process (${DIALECT})`, () => {
  const cli = (...args: string[]) => spawnSync(process.execPath, ["--import", "tsx", "scripts/process.ts", ...args], {
    cwd: ROOT, encoding: "utf8", env: { ...process.env, TSX_TSCONFIG_PATH: "tsconfig.json", DATABASE_URL: database.url },
  });

  it("runs a group's processes in the foreground, from scratch on request, and says how each went", async () => {
    const sid = await f.station({ displayTimezone: "UTC" });
    const gid = await f.group(sid, { unitId: await f.unit("°C") });
    const tid = await f.series(gid, { type: "Initial", timeStep: "10min" });
    const checksId = await createProcess(admin, { stationId: sid, groupId: gid }, { enabled: true, definition: { type: "checks", config: { range_check: RANGE, rate_of_change_check: null } } });
    const meanId = await createProcess(admin, { stationId: sid, groupId: gid }, { enabled: true, definition: { type: "aggregation", config: { target_time_step: "1D", method: "mean", max_missing: 0, resulting_timestamp_offset: "" } } });
    // Records written behind the processing's back (no runs queued): only a run from scratch sees them.
    const batch = source(144 * 10);
    await records().write(tid, batch, { mode: "append", validate: () => [] });
    const first = cli("--group", String(gid));
    expect(first.status, first.stderr).toBe(0);
    expect(first.stdout).toContain(`Running 2 processes of group ${gid}.`);
    expect(first.stderr).toContain(`done: #${checksId} Checked: range 0…30 °C`);
    const checked = (await db().prisma.timeseries.findFirstOrThrow({ where: { groupId: gid, type: 2 } })).id;
    const daily = (await db().prisma.timeseries.findFirstOrThrow({ where: { groupId: gid, type: 4 } })).id;

    const again = cli("--group", String(gid), "--from-scratch");
    expect(again.status, again.stderr).toBe(0);
    expect(again.stdout).toContain(`ok      #${checksId} Checked: range 0…30 °C: ${batch.timestamps.length} records written from scratch`);
    expect(again.stdout).toMatch(new RegExp(`ok {6}#${meanId} Daily mean, no missing values allowed: \\d+ records written from scratch`));
    sameState(await stored(checked), expectedChecks(batch, RANGE));
    // Days 2 to 10: the first day's interval holds one record, the last misses its midnight.
    expect((await records().summary(daily))!.count).toBe(9);
  }, 120_000);

  it("fails with a clear message for a failing run, an unknown group and bad arguments", async () => {
    const sid = await f.station();
    const gid = await f.group(sid);
    await f.series(gid, { type: "Initial" });
    const id = await createProcess(admin, { stationId: sid, groupId: gid }, { enabled: true, definition: { type: "aggregation", config: { target_time_step: "1h", method: "sum", max_missing: 0, resulting_timestamp_offset: "" } } });
    const failing = cli("--group", String(gid));
    expect(failing.status).toBe(1);
    expect(failing.stdout).toContain(`FAILED  #${id} Hourly sum, no missing values allowed: The source time series has no time step, so it cannot be regularized and aggregated. (it will be retried)`);
    const unknown = cli("--group", "99999999");
    expect([unknown.status, unknown.stderr.trim()]).toEqual([1, "There is no time series group 99999999."]);
    // Beyond the 32-bit id columns: no such group either (PostgreSQL would refuse the query).
    const beyond = cli("--group", "99999999999");
    expect([beyond.status, beyond.stderr.trim()]).toEqual([1, "There is no time series group 99999999999."]);
    const bad = cli("--group", "x");
    expect(bad.status).toBe(2);
    expect(bad.stderr).toContain('--group needs a group id, not "x".');
    expect(cli().stderr).toContain("--group is required.");
  }, 120_000);
});

describe(`run/ with wait when no runner takes the run (${DIALECT})`, () => {
  it("answers with the queued run once the wait is over", async () => {
    const sid = await f.station();
    const gid = await f.group(sid);
    await f.series(gid, { type: "Initial", timeStep: "10min" });
    const processId = await createProcess(admin, { stationId: sid, groupId: gid }, { enabled: true, definition: { type: "checks", config: { range_check: RANGE, rate_of_change_check: null } } });
    const started = Date.now();
    const { run, finished } = await requestRun(admin, { stationId: sid, groupId: gid, processId }, { fromScratch: true, wait: true }, 300);
    expect(Date.now() - started).toBeGreaterThanOrEqual(300);
    expect(finished).toBe(false);
    expect(run).toMatchObject({ status: "queued", from: null, records_written: 0, started_at: null });
  });
});
