// The service's Prometheus metrics (prom-client). Plain JavaScript: server.mjs measures every
// request and serves {site}/metrics with them, and the Next bundle (records store, uploads)
// counts into the same objects. One set per process, kept on globalThis, in prom-client's
// global registry: under node:cluster, the primary's AggregatorRegistry collects exactly that
// registry from every worker and adds the workers' values up (see `aggregator` below).
import cluster from "node:cluster";
import client from "prom-client";

const KEY = Symbol.for("enhydris.metrics");

/** Request latency buckets (seconds): API calls take milliseconds, large downloads seconds. */
const LATENCY_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];

/**
 * @typedef {{ inUse: number, idle: number, waiting: number }} PoolUse
 * @typedef {{ queued: number, running: number, failed: number, oldest_queued_age_seconds: number | null }} QueueStats
 * @typedef {object} MetricSources Read when metrics are collected; set by lib/server/metric-sources.ts at start-up
 *   (the queue's are lib/jobs/queue.ts's queueStats()).
 * @property {(() => PoolUse | null) | null} databasePool
 * @property {(() => Promise<QueueStats | null>) | null} queue
 * @property {(() => ReplicaStatus[]) | null} replicas
 * @property {(() => Promise<StorageUse>) | null} storage
 * @typedef {{ name: string, state: "starting" | "ok" | "lagging" | "down", lagSeconds: number | null }} ReplicaStatus
 * @typedef {{ volume: "database" | "media", availableBytes: number, sizeBytes: number }} VolumeUse
 * @typedef {{ volumes: VolumeUse[], databaseBytes: number | null }} StorageUse
 */

const REPLICA_STATES = ["starting", "ok", "lagging", "down"];

