import { hostname } from "node:os";
import { randomBytes } from "node:crypto";
import { db, postgresValue, Prisma } from "@/lib/db";
import type { Dialect } from "@/lib/db/url";
import { isoMillis } from "@/lib/domain/serialize";
import { now, nowPlus } from "@/lib/db/dialect-sql";
import { isUniqueViolation, sqliteRows, sqliteTransaction, write, type Row } from "@/lib/jobs/sql";
import { jobsQueued, queuesWork, queuingWork } from "@/lib/db/queued-work";
import { bridge } from "@/lib/runtime/bridge";

/**
 * The durable job queue (docs/decisions/0009-job-queue.md): a `job` table in the service's own
 * database. A job is enqueued by a statement that runs in the transaction of the write that
 * causes it, coalesces with the queued job of its key, and is claimed by one runner at a time
 * under a lease; finished jobs stay as the run history.
 */

export type JobStatus = "queued" | "running" | "succeeded" | "failed";

export interface Job<P = unknown> {
  readonly id: number;
  readonly kind: string;
  /** The coalescing key, such as "process:12": one queued job per key, one running. */
  readonly key: string;
  readonly payload: P;
  readonly status: JobStatus;
  /** Runs started so far (the running one included). */
  readonly attempts: number;
  readonly maxAttempts: number;
  readonly runAfter: Date;
  readonly queuedAt: Date;
  readonly startedAt: Date | null;
  readonly finishedAt: Date | null;
  readonly leaseOwner: string | null;
  readonly leaseUntil: Date | null;
  readonly error: string | null;
  /** What the handler returned (JSON). */
  readonly result: unknown;
}

export const CHANNEL = "enhydris_jobs";
export const DEFAULT_MAX_ATTEMPTS = 5;

interface JobOptions {
  readonly kind: string;
  /** Not before now + delayMs (default 0). */
  readonly delayMs?: number;
  readonly maxAttempts?: number;
}

/** One job. Payloads of one key are equal by convention: state to merge lives in the domain tables. */
export interface JobSpec extends JobOptions {
  readonly key: string;
  readonly payload?: unknown;
}

/** One job per distinct `key` of a query whose columns are `key` and `payload` (JSON text). */
export interface JobsFromQuery extends JobOptions {
  readonly select: Prisma.Sql;
}

/**
 * The statement that enqueues (for use inside any transaction: `tx.$executeRaw(enqueueSql(…))`,
 * a records write's `also`, or `enqueue`). A key that already has a queued job updates that job
 * instead: it runs at the earlier of the two times (a manual run overrides a retry's backoff)
 * with its tries counted anew (a new cause). Returns the id of each queued job as `id`. The
 * runners wake once it has committed: this process's and the server's job process through the
 * commit paths (lib/db/queued-work.ts: run the statement as it is), other processes' through
 * NOTIFY on PostgreSQL (delivered at commit) and data_version on SQLite.
 */
export function enqueueSql(spec: JobSpec | JobsFromQuery, dialect: Dialect = db().dialect): Prisma.Sql {
  const pg = dialect === "postgres";
  const source = "select" in spec
    ? spec.select
    : pg
      ? Prisma.sql`SELECT ${spec.key}::text AS key, ${JSON.stringify(spec.payload ?? {})}::text AS payload`
      : Prisma.sql`SELECT ${spec.key} AS key, ${JSON.stringify(spec.payload ?? {})} AS payload`;
  const maxAttempts = spec.maxAttempts ?? DEFAULT_MAX_ATTEMPTS;
  const runAfter = nowPlus(dialect, spec.delayMs ?? 0);
  if (!pg) {
    // "WHERE true": without it SQLite would read ON CONFLICT as a join's ON.
    return queuesWork(Prisma.sql`INSERT INTO job (kind, key, payload, status, attempts, max_attempts, run_after, queued_at)
      SELECT ${spec.kind}, s.key, MIN(s.payload), 'queued', 0, ${maxAttempts}, ${runAfter}, ${now(dialect)}
      FROM (${source}) AS s WHERE true GROUP BY s.key
      ON CONFLICT (key) WHERE status = 'queued' DO UPDATE SET run_after = MIN(run_after, excluded.run_after), attempts = 0
      RETURNING id`);
  }
  return queuesWork(Prisma.sql`WITH queued AS (
      INSERT INTO job AS j (kind, key, payload, status, attempts, max_attempts, run_after, queued_at)
      SELECT ${spec.kind}::text, s.key, MIN(s.payload), 'queued', 0, ${maxAttempts}::int, ${runAfter}, ${now(dialect)}
      FROM (${source}) AS s GROUP BY s.key
      ON CONFLICT (key) WHERE status = 'queued' DO UPDATE SET run_after = LEAST(j.run_after, excluded.run_after), attempts = 0
      RETURNING j.id)
    SELECT queued.id FROM queued, (SELECT pg_notify(${CHANNEL}, '')) AS notified`);
}

