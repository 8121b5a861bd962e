// The multi-process server (docs/decisions/0016-multi-process-server.md). The primary process
// serves nothing itself: it forks ENHYDRIS_WORKERS web workers, accepts the connections on the
// port and hands each to a worker in turn (see `dispatcher`), restarts a worker that dies, answers
// the workers' requests for the cluster's metrics, runs the job process (lib/server/job-process.ts)
// and relays the workers' job wake-ups to it, and on SIGTERM/SIGINT has every worker drain and
// stop, then the job process.
//
// Roles: the first worker is the "lead": it applies the migrations at start-up and loads the demo
// data (lib/server/startup.ts); the others ("followers") and the job process are started once the
// lead listens, so they never see an older schema. A lead that dies is replaced by a new lead.
import cluster, { type Worker } from "node:cluster";
import net from "node:net";
import type { Server } from "node:http";
import type { Logger } from "pino";
import { clusterMetrics } from "@/lib/observability/metrics.mjs";
import { superviseJobProcess, type JobProcess } from "@/lib/server/job-process";

/** What a worker and the primary say to each other (process messages). */
export const MESSAGE = {
  /** worker → primary → job process: jobs were queued (wake the runner). */
  jobsQueued: "enhydris:jobs-queued",
  /** worker → primary: the cluster's metrics, please; primary → worker: here they are. */
  metricsRequest: "enhydris:metrics-request",
  metricsReply: "enhydris:metrics-reply",
  /** primary → worker: drain and stop (as SIGTERM). */
  shutdown: "enhydris:shutdown",
  /** worker → primary: I serve connections now. */
  ready: "enhydris:ready",
  /** primary → worker: a new connection (the socket comes with the message); worker → primary: taken. */
  connection: "enhydris:connection",
  connectionTaken: "enhydris:connection-taken",
} as const;

/** The environment variable that names a process's role ("lead", "follower"; "jobs" for the job process). */
export const ROLE_VARIABLE = "ENHYDRIS_CLUSTER_ROLE";

/** A worker that dies sooner than this after its start counts as a crash at start-up. */
const EARLY_DEATH_MS = 10_000;
/** Workers are given this long to drain after SIGTERM before the primary kills them. */
const SHUTDOWN_MS = 55_000;
/**
 * The job process is stopped once the web workers have drained, and must have given back what it
 * could not finish by this long after the signal (or 5 s after the drain, if that took longer).
 */
export const JOBS_STOPPED_MS = 24_000;

/** Connections accepted while no worker serves (one restarting) wait, up to this many. */
const MAX_WAITING_CONNECTIONS = 1024;

/**
 * Hands the primary's connections to the workers in turn. node:cluster's own round-robin loses a
 * connection it had sent to a worker that dies before taking it: the primary keeps its copy
 * open and the client waits forever. Here a connection is accepted paused (nothing of it read),
 * sent with the primary's copy kept open until the worker says it took it, and sent to another
 * worker if this one dies first; so only the connections a dead worker had taken fail.
 */