function create() {
  const registry = client.register;
  // A worker answers the primary's requests for its metrics (prom-client listens once an
  // AggregatorRegistry exists in the process).
  if (cluster.isWorker) new client.AggregatorRegistry();
  client.collectDefaultMetrics({ register: registry, eventLoopMonitoringPrecision: 10 });
  /** @type {MetricSources} */
  const sources = { databasePool: null, queue: null, replicas: null, storage: null };
  /**
   * A gauge of the job queue's statistics (0 until start-up connects the queue). The queue lives in the
   * database: every worker reads the same numbers, so the cluster aggregate takes the largest.
   * @param {string} name
   * @param {string} help
   * @param {(stats: QueueStats) => number} pick
   */
  const queueGauge = (name, help, pick) => new client.Gauge({
    name, help, aggregator: "max",
    async collect() {
      const stats = await Promise.resolve(sources.queue?.()).catch(() => null);
      this.set(stats ? pick(stats) : 0);
    },
  });
  /** One reading of the storage per scrape for its three gauges (they are collected together). */
  let storageReading = null;
  const readStorage = () => {
    if (!storageReading) {
      storageReading = Promise.resolve(sources.storage?.()).catch(() => null);
      setTimeout(() => { storageReading = null; }, 1000).unref();
    }
    return storageReading;
  };
  /**
   * A gauge of each storage volume (database, media).
   * @param {string} name
   * @param {string} help
   * @param {"min" | "max"} aggregator
   * @param {(use: VolumeUse) => number} pick
   */
  const volumeGauge = (name, help, aggregator, pick) => new client.Gauge({
    name, help, aggregator, labelNames: ["volume"],
    async collect() {
      const use = await readStorage();
      this.reset();
      for (const v of use?.volumes ?? []) this.set({ volume: v.volume }, pick(v));
    },
  });

  return {
    registry,
    sources,
    httpRequests: new client.Counter({
      name: "enhydris_http_requests_total",
      help: "HTTP requests by method, route pattern and status",
      labelNames: ["method", "route", "status"],
    }),
    httpDuration: new client.Histogram({
      name: "enhydris_http_request_duration_seconds",
      help: "Time from a request's arrival to the end of its response, by method, route pattern and status",
      labelNames: ["method", "route", "status"],
      buckets: LATENCY_BUCKETS,
    }),
    recordsWritten: new client.Counter({
      name: "enhydris_records_written_total",
      help: "Time-series records stored (uploads, legacy tsdata, demo data)",
    }),
    recordsRead: new client.Counter({
      name: "enhydris_records_read_total",
      help: "Time-series records read from the records store (downloads, statistics)",
    }),
    uploads: new client.Counter({
      name: "enhydris_uploads_total",
      help: "Record uploads by outcome: stored, dry_run, or rejected (line or storage errors)",
      labelNames: ["outcome"],
    }),
    databasePool: new client.Gauge({
      name: "enhydris_db_pool_connections",
      help: "Database connections by state: PostgreSQL pool clients in use, idle, and requests waiting for one; "
        + "on SQLite the single writer (in use or idle) and the writes waiting for it",
      labelNames: ["state"],
      collect() {
        const use = sources.databasePool?.();
        this.reset();
        if (!use) return;
        this.set({ state: "in_use" }, use.inUse);
        this.set({ state: "idle" }, use.idle);
        this.set({ state: "waiting" }, use.waiting);
      },
    }),
    dbQueries: new client.Counter({
      name: "enhydris_db_queries_total",
      help: "With read replicas: statements and transactions sent, by target (primary or replica)",
      labelNames: ["target"],
    }),
    dbPrimaryReads: new client.Counter({
      name: "enhydris_db_primary_reads_total",
      help: "With read replicas: reads sent to the primary, by reason (no_request, primary_only, unsafe_method, "
        + "own_write, replica_down, replica_lagging, replica_failed)",
      labelNames: ["reason"],
    }),
    replicaLag: new client.Gauge({
      name: "enhydris_db_replica_lag_seconds",
      help: "How far behind the primary each read replica's data is, as last checked",
      labelNames: ["replica"],
      aggregator: "max",
      collect() {
        this.reset();
        for (const r of sources.replicas?.() ?? []) if (r.lagSeconds !== null) this.set({ replica: r.name }, r.lagSeconds);
      },
    }),
    replicaState: new client.Gauge({
      name: "enhydris_db_replica_state",
      help: "Each read replica's state: 1 for the current one of starting, ok (read from), lagging (beyond ENHYDRIS_REPLICA_MAX_LAG) and down",
      labelNames: ["replica", "state"],
      aggregator: "max",
      collect() {
        this.reset();
        for (const r of sources.replicas?.() ?? []) for (const state of REPLICA_STATES) this.set({ replica: r.name, state }, r.state === state ? 1 : 0);
      },
    }),
    jobQueueDepth: queueGauge("enhydris_job_queue_depth", "Jobs queued (waiting to run, retries included)", (s) => s.queued),
    jobQueueLag: queueGauge("enhydris_job_queue_lag_seconds", "Age of the oldest queued job (retries waiting for their backoff included)", (s) => s.oldest_queued_age_seconds ?? 0),
    storageAvailable: volumeGauge("enhydris_storage_available_bytes",
      "Bytes free for the service on the file system of each volume: database (SQLite's file) and media (ENHYDRIS_MEDIA_DIR)", "min", (v) => v.availableBytes),
    storageSize: volumeGauge("enhydris_storage_size_bytes",
      "Size of the file system of each volume: database (SQLite's file) and media (ENHYDRIS_MEDIA_DIR)", "max", (v) => v.sizeBytes),
    databaseSize: new client.Gauge({
      name: "enhydris_database_size_bytes",
      help: "The database's size on disk: SQLite's file and write-ahead log, or PostgreSQL's pg_database_size",
      aggregator: "max",
      async collect() {
        const use = await readStorage();
        this.reset();
        if (use?.databaseBytes != null) this.set(use.databaseBytes);
      },
    }),
    jobFailures: queueGauge("enhydris_job_failures_24h", "Jobs that failed for good over the last 24 hours", (s) => s.failed),
  };
}

/** The primary's aggregator (node:cluster), created on first use. */
let aggregator = null;

/**
 * In the primary: every worker's metrics in Prometheus text, added up (counters, histograms) or
 * as each metric's `aggregator` says (gauges of shared state: the largest).
 * @returns {Promise<string>}
 */
export function clusterMetrics() {
  aggregator ??= new client.AggregatorRegistry();
  return aggregator.clusterMetrics();
}

/** The Prometheus text format's content type. */
export const METRICS_CONTENT_TYPE = client.register.contentType;

/** The process's metrics (created on first use). */
export function metrics() {
  return (globalThis[KEY] ??= create());
}

const METHODS = new Set(["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]);

/**
 * Counts a finished request. `route` is a pattern ("/api/stations/:sid/"), never a raw path,
 * so that the number of series stays bounded.
 * @param {string} method
 * @param {string} route
 * @param {number} status
 * @param {number} seconds
 */
export function observeRequest(method, route, status, seconds) {
  const m = metrics();
  const labels = { method: METHODS.has(method) ? method : "other", route, status: String(status) };
  m.httpRequests.inc(labels);
  m.httpDuration.observe(labels, seconds);
}

/**
 * Counts a record upload by outcome and returns `value` (the outcome or the error to throw).
 * @template T
 * @param {"stored" | "dry_run" | "rejected"} outcome
 * @param {T} value
 * @returns {T}
 */
export function countUpload(outcome, value) {
  metrics().uploads.inc({ outcome });
  return value;
}
