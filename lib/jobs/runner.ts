import pg from "pg";
import { settings } from "@/lib/config";
import { db } from "@/lib/db";
import { jobHandlers, jobPools, jobPoolSlots, type JobContext, type JobHandler } from "@/lib/jobs/registry";
import { scheduleMaintenance } from "@/lib/jobs/maintenance";
import {
  CHANNEL, claimJob, completeJob, defaultBackoff, failJob, failJobForGood, newOwner, onJobsQueued, releaseJob, renewLease, type Job,
} from "@/lib/jobs/queue";
import { JobInterrupted, JobOutOfMemory, JobThreads, type Execution, type Outcome } from "@/lib/jobs/threads";
import { logError } from "@/lib/observability/log";
import { within } from "@/lib/runtime/shutdown";

export { JobInterrupted };

export interface JobRunnerOptions {
  /** Jobs of one pool run at once (default 1 per pool). */
  readonly concurrency?: number;
  /** Pools with another number of slots than `concurrency` (default: the registry's, lib/jobs/registry.ts). */
  readonly poolSlots?: ReadonlyMap<string, number>;
  /** lease_owner of this runner's jobs (default host:pid:random). */
  readonly owner?: string;
  /** A lease lasts this long and is renewed every third of it (default 60 s). */
  readonly leaseSeconds?: number;
  /** The kinds this runner takes, and their handlers (default: every registered kind, lib/jobs/registry.ts). */
  readonly handlers?: ReadonlyMap<string, JobHandler>;
  /** The pool of each kind (default: as registered; kinds registered with none share the pool "default"). */
  readonly pools?: ReadonlyMap<string, string>;
  /** The fallback poll, for delayed jobs and lost notifications (default 2 s). */
  readonly pollMs?: number;
  /** Delay before the retry after failed attempt n (default 5 s × 4^(n−1), at most an hour). */
  readonly backoff?: (attempt: number) => number;
  /** On stop, how long running handlers may finish before they are aborted (default 15 s). */
  readonly shutdownGraceMs?: number;
  /** A job running longer than this is stopped and failed, without a retry (default 600 s). */
  readonly timeoutSeconds?: number;
  /**
   * Runs the handlers in worker threads that load `entry` (lib/jobs/threads.ts), each with a heap
   * of `memoryMb`; without it they run on the runner's own thread, where a handler that ignores
   * its signal cannot be stopped.
   */
  readonly threads?: { readonly entry: string | URL; readonly memoryMb: number; readonly idleMs?: number };
  /** Schedule the queue's own maintenance (history pruning; default true). */
  readonly maintenance?: boolean;
}

export interface RunningJob {
  readonly job: Job;
  /** The handler's last ctx.progress(), 0…1. */
  readonly progress: number;
}

export interface JobRunner {
  readonly owner: string;
  /** Looks for work now. */
  wake(): void;
  /** The jobs this runner is running. */
  running(): RunningJob[];
  /**
   * Stops claiming, lets running handlers finish (up to the grace, and to `deadline` less 6 s),
   * aborts the rest, and gives back the jobs of those that do not stop within 5 s (up to
   * `deadline` less 1 s; their threads are terminated).
   */
  stop(options?: { deadline?: number }): Promise<void>;
}

