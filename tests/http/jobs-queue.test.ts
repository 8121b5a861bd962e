import pg from "pg";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { db, Prisma } from "@/lib/db";
import type { JobContext, JobHandler } from "@/lib/jobs/registry";
import { CHANNEL, claimJob, completeJob, enqueue, enqueueSql, failJob, getJob, jobHistory, onJobsQueued, pruneJobs, queueStats, releaseJob, renewLease, runWhileHeld } from "@/lib/jobs/queue";
import { type JobRunner, startJobRunner, timedOut } from "@/lib/jobs/runner";
import { now } from "@/lib/db/dialect-sql";
import { records } from "@/lib/records";
import * as f from "@/tests/support/fixtures";
import { DIALECT, inProcessDatabase } from "@/tests/support/server";
import { sleep, until } from "@/tests/support/wait";

/**
 * The job queue against the real database of the dialect under test, in process: coalescing,
 * enqueueing inside writes, claiming one job per key, retries and backoff, leases, fencing,
 * history, pruning, statistics, and the runner's wake-ups and shutdown.
 */
const database = inProcessDatabase();
const A = "owner-a";
const B = "owner-b";
const KINDS = ["t.work", "t.other"];

beforeAll(async () => {
});

beforeEach(async () => {
  await db().write((tx) => tx.job.deleteMany({}));
});

const jobsOf = (key: string) => db().prisma.job.findMany({ where: { key }, orderBy: { id: "asc" } });

