import { createHash } from "node:crypto";
import { availableParallelism } from "node:os";
import { PrismaBetterSQLite3 } from "@prisma/adapter-better-sqlite3";
import { PrismaPg } from "@prisma/adapter-pg";
import pg from "pg";
import { settings } from "@/lib/config";
import { Mutex } from "@/lib/db/mutex";
import { logger } from "@/lib/observability/logger.mjs";
import { deferredCheckpoints, openSqlite, type SqliteDatabase } from "@/lib/db/sqlite";
import { ensurePrivateSqliteFile } from "@/lib/runtime/private-files";
import { connectionName, readConnections, ReplicaSet, routedPrisma, type ReadConnections } from "@/lib/db/replicas";
import { parseDatabaseUrl, type Dialect } from "@/lib/db/url";
import { jobsQueued, watchingQueuedWork } from "@/lib/db/queued-work";
import { activeSnapshot, openSnapshot, type ReadSnapshot, snapshotLimits } from "@/lib/db/snapshot";
import { PrismaClient as SqlitePrismaClient, Prisma } from "@/lib/db/generated/sqlite/client";
import { PrismaClient as PostgresPrismaClient } from "@/lib/db/generated/postgres/client";

export { Prisma };
export { isDatabaseUnavailable, isRequestAborted, isStorageFull } from "@/lib/db/errors";
export { fromPrimary, type ReadConnections } from "@/lib/db/replicas";
export { activeSnapshot, LINGER_IDLE_MS, type ReadSnapshot } from "@/lib/db/snapshot";
/** Both generated clients have the same models; the SQLite one's type stands for both. */
export type PrismaClient = SqlitePrismaClient;
export type Tx = Prisma.TransactionClient;

/**
 * The process's database handles. Metadata goes through Prisma; the records store uses the
 * native driver (`sqlite` connection or `pool`).
 *
 * On PostgreSQL with read replicas (DATABASE_REPLICA_URLS; lib/db/replicas.ts), `prisma`'s
 * model reads and `$queryRaw`, `query()` of reading statements and the records store's reads go
 * where the request's reads go (a replica for safe requests, within the lag limit and the
 * client's own writes); writes, transactions and `fromPrimary()` reads use the primary.
 *
 * SQLite has one writer at a time. Every write of this process — a Prisma transaction or a
 * native records transaction — runs under `writeLock`, so that a native write never waits on
 * the file lock held by a Prisma transaction that is itself waiting for the event loop; writes
 * of other processes (the server's other workers) are waited for asynchronously
 * (withSqliteWriteLock).
 * Reads use their own connections and never see another request's uncommitted writes.
 */
export interface Db {
  readonly dialect: Dialect;
  /** For reads; on PostgreSQL also for single statements. */
  readonly prisma: PrismaClient;
  /** Runs `fn` in a transaction (serialized with every other write on SQLite). */
  write<T>(fn: (tx: Tx) => Promise<T>): Promise<T>;
  /** Serializes native writes with Prisma's on SQLite; runs `fn` directly on PostgreSQL. */
  withWriteLock<T>(fn: () => Promise<T> | T): Promise<T>;
  readonly sqlite: SqliteDatabase | null;
  /** PostgreSQL's pool (the primary's). */
  readonly pool: pg.Pool | null;
  /** PostgreSQL: the native reads of the records store, routed like `query()`. */
  readonly reads: ReadConnections | null;
  /** PostgreSQL with DATABASE_REPLICA_URLS: the read replicas (the server starts their checks). */
  readonly replicas: ReplicaSet<PrismaClient> | null;
  /**
   * Runs a read query (a Prisma.sql fragment) on the native driver, for the hot read paths
   * where Prisma's per-query cost would dominate (docs/decisions/0003-native-hot-reads.md).
   * Integers come back as numbers, booleans as booleans, timestamps as UTC Dates.
   */
  query<T = Record<string, unknown>>(sql: Prisma.Sql): Promise<T[]>;
  /**
   * `query()` with each row an array of its columns in the statement's order, for reads of many
   * rows (an object per row costs several times more than the database's own work). Values are
   * the driver's: integers as numbers, SQLite's booleans as 0/1 and its dates as numbers.
   */
  queryArrays<T extends unknown[] = unknown[]>(sql: Prisma.Sql): Promise<T[]>;
  /**
   * Connections in use, idle, and requests waiting for one (metrics): PostgreSQL's pool, or on
   * SQLite its single writer and the writes waiting for it.
   */
  poolUse(): { inUse: number; idle: number; waiting: number };
  close(): Promise<void>;
}

