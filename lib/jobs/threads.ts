import { isMainThread, parentPort, Worker } from "node:worker_threads";
import { closeDb } from "@/lib/db";
import type { Job } from "@/lib/jobs/queue";
import type { JobContext, JobHandler } from "@/lib/jobs/registry";
import { bridge } from "@/lib/runtime/bridge";

/**
 * Job handlers in worker threads (docs/decisions/0009-job-queue.md): the runner (lib/jobs/runner.ts)
 * claims, renews leases and records outcomes on its own thread, and runs each job's handler on a
 * thread of the job's pool, one job at a time per thread. A thread can be stopped whatever its
 * handler does (terminate(): a handler that ignores its signal or spins the CPU), and its heap is
 * bounded (resourceLimits), so that one job cannot take the runner down. A thread loads the
 * entry module of its process (`entry`), which registers the handlers and calls serveJobThread;
 * it opens its own database connections, and idles out after a while without work.
 */

/** The runner's messages to a thread. */
type ToThread =
  | { type: "run"; job: Job; owner: string }
  | { type: "abort"; reason: string }
  | { type: "close" };

/** A thread's messages to the runner. */
type FromThread =
  | { type: "started" }
  | { type: "progress"; fraction: number }
  | { type: "done"; result: unknown }
  | { type: "failed"; error: { name: string; message: string; stack?: string } }
  | { type: "jobs-queued" }
  | { type: "closed" };

/** How a handler's run ended. */
export type Outcome = { ok: true; result: unknown } | { ok: false; error: Error };

/** One handler's run, on a thread or on the runner's own. */
export interface Execution {
  /** Resolves when the handler starts (on a new thread, once the thread has loaded). */
  readonly started: Promise<void>;
  /** Resolves when the handler returns or throws, or its thread dies; never rejects. */
  readonly outcome: Promise<Outcome>;
  /** Aborts the handler's signal with `reason` (it should stop, changing nothing more). */
  abort(reason: Error): void;
  /** Stops the handler now (its thread terminated); a handler on the runner's thread cannot be. */
  kill(): Promise<void>;
}

/** Why a job stopped, as the handler sees it in its signal (ctx.signal.reason). */
export class JobInterrupted extends Error {}

/** A job's thread ran out of heap. */
export class JobOutOfMemory extends Error {}

/**
 * In a job thread: runs the jobs the runner sends with `handlers`, one at a time, and passes the
 * wake-ups of what they queue on to the runner.
 */
export function serveJobThread(handlers: ReadonlyMap<string, JobHandler>): void {
  if (isMainThread || !parentPort) throw new Error("serveJobThread() runs in a job thread");
  const port = parentPort;
  bridge().jobWakeups.forward = () => port.postMessage({ type: "jobs-queued" } satisfies FromThread);
  let controller: AbortController | null = null;
  port.on("message", (message: ToThread) => {
    if (message.type === "abort") controller?.abort(new JobInterrupted(message.reason));
    else if (message.type === "close") {
      void closeDb().catch(() => undefined).finally(() => port.postMessage({ type: "closed" } satisfies FromThread));
    } else if (message.type === "run") {
      const current = new AbortController();
      controller = current;
      const { job, owner } = message;
      let reported = 0;
      const ctx: JobContext = {
        signal: current.signal,
        owner,
        progress(fraction?: number) {
          current.signal.throwIfAborted();
          // Reported at most ten times a second.
          if (fraction !== undefined && Date.now() - reported >= 100) {
            reported = Date.now();
            port.postMessage({ type: "progress", fraction } satisfies FromThread);
          }
        },
      };
      const handler = handlers.get(job.kind);
      port.postMessage({ type: "started" } satisfies FromThread);
      void (async () => {
        try {
          if (!handler) throw new Error(`no handler for the job kind ${job.kind} in the job thread`);
          // What is kept is JSON (the job's result column): anything else is dropped here.
          const result = JSON.parse(JSON.stringify((await handler(job, ctx)) ?? null)) as unknown;
          port.postMessage({ type: "done", result } satisfies FromThread);
        } catch (e) {
          const error = e instanceof Error ? e : new Error(String(e));
          port.postMessage({ type: "failed", error: { name: error.name, message: error.message, stack: error.stack } } satisfies FromThread);
        } finally {
          if (controller === current) controller = null;
        }
      })();
    }
  });
}

export interface ThreadOptions {
  /** The module a thread loads: it registers the handlers and calls serveJobThread (a .ts one through tsx). */
  readonly entry: string | URL;
  /** The heap of a thread, in MB (V8's old generation). */
  readonly memoryMb: number;
  /** A thread without work for this long is closed (it is started again when needed). */
  readonly idleMs: number;
  /** A thread's handler queued work (a commit): wake the runner. */
  readonly onJobsQueued: () => void;
}

/** A thread and the run it is doing. */
interface Slot {
  readonly worker: Worker;
  /** Settles the current run (when the thread dies or is killed). */
  settle: ((outcome: Outcome) => void) | null;
  onStarted: (() => void) | null;
  onProgress: ((fraction: number) => void) | null;
  idleTimer: NodeJS.Timeout | null;
  dead: boolean;
}