describe(`enqueueing (${DIALECT})`, () => {
  it("coalesces: one queued job per key, run at the earlier time, its tries counted anew", async () => {
    const [first] = await enqueue({ kind: "t.work", key: "k", payload: { n: 1 }, delayMs: 60_000 });
    const later = (await getJob(first))!.runAfter.getTime();
    expect(later - Date.now()).toBeGreaterThan(55_000);
    expect(await enqueue({ kind: "t.work", key: "k", payload: { n: 1 } })).toEqual([first]);
    const sooner = (await getJob(first))!.runAfter.getTime();
    expect(Math.abs(sooner - Date.now())).toBeLessThan(5_000);
    expect(await enqueue({ kind: "t.work", key: "k", payload: { n: 1 }, delayMs: 120_000 })).toEqual([first]);
    expect((await getJob(first))!.runAfter.getTime()).toBe(sooner);
    const job = (await getJob(first))!;
    expect(job).toMatchObject({ kind: "t.work", key: "k", payload: { n: 1 }, status: "queued", attempts: 0, maxAttempts: 5, error: null, result: null });
    expect(await jobsOf("k")).toHaveLength(1);
    // Once it runs, the next enqueue queues a new job beside it.
    const claimed = (await claimJob(A, KINDS, 60_000))!;
    expect(claimed.id).toBe(first);
    const [second] = await enqueue({ kind: "t.work", key: "k", payload: { n: 1 } });
    expect(second).not.toBe(first);
    expect((await jobsOf("k")).map((j) => j.status)).toEqual(["running", "queued"]);
  });

  it("enqueues one job per key of a query (INSERT … SELECT), duplicates coalesced", async () => {
    const gid = await f.group(await f.station());
    const series = [await f.series(gid), await f.series(gid, { type: "Checked" }), await f.series(gid, { type: "Aggregated", timeStep: "1h", name: "Mean" })];
    const select = Prisma.sql`SELECT 'series:' || id AS key, '{"series":' || id || '}' AS payload FROM timeseries WHERE timeseries_group_id = ${gid}`;
    const twice = Prisma.sql`${select} UNION ALL ${select}`;
    const ids = await enqueue({ kind: "t.work", select: twice });
    expect(ids).toHaveLength(3);
    expect(await enqueue({ kind: "t.work", select })).toEqual(expect.arrayContaining(ids));
    const jobs = await db().prisma.job.findMany({ orderBy: { key: "asc" } });
    expect(jobs.map((j) => [j.key, JSON.parse(j.payload), j.status])).toEqual(
      series.map(String).sort().map((id) => [`series:${id}`, { series: Number(id) }, "queued"]));
    // A query that finds nothing enqueues nothing.
    expect(await enqueue({ kind: "t.work", select: Prisma.sql`${select} AND id < 0` })).toEqual([]);
  });

  it("commits and rolls back with a Prisma transaction", async () => {
    const rows = await db().write((tx) => tx.$queryRaw<{ id: number }[]>(enqueueSql({ kind: "t.work", key: "tx" })));
    expect(rows).toHaveLength(1);
    await expect(db().write(async (tx) => {
      await tx.$executeRaw(enqueueSql({ kind: "t.work", key: "tx-rolled-back" }));
      throw new Error("abandoned");
    })).rejects.toThrow("abandoned");
    expect(await jobsOf("tx")).toHaveLength(1);
    expect(await jobsOf("tx-rolled-back")).toHaveLength(0);
  });

  it("commits and rolls back with a records write (also) and a replace", async () => {
    const tid = await f.series(await f.group(await f.station()));
    const batch = (t0: number, n: number) => ({
      timestamps: Float64Array.from({ length: n }, (_, i) => t0 + i * 600),
      values: Float64Array.from({ length: n }, (_, i) => i),
      flags: Array.from({ length: n }, () => ""),
    });
    const also = (key: string) => [enqueueSql({ kind: "t.work", key })];
    const store = records();
    expect(await store.write(tid, batch(1e9, 10), { mode: "append", validate: () => [], also: also("written") })).toEqual({ ok: true, stored: 10 });
    expect(await store.write(tid, batch(2e9, 10), { mode: "append", validate: () => ["refused"], also: also("refused") })).toEqual({ ok: false, errors: ["refused"] });
    expect(await store.write(tid, batch(2e9, 10), { mode: "append", dryRun: true, validate: () => [], also: also("dry") })).toEqual({ ok: true, stored: 10 });
    expect(await store.write(tid, batch(2e9, 0), { mode: "append", validate: () => [], also: also("empty") })).toEqual({ ok: true, stored: 0 });
    // A failing statement rolls the records back with it.
    await expect(store.write(tid, batch(2e9, 10), { mode: "append", validate: () => [], also: [...also("broken"), Prisma.sql`INSERT INTO no_such_table VALUES (1)`] }))
      .rejects.toThrow();
    expect((await store.summary(tid))!.count).toBe(10);
    expect(await store.replace(tid, 1e9 + 3000, batch(1e9 + 3000, 4), { also: also("replaced") })).toBe(4);
    await expect(store.replace(tid, 1e9, batch(1e9, 2), { also: [Prisma.sql`INSERT INTO no_such_table VALUES (1)`] })).rejects.toThrow();
    expect((await store.summary(tid))!.count).toBe(9);
    const keys = (await db().prisma.job.findMany({ orderBy: { id: "asc" } })).map((j) => j.key);
    expect(keys).toEqual(["written", "replaced"]);
    // Dates and booleans in such statements are converted as the dialect needs.
    const when = new Date(Date.UTC(2024, 4, 5, 6, 7, 8, 9));
    await store.write(tid, batch(3e9, 1), {
      mode: "append", validate: () => [],
      also: [Prisma.sql`UPDATE job SET finished_at = ${when}, error = CASE WHEN ${true} THEN 'yes' ELSE 'no' END WHERE key = 'written'`],
    });
    expect(await jobsOf("written")).toMatchObject([{ finishedAt: when, error: "yes" }]);
  });
});

