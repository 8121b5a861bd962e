import pg from "pg";
import { settings } from "@/lib/config";
import { db } from "@/lib/db";
import { jobHandlers, jobSlots, type JobContext, type JobHandler } from "@/lib/jobs/registry";
import { scheduleMaintenance } from "@/lib/jobs/maintenance";
import {
  CHANNEL, claimJob, completeJob, defaultBackoff, failJob, newOwner, onJobsQueued, releaseJob, renewLease, type Job,
} from "@/lib/jobs/queue";
import { logError } from "@/lib/observability/log";
import { within } from "@/lib/runtime/shutdown";

export interface JobRunnerOptions {
  /** Jobs run at once (default 1), besides those of the kinds with slots of their own. */
  readonly concurrency?: number;
  /** Kinds with slots of their own and how many (default: the registry's, lib/jobs/registry.ts). */
  readonly slots?: ReadonlyMap<string, number>;
  /** lease_owner of this runner's jobs (default host:pid:random). */
  readonly owner?: string;
  /** A lease lasts this long and is renewed every third of it (default 60 s). */
  readonly leaseSeconds?: number;
  /** The kinds this runner takes, and their handlers (default: every registered kind, lib/jobs/registry.ts). */
  readonly handlers?: ReadonlyMap<string, JobHandler>;
  /** The fallback poll, for delayed jobs and lost notifications (default 2 s). */
  readonly pollMs?: number;
  /** Delay before the retry after failed attempt n (default 5 s × 4^(n−1), at most an hour). */
  readonly backoff?: (attempt: number) => number;
  /** On stop, how long running handlers may finish before they are aborted (default 15 s). */
  readonly shutdownGraceMs?: number;
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
  /** Stops claiming, lets running handlers finish (up to the grace), aborts the rest and gives their jobs back. */
  stop(): Promise<void>;
}

/** Why a handler's signal was aborted. */
export class JobInterrupted extends Error {}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * Claims and runs jobs with the handler of their kind. Wake-ups: notifyJobsQueued() in this
 * process, other processes' commits (LISTEN on PostgreSQL, data_version on SQLite), a handler
 * finishing, and a poll.
 */
export function startJobRunner(options: JobRunnerOptions = {}): JobRunner {
  const owner = options.owner ?? newOwner();
  const concurrency = Math.max(1, options.concurrency ?? 1);
  const leaseMs = (options.leaseSeconds ?? 60) * 1000;
  const handlers = options.handlers ?? jobHandlers();
  const kinds = [...handlers.keys()];
  const slots = new Map([...(options.slots ?? jobSlots())].filter(([kind]) => handlers.has(kind)));
  const shared = kinds.filter((kind) => !slots.has(kind));
  const pollMs = options.pollMs ?? 2_000;
  const backoff = options.backoff ?? defaultBackoff;
  const graceMs = options.shutdownGraceMs ?? 15_000;

  type Active = { job: Job; controller: AbortController; progress: number; done: Promise<void>; given: boolean };
  const active = new Map<number, Active>();
  let stopping = false;
  let woken = false;
  let claimFailureLogged = 0;
  let sleeper: (() => void) | null = null;

  const wake = () => {
    woken = true;
    sleeper?.();
  };
  const unsubscribe = onJobsQueued(wake);
  const listener = db().dialect === "postgres" ? listen(wake) : watchSqlite(wake);
  const maintenance = options.maintenance === false ? null : scheduleMaintenance(handlers);

  async function run(entry: Active): Promise<void> {
    const { job, controller } = entry;
    const handler = handlers.get(job.kind)!;
    const heartbeat = setInterval(() => {
      renewLease(job, owner, leaseMs).then((held) => {
        if (!held) controller.abort(new JobInterrupted("the job's lease was lost"));
      }, (e) => logError(`job ${job.id} (${job.kind}): lease renewal`, e));
    }, Math.max(leaseMs / 3, 50));
    const ctx: JobContext = {
      signal: controller.signal,
      owner,
      progress(fraction?: number) {
        controller.signal.throwIfAborted();
        if (fraction !== undefined) entry.progress = fraction;
      },
    };
    try {
      let result: unknown;
      let failure: unknown = null;
      try {
        result = await handler(job, ctx);
      } catch (e) {
        failure = e;
      }
      clearInterval(heartbeat);
      if (entry.given) return;
      const reason = controller.signal.aborted ? controller.signal.reason : null;
      if (failure === null) {
        if (!(await completeJob(job, owner, result ?? null))) logError(`job ${job.id} (${job.kind})`, "finished after its lease was lost; result dropped");
      } else if (reason instanceof JobInterrupted) {
        // Stopped by a shutdown: the job goes back to the queue. Stopped by a lost lease: it is another's now.
        if (reason.message === SHUTDOWN) await releaseJob(job, owner);
      } else {
        const message = failure instanceof Error ? failure.message : String(failure);
        const status = await failJob(job, owner, message || "failed", backoff(job.attempts));
        logError(`job ${job.id} (${job.kind}, attempt ${job.attempts}/${job.maxAttempts}, now ${status})`, failure);
      }
    } catch (e) {
      logError(`job ${job.id} (${job.kind}): recording its outcome`, e);
    } finally {
      clearInterval(heartbeat);
    }
  }

  /** The kinds that have a free slot: the shared ones while fewer than `concurrency` of them run, and each kind with slots of its own. */
  function claimableKinds(): string[] {
    const running = new Map<string, number>();
    for (const { job } of active.values()) running.set(job.kind, (running.get(job.kind) ?? 0) + 1);
    const sharedRunning = shared.reduce((n, kind) => n + (running.get(kind) ?? 0), 0);
    const free = sharedRunning < concurrency ? [...shared] : [];
    for (const [kind, n] of slots) if ((running.get(kind) ?? 0) < n) free.push(kind);
    return free;
  }

  async function loop(): Promise<void> {
    while (!stopping) {
      woken = false;
      try {
        for (let free = claimableKinds(); !stopping && free.length > 0; free = claimableKinds()) {
          const job = await claimJob(owner, free, leaseMs);
          if (!job) break;
          if (stopping) {
            await releaseJob(job, owner);
            break;
          }
          const entry: Active = { job, controller: new AbortController(), progress: 0, done: Promise.resolve(), given: false };
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

  return {
    owner,
    wake,
    running: () => [...active.values()].map(({ job, progress }) => ({ job, progress })),
    async stop() {
      if (stopping) return looping;
      stopping = true;
      unsubscribe();
      maintenance?.stop();
      listener?.close();
      wake();
      await looping;
      const settled = () => Promise.allSettled([...active.values()].map((a) => a.done));
      await within(settled(), graceMs);
      for (const entry of active.values()) entry.controller.abort(new JobInterrupted(SHUTDOWN));
      await within(settled(), 5_000);
      // Handlers that ignore their signal: their jobs are given back now, and fenced off.
      for (const entry of active.values()) {
        entry.given = true;
        await releaseJob(entry.job, owner).catch((e) => logError(`job ${entry.job.id}: giving it back`, e));
      }
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