/** Native column types: int8 as number (all ours are below 2^53), timestamp as UTC. */
const PG_TYPES = {
  getTypeParser: (oid: number, format?: string) =>
    oid === 20 ? (v: string) => Number(v)
      : oid === 1114 ? (v: string) => new Date(`${v.replace(" ", "T")}Z`)
        : pg.types.getTypeParser(oid, format as "text"),
} as pg.CustomTypesConfig;

/** SQLite has no boolean or timestamp types: columns named so are converted (see prisma/schema.prisma). */
const SQLITE_BOOLEAN = /^(is_|can_|hidden$|featured$|publicly_available$)/;
const SQLITE_DATE = /(^|_)(last_modified|date_joined|last_login|created|at)$/;

/** The columns of a statement's rows that need converting (booleans and dates, by name), found once per statement. */
type Conversions = { booleans: string[]; dates: string[] };

function conversionsOf(stmt: ReturnType<SqliteDatabase["prepare"]>): Conversions {
  const names = stmt.columns().map((c) => c.name);
  return { booleans: names.filter((n) => SQLITE_BOOLEAN.test(n)), dates: names.filter((n) => !SQLITE_BOOLEAN.test(n) && SQLITE_DATE.test(n)) };
}

function sqliteRows(rows: Record<string, unknown>[], { booleans, dates }: Conversions): Record<string, unknown>[] {
  if (booleans.length === 0 && dates.length === 0) return rows;
  for (const row of rows) {
    for (const key of booleans) {
      const v = row[key];
      if (v !== null) row[key] = v === 1 || v === true;
    }
    for (const key of dates) {
      const v = row[key];
      if (typeof v === "number") row[key] = new Date(v);
    }
  }
  return rows;
}

/**
 * Across processes (several workers, `npm run worker`, scripts) SQLite's own file lock serializes
 * writers. Its busy handler waits synchronously, which would hold this process's event loop for
 * as long as another process writes; so a write asks for the lock with a short busy timeout and,
 * when it is taken, waits for it asynchronously (backing off up to 25 ms) for up to WRITE_WAIT_MS
 * before giving up. SQLITE_BUSY never reaches a client in between.
 */
const WRITE_ATTEMPT_BUSY_MS = 5;
const WRITE_WAIT_MS = 60_000;
const SQLITE_BUSY_MS = 15_000;
/**
 * The first statement of a Prisma write transaction: a write that touches nothing takes the
 * write lock at once. Prisma begins with a deferred BEGIN, and a transaction that read first and
 * then found another process's newer commit could not upgrade (SQLITE_BUSY, no retry possible).
 */
const TAKE_WRITE_LOCK = "UPDATE timeseries SET id = id WHERE 0";

class WriteLockBusy extends Error {
  constructor(readonly original: unknown) {
    super("the SQLite write lock is held by another process");
  }
}

function isSqliteBusy(error: unknown): boolean {
  const e = error as { code?: unknown; message?: unknown; cause?: unknown } | null;
  if (!e) return false;
  if (e.code === "SQLITE_BUSY" || e.code === "SQLITE_BUSY_SNAPSHOT") return true;
  if (typeof e.message === "string" && /database is locked|SQLITE_BUSY/i.test(e.message)) return true;
  return e.cause !== undefined && e.cause !== error && isSqliteBusy(e.cause);
}

/** Runs `attempt` until it gets the write lock (it throws WriteLockBusy while another process holds it). */
async function withSqliteWriteLock<T>(attempt: () => Promise<T> | T): Promise<T> {
  const deadline = Date.now() + WRITE_WAIT_MS;
  let delay = 1;
  for (;;) {
    try {
      return await attempt();
    } catch (error) {
      if (!(error instanceof WriteLockBusy)) throw error;
      if (Date.now() > deadline) throw error.original;
      await new Promise((resolve) => setTimeout(resolve, delay));
      delay = Math.min(delay * 2, 25);
    }
  }
}