describe(`claiming, finishing and leases (${DIALECT})`, () => {
  it("claims the due jobs of its kinds, oldest first, one per key at a time", async () => {
    const [k1] = await enqueue({ kind: "t.work", key: "k1", payload: { a: [1, "x"] } });
    const [k2] = await enqueue({ kind: "t.work", key: "k2" });
    await enqueue({ kind: "t.work", key: "later", delayMs: 60_000 });
    await enqueue({ kind: "t.unknown", key: "unknown" });
    const first = (await claimJob(A, KINDS, 60_000))!;
    expect(first).toMatchObject({ id: k1, status: "running", attempts: 1, leaseOwner: A, payload: { a: [1, "x"] } });
    expect(first.startedAt!.getTime()).toBeGreaterThan(Date.now() - 5_000);
    expect(first.leaseUntil!.getTime() - Date.now()).toBeGreaterThan(50_000);
    // The key's next job waits while k1 runs; other keys go ahead.
    const [k1again] = await enqueue({ kind: "t.work", key: "k1" });
    expect((await claimJob(B, KINDS, 60_000))!.id).toBe(k2);
    expect(await claimJob(B, KINDS, 60_000)).toBeNull();
    expect(await claimJob(B, [], 60_000)).toBeNull();
    expect(await completeJob(first, A, { from: 5, records_written: 7 })).toBe(true);
    expect((await claimJob(B, KINDS, 60_000))!.id).toBe(k1again);
    expect((await jobHistory("k1")).map((j) => [j.id, j.status, j.result])).toEqual([
      [k1again, "running", null],
      [k1, "succeeded", { from: 5, records_written: 7 }],
    ]);
    const done = (await getJob(k1))!;
    expect(done.finishedAt!.getTime()).toBeGreaterThanOrEqual(done.startedAt!.getTime());
    expect(done.leaseUntil).toBeNull();
  });

  it("finds a job queued now due at once, with the clock read in the same transaction", async () => {
    // PostgreSQL stores run_after rounded to the millisecond; an unrounded now() in the same
    // transaction was below it about half the time, and a claim right after the enqueue missed it.
    for (let i = 0; i < 20; i++) {
      const due = await db().write(async (tx) => {
        const [{ id }] = await tx.$queryRaw<{ id: unknown }[]>(enqueueSql({ kind: "t.work", key: `now-${i}` }));
        const [row] = await tx.$queryRaw<{ due: unknown }[]>(Prisma.sql`SELECT run_after <= ${now(db().dialect)} AS due FROM job WHERE id = ${Number(id)}`);
        return Boolean(row.due);
      });
      expect(due, `attempt ${i}`).toBe(true);
    }
  });

  it("retries a failed attempt after its backoff, then fails for good with the error", async () => {
    const [id] = await enqueue({ kind: "t.work", key: "retry", maxAttempts: 3 });
    let job = (await claimJob(A, KINDS, 60_000))!;
    expect(await failJob(job, A, "first error", 60_000)).toBe("queued");
    const queued = (await getJob(id))!;
    expect(queued).toMatchObject({ status: "queued", attempts: 1, error: "first error", finishedAt: null });
    expect(queued.runAfter.getTime() - Date.now()).toBeGreaterThan(55_000);
    expect(await claimJob(A, KINDS, 60_000)).toBeNull();
    // A new enqueue (a manual run, a new write) overrides the backoff and restores the tries.
    await enqueue({ kind: "t.work", key: "retry" });
    job = (await claimJob(A, KINDS, 60_000))!;
    expect(job).toMatchObject({ id, attempts: 1 });
    expect(await failJob(job, A, "second error", 0)).toBe("queued");
    job = (await claimJob(A, KINDS, 60_000))!;
    expect(job).toMatchObject({ id, attempts: 2 });
    expect(await failJob(job, A, "third error", 0)).toBe("queued");
    job = (await claimJob(A, KINDS, 60_000))!;
    expect(job.attempts).toBe(3);
    expect(await failJob(job, A, "last error", 0)).toBe("failed");
    expect(await getJob(id)).toMatchObject({ status: "failed", attempts: 3, error: "last error" });
    expect(await claimJob(A, KINDS, 60_000)).toBeNull();
  });

  it("fails an attempt outright when a queued job of its key covers it", async () => {
    const [id] = await enqueue({ kind: "t.work", key: "covered" });
    const job = (await claimJob(A, KINDS, 60_000))!;
    const [next] = await enqueue({ kind: "t.work", key: "covered" });
    expect(await failJob(job, A, "boom", 0)).toBe("failed");
    expect((await jobHistory("covered")).map((j) => [j.id, j.status, j.error])).toEqual([[next, "queued", null], [id, "failed", "boom"]]);
  });

  it("gives a job of a dead runner to another after its lease expires, and fences the first", async () => {
    const [id] = await enqueue({ kind: "t.work", key: "lease" });
    // Leases long enough for the checks of a live lease; cut short only once those are done (on
    // a busy machine, a 100 ms lease could expire between its renewal and B's first claim).
    const a = (await claimJob(A, KINDS, 60_000))!;
    expect(await renewLease(a, A, 60_000)).toBe(true);
    expect(await claimJob(B, KINDS, 60_000)).toBeNull();
    expect(await renewLease(a, A, 100)).toBe(true);
    await sleep(150);
    const b = (await claimJob(B, KINDS, 60_000))!;
    expect(b).toMatchObject({ id, attempts: 2, leaseOwner: B, error: "its worker died" });
    // The first runner can no longer change the job.
    expect(await renewLease(a, A, 60_000)).toBe(false);
    expect(await completeJob(a, A, "late")).toBe(false);
    expect(await failJob(a, A, "late", 0)).toBe("lost");
    expect(await releaseJob(a, A)).toBe("lost");
    expect(await completeJob(b, B, "on time")).toBe(true);
    expect(await getJob(id)).toMatchObject({ status: "succeeded", result: "on time", leaseOwner: B });
  });

  it("marks a dead runner's job failed when its key has a queued job, or it was the last attempt", async () => {
    const [dead] = await enqueue({ kind: "t.work", key: "superseded" });
    const superseded = (await claimJob(A, KINDS, 60_000))!;
    const [queued] = await enqueue({ kind: "t.work", key: "superseded" });
    const [last] = await enqueue({ kind: "t.other", key: "last", maxAttempts: 1 });
    // Claimed under a long lease: with a short one, a slow second claim found the first lease
    // expired already and took the superseding job instead.
    const lastAttempt = (await claimJob(A, KINDS, 60_000))!;
    expect(lastAttempt.id).toBe(last);
    // Both leases run out.
    expect(await renewLease(superseded, A, 50)).toBe(true);
    expect(await renewLease(lastAttempt, A, 50)).toBe(true);
    await sleep(100);
    expect((await claimJob(B, KINDS, 60_000))!.id).toBe(queued);
    expect(await getJob(dead)).toMatchObject({ status: "failed", error: "superseded after its worker died" });
    expect(await getJob(last)).toMatchObject({ status: "failed", error: "its worker died during the last attempt" });
    expect(await claimJob(B, KINDS, 60_000)).toBeNull();
  });

  it("gives an interrupted job back without counting the attempt", async () => {
    const [id] = await enqueue({ kind: "t.work", key: "released" });
    const job = (await claimJob(A, KINDS, 60_000))!;
    expect(await releaseJob(job, A)).toBe("queued");
    expect(await getJob(id)).toMatchObject({ status: "queued", attempts: 0, leaseUntil: null });
    const again = (await claimJob(B, KINDS, 60_000))!;
    expect(again).toMatchObject({ id, attempts: 1 });
    const [next] = await enqueue({ kind: "t.work", key: "released" });
    expect(await releaseJob(again, B)).toBe("failed");
    expect((await jobHistory("released")).map((j) => [j.id, j.status])).toEqual([[next, "queued"], [id, "failed"]]);
  });
});