/** The error a job that ran too long fails with. */
export function timedOut(seconds: number): string {
  return `timed out: stopped after running for ${seconds} s (ENHYDRIS_JOB_TIMEOUT)`;
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Runs a handler on this thread: it can be asked to stop (its signal), not made to. */
function runHere(handler: JobHandler, job: Job, owner: string, onProgress: (fraction: number) => void): Execution {
  const controller = new AbortController();
  const ctx: JobContext = {
    signal: controller.signal,
    owner,
    progress(fraction?: number) {
      controller.signal.throwIfAborted();
      if (fraction !== undefined) onProgress(fraction);
    },
  };
  const outcome = Promise.resolve()
    .then(() => handler(job, ctx))
    .then((result): Outcome => ({ ok: true, result }), (error: unknown): Outcome => ({ ok: false, error: error instanceof Error ? error : new Error(String(error)) }));
  return { started: Promise.resolve(), outcome, abort: (reason) => controller.abort(reason), kill: async () => undefined };
}

/**
 * Claims and runs jobs with the handler of their kind, `concurrency` at once in each pool (a
 * kind's pool: lib/jobs/registry.ts), so that the jobs of one pool never wait for another's. A
 * job that runs longer than the timeout is stopped (its thread terminated) and failed.
 * Wake-ups: jobsQueued() (lib/db/queued-work.ts) in this process or a job thread, other processes' commits (LISTEN
 * on PostgreSQL, data_version on SQLite), a handler finishing, and a poll.
 */
export function startJobRunner(options: JobRunnerOptions = {}): JobRunner {
  const owner = options.owner ?? newOwner();
  const concurrency = Math.max(1, options.concurrency ?? 1);
  const leaseMs = (options.leaseSeconds ?? 60) * 1000;
  const handlers = options.handlers ?? jobHandlers();
  const registeredPools: ReadonlyMap<string, string> = options.pools ?? jobPools();
  const poolOf = (kind: string) => registeredPools.get(kind) ?? "default";
  const kinds = [...handlers.keys()];
  const poolSlots: ReadonlyMap<string, number> = options.poolSlots ?? jobPoolSlots();
  const slotsOf = (pool: string) => poolSlots.get(pool) ?? concurrency;
  const pollMs = options.pollMs ?? 2_000;
  const backoff = options.backoff ?? defaultBackoff;
  const graceMs = options.shutdownGraceMs ?? 15_000;
  const timeoutSeconds = options.timeoutSeconds ?? 600;

  type Active = {
    job: Job; pool: string; execution: Execution | null; progress: number; done: Promise<void>;
    /** Given back by a shutdown: nothing more is recorded. */
    given: boolean;
    /** Why the runner stopped it, if it did (the first reason counts). */
    stopped: "shutdown" | "lease" | "timeout" | null;
    /** Ends the wait for a handler that was stopped without returning. */
    end: () => void;
  };
  const active = new Map<number, Active>();
  let stopping = false;
  let woken = false;
  let claimFailureLogged = 0;
  let sleeper: (() => void) | null = null;

  const wake = () => {
    woken = true;
    sleeper?.();
  };
  const threads = options.threads
    ? new JobThreads({ entry: options.threads.entry, memoryMb: options.threads.memoryMb, idleMs: options.threads.idleMs ?? 300_000, onJobsQueued: wake })
    : null;
  const unsubscribe = onJobsQueued(wake);
  const listener = db().dialect === "postgres" ? listen(wake) : watchSqlite(wake);
  const maintenance = options.maintenance === false ? null : scheduleMaintenance(handlers);

  /** The kinds whose pool has a free slot. */
  function claimableKinds(): string[] {
    const busy = new Map<string, number>();
    for (const { pool } of active.values()) busy.set(pool, (busy.get(pool) ?? 0) + 1);
    return kinds.filter((kind) => (busy.get(poolOf(kind)) ?? 0) < slotsOf(poolOf(kind)));
  }

  async function run(entry: Active): Promise<void> {
    const { job } = entry;
    const onProgress = (fraction: number) => {
      entry.progress = fraction;
    };
    const execution = threads
      ? threads.run(entry.pool, job, owner, onProgress)
      : runHere(handlers.get(job.kind)!, job, owner, onProgress);
    entry.execution = execution;
    const ended = new Promise<"stopped">((resolve) => {
      entry.end = () => resolve("stopped");
    });
    const heartbeat = setInterval(() => {
      renewLease(job, owner, leaseMs).then((held) => {
        if (held || entry.stopped) return;
        // Another runner has it now: this one stops, records nothing, and is made to within 5 s.
        entry.stopped = "lease";
        execution.abort(new JobInterrupted("the job's lease was lost"));
        setTimeout(() => void execution.kill().then(entry.end), 5_000).unref();
      }, (e) => logError(`job ${job.id} (${job.kind}): lease renewal`, e));
    }, Math.max(leaseMs / 3, 50));
    const timeOut = () => {
      if (entry.stopped) return;
      entry.stopped = "timeout";
      execution.abort(new JobInterrupted(timedOut(timeoutSeconds)));
      // Stopped now, whatever the handler does (on this thread, it is left behind, fenced off).
      void execution.kill().then(entry.end);
    };
    // The handler's time counts from its start: a new thread loads its module first (bounded
    // too, by at least two minutes: loading takes a second from a bundle, more through tsx).
    let timer = setTimeout(timeOut, Math.max(timeoutSeconds, 120) * 1000);
    void execution.started.then(() => {
      clearTimeout(timer);
      if (!entry.stopped) timer = setTimeout(timeOut, timeoutSeconds * 1000);
    });
    try {
      const outcome = await Promise.race([execution.outcome, ended]);
      clearInterval(heartbeat);
      clearTimeout(timer);
      if (entry.given || entry.stopped === "lease") return;
      if (entry.stopped === "timeout") {
        const status = await failJobForGood(job, owner, timedOut(timeoutSeconds));
        logError(`job ${job.id} (${job.kind}, attempt ${job.attempts}/${job.maxAttempts}, now ${status})`, timedOut(timeoutSeconds));
      } else if (outcome === "stopped") {
        // Killed at shutdown: stop() gives it back.
      } else if (outcome.ok) {
        if (!(await completeJob(job, owner, outcome.result ?? null))) logError(`job ${job.id} (${job.kind})`, "finished after its lease was lost; result dropped");
      } else if (entry.stopped === "shutdown") {
        // Stopped by a shutdown: the job goes back to the queue.
        await releaseJob(job, owner);
      } else if (outcome.error instanceof JobOutOfMemory) {
        const status = await failJobForGood(job, owner, outcome.error.message);
        logError(`job ${job.id} (${job.kind}, attempt ${job.attempts}/${job.maxAttempts}, now ${status})`, outcome.error.message);
      } else {
        const status = await failJob(job, owner, outcome.error.message || "failed", backoff(job.attempts));
        logError(`job ${job.id} (${job.kind}, attempt ${job.attempts}/${job.maxAttempts}, now ${status})`, outcome.error);
      }
    } catch (e) {
      logError(`job ${job.id} (${job.kind}): recording its outcome`, e);
    } finally {
      clearInterval(heartbeat);
      clearTimeout(timer);
    }
  }

  async function loop(): Promise<void> {
    while (!stopping) {
      woken = false;
      try {
        for (;;) {
          const free = stopping ? [] : claimableKinds();
          if (free.length === 0) break;
          const job = await claimJob(owner, free, leaseMs);
          if (!job) break;
          if (stopping) {
            await releaseJob(job, owner);
            break;
          }
          const entry: Active = {
            job, pool: poolOf(job.kind), execution: null, progress: 0, done: Promise.resolve(), given: false, stopped: null, end: () => undefined,
          };
          active.set(job.id, entry);
          entry.done = run(entry).finally(() => {
            active.delete(job.id);
            wake();
          });
        }
      } catch (e) {
        // The database may be away for a while: say so once a minute, not at every try.
        if (Date.now() - claimFailureLogged > 60_000) {
          claimFailureLogged = Date.now();
          logError("job runner: claiming", e);
        }
        await sleep(Math.min(pollMs, 1_000));
      }
      if (woken || stopping) continue;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, pollMs);
        sleeper = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      sleeper = null;
    }
  }

  const looping = loop();
  let stopped: Promise<void> | null = null;

  return {
    owner,
    wake,
    running: () => [...active.values()].map(({ job, progress }) => ({ job, progress })),
    stop(stopOptions = {}) {
      stopped ??= (async () => {
        const deadline = stopOptions.deadline ?? Infinity;
        stopping = true;
        unsubscribe();
        maintenance?.stop();
        listener?.close();
        wake();
        await looping;
        const settled = () => Promise.allSettled([...active.values()].map((a) => a.done));
        await within(settled(), Math.max(0, Math.min(graceMs, deadline - 6_000 - Date.now())));
        for (const entry of active.values()) {
          entry.stopped ??= "shutdown";
          entry.execution?.abort(new JobInterrupted(SHUTDOWN));
        }
        await within(settled(), Math.max(0, Math.min(5_000, deadline - 1_000 - Date.now())));
        // Handlers that ignore their signal: stopped (their threads terminated), their jobs given back now.
        for (const entry of active.values()) {
          entry.given = true;
          await entry.execution?.kill();
          entry.end();
          await releaseJob(entry.job, owner).catch((e) => logError(`job ${entry.job.id}: giving it back`, e));
        }
        await threads?.close();
      })();
      return stopped;
    },
  };
}