/** A new Worker running `entry`; a TypeScript entry (npm run worker, tests) is loaded through tsx. */
function startWorker(options: ThreadOptions): Worker {
  const url = options.entry instanceof URL ? options.entry : new URL(options.entry);
  const settings = {
    resourceLimits: { maxOldGenerationSizeMb: options.memoryMb },
    // A thread's database pool is small (lib/db, poolSize).
    env: { ...process.env, ENHYDRIS_CLUSTER_ROLE: "job-thread" },
  };
  if (!/\.[cm]?ts$/.test(url.pathname)) return new Worker(url, settings);
  const href = JSON.stringify(url.href);
  const code = `import("tsx/esm/api").then(({ tsImport }) => tsImport(${href}, { parentURL: ${href}, tsconfig: "tsconfig.json" }))`
    + ".catch((e) => { console.error(e); process.exit(1); })";
  return new Worker(code, { ...settings, eval: true });
}

function errorOf(data: { name: string; message: string; stack?: string }): Error {
  const error = new Error(data.message);
  error.name = data.name;
  if (data.stack) error.stack = data.stack;
  return error;
}

/** The threads of a runner, by pool: a thread per running job, idle ones kept for the next. */
export class JobThreads {
  private readonly idle = new Map<string, Slot[]>();
  private readonly all = new Set<Slot>();
  private closing = false;

  constructor(private readonly options: ThreadOptions) {}

  /** Runs `job` on an idle thread of `pool`, or a new one. */
  run(pool: string, job: Job, owner: string, onProgress: (fraction: number) => void): Execution {
    const slot = this.take(pool);
    slot.onProgress = onProgress;
    const started = new Promise<void>((resolve) => {
      slot.onStarted = resolve;
    });
    const outcome = new Promise<Outcome>((resolve) => {
      slot.settle = (result) => {
        slot.settle = null;
        slot.onStarted = null;
        slot.onProgress = null;
        resolve(result);
      };
    });
    void outcome.then(() => this.release(pool, slot));
    slot.worker.postMessage({ type: "run", job, owner } satisfies ToThread);
    return {
      started,
      outcome,
      abort: (reason) => {
        if (!slot.dead) slot.worker.postMessage({ type: "abort", reason: reason.message } satisfies ToThread);
      },
      kill: async () => {
        if (slot.dead) return;
        slot.dead = true;
        slot.settle?.({ ok: false, error: new JobInterrupted("its thread was stopped") });
        await slot.worker.terminate();
      },
    };
  }

  /** Closes every thread: idle ones close their database first; busy ones are terminated (kill the runs first). */
  async close(): Promise<void> {
    this.closing = true;
    await Promise.all([...this.all].map((slot) => this.retire(slot)));
  }

  private take(pool: string): Slot {
    const idle = this.idle.get(pool);
    const slot = idle?.pop();
    if (slot) {
      if (slot.idleTimer) clearTimeout(slot.idleTimer);
      slot.idleTimer = null;
      return slot;
    }
    return this.start();
  }

  private start(): Slot {
    const worker = startWorker(this.options);
    const slot: Slot = { worker, settle: null, onStarted: null, onProgress: null, idleTimer: null, dead: false };
    this.all.add(slot);
    worker.on("message", (message: FromThread) => {
      if (message.type === "started") slot.onStarted?.();
      else if (message.type === "progress") slot.onProgress?.(message.fraction);
      else if (message.type === "done") slot.settle?.({ ok: true, result: message.result });
      else if (message.type === "failed") slot.settle?.({ ok: false, error: errorOf(message.error) });
      else if (message.type === "jobs-queued") this.options.onJobsQueued();
    });
    // An uncaught error in the thread (the handler's stray promise, its heap exhausted) ends it.
    worker.on("error", (error: Error & { code?: string }) => {
      slot.dead = true;
      const limit = `${this.options.memoryMb} MB`;
      slot.settle?.({
        ok: false,
        error: error.code === "ERR_WORKER_OUT_OF_MEMORY"
          ? new JobOutOfMemory(`ran out of memory: a job may use at most ${limit} (ENHYDRIS_JOB_MEMORY)`)
          : error,
      });
    });
    worker.on("exit", (code) => {
      slot.dead = true;
      this.all.delete(slot);
      slot.settle?.({ ok: false, error: new Error(`its thread exited (code ${code})`) });
    });
    return slot;
  }

  private release(pool: string, slot: Slot): void {
    if (slot.dead) return;
    if (this.closing) {
      void this.retire(slot);
      return;
    }
    let idle = this.idle.get(pool);
    if (!idle) this.idle.set(pool, (idle = []));
    idle.push(slot);
    slot.idleTimer = setTimeout(() => {
      const list = this.idle.get(pool);
      const at = list?.indexOf(slot) ?? -1;
      if (at >= 0) list!.splice(at, 1);
      void this.retire(slot);
    }, this.options.idleMs);
    slot.idleTimer.unref();
  }

  /** Ends a thread: an idle one closes its database connections first (at most 2 s), a busy one is terminated. */
  private async retire(slot: Slot): Promise<void> {
    if (slot.idleTimer) clearTimeout(slot.idleTimer);
    if (slot.dead) return;
    if (!slot.settle) {
      const closed = new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, 2_000);
        slot.worker.on("message", (message: FromThread) => {
          if (message.type === "closed") {
            clearTimeout(timer);
            resolve();
          }
        });
      });
      slot.worker.postMessage({ type: "close" } satisfies ToThread);
      await closed;
    }
    slot.dead = true;
    await slot.worker.terminate();
  }
}