/** Enqueues in a transaction of its own; returns the ids of the queued jobs (the one that covers each key). */
export async function enqueue(spec: JobSpec | JobsFromQuery): Promise<number[]> {
  const rows = await write(enqueueSql(spec));
  return rows.map((r) => Number(r.id));
}

/**
 * Calls `listener` on each wake-up of this process (lib/db/queued-work.ts, jobsQueued: after
 * every commit that ran an enqueueSql statement); returns the function that stops it.
 */
export function onJobsQueued(listener: () => void): () => void {
  const { listeners } = bridge().jobWakeups;
  listeners.add(listener);
  return () => listeners.delete(listener);
}

/** host:pid:random — names a runner in lease_owner. */
export function newOwner(): string {
  return `${hostname()}:${process.pid}:${randomBytes(4).toString("hex")}`;
}

function date(value: unknown): Date | null {
  if (value === null || value === undefined) return null;
  return value instanceof Date ? value : new Date(Number(value));
}

function toJob(row: Row): Job {
  return {
    id: Number(row.id),
    kind: row.kind as string,
    key: row.key as string,
    payload: JSON.parse(row.payload as string),
    status: row.status as JobStatus,
    attempts: Number(row.attempts),
    maxAttempts: Number(row.max_attempts),
    runAfter: date(row.run_after)!,
    queuedAt: date(row.queued_at)!,
    startedAt: date(row.started_at),
    finishedAt: date(row.finished_at),
    leaseOwner: (row.lease_owner as string | null) ?? null,
    leaseUntil: date(row.lease_until),
    error: (row.error as string | null) ?? null,
    result: row.result === null || row.result === undefined ? null : JSON.parse(row.result as string),
  };
}

function kindIn(dialect: Dialect, kinds: readonly string[]): Prisma.Sql {
  return dialect === "sqlite"
    ? Prisma.sql`j.kind IN (SELECT value FROM json_each(${JSON.stringify(kinds)}))`
    : Prisma.sql`j.kind = ANY(${[...kinds]}::text[])`;
}

/** A queued job of the row's key other than the row itself. */
const QUEUED_OF_KEY = Prisma.raw("EXISTS (SELECT 1 FROM job q WHERE q.key = job.key AND q.status = 'queued')");

/**
 * Running jobs whose lease has expired belong to a dead runner: back to queued (their key's
 * queued job, if any, covers them instead; a last attempt fails).
 */
function expiredLeases(dialect: Dialect): Prisma.Sql[] {
  const t = now(dialect);
  return [
    Prisma.sql`UPDATE job SET status = 'failed', finished_at = ${t}, lease_until = NULL,
        error = CASE WHEN ${QUEUED_OF_KEY} THEN 'superseded after its worker died' ELSE 'its worker died during the last attempt' END
      WHERE status = 'running' AND lease_until < ${t} AND (attempts >= max_attempts OR ${QUEUED_OF_KEY})
      RETURNING id`,
    Prisma.sql`UPDATE job SET status = 'queued', run_after = ${t}, lease_until = NULL, error = 'its worker died'
      WHERE status = 'running' AND lease_until < ${t}
      RETURNING id`,
  ];
}