function dispatcher(log: Logger) {
  /** Worker ids that take connections, in turn. */
  const serving: number[] = [];
  let turn = 0;
  /** Connections sent to a worker and not yet taken: worker id → connection id → socket. */
  const sent = new Map<number, Map<number, net.Socket>>();
  /** Connections waiting for a worker. */
  const waiting: net.Socket[] = [];
  let ids = 0;
  let closed = false;

  const dispatch = (socket: net.Socket): void => {
    if (socket.destroyed) return;
    if (closed) return void socket.destroy();
    if (serving.length === 0) {
      if (waiting.length >= MAX_WAITING_CONNECTIONS) socket.destroy();
      else waiting.push(socket);
      return;
    }
    const workerId = serving[turn++ % serving.length];
    const worker = cluster.workers?.[workerId];
    const id = ++ids;
    if (!sent.has(workerId)) sent.set(workerId, new Map());
    sent.get(workerId)!.set(id, socket);
    const resend = () => {
      if (sent.get(workerId)?.delete(id)) dispatch(socket);
    };
    if (!worker?.isConnected()) return resend();
    worker.send({ type: MESSAGE.connection, id }, socket, { keepOpen: true }, (error) => error && resend());
  };

  return {
    /** A new connection on the port (accepted with `pauseOnConnect`). */
    accept(socket: net.Socket) {
      socket.on("error", () => {});
      dispatch(socket);
    },
    /** The worker took connection `id`: the primary's copy closes (the worker's stays open). */
    taken(workerId: number, id: number) {
      const socket = sent.get(workerId)?.get(id);
      sent.get(workerId)?.delete(id);
      socket?.destroy();
    },
    ready(workerId: number) {
      if (!serving.includes(workerId)) serving.push(workerId);
      for (const socket of waiting.splice(0)) dispatch(socket);
    },
    /** The worker is gone or stopping: what it had not taken goes to another. */
    gone(workerId: number) {
      const index = serving.indexOf(workerId);
      if (index >= 0) serving.splice(index, 1);
      const untaken = [...(sent.get(workerId)?.values() ?? [])];
      sent.delete(workerId);
      if (untaken.length) log.info(`${untaken.length} connection(s) not taken by worker ${workerId} handed to another`);
      for (const socket of untaken) dispatch(socket);
    },
    /** Shutdown: no worker takes new connections; those none took are closed unanswered. */
    close() {
      closed = true;
      serving.length = 0;
      for (const socket of waiting.splice(0)) socket.destroy();
    },
  };
}

export interface PrimaryOptions {
  readonly workers: number;
  readonly port: number;
  readonly hostname: string;
  readonly log: Logger;
  /** The job process's entry (jobs.mjs), or null when this server runs no jobs (ENHYDRIS_JOB_RUNNER=false). */
  readonly jobs: string | null;
}