function createSqliteDb(path: string): Db {
  // Before Prisma's connections can create the file with SQLite's own mode (lib/runtime/private-files.ts).
  ensurePrivateSqliteFile(path);
  const lock = new Mutex();
  const adapter = () =>
    new PrismaBetterSQLite3({ url: `file:${path}`, timeout: SQLITE_BUSY_MS }, { timestampFormat: "unixepoch-ms" });
  const reader = new SqlitePrismaClient({ adapter: adapter() });
  const writer = new SqlitePrismaClient({ adapter: adapter() });
  // Prisma's SQLite connections must enforce foreign keys (cascades) like the native one; the
  // writer asks for the write lock briefly (withSqliteWriteLock waits).
  const ready = Promise.all([
    reader.$executeRawUnsafe("PRAGMA foreign_keys = ON"),
    writer.$executeRawUnsafe("PRAGMA foreign_keys = ON"),
    writer.$queryRawUnsafe(`PRAGMA busy_timeout = ${WRITE_ATTEMPT_BUSY_MS}`),
  ]);
  const native = openSqlite(path);
  const checkpoints = deferredCheckpoints(native,
    (error) => logger().error(`SQLite checkpoint failed: ${error instanceof Error ? error.message : String(error)} (not logged again until a checkpoint succeeds)`),
    (failures) => logger().warn(`SQLite checkpoint succeeded after ${failures} failed ${failures === 1 ? "try" : "tries"}`));
  const statements = new Map<string, { stmt: ReturnType<SqliteDatabase["prepare"]>; conversions: Conversions }>();
  const arrayStatements = new Map<string, ReturnType<SqliteDatabase["prepare"]>>();
  /** A native write (fn begins and ends its own transaction, synchronously): a busy lock is waited for asynchronously. */
  const nativeWrite = <T>(fn: () => Promise<T> | T) => withSqliteWriteLock(() => {
    native.pragma(`busy_timeout = ${WRITE_ATTEMPT_BUSY_MS}`);
    try {
      const value = fn();
      return value;
    } catch (error) {
      throw isSqliteBusy(error) && !native.inTransaction ? new WriteLockBusy(error) : error;
    } finally {
      native.pragma(`busy_timeout = ${SQLITE_BUSY_MS}`);
    }
  });
  return {
    dialect: "sqlite",
    prisma: reader,
    write: (fn) => lock.run(async () => {
      await ready;
      return withSqliteWriteLock(() => writer.$transaction(async (tx) => {
        try {
          await tx.$executeRawUnsafe(TAKE_WRITE_LOCK);
        } catch (error) {
          throw isSqliteBusy(error) ? new WriteLockBusy(error) : error;
        }
        return fn(tx);
      }, { timeout: 60_000, maxWait: 60_000 }));
    }),
    withWriteLock: (fn) => lock.run(async () => {
      try {
        return await nativeWrite(fn);
      } finally {
        checkpoints.afterWrite();
      }
    }),
    sqlite: native,
    pool: null,
    reads: null,
    replicas: null,
    async query<T>(sql: Prisma.Sql): Promise<T[]> {
      let prepared = statements.get(sql.sql);
      if (!prepared) {
        const stmt = native.prepare(sql.sql);
        prepared = { stmt, conversions: stmt.reader ? conversionsOf(stmt) : { booleans: [], dates: [] } };
        if (statements.size > 500) statements.clear();
        statements.set(sql.sql, prepared);
      }
      return sqliteRows(prepared.stmt.all(sql.values.map(sqliteValue)) as Record<string, unknown>[], prepared.conversions) as T[];
    },
    async queryArrays<T extends unknown[]>(sql: Prisma.Sql): Promise<T[]> {
      let stmt = arrayStatements.get(sql.sql);
      if (!stmt) {
        stmt = native.prepare(sql.sql).raw(true);
        if (arrayStatements.size > 500) arrayStatements.clear();
        arrayStatements.set(sql.sql, stmt);
      }
      return stmt.all(sql.values.map(sqliteValue)) as T[];
    },
    poolUse() {
      const { held, waiting } = lock.use;
      return { inUse: held ? 1 : 0, idle: held ? 0 : 1, waiting };
    },
    async close() {
      await Promise.all([reader.$disconnect(), writer.$disconnect()]);
      native.close();
    },
  };
}

const statementNames = new Map<string, string>();
function nameStatement(text: string): string {
  const name = `q${createHash("sha1").update(text).digest("hex").slice(0, 16)}`;
  if (statementNames.size > 2000) statementNames.clear();
  statementNames.set(text, name);
  return name;
}

