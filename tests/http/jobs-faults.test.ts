import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { db, Prisma } from "@/lib/db";
import { PRUNE_KEY, PRUNE_KIND } from "@/lib/jobs/maintenance";
import { enqueue, getJob, jobHistory } from "@/lib/jobs/queue";
import { records } from "@/lib/records";
import * as f from "@/tests/support/fixtures";
import { DIALECT, inProcessDatabase, startServer } from "@/tests/support/server";
import { sleep, until } from "@/tests/support/wait";
import { killWorkers, startWorker as startSharedWorker, type Worker } from "@/tests/support/worker-process";
import { readAllOf } from "@/tests/support/records-oracle";

/**
 * The job queue under faults, with real processes: a worker killed in the middle of a run
 * (nothing half-written, the job is retaken after its lease and completes), two runner
 * processes on one database (each job executed once), and a server restarted between an
 * enqueue and the run.
 */
const database = inProcessDatabase();
let dir: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "enhydris-jobs-"));
});

afterEach(killWorkers);

afterAll(async () => {
  rmSync(dir, { recursive: true, force: true });
});

function startWorker(env: Record<string, string> = {}): Worker {
  return startSharedWorker({ DATABASE_URL: database.url, JOB_LOG: join(dir, "executions.log"), ...env });
}

/** The series as stored: its summary, the real number and values of its records, and its blocks' count. */
async function state(tid: number) {
  const [{ blocks }] = await db().query<{ blocks: number }>(Prisma.sql`SELECT COALESCE(SUM(count), 0) AS blocks FROM timeseries_block WHERE timeseries_id = ${tid}`);
  const rows = await readAllOf(tid);
  // The values from FROM on, by a loop: Math.min(...values) of 250,000 arguments overflows the stack.
  let low: number | null = null;
  let high: number | null = null;
  for (const [t, v] of rows) {
    if (t < FROM || v === null) continue;
    low = low === null ? v : Math.min(low, v);
    high = high === null ? v : Math.max(high, v);
  }
  const summary = (await records().summary(tid))!;
  return { count: summary.count, last: summary.last, n: rows.length, blocks: Number(blocks), low, high };
}

const T0 = Date.UTC(2010, 0, 1) / 1000;
const KEPT = 50_000;
const FROM = T0 + KEPT * 600;
const BEFORE = 100_000;
const AFTER = 250_000;

describe(`a worker killed in the middle of a run (${DIALECT})`, () => {
  it("leaves the records whole, and another worker retakes the job after its lease and completes it", async () => {
    const tid = await f.series(await f.group(await f.station()));
    await records().write(tid, {
      timestamps: Float64Array.from({ length: BEFORE }, (_, i) => T0 + i * 600),
      values: new Float64Array(BEFORE).fill(1),
      flags: new Array<string>(BEFORE).fill(""),
    }, { mode: "append", validate: () => [] });
    const old = { count: BEFORE, last: T0 + (BEFORE - 1) * 600, n: BEFORE, blocks: BEFORE, low: 1, high: 1 };
    const replaced = { count: KEPT + AFTER, last: FROM + (AFTER - 1) * 600, n: KEPT + AFTER, blocks: KEPT + AFTER, low: 2, high: 2 };
    expect(await state(tid)).toEqual(old);

    const first = startWorker();
    await first.waitFor(/job worker .* running/);
    const [id] = await enqueue({ kind: "test.replace", key: `replace:${tid}`, payload: { seriesId: tid, from: FROM, n: AFTER, value: 2, delayMs: 300 } });
    await first.waitFor(new RegExp(`replacing ${id}\\b`));
    await sleep(40);
    first.child.kill("SIGKILL");
    await first.exited();
    // Killed while replacing: the job is still "running" under the dead worker's lease.
    expect(first.output()).not.toMatch(new RegExp(`replaced ${id}\\b`));
    const dead = (await getJob(id))!;
    expect(dead).toMatchObject({ status: "running", attempts: 1 });
    expect(await state(tid)).toEqual(old);

    const second = startWorker();
    // A worker's start, the lease's 2 s and the replacement of 250,000 records: over 20 s on a busy machine.
    const done = await until(() => getJob(id), (j) => j?.status === "succeeded", 90_000, 50);
    expect(done).toMatchObject({ status: "succeeded", attempts: 2, result: { from: FROM, records_written: AFTER }, error: null });
    expect(done!.leaseOwner).not.toBe(dead.leaseOwner);
    // The second worker waited for the lease to expire (2 s) before taking the job.
    expect(done!.startedAt!.getTime()).toBeGreaterThanOrEqual(dead.leaseUntil!.getTime());
    expect(second.output()).toMatch(new RegExp(`started ${id} attempt 2`));
    expect(await state(tid)).toEqual(replaced);

    // SIGTERM: the worker stops cleanly.
    second.child.kill("SIGTERM");
    expect(await second.exited()).toBe(0);
  }, 180_000);
});