describe(`history and statistics (${DIALECT})`, () => {
  it("prunes finished jobs beyond the newest of each key and those older than the limit", async () => {
    const day = 86_400_000;
    const jobs: { key: string; status: string; finishedAt: Date }[] = [];
    for (let i = 0; i < 8; i++) jobs.push({ key: "many", status: i % 2 ? "succeeded" : "failed", finishedAt: new Date(Date.now() - (8 - i) * 1000) });
    jobs.push({ key: "old", status: "succeeded", finishedAt: new Date(Date.now() - 91 * day) });
    jobs.push({ key: "old", status: "failed", finishedAt: new Date(Date.now() - 89 * day) });
    const t = new Date();
    await db().write((tx) => tx.job.createMany({ data: jobs.map((j) => ({ kind: "t.work", runAfter: t, queuedAt: t, ...j })) }));
    await enqueue({ kind: "t.work", key: "many" });
    expect(await pruneJobs({ keepPerKey: 3 })).toBe(6);
    const many = await jobHistory("many");
    expect(many.map((j) => j.status)).toEqual(["queued", "succeeded", "failed", "succeeded"]);
    expect(many.slice(1).map((j) => j.finishedAt!.getTime())).toEqual(jobs.slice(5, 8).reverse().map((j) => j.finishedAt.getTime()));
    expect((await jobHistory("old")).map((j) => j.status)).toEqual(["failed"]);
    expect(await pruneJobs({ keepPerKey: 3 })).toBe(0);
  });

  it("counts queued, running and recently failed jobs, and the oldest queued job's age", async () => {
    expect(await queueStats()).toEqual({ queued: 0, running: 0, failed: 0, oldest_queued_age_seconds: null });
    const t = new Date();
    await db().write((tx) => tx.job.createMany({
      data: [
        { kind: "t.work", key: "s1", status: "queued", runAfter: t, queuedAt: new Date(Date.now() - 30_000) },
        { kind: "t.work", key: "s2", status: "queued", runAfter: t, queuedAt: new Date(Date.now() - 10_000) },
        { kind: "t.work", key: "s3", status: "running", runAfter: t, queuedAt: t, leaseOwner: A, leaseUntil: new Date(Date.now() + 60_000) },
        { kind: "t.work", key: "s4", status: "failed", runAfter: t, queuedAt: t, finishedAt: new Date(Date.now() - 3_600_000) },
        { kind: "t.work", key: "s5", status: "failed", runAfter: t, queuedAt: t, finishedAt: new Date(Date.now() - 25 * 3_600_000) },
        { kind: "t.work", key: "s6", status: "succeeded", runAfter: t, queuedAt: t, finishedAt: t },
      ],
    }));
    const stats = await queueStats();
    expect(stats).toMatchObject({ queued: 2, running: 1, failed: 1 });
    expect(stats.oldest_queued_age_seconds).toBeGreaterThanOrEqual(29);
    expect(stats.oldest_queued_age_seconds).toBeLessThan(40);
  });
});