/** Connections of an app instance's workers together, when ENHYDRIS_PG_POOL_SIZE is not set. */
const INSTANCE_CONNECTIONS = 40;
/** The connections of the job process's runner thread and of each of its job threads (lib/jobs/threads.ts). */
const JOB_CONNECTIONS: Record<string, number> = { jobs: 2, "job-thread": 3 };
/** A process's connections by default: never more than this, nor fewer than the smallest. */
const PROCESS_CONNECTIONS = { most: 20, fewest: 5 };

/**
 * ENHYDRIS_PG_POOL_SIZE, or by default a share of INSTANCE_CONNECTIONS: 20 for one process or
 * each of two workers, fewer for each of more (4 workers: 10, 8: 5), so that the instances of a
 * machine with many cores stay under PostgreSQL's max_connections (100 by default).
 * Docs: docs/decisions/0016-multi-process-server.md.
 */
export function poolSize(env: Record<string, string | undefined> = process.env, cores = availableParallelism()): number {
  const given = Number(env.ENHYDRIS_PG_POOL_SIZE);
  const valid = Boolean(env.ENHYDRIS_PG_POOL_SIZE) && Number.isInteger(given) && given > 0;
  // The job process's runner (claims, leases) and each of its threads (one job at a time) need few.
  const job = JOB_CONNECTIONS[env.ENHYDRIS_CLUSTER_ROLE ?? ""];
  if (job) return valid ? Math.min(given, job) : job;
  if (valid) return given;
  // A worker of the multi-process server (its role is set) shares the instance's connections with the others.
  if (!env.ENHYDRIS_CLUSTER_ROLE) return PROCESS_CONNECTIONS.most;
  const workers = Number(env.ENHYDRIS_WORKERS) > 0 ? Math.floor(Number(env.ENHYDRIS_WORKERS)) : Math.max(1, cores);
  return Math.min(PROCESS_CONNECTIONS.most, Math.max(PROCESS_CONNECTIONS.fewest, Math.floor(INSTANCE_CONNECTIONS / workers)));
}

function postgresConnection(url: string): { name: string; pool: pg.Pool; prisma: PrismaClient } {
  const pool = new pg.Pool({
    connectionString: url,
    // JIT compilation costs tens of milliseconds on queries whose row estimates are large but
    // that read little (the chart's edge ranges); it does not pay off for this workload.
    options: "-c jit=off",
    max: poolSize(),
    connectionTimeoutMillis: 5_000,
    idleTimeoutMillis: 30_000,
  });
  // An idle client that loses its server must not crash the process.
  pool.on("error", (err) => logger().warn(`PostgreSQL pool error: ${err.message}`));
  const prisma = new PostgresPrismaClient({ adapter: new PrismaPg(pool) }) as unknown as PrismaClient;
  return { name: connectionName(url), pool, prisma };
}

/** A pool, or the client of a read snapshot. */
type Queryable = { query(config: pg.QueryConfig | pg.QueryArrayConfig): Promise<pg.QueryResult> };

/** Runs a read query as a named statement, so each connection prepares (parses and plans) it once. */
async function runNamed<T>(on: pg.Pool | Queryable, sql: Prisma.Sql, rowMode?: "array"): Promise<T[]> {
  const name = statementNames.get(sql.text) ?? nameStatement(sql.text);
  const config = { name, text: sql.text, values: sql.values, types: PG_TYPES };
  return (rowMode ? await on.query({ ...config, rowMode }) : await on.query(config)).rows as T[];
}

/** The read snapshot a reading statement runs in, if one is current (lib/db/snapshot.ts). */
function snapshotFor(sql: Prisma.Sql): ReadSnapshot | null {
  const snapshot = activeSnapshot();
  return snapshot && onlyReads(sql.text) ? snapshot : null;
}

const readsOnly = new Map<string, boolean>();
/** A statement that only reads (false positives just run on the primary). */
function onlyReads(text: string): boolean {
  let yes = readsOnly.get(text);
  if (yes === undefined) {
    yes = /^\s*(SELECT|WITH)\b/i.test(text) && !/\b(INSERT|UPDATE|DELETE|MERGE|pg_notify|nextval|setval|SHARE)\b/i.test(text);
    if (readsOnly.size > 2000) readsOnly.clear();
    readsOnly.set(text, yes);
  }
  return yes;
}