/** Takes the next due job of one of `kinds` whose key has no running job. */
function claimStatement(dialect: Dialect, owner: string, kinds: readonly string[], leaseMs: number): Prisma.Sql {
  const t = now(dialect);
  return Prisma.sql`UPDATE job SET status = 'running', attempts = attempts + 1, started_at = ${t}, finished_at = NULL,
      lease_owner = ${owner}, lease_until = ${nowPlus(dialect, leaseMs)}
    WHERE id = (SELECT j.id FROM job j
      WHERE j.status = 'queued' AND j.run_after <= ${t} AND ${kindIn(dialect, kinds)}
        AND NOT EXISTS (SELECT 1 FROM job r WHERE r.key = j.key AND r.status = 'running')
      ORDER BY j.run_after, j.id LIMIT 1${Prisma.raw(dialect === "postgres" ? " FOR UPDATE SKIP LOCKED" : "")})
    RETURNING *`;
}

/** Whether a claim can find anything: a cheap read, so that polling takes no write lock. */
async function claimable(kinds: readonly string[]): Promise<{ due: boolean; expired: boolean }> {
  const d = db().dialect;
  const t = now(d);
  const [row] = await db().query<{ due: unknown; expired: unknown }>(Prisma.sql`SELECT
      EXISTS (SELECT 1 FROM job j WHERE j.status = 'queued' AND j.run_after <= ${t} AND ${kindIn(d, kinds)}) AS due,
      EXISTS (SELECT 1 FROM job WHERE status = 'running' AND lease_until < ${t}) AS expired`);
  return { due: Boolean(row.due), expired: Boolean(row.expired) };
}

/**
 * Claims the next due job of one of `kinds` for `owner` (status running, attempts + 1, a lease
 * of `leaseMs`), first returning expired leases to the queue. Null when there is none.
 */
export async function claimJob(owner: string, kinds: readonly string[], leaseMs: number): Promise<Job | null> {
  if (kinds.length === 0) return null;
  const { due, expired } = await claimable(kinds);
  if (!due && !expired) return null;
  const dialect = db().dialect;
  if (dialect === "sqlite") {
    const row = await sqliteTransaction((conn) => {
      if (expired) for (const sql of expiredLeases(dialect)) sqliteRows(conn, sql);
      return sqliteRows(conn, claimStatement(dialect, owner, kinds, leaseMs))[0];
    });
    return row ? toJob(row) : null;
  }
  if (expired) {
    for (const sql of expiredLeases(dialect)) {
      // A key queued meanwhile by a concurrent enqueue: the next claim marks the job superseded.
      await db().query(sql).catch((e) => { if (!isUniqueViolation(e)) throw e; });
    }
  }
  const [row] = await db().query<Row>(claimStatement(dialect, owner, kinds, leaseMs));
  return row ? toJob(row) : null;
}

/** Fences a change of a claimed job: only its lease holder may make it, and only while it runs. */
function held(job: Job, owner: string): Prisma.Sql {
  return Prisma.sql`id = ${job.id} AND lease_owner = ${owner} AND status = 'running'`;
}

/** Extends the lease; false when the job is no longer `owner`'s (taken over, released). */
export async function renewLease(job: Job, owner: string, leaseMs: number): Promise<boolean> {
  const d = db().dialect;
  return (await write(Prisma.sql`UPDATE job SET lease_until = ${nowPlus(d, leaseMs)} WHERE ${held(job, owner)} RETURNING id`)).length > 0;
}

/**
 * A query that returns a row while `owner` still holds the job, for a handler's transaction to
 * check before it writes (records' replace `onlyIf`, runWhileHeld): a handler whose job was
 * taken over then writes nothing. On PostgreSQL it locks the job's row, so that a takeover
 * waits for the handler's commit.
 */
export function heldJobSql(jobId: number, owner: string, dialect: Dialect = db().dialect): Prisma.Sql {
  return Prisma.sql`SELECT id FROM job WHERE id = ${jobId} AND lease_owner = ${owner} AND status = 'running'${Prisma.raw(dialect === "postgres" ? " FOR UPDATE" : "")}`;
}