/** Runs the primary. */
export async function runPrimary({ workers, port, hostname, log, jobs: jobsEntry }: PrimaryOptions): Promise<void> {
  const roles = new Map<number, { role: "lead" | "follower"; started: number; serving: boolean }>();
  let stopping = false;
  /** Consecutive early deaths: a worker that cannot start is not restarted in a tight loop. */
  let earlyDeaths = 0;
  let jobs: JobProcess | null = null;

  const fork = (role: "lead" | "follower") => {
    const worker = cluster.fork({ [ROLE_VARIABLE]: role });
    roles.set(worker.id, { role, started: Date.now(), serving: false });
    worker.on("message", (message) => onMessage(worker, message));
    // A message to a worker that has just died fails (EPIPE): its exit is handled below.
    worker.on("error", (error) => log.warn(`worker ${worker.process.pid}: ${error.message}`));
    return worker;
  };

  const connections = dispatcher(log);
  const listener = net.createServer({ pauseOnConnect: true }, (socket) => connections.accept(socket));

  const onMessage = (worker: Worker, message: { type?: string; id?: number } | null) => {
    if (!message || typeof message !== "object") return;
    if (message.type === MESSAGE.connectionTaken) connections.taken(worker.id, message.id!);
    else if (message.type === MESSAGE.ready) {
      const role = roles.get(worker.id);
      if (role) role.serving = true;
      if (!stopping) connections.ready(worker.id);
    } else if (message.type === MESSAGE.jobsQueued) {
      jobs?.wake();
    } else if (message.type === MESSAGE.metricsRequest) {
      clusterMetrics().then(
        (body: string) => worker.isConnected() && worker.send({ type: MESSAGE.metricsReply, id: message.id, body }),
        (error: Error) => worker.isConnected() && worker.send({ type: MESSAGE.metricsReply, id: message.id, error: String(error?.message ?? error) }),
      );
    }
  };

  let signalled = 0;
  /** Once every web worker has stopped: the job process stops, then the primary. */
  const stopJobsAndExit = () => {
    const deadline = Math.max(Date.now() + 5_000, signalled + JOBS_STOPPED_MS);
    void (jobs?.stop(deadline) ?? Promise.resolve()).then(() => {
      log.info("every worker has stopped");
      process.exit(0);
    });
  };

  cluster.on("exit", (worker, code, signal) => {
    connections.gone(worker.id);
    const role = roles.get(worker.id);
    roles.delete(worker.id);
    if (stopping || !role) {
      if (stopping && roles.size === 0) stopJobsAndExit();
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

  const killAll = () => {
    for (const worker of Object.values(cluster.workers ?? {})) worker?.process.kill("SIGKILL");
    const pid = jobs?.pid();
    if (pid) process.kill(pid, "SIGKILL");
  };

  const stopAll = (signal: string) => {
    if (stopping) {
      // A second signal: stop at once.
      killAll();
      process.exit(1);
    }
    stopping = true;
    signalled = Date.now();
    log.info(`${signal}: stopping ${roles.size} worker(s)`);
    listener.close();
    connections.close();
    if (roles.size === 0) return stopJobsAndExit();
    // A worker still starting cannot take the message yet (it listens once it has loaded: a
    // message before that is lost); the signal stops it, gracefully once it has set its handlers.
    for (const worker of Object.values(cluster.workers ?? {})) {
      if (worker?.isConnected() && roles.get(worker.id)?.serving) worker.send({ type: MESSAGE.shutdown, signal });
      else worker?.process.kill("SIGTERM");
    }
    setTimeout(() => {
      log.warn("workers still running after the shutdown timeout: killing them");
      killAll();
      process.exit(1);
    }, SHUTDOWN_MS).unref();
  };
  for (const signal of ["SIGTERM", "SIGINT"] as const) process.on(signal, () => stopAll(signal));

  // The port is taken first: a port in use stops the server before anything starts, and no
  // listener of a worker (each has private ones) can be given the same port meanwhile.
  // Connections wait (accepted, unread) until the lead has migrated the database and serves.
  await new Promise((resolve) => {
    const failed = (error: Error) => {
      log.fatal(`cannot listen on ${hostname}:${port}: ${error.message}`);
      process.exit(1);
    };
    listener.once("error", failed);
    listener.listen(port, hostname, () => {
      listener.off("error", failed);
      resolve(undefined);
    });
  });
  listener.on("error", (error) => log.error(`the listener on ${hostname}:${port}: ${error.message}`));
  log.info(`Enhydris listening on http://${hostname === "0.0.0.0" ? "localhost" : hostname}:${port}/ (${workers} worker processes, ENHYDRIS_WORKERS)`);
  fork("lead");
  // The followers and the job process start once the lead serves (or at once if the lead died
  // first: the restart takes the lead's role), so none sees an older schema.
  await new Promise((resolve) => {
    const ready = (worker: Worker, message: { type?: string } | null) => {
      if (message?.type !== MESSAGE.ready || roles.get(worker.id)?.role !== "lead") return;
      cluster.off("message", ready);
      resolve(undefined);
    };
    cluster.on("message", ready);
  });
  if (stopping) return;
  for (let i = 1; i < workers; i++) fork("follower");
  if (jobsEntry) jobs = superviseJobProcess({ entry: jobsEntry, dev: false, log });
}

/**
 * In a worker: serves the connections the primary hands over (see `dispatcher`) with `server`,
 * which listens only on a private ephemeral port of 127.0.0.1 (so Node tracks its connections:
 * idle ones close on shutdown, and the request timeouts apply). `onReady` runs when it serves.
 */
export function serveHandedConnections(server: Server, onReady: () => void): void {
  process.on("message", (message: { type?: string; id?: number } | null, socket?: net.Socket) => {
    if (message?.type !== MESSAGE.connection || !socket) return;
    process.send?.({ type: MESSAGE.connectionTaken, id: message.id });
    server.emit("connection", socket);
  });
  server.listen({ port: 0, host: "127.0.0.1", exclusive: true }, () => {
    process.send?.({ type: MESSAGE.ready });
    onReady();
  });
}