function createPostgresDb(url: string, replicaUrls: readonly string[], maxLagSeconds: number): Db {
  const primary = postgresConnection(url);
  const { pool } = primary;
  const replicas = replicaUrls.length
    ? new ReplicaSet<PrismaClient>(primary, replicaUrls.map(postgresConnection), url, { maxLagSeconds })
    : null;
  const transaction = <T>(fn: (tx: Tx) => Promise<T>) => primary.prisma.$transaction(fn, { timeout: 60_000, maxWait: 10_000 });
  return {
    dialect: "postgres",
    prisma: replicas ? routedPrisma(replicas, primary.prisma) : primary.prisma,
    write: (fn) => (replicas ? replicas.write(() => transaction(fn)) : transaction(fn)),
    withWriteLock: async (fn) => fn(),
    sqlite: null,
    pool,
    reads: readConnections(pool, replicas),
    replicas,
    async query<T>(sql: Prisma.Sql): Promise<T[]> {
      const snapshot = snapshotFor(sql);
      if (snapshot) return runNamed<T>(snapshot, sql);
      if (!replicas) return runNamed<T>(pool, sql);
      return onlyReads(sql.text) ? replicas.read((c) => runNamed<T>(c.pool, sql)) : replicas.write(() => runNamed<T>(pool, sql));
    },
    async queryArrays<T extends unknown[]>(sql: Prisma.Sql): Promise<T[]> {
      const snapshot = snapshotFor(sql);
      if (snapshot) return runNamed<T>(snapshot, sql, "array");
      if (!replicas) return runNamed<T>(pool, sql, "array");
      return onlyReads(sql.text) ? replicas.read((c) => runNamed<T>(c.pool, sql, "array")) : replicas.write(() => runNamed<T>(pool, sql, "array"));
    },
    poolUse: () => ({ inUse: pool.totalCount - pool.idleCount, idle: pool.idleCount, waiting: pool.waitingCount }),
    async close() {
      await replicas?.close();
      await primary.prisma.$disconnect();
      await pool.end();
    },
  };
}

/** A parameter as better-sqlite3 takes it: booleans as 0/1, Dates as epoch milliseconds. */
export function sqliteValue(v: unknown): unknown {
  if (typeof v === "boolean") return v ? 1 : 0;
  if (v instanceof Date) return v.getTime();
  return v;
}

/** A parameter for pg: Dates in UTC (timestamp columns hold UTC; pg would send local time). */
export function postgresValue(v: unknown): unknown {
  return v instanceof Date ? v.toISOString() : v;
}

/** `write` that wakes the job runners once a transaction that queued work has committed (lib/db/queued-work.ts). */
function wakingRunners(current: Db): Db {
  const write = current.write;
  return {
    ...current,
    async write<T>(fn: (tx: Tx) => Promise<T>): Promise<T> {
      const seen = { queued: false };
      const value = await write((tx) => fn(watchingQueuedWork(tx, seen)));
      if (seen.queued) jobsQueued();
      return value;
    },
  };
}

const KEY = Symbol.for("enhydris.db");
type Holder = { [KEY]?: Db };

/** The process's database (opened on first use, from DATABASE_URL). */
export function db(): Db {
  const holder = globalThis as Holder;
  if (!holder[KEY]) {
    const target = parseDatabaseUrl(settings().databaseUrl);
    const { databaseReplicaUrls, replicaMaxLag } = settings();
    // SQLite has no replicas: DATABASE_REPLICA_URLS is ignored there (start-up says so).
    holder[KEY] = wakingRunners(target.dialect === "sqlite" ? createSqliteDb(target.path) : createPostgresDb(target.url, databaseReplicaUrls, replicaMaxLag));
  }
  return holder[KEY];
}

/**
 * Runs `fn` (a read handler) so that every read it makes sees one committed state: on PostgreSQL
 * in a read snapshot (lib/db/snapshot.ts) held until `fn` returns, and by a body's read of the
 * records that `fn` began until that read has fetched them; within a snapshot already, in that
 * one. SQLite's reads are synchronous on the process's one connection: `fn` runs as it is.
 */
export async function withReadSnapshot<T>(fn: () => Promise<T>): Promise<T> {
  const current = db();
  if (!current.pool || !current.reads || activeSnapshot()) return fn();
  const reads = current.reads;
  const snapshot = await openSnapshot((begin) => reads.connect(begin), snapshotLimits(current.pool, current.pool.options.max ?? 10));
  const release = snapshot.hold();
  try {
    return await snapshot.run(fn);
  } finally {
    release();
  }
}

/** Closes the process's database, for scripts and tests. */
export async function closeDb(): Promise<void> {
  const holder = globalThis as Holder;
  const current = holder[KEY];
  delete holder[KEY];
  await current?.close();
}