describe(`two runner processes on one database (${DIALECT})`, () => {
  it("execute each of many jobs exactly once", async () => {
    writeFileSync(join(dir, "executions.log"), "");
    // Leases long enough that a runner starved of CPU on a busy machine does not lose one: that
    // retaking is the lease test's subject above, not this one's.
    const runner = { ENHYDRIS_JOB_CONCURRENCY: "3", ENHYDRIS_JOB_LEASE_SECONDS: "30" };
    const a = startWorker(runner);
    const b = startWorker(runner);
    await Promise.all([a.waitFor(/job worker .* running/), b.waitFor(/job worker .* running/)]);
    const ids: number[] = [];
    for (let i = 0; i < 150; i++) ids.push(...await enqueue({ kind: "test.count", key: `count:${i}`, payload: { ms: 10 } }));
    // The same keys again while the first jobs run: they coalesce with queued jobs or queue anew.
    for (let i = 0; i < 150; i += 3) ids.push(...await enqueue({ kind: "test.count", key: `count:${i}`, payload: { ms: 10 } }));
    const unique = [...new Set(ids)];
    await until(() => db().prisma.job.count({ where: { kind: "test.count", status: { in: ["queued", "running"] } } }), (n) => n === 0, 60_000, 50);
    const lines = readFileSync(join(dir, "executions.log"), "utf8").trim().split("\n");
    const executed = lines.map((l) => Number(l.split(" ")[0]));
    expect(executed.sort((x, y) => x - y)).toEqual(unique.sort((x, y) => x - y));
    const jobs = await db().prisma.job.findMany({ where: { kind: "test.count" } });
    expect(jobs.map((j) => j.status)).toEqual(jobs.map(() => "succeeded"));
    expect(jobs.map((j) => j.attempts)).toEqual(jobs.map(() => 1));
    const owners = new Set(lines.map((l) => l.split(" ")[1]));
    console.log(`${unique.length} jobs, ${lines.length} executions, by ${owners.size} runners (${DIALECT})`);
    expect(owners.size).toBe(2);
    a.child.kill("SIGTERM");
    b.child.kill("SIGTERM");
    expect(await Promise.all([a.exited(), b.exited()])).toEqual([0, 0]);
  }, 90_000);
});

describe(`a server restarted between an enqueue and the run (${DIALECT})`, () => {
  it("runs the job after the restart", async () => {
    const day = 86_400_000;
    const server = await startServer({ databaseUrl: database.url, migrate: false });
    const t = new Date();
    await db().write((tx) => tx.job.createMany({
      data: [100, 95, 1].map((days) => ({ kind: "test.count", key: "old-history", status: "succeeded", runAfter: t, queuedAt: t, finishedAt: new Date(Date.now() - days * day) })),
    }));
    const [id] = await enqueue({ kind: PRUNE_KIND, key: PRUNE_KEY, delayMs: 1_500 });
    server.kill();
    await server.stop();
    expect(await getJob(id)).toMatchObject({ status: "queued", attempts: 0 });
    await sleep(1_500);
    const restarted = await startServer({ databaseUrl: database.url, migrate: false });
    try {
      const done = await until(() => getJob(id), (j) => j?.status === "succeeded", 60_000, 50);
      expect(done).toMatchObject({ status: "succeeded", attempts: 1, result: { deleted: { job: 2 } } });
      // Run by the server's lead worker (or its one process).
      expect(restarted.processes().some((pid) => done!.leaseOwner!.includes(`:${pid}:`))).toBe(true);
      expect((await jobHistory("old-history")).map((j) => j.finishedAt!.getTime() > Date.now() - 2 * day)).toEqual([true]);
    } finally {
      await restarted.stop();
    }
    // SIGTERM: the server stopped its runner through the shutdown hooks and exited cleanly.
    expect(restarted.child.exitCode).toBe(0);
  }, 180_000);
});
