// The multi-process server (docs/decisions/0016-multi-process-server.md). server.mjs's primary
// process serves nothing itself: it forks ENHYDRIS_WORKERS workers that share the port
// (node:cluster hands each new connection to one of them), restarts a worker that dies, answers
// the workers' requests for the cluster's metrics, relays job wake-ups to the one worker that
// runs the job runner, and on SIGTERM/SIGINT has every worker drain and stop.
//
// Roles: the first worker is the "lead": it applies the migrations at start-up, loads the demo
// data and runs the job runner (lib/startup.ts); the others ("followers") are forked once the
// lead listens, so they never see an older schema. A lead that dies is replaced by a new lead.
import cluster from "node:cluster";
import { availableParallelism } from "node:os";
import { clusterMetrics } from "../observability/metrics.mjs";

/** What a worker and the primary say to each other (process messages). */
export const MESSAGE = {
  /** worker → primary → lead: jobs were queued (wake the runner). */
  jobsQueued: "enhydris:jobs-queued",
  /** worker → primary: the cluster's metrics, please; primary → worker: here they are. */
  metricsRequest: "enhydris:metrics-request",
  metricsReply: "enhydris:metrics-reply",
  /** primary → worker: drain and stop (as SIGTERM). */
  shutdown: "enhydris:shutdown",
};

/** The environment variable that names a worker's role. */
export const ROLE_VARIABLE = "ENHYDRIS_CLUSTER_ROLE";

/**
 * ENHYDRIS_WORKERS: the number of worker processes (default: the machine's cores); 1 serves in
 * this one process, without a primary.
 * @param {string | undefined} text
 * @returns {{ workers: number } | { error: string }}
 */
export function workerSetting(text) {
  const value = String(text ?? "").trim();
  if (!value) return { workers: Math.max(1, availableParallelism()) };
  if (!/^\d+$/.test(value) || Number(value) < 1 || Number(value) > 256) {
    return { error: `Invalid setting ENHYDRIS_WORKERS=${JSON.stringify(text)}: expected an integer from 1 to 256.` };
  }
  return { workers: Number(value) };
}

/** A worker that dies sooner than this after its start counts as a crash at start-up. */
const EARLY_DEATH_MS = 10_000;
/** Workers are given this long to drain after SIGTERM before the primary kills them. */
const SHUTDOWN_MS = 55_000;

/**
 * Runs the primary.
 * @param {{ workers: number, log: import("pino").Logger }} options
 */
export async function runPrimary({ workers, log }) {
  /** @type {Map<number, { role: "lead" | "follower", started: number }>} */
  const roles = new Map();
  let stopping = false;
  /** Consecutive early deaths: a worker that cannot start is not restarted in a tight loop. */
  let earlyDeaths = 0;

  const lead = () => [...roles].find(([, r]) => r.role === "lead")?.[0];

  const fork = (role) => {
    const worker = cluster.fork({ [ROLE_VARIABLE]: role });
    roles.set(worker.id, { role, started: Date.now() });
    worker.on("message", (message) => onMessage(worker, message));
    return worker;
  };

  const onMessage = (worker, message) => {
    if (!message || typeof message !== "object") return;
    if (message.type === MESSAGE.jobsQueued) {
      const id = lead();
      if (id !== undefined && id !== worker.id) cluster.workers[id]?.send({ type: MESSAGE.jobsQueued });
    } else if (message.type === MESSAGE.metricsRequest) {
      clusterMetrics().then(
        (body) => worker.isConnected() && worker.send({ type: MESSAGE.metricsReply, id: message.id, body }),
        (error) => worker.isConnected() && worker.send({ type: MESSAGE.metricsReply, id: message.id, error: String(error?.message ?? error) }),
      );
    }
  };

  cluster.on("exit", (worker, code, signal) => {
    const role = roles.get(worker.id);
    roles.delete(worker.id);
    if (stopping || !role) {
      if (stopping && roles.size === 0) {
        log.info("every worker has stopped");
        process.exit(0);
      }
      return;
    }
    const early = Date.now() - role.started < EARLY_DEATH_MS;
    earlyDeaths = early ? earlyDeaths + 1 : 0;
    if (earlyDeaths >= 5) {
      log.fatal(`worker ${worker.process.pid} (${role.role}) died at start-up five times in a row (code ${code}, signal ${signal}): stopping`);
      stopAll("SIGTERM");
      return;
    }
    const delay = early ? Math.min(200 * 2 ** earlyDeaths, 5_000) : 0;
    log.warn(`worker ${worker.process.pid} (${role.role}) exited (code ${code}, signal ${signal}): starting another${delay ? ` in ${delay} ms` : ""}`);
    setTimeout(() => !stopping && fork(role.role), delay);
  });

  const stopAll = (signal) => {
    if (stopping) {
      // A second signal: stop at once.
      for (const worker of Object.values(cluster.workers ?? {})) worker?.process.kill("SIGKILL");
      process.exit(1);
    }
    stopping = true;
    log.info(`${signal}: stopping ${roles.size} worker(s)`);
    if (roles.size === 0) process.exit(0);
    for (const worker of Object.values(cluster.workers ?? {})) {
      if (worker?.isConnected()) worker.send({ type: MESSAGE.shutdown, signal });
      else worker?.process.kill("SIGTERM");
    }
    setTimeout(() => {
      log.warn("workers still running after the shutdown timeout: killing them");
      for (const worker of Object.values(cluster.workers ?? {})) worker?.process.kill("SIGKILL");
      process.exit(1);
    }, SHUTDOWN_MS).unref();
  };
  for (const signal of ["SIGTERM", "SIGINT"]) process.on(signal, () => stopAll(signal));

  log.info(`Starting ${workers} worker processes (ENHYDRIS_WORKERS)`);
  fork("lead");
  // The followers start once the lead has migrated the database and listens (or at once if the
  // lead died first: the restart takes the lead's role).
  await new Promise((resolve) => {
    const listening = (worker) => {
      if (roles.get(worker.id)?.role !== "lead") return;
      cluster.off("listening", listening);
      resolve(undefined);
    };
    cluster.on("listening", listening);
  });
  if (stopping) return;
  for (let i = 1; i < workers; i++) fork("follower");
}