const SHUTDOWN = "the runner is shutting down";

/**
 * SQLite has no notifications between processes (several servers, or a worker, on one file):
 * PRAGMA data_version changes when another connection commits, and reading it costs no I/O (the
 * WAL index is in shared memory). So the runner looks again within 25 ms of any commit elsewhere.
 */
function watchSqlite(onChange: () => void): { close(): void } {
  const conn = db().sqlite!;
  const version = () => conn.pragma("data_version", { simple: true });
  let seen = version();
  const timer = setInterval(() => {
    try {
      const now = version();
      if (now !== seen) {
        seen = now;
        onChange();
      }
    } catch {
      clearInterval(timer); // the connection was closed
    }
  }, 25);
  timer.unref();
  return { close: () => clearInterval(timer) };
}

/**
 * LISTEN for enqueues on PostgreSQL on one dedicated connection, reconnecting after a failure
 * (and then waking the runner, in case a notification was missed).
 */
function listen(onNotify: () => void): { close(): void } {
  let closed = false;
  let client: pg.Client | null = null;
  let delay = 500;
  const connect = async () => {
    if (closed) return;
    const c = new pg.Client({ connectionString: settings().databaseUrl });
    client = c;
    let retried = false;
    const retry = () => {
      if (retried || closed) return;
      retried = true;
      c.end().catch(() => undefined);
      setTimeout(connect, delay).unref();
      delay = Math.min(delay * 2, 30_000);
    };
    c.on("error", retry);
    c.on("end", retry);
    c.on("notification", onNotify);
    try {
      await c.connect();
      await c.query(`LISTEN ${CHANNEL}`);
      delay = 500;
      onNotify();
    } catch {
      retry();
    }
  };
  void connect();
  return {
    close() {
      closed = true;
      client?.end().catch(() => undefined);
    },
  };
}