/**
 * Runs `statements` in one transaction if `owner` still holds the job (heldJobSql); returns the
 * rows of the last one (RETURNING), or null when the job is no longer the owner's and nothing
 * was done.
 */
export async function runWhileHeld(jobId: number, owner: string, statements: readonly Prisma.Sql[]): Promise<Row[] | null> {
  const current = db();
  const fence = heldJobSql(jobId, owner, current.dialect);
  if (current.dialect === "sqlite") {
    return sqliteTransaction((conn) => {
      if (sqliteRows(conn, fence).length === 0) return null;
      let rows: Row[] = [];
      for (const sql of statements) rows = sqliteRows(conn, sql);
      return rows;
    });
  }
  const client = await current.pool!.connect();
  let broken = false;
  try {
    await client.query("BEGIN");
    try {
      const run = async (sql: Prisma.Sql) => (await client.query(sql.text, sql.values.map(postgresValue))).rows as Row[];
      if ((await run(fence)).length === 0) {
        await client.query("ROLLBACK");
        return null;
      }
      let rows: Row[] = [];
      for (const sql of statements) rows = await run(sql);
      await client.query("COMMIT");
      if (queuingWork(statements)) jobsQueued();
      return rows;
    } catch (e) {
      await client.query("ROLLBACK").catch(() => { broken = true; });
      throw e;
    }
  } finally {
    client.release(broken);
  }
}

const ENDED = Symbol.for("enhydris.jobs.attemptEnded");
type EndedHolder = { [ENDED]?: Set<(id: number) => void> };

function endedListeners(): Set<(id: number) => void> {
  return ((globalThis as EndedHolder)[ENDED] ??= new Set());
}

/** Tells this process's waiters (waitForJob) that an attempt of job `id` has ended. */
function attemptEnded(id: number): void {
  for (const listener of endedListeners()) listener(id);
}

/** Whether the job has finished, or its last attempt ended in an error and it waits for a retry. */
function attemptOver(job: Job): boolean {
  return job.status === "succeeded" || job.status === "failed" || (job.status === "queued" && job.attempts > 0 && job.error !== null);
}

/**
 * Waits until job `id` has finished, or until an attempt of it ended in an error (it is then
 * queued for a retry, with the error), at most `timeoutMs`: the job as it is then, or null when
 * the time ran out (or the job no longer exists). Attempts that end in this process wake the
 * waiter at once; others (another instance, a worker) are seen by polling.
 */
export async function waitForJob(id: number, timeoutMs: number): Promise<Job | null> {
  const deadline = Date.now() + timeoutMs;
  let wake: (() => void) | null = null;
  const listener = (ended: number) => {
    if (ended === id) wake?.();
  };
  endedListeners().add(listener);
  try {
    for (let poll = 10; ; poll = Math.min(poll * 2, 250)) {
      const job = await getJob(id);
      if (!job) return null;
      if (attemptOver(job)) return job;
      const left = deadline - Date.now();
      if (left <= 0) return null;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, Math.min(poll, left));
        wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      wake = null;
    }
  } finally {
    endedListeners().delete(listener);
  }
}

/** Marks the job succeeded with its result; false when it was no longer `owner`'s. */
export async function completeJob(job: Job, owner: string, result: unknown): Promise<boolean> {
  const d = db().dialect;
  const done = (await write(Prisma.sql`UPDATE job SET status = 'succeeded', finished_at = ${now(d)}, lease_until = NULL, error = NULL,
      result = ${JSON.stringify(result ?? null)}
    WHERE ${held(job, owner)} RETURNING id`)).length > 0;
  if (done) attemptEnded(job.id);
  return done;
}

/**
 * Puts a claimed job back in the queue (run_after = now + delayMs), or, when that cannot be (no
 * tries left, or its key has a queued job that covers it), marks it failed. Returns the new
 * status, or "lost" when the job was no longer `owner`'s.
 */
