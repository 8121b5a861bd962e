import { fork, type ChildProcess } from "node:child_process";
import type { Logger } from "pino";

/**
 * The job process (docs/decisions/0009-job-queue.md, 0016-multi-process-server.md): the server's
 * job runner runs in a process of its own (lib/server/jobs-main.ts), never in one that serves
 * HTTP, and its handlers in worker threads of that process. Whoever serves — the primary of the
 * multi-process server, or the one web process with ENHYDRIS_WORKERS=1 and in development —
 * forks it once the database is migrated, forks another when it dies, passes it the web
 * processes' wake-ups, and on shutdown stops it once the web processes have drained (a request
 * in flight may be waiting for a job: "run now" and wait).
 */

/** What the server and the job process say to each other (process messages). */
export const JOB_PROCESS_MESSAGE = {
  /** server → job process: jobs were queued (wake the runner). */
  wake: "enhydris:jobs-queued",
  /** server → job process: stop by `deadline` (epoch ms): give back what does not finish. */
  stop: "enhydris:jobs-stop",
} as const;

/** A job process that dies sooner than this after its start counts as a crash at start-up. */
const EARLY_DEATH_MS = 10_000;

export interface JobProcess {
  /** The process id, while one runs. */
  pid(): number | null;
  /** Passes a wake-up on. */
  wake(): void;
  /** Stops it (it gives back the jobs it cannot finish by `deadline`) and resolves once it has exited. */
  stop(deadline: number): Promise<void>;
}

/** Forks the job process `entry` (the bundle of lib/server/jobs-main.ts) and keeps one running. */
export function superviseJobProcess(options: { entry: string; dev: boolean; log: Logger }): JobProcess {
  const { entry, dev, log } = options;
  let child: ChildProcess | null = null;
  let stopping = false;
  let earlyDeaths = 0;

  const start = () => {
    const started = Date.now();
    const c = fork(entry, [], { env: { ...process.env, ENHYDRIS_CLUSTER_ROLE: "jobs", NODE_ENV: dev ? "development" : "production" } });
    child = c;
    // A message to a process that has just died fails (EPIPE): its exit is handled below.
    c.on("error", (error) => log.warn(`the job process ${c.pid}: ${error.message}`));
    c.on("exit", (code, signal) => {
      if (child === c) child = null;
      if (stopping) return;
      const early = Date.now() - started < EARLY_DEATH_MS;
      earlyDeaths = early ? earlyDeaths + 1 : 0;
      const delay = early ? Math.min(200 * 2 ** earlyDeaths, 30_000) : 0;
      log.warn(`the job process ${c.pid} exited (code ${code}, signal ${signal}): starting another${delay ? ` in ${delay} ms` : ""}`);
      setTimeout(() => {
        if (!stopping) start();
      }, delay);
    });
  };
  start();

  return {
    pid: () => child?.pid ?? null,
    wake() {
      if (child?.connected) child.send({ type: JOB_PROCESS_MESSAGE.wake }, () => undefined);
    },
    stop(deadline) {
      stopping = true;
      const c = child;
      if (!c || c.exitCode !== null || c.signalCode !== null) return Promise.resolve();
      return new Promise<void>((resolve) => {
        const killer = setTimeout(() => c.kill("SIGKILL"), Math.max(0, deadline - Date.now()) + 5_000);
        c.once("exit", () => {
          clearTimeout(killer);
          resolve();
        });
        if (c.connected) c.send({ type: JOB_PROCESS_MESSAGE.stop, deadline }, (error) => error && c.kill("SIGTERM"));
        else c.kill("SIGTERM");
      });
    },
  };
}