describe(`the runner (${DIALECT})`, () => {
  const runners: JobRunner[] = [];
  afterAll(async () => {
    await Promise.all(runners.map((r) => r.stop()));
  });
  const start = (handlers: Record<string, JobHandler>, options: Parameters<typeof startJobRunner>[0] = {}) => {
    const runner = startJobRunner({ handlers: new Map(Object.entries(handlers)), pollMs: 60_000, maintenance: false, ...options });
    runners.push(runner);
    return runner;
  };

  it("runs a job within milliseconds of a local enqueue, and a chain of jobs one after another", async () => {
    let finished: number[] = [];
    const runner = start({
      "t.chain": async (job) => {
        const { round, step } = job.payload as { round: number; step: number };
        if (step < 3) await enqueue({ kind: "t.chain", key: `chain:${round}:${step + 1}`, payload: { round, step: step + 1 } });
        finished.push(performance.now());
        return { step };
      },
    });
    const tid = await f.series(await f.group(await f.station()));
    const batch = (t: number) => ({ timestamps: Float64Array.of(t), values: Float64Array.of(1), flags: [""] });
    /** The same database work by hand, without the runner: the write, then each job claimed, the next enqueued, and completed. */
    const byHand = async (round: number) => {
      const started = performance.now();
      await records().write(tid, batch(2e9 + round), { mode: "append", validate: () => [], also: [enqueueSql({ kind: "t.by-hand", key: `by-hand:${round}:1` })] });
      for (let step = 1; ; step++) {
        const job = await claimJob(A, ["t.by-hand"], 60_000);
        expect(job).not.toBeNull();
        const took = performance.now() - started;
        if (step < 3) await enqueue({ kind: "t.by-hand", key: `by-hand:${round}:${step + 1}` });
        await completeJob(job!, A, { step });
        if (step === 3) return took;
      }
    };
    // The first round prepares the statements on the pool's connections; the later ones are what a
    // running server sees. What the runner adds to the database work is bounded, not the total: on
    // a busy machine (the test and busy loops on one core) the best chain on PostgreSQL took 83 ms,
    // the work by hand about as long.
    const times: number[] = [];
    const hand: number[] = [];
    for (let round = 1; round <= 10; round++) {
      finished = [];
      await sleep(20);
      const started = performance.now();
      // Nothing tells the runner: the write's commit wakes it (lib/db/queued-work.ts).
      await records().write(tid, batch(1e9 + round), {
        mode: "append", validate: () => [], also: [enqueueSql({ kind: "t.chain", key: `chain:${round}:1`, payload: { round, step: 1 } })],
      });
      await until(async () => finished.length, (n) => n === 3, 5_000);
      times.push(finished[2] - started);
      await sleep(20);
      hand.push(await byHand(round));
    }
    const ms = (list: number[]) => `${list.map((t) => t.toFixed(1)).join(", ")} ms`;
    console.log(`a write and a chain of 3 jobs after it (${DIALECT}): ${ms(times)}; the same by hand: ${ms(hand)}`);
    expect(Math.min(...times.slice(1)) - Math.min(...hand.slice(1))).toBeLessThan(50);
    expect((await jobHistory("chain:10:3"))[0]).toMatchObject({ status: "succeeded", result: { step: 3 }, leaseOwner: runner.owner });
    await runner.stop();
  });

  it("retries with backoff until the handler succeeds, keeping the last error until then", async () => {
    let calls = 0;
    const runner = start({
      "t.flaky": async () => {
        calls++;
        if (calls < 3) throw new Error(`flaky ${calls}`);
        return "ok";
      },
    }, { backoff: (attempt) => attempt * 30, pollMs: 10 });
    const [id] = await enqueue({ kind: "t.flaky", key: "flaky" });
    const job = await until(() => getJob(id), (j) => j?.status === "succeeded");
    expect(job).toMatchObject({ status: "succeeded", attempts: 3, result: "ok", error: null });
    expect(calls).toBe(3);
    await runner.stop();
  });

  it("never runs two jobs of one key at once, with several runners and slots", async () => {
    let runningNow = 0;
    let most = 0;
    let runs = 0;
    const handler: JobHandler = async () => {
      runningNow++;
      runs++;
      most = Math.max(most, runningNow);
      await sleep(15);
      runningNow--;
      return null;
    };
    const r1 = start({ "t.one": handler }, { concurrency: 3, pollMs: 10 });
    const r2 = start({ "t.one": handler }, { concurrency: 3, pollMs: 10 });
    for (let i = 0; i < 20; i++) {
      await enqueue({ kind: "t.one", key: "only-one" });
      await sleep(3);
    }
    await until(() => queueStats(), (s) => s.queued === 0 && s.running === 0);
    expect(most).toBe(1);
    expect(runs).toBeGreaterThan(1);
    expect(runs).toBeLessThanOrEqual(20);
    await Promise.all([r1.stop(), r2.stop()]);
  });

  it("on stop, lets a handler finish within the grace, and aborts and gives back one that does not", async () => {
    const seen: { signal: AbortSignal }[] = [];
    const runner = start({
      "t.quick": async () => {
        await sleep(30);
        return "finished";
      },
      "t.endless": async (_job, ctx: JobContext) => {
        seen.push({ signal: ctx.signal });
        await new Promise((_, reject) => ctx.signal.addEventListener("abort", () => reject(ctx.signal.reason)));
      },
      "t.wrapping-up": async (_job, ctx: JobContext) => {
        await new Promise((resolve) => ctx.signal.addEventListener("abort", resolve));
        return "saved what it had";
      },
    }, { concurrency: 3, shutdownGraceMs: 200 });
    const [quick] = await enqueue({ kind: "t.quick", key: "quick" });
    const [endless] = await enqueue({ kind: "t.endless", key: "endless" });
    const [wrapping] = await enqueue({ kind: "t.wrapping-up", key: "wrapping-up" });
    await until(() => queueStats(), (s) => s.running === 3);
    await runner.stop();
    expect(seen[0].signal.aborted).toBe(true);
    expect(await getJob(quick)).toMatchObject({ status: "succeeded", result: "finished" });
    expect(await getJob(endless)).toMatchObject({ status: "queued", attempts: 0 });
    // A handler that returns after the abort has finished its work: its result counts.
    expect(await getJob(wrapping)).toMatchObject({ status: "succeeded", result: "saved what it had" });
  });

  it("aborts a handler whose lease was taken over", async () => {
    let signal: AbortSignal | null = null;
    const runner = start({
      "t.slow": async (_job, ctx) => {
        signal = ctx.signal;
        await new Promise((resolve) => ctx.signal.addEventListener("abort", resolve));
        return "aborted";
      },
    }, { leaseSeconds: 0.3 });
    const [id] = await enqueue({ kind: "t.slow", key: "slow" });
    await until(async () => signal, (s) => s !== null);
    // Another instance takes it over as if this one had died.
    await db().write((tx) => tx.job.update({ where: { id }, data: { leaseOwner: "someone-else" } }));
    await until(async () => signal!.aborted, (a) => a, 3_000);
    expect(signal!.aborted).toBe(true);
    expect(await getJob(id)).toMatchObject({ status: "running", leaseOwner: "someone-else" });
    await runner.stop();
  });

  it("is woken after every commit path that queued work, and only then, without being told", async () => {
    // What the runners of this process hear (PostgreSQL's NOTIFY and SQLite's data_version
    // would wake them too, a little later: not counted here).
    let wakeUps = 0;
    const stop = onJobsQueued(() => wakeUps++);
    const tid = await f.series(await f.group(await f.station()));
    const batch = (t: number) => ({ timestamps: Float64Array.of(t), values: Float64Array.of(1), flags: [""] });
    const chunks = async function* () {
      yield batch(3e9 + 1200);
    };
    const job = (key: string) => enqueueSql({ kind: "t.woken", key });
    const paths: [string, () => Promise<unknown>][] = [
      ["db().write, $executeRaw", () => db().write((tx) => tx.$executeRaw(job("a")))],
      ["db().write, $queryRaw", () => db().write((tx) => tx.$queryRaw(job("b")))],
      ["records write", () => records().write(tid, batch(3e9), { mode: "append", validate: () => [], also: [job("c")] })],
      ["records replace", () => records().replace(tid, 3e9, batch(3e9 + 600), { also: [job("d")] })],
      ["records chunks", () => records().writeChunks(tid, chunks(), { also: () => [job("e")] })],
      ["enqueue", () => enqueue({ kind: "t.woken", key: "f" })],
    ];
    try {
      for (const [name, commit] of paths) {
        const before = wakeUps;
        await commit();
        await sleep(5);
        expect(wakeUps - before, name).toBe(1);
      }
      const before = wakeUps;
      // A transaction that queues nothing, and one that rolls back.
      await db().write((tx) => tx.$executeRaw(Prisma.sql`UPDATE timeseries SET name = name WHERE id = ${tid}`));
      await expect(db().write(async (tx) => {
        await tx.$executeRaw(job("rolled back"));
        throw new Error("no");
      })).rejects.toThrow("no");
      await sleep(5);
      expect(wakeUps - before).toBe(0);
      expect(await db().prisma.job.count({ where: { kind: "t.woken" } })).toBe(6);
    } finally {
      stop();
    }
  });

  it("stops a handler on its own thread that ignores the timeout, fails the job without a retry, and fences its late write", async () => {
    let late: unknown = "not yet";
    const runner = start({
      "t.stubborn": async (job, ctx) => {
        // Ignores its signal; once it goes on, the job is no longer its owner's to change.
        await sleep(1_500);
        late = await runWhileHeld(job.id, ctx.owner, [enqueueSql({ kind: "t.never", key: "written after the timeout" })]);
        return "finished late";
      },
    }, { timeoutSeconds: 0.5 });
    const [id] = await enqueue({ kind: "t.stubborn", key: "stubborn", maxAttempts: 5 });
    const failed = await until(() => getJob(id), (j) => j?.status === "failed", 10_000);
    expect(failed).toMatchObject({ status: "failed", attempts: 1, error: timedOut(0.5) });
    await until(async () => late, (v) => v !== "not yet", 5_000);
    expect(late).toBeNull();
    expect(await jobsOf("written after the timeout")).toEqual([]);
    expect(await getJob(id)).toMatchObject({ status: "failed", error: timedOut(0.5) });
    await runner.stop();
  });

  it.runIf(DIALECT === "postgres")("wakes on NOTIFY from another connection (LISTEN), without waiting for the poll", async () => {
    const client = new pg.Client({ connectionString: database.url });
    await client.connect();
    // The sessions that have run LISTEN on this database: this runner's is the one that was not there before it.
    const listening = async () => (await client.query<{ pid: number }>(
      "SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND query = $1 AND state = 'idle'",
      [`LISTEN ${CHANNEL}`])).rows.map((r) => r.pid);
    try {
      const before = new Set(await listening());
      const done: number[] = [];
      const runner = start({ "t.remote": async () => void done.push(performance.now()) });
      // After a fixed wait, the LISTEN session may not be up yet on a busy machine, and the job is
      // then found by the runner's look once it is, not by the notification. Wait for the session.
      const ours = await until(listening, (pids) => pids.some((pid) => !before.has(pid)));
      expect(ours.filter((pid) => !before.has(pid))).toHaveLength(1);
      const sql = enqueueSql({ kind: "t.remote", key: "remote" });
      const t = performance.now();
      await client.query(sql.text, sql.values as unknown[]);
      await until(async () => done.length, (n) => n === 1, 3_000);
      expect(done).toHaveLength(1);
      expect(done[0] - t).toBeLessThan(1_000);
      await runner.stop();
    } finally {
      await client.end();
    }
  });
});

