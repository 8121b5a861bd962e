// The multi-process server (docs/decisions/0016-multi-process-server.md). server.mjs's primary
// process serves nothing itself: it forks ENHYDRIS_WORKERS workers, accepts the connections on
// the port and hands each to a worker in turn (see `dispatcher`), restarts a worker that dies, answers
// the workers' requests for the cluster's metrics, relays job wake-ups to the one worker that
// runs the job runner, and on SIGTERM/SIGINT has every worker drain and stop.
//
// Roles: the first worker is the "lead": it applies the migrations at start-up, loads the demo
// data and runs the job runner (lib/server/startup.ts); the others ("followers") are forked once the
// lead listens, so they never see an older schema. A lead that dies is replaced by a new lead.
import cluster from "node:cluster";
import net from "node:net";
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
  /** worker → primary: I serve connections now. */
  ready: "enhydris:ready",
  /** primary → worker: a new connection (the socket comes with the message); worker → primary: taken. */
  connection: "enhydris:connection",
  connectionTaken: "enhydris:connection-taken",
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

/** Connections accepted while no worker serves (one restarting) wait, up to this many. */
const MAX_WAITING_CONNECTIONS = 1024;

/**
 * Hands the primary's connections to the workers in turn. node:cluster's own round-robin loses a
 * connection it had sent to a worker that dies before taking it: the primary keeps its copy
 * open and the client waits forever. Here a connection is accepted paused (nothing of it read),
 * sent with the primary's copy kept open until the worker says it took it, and sent to another
 * worker if this one dies first; so only the connections a dead worker had taken fail.
 * @param {import("pino").Logger} log
 */
function dispatcher(log) {
  /** Worker ids that take connections, in turn. */
  const serving = [];
  let turn = 0;
  /** Connections sent to a worker and not yet taken: worker id → connection id → socket. */
  const sent = new Map();
  /** Connections waiting for a worker. */
  const waiting = [];
  let ids = 0;
  let closed = false;

  const dispatch = (socket) => {
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
    sent.get(workerId).set(id, socket);
    const resend = () => {
      if (sent.get(workerId)?.delete(id)) dispatch(socket);
    };
    if (!worker?.isConnected()) return resend();
    worker.send({ type: MESSAGE.connection, id }, socket, { keepOpen: true }, (error) => error && resend());
  };

  return {
    /** A new connection on the port (accepted with `pauseOnConnect`). */
    accept(socket) {
      socket.on("error", () => {});
      dispatch(socket);
    },
    /** The worker took connection `id`: the primary's copy closes (the worker's stays open). */
    taken(workerId, id) {
      const socket = sent.get(workerId)?.get(id);
      sent.get(workerId)?.delete(id);
      socket?.destroy();
    },
    ready(workerId) {
      if (!serving.includes(workerId)) serving.push(workerId);
      for (const socket of waiting.splice(0)) dispatch(socket);
    },
    /** The worker is gone or stopping: what it had not taken goes to another. */
    gone(workerId) {
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

/**
 * Runs the primary.
 * @param {{ workers: number, port: number, hostname: string, log: import("pino").Logger }} options
 */
export async function runPrimary({ workers, port, hostname, log }) {
  /** @type {Map<number, { role: "lead" | "follower", started: number }>} */
  const roles = new Map();
  let stopping = false;
  /** Consecutive early deaths: a worker that cannot start is not restarted in a tight loop. */
  let earlyDeaths = 0;

  const lead = () => [...roles].find(([, r]) => r.role === "lead")?.[0];

  const fork = (role) => {
    const worker = cluster.fork({ [ROLE_VARIABLE]: role });
    roles.set(worker.id, { role, started: Date.now(), serving: false });
    worker.on("message", (message) => onMessage(worker, message));
    // A message to a worker that has just died fails (EPIPE): its exit is handled below.
    worker.on("error", (error) => log.warn(`worker ${worker.process.pid}: ${error.message}`));
    return worker;
  };

  const connections = dispatcher(log);
  const listener = net.createServer({ pauseOnConnect: true }, (socket) => connections.accept(socket));

  const onMessage = (worker, message) => {
    if (!message || typeof message !== "object") return;
    if (message.type === MESSAGE.connectionTaken) connections.taken(worker.id, message.id);
    else if (message.type === MESSAGE.ready) {
      const role = roles.get(worker.id);
      if (role) role.serving = true;
      if (!stopping) connections.ready(worker.id);
    } else if (message.type === MESSAGE.jobsQueued) {
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
    connections.gone(worker.id);
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
    listener.close();
    connections.close();
    if (roles.size === 0) process.exit(0);
    // A worker still starting cannot take the message yet (it listens once it has loaded: a
    // message before that is lost); the signal stops it, gracefully once it has set its handlers.
    for (const worker of Object.values(cluster.workers ?? {})) {
      if (worker?.isConnected() && roles.get(worker.id)?.serving) worker.send({ type: MESSAGE.shutdown, signal });
      else worker?.process.kill("SIGTERM");
    }
    setTimeout(() => {
      log.warn("workers still running after the shutdown timeout: killing them");
      for (const worker of Object.values(cluster.workers ?? {})) worker?.process.kill("SIGKILL");
      process.exit(1);
    }, SHUTDOWN_MS).unref();
  };
  for (const signal of ["SIGTERM", "SIGINT"]) process.on(signal, () => stopAll(signal));

  // The port is taken first: a port in use stops the server before anything starts, and no
  // listener of a worker (each has private ones) can be given the same port meanwhile.
  // Connections wait (accepted, unread) until the lead has migrated the database and serves.
  await new Promise((resolve) => {
    const failed = (error) => {
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
  // The followers start once the lead serves (or at once if the lead died first: the restart
  // takes the lead's role), so none serves an older schema.
  await new Promise((resolve) => {
    const ready = (worker, message) => {
      if (message?.type !== MESSAGE.ready || roles.get(worker.id)?.role !== "lead") return;
      cluster.off("message", ready);
      resolve(undefined);
    };
    cluster.on("message", ready);
  });
  if (stopping) return;
  for (let i = 1; i < workers; i++) fork("follower");
}

/**
 * In a worker: serves the connections the primary hands over (see `dispatcher`) with `server`,
 * which listens only on a private ephemeral port of 127.0.0.1 (so Node tracks its connections:
 * idle ones close on shutdown, and the request timeouts apply). `onReady` runs when it serves.
 * @param {import("node:http").Server} server
 * @param {(address: import("node:net").AddressInfo) => void} onReady
 */
export function serveHandedConnections(server, onReady) {
  process.on("message", (message, socket) => {
    if (message?.type !== MESSAGE.connection || !socket) return;
    process.send?.({ type: MESSAGE.connectionTaken, id: message.id });
    server.emit("connection", socket);
  });
  server.listen({ port: 0, host: "127.0.0.1", exclusive: true }, () => {
    process.send?.({ type: MESSAGE.ready });
    onReady(server.address());
  });
}