async function requeueOrFail(job: Job, owner: string, options: { retry: boolean; delayMs: number; refund: boolean; error: string | null; failError: string }): Promise<"queued" | "failed" | "lost"> {
  const d = db().dialect;
  const requeue = Prisma.sql`UPDATE job SET status = 'queued', run_after = ${nowPlus(d, options.delayMs)}, lease_until = NULL,
      error = ${options.error}, attempts = attempts - ${options.refund ? 1 : 0}
    WHERE ${held(job, owner)} AND NOT ${QUEUED_OF_KEY} RETURNING id`;
  const fail = Prisma.sql`UPDATE job SET status = 'failed', finished_at = ${now(d)}, lease_until = NULL, error = ${options.failError}
    WHERE ${held(job, owner)} RETURNING id`;
  const status = await requeueOrFailIn(d, requeue, fail, options.retry);
  if (status !== "lost") attemptEnded(job.id);
  return status;
}

async function requeueOrFailIn(d: Dialect, requeue: Prisma.Sql, fail: Prisma.Sql, retry: boolean): Promise<"queued" | "failed" | "lost"> {
  if (d === "sqlite") {
    return sqliteTransaction((conn) => {
      if (retry && sqliteRows(conn, requeue).length) return "queued";
      return sqliteRows(conn, fail).length ? "failed" : "lost";
    });
  }
  if (retry) {
    try {
      if ((await db().query(requeue)).length) return "queued";
    } catch (e) {
      if (!isUniqueViolation(e)) throw e;
    }
  }
  return (await db().query(fail)).length ? "failed" : "lost";
}

/** 5 s, 20 s, 80 s, … (× 4 per attempt), at most an hour. */
export function defaultBackoff(attempt: number): number {
  return Math.min(5_000 * 4 ** Math.max(attempt - 1, 0), 3_600_000);
}

/** A handler failed: retried after the backoff while tries are left, otherwise failed with the error. */
export function failJob(job: Job, owner: string, error: string, delayMs: number) {
  return requeueOrFail(job, owner, { retry: job.attempts < job.maxAttempts, delayMs, refund: false, error, failError: error });
}

/**
 * Stops a claimed job for good (it ran past ENHYDRIS_JOB_TIMEOUT, or out of memory): failed with
 * the error, not retried, whatever tries it has left. Its next cause queues it anew.
 */
export function failJobForGood(job: Job, owner: string, error: string) {
  return requeueOrFail(job, owner, { retry: false, delayMs: 0, refund: false, error, failError: error });
}

/** How a run's job is shown (the runs/ of processes and of replication sources): its id, status and times. */
export function jobRunJson(job: Job) {
  return {
    id: job.id,
    status: job.status,
    queued_at: isoMillis(job.queuedAt),
    started_at: isoMillis(job.startedAt),
    finished_at: isoMillis(job.finishedAt),
  };
}

/** Gives an interrupted job back (shutdown): queued again at once, the attempt not counted. */
export function releaseJob(job: Job, owner: string) {
  return requeueOrFail(job, owner, {
    retry: true, delayMs: 0, refund: true, error: job.error,
    failError: "interrupted by a shutdown; a queued run of its key covers it",
  });
}

export async function getJob(id: number): Promise<Job | null> {
  const [row] = await db().query<Row>(Prisma.sql`SELECT * FROM job WHERE id = ${id}`);
  return row ? toJob(row) : null;
}

/**
 * The jobs of a key (or of several), newest first: those not yet started (newest queued first),
 * then the others by when they started. By start, not by id: a job queued early to run later (a
 * source's next scheduled run) must not sort below runs that started after it was queued.
 */
export async function jobHistory(key: string | readonly string[], limit = 100, offset = 0): Promise<Job[]> {
  const keys = typeof key === "string" ? [key] : key;
  return (await db().query<Row>(Prisma.sql`SELECT * FROM job WHERE key IN (${Prisma.join([...keys])})
    ORDER BY CASE WHEN started_at IS NULL THEN 0 ELSE 1 END, started_at DESC, id DESC LIMIT ${limit} OFFSET ${offset}`)).map(toJob);
}

/** The job of these keys that started last (running or finished), or the newest queued one when none has started. */
export async function lastStartedJob(keys: readonly string[]): Promise<Job | null> {
  const [row] = await db().query<Row>(Prisma.sql`SELECT * FROM job WHERE key IN (${Prisma.join([...keys])})
    ORDER BY CASE WHEN started_at IS NULL THEN 1 ELSE 0 END, started_at DESC, id DESC LIMIT 1`);
  return row ? toJob(row) : null;
}