describe(`handlers in worker threads (${DIALECT})`, () => {
  // The threads load tests/support/job-thread.ts: the test kinds, in the pool "default". Through
  // tsx a thread takes seconds to load (more on a busy machine).
  const entry = new URL("../support/job-thread.ts", import.meta.url);
  const notHere: JobHandler = async () => {
    throw new Error("runs in a thread");
  };
  const runners: JobRunner[] = [];
  afterEach(async () => {
    await Promise.all(runners.splice(0).map((r) => r.stop()));
  });
  const start = (kinds: string[], options: Parameters<typeof startJobRunner>[0] = {}) => {
    process.env.JOB_LOG = "/dev/null";
    const runner = startJobRunner({
      handlers: new Map(kinds.map((k) => [k, notHere])), pollMs: 200, maintenance: false,
      threads: { entry, memoryMb: 96 }, ...options,
    });
    runners.push(runner);
    return runner;
  };
  it("terminates a handler that spins the CPU past the timeout, fails its job without a retry, and runs the next job of its pool", async () => {
    const runner = start(["test.spin", "test.count"], { timeoutSeconds: 4, leaseSeconds: 1 });
    const [spinning] = await enqueue({ kind: "test.spin", key: "spin", maxAttempts: 5 });
    const running = await until(() => getJob(spinning), (j) => j?.status === "running", 90_000);
    // The runner's own thread stays free while the handler spins: it renews the (1 s) lease.
    const renewed = await until(() => getJob(spinning), (j) => j!.status !== "running" || j!.leaseUntil!.getTime() > running!.leaseUntil!.getTime() + 500, 10_000);
    expect(renewed).toMatchObject({ status: "running", leaseOwner: runner.owner });
    const failed = await until(() => getJob(spinning), (j) => j?.status === "failed", 90_000);
    expect(failed).toMatchObject({ status: "failed", attempts: 1, error: timedOut(4), leaseUntil: null });
    expect(runner.running()).toEqual([]);
    const [next] = await enqueue({ kind: "test.count", key: "after the spin" });
    expect(await until(() => getJob(next), (j) => j?.status === "succeeded", 90_000)).toMatchObject({ status: "succeeded", attempts: 1 });
    await runner.stop();
  }, 240_000);

  it("fails a job whose thread runs out of memory, without a retry, and goes on", async () => {
    const runner = start(["test.hog", "test.count"], { timeoutSeconds: 120, threads: { entry, memoryMb: 64 } });
    const [hog] = await enqueue({ kind: "test.hog", key: "hog", maxAttempts: 5 });
    const failed = await until(() => getJob(hog), (j) => j?.status === "failed", 90_000);
    expect(failed).toMatchObject({ status: "failed", attempts: 1, error: "ran out of memory: a job may use at most 64 MB (ENHYDRIS_JOB_MEMORY)" });
    const [next] = await enqueue({ kind: "test.count", key: "after the hog" });
    expect(await until(() => getJob(next), (j) => j?.status === "succeeded", 90_000)).toMatchObject({ status: "succeeded" });
    await runner.stop();
  }, 240_000);

  it("on stop, terminates a handler that ignores its signal and gives its job back", async () => {
    const runner = start(["test.spin"], { shutdownGraceMs: 200 });
    const [id] = await enqueue({ kind: "test.spin", key: "spin at shutdown" });
    await until(() => getJob(id), (j) => j?.status === "running", 90_000);
    const t = Date.now();
    await runner.stop();
    expect(Date.now() - t).toBeLessThan(10_000);
    expect(await getJob(id)).toMatchObject({ status: "queued", attempts: 0, leaseUntil: null });
  }, 240_000);
});