/** When each key's last successful job finished (keys without one are absent). */
export async function lastSucceeded(keys: readonly string[]): Promise<Map<string, Date>> {
  if (keys.length === 0) return new Map();
  const rows = await db().query<{ key: string; finished: unknown }>(Prisma.sql`SELECT key, MAX(finished_at) AS finished FROM job
    WHERE key IN (${Prisma.join([...keys])}) AND status = 'succeeded' GROUP BY key`);
  return new Map(rows.map((r) => [r.key, date(r.finished)!]));
}

export async function countJobs(key: string): Promise<number> {
  const [row] = await db().query<{ n: unknown }>(Prisma.sql`SELECT COUNT(*) AS n FROM job WHERE key = ${key}`);
  return Number(row.n);
}

/** The newest job of each key (those that have any). */
export async function latestJobs(keys: readonly string[]): Promise<Map<string, Job>> {
  if (keys.length === 0) return new Map();
  const rows = await db().query<Row>(Prisma.sql`SELECT * FROM job WHERE id IN (SELECT MAX(id) FROM job WHERE key IN (${Prisma.join([...keys])}) GROUP BY key)`);
  return new Map(rows.map((r) => [r.key as string, toJob(r)]));
}

/** The keys among `keys` that still have a run to do: one running, or queued and not waiting for a retry after a failure. */
export async function keysWithWorkLeft(keys: readonly string[]): Promise<Set<string>> {
  if (keys.length === 0) return new Set();
  const rows = await db().query<{ key: string }>(Prisma.sql`SELECT DISTINCT key FROM job WHERE key IN (${Prisma.join([...keys])})
    AND (status = 'running' OR (status = 'queued' AND (attempts = 0 OR error IS NULL)))`);
  return new Set(rows.map((r) => r.key));
}

/** Deletes finished jobs beyond the newest `keepPerKey` of each key and those finished more than `maxAgeDays` ago. */
export async function pruneJobs(options: { keepPerKey?: number; maxAgeDays?: number } = {}): Promise<number> {
  const d = db().dialect;
  const keep = options.keepPerKey ?? 100;
  const cutoff = nowPlus(d, -(options.maxAgeDays ?? 90) * 86_400_000);
  const rows = await write(Prisma.sql`DELETE FROM job WHERE status IN ('succeeded', 'failed') AND (finished_at < ${cutoff} OR id IN (
      SELECT id FROM (SELECT id, ROW_NUMBER() OVER (PARTITION BY key ORDER BY id DESC) AS n FROM job WHERE status IN ('succeeded', 'failed')) AS ranked
      WHERE n > ${keep}))
    RETURNING id`);
  return rows.length;
}

export interface QueueStats {
  queued: number;
  running: number;
  /** Failed in the last 24 hours. */
  failed: number;
  /** Age of the oldest queued job; null when none is queued. */
  oldest_queued_age_seconds: number | null;
}

export async function queueStats(): Promise<QueueStats> {
  const d = db().dialect;
  const age = d === "sqlite"
    ? Prisma.sql`(${now(d)} - MIN(queued_at)) / 1000.0`
    : Prisma.sql`EXTRACT(EPOCH FROM ${now(d)} - MIN(queued_at))::float8`;
  const [row] = await db().query<Record<string, unknown>>(Prisma.sql`SELECT
      (SELECT COUNT(*) FROM job WHERE status = 'queued') AS queued,
      (SELECT COUNT(*) FROM job WHERE status = 'running') AS running,
      (SELECT COUNT(*) FROM job WHERE status = 'failed' AND finished_at >= ${nowPlus(d, -86_400_000)}) AS failed,
      (SELECT ${age} FROM job WHERE status = 'queued') AS oldest`);
  return {
    queued: Number(row.queued),
    running: Number(row.running),
    failed: Number(row.failed),
    oldest_queued_age_seconds: row.oldest === null ? null : Math.max(0, Number(row.oldest)),
  };
}
