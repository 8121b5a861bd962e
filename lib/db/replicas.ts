import { AsyncLocalStorage } from "node:async_hooks";
import pg from "pg";
import { hasErrorCode, isDatabaseUnavailable } from "@/lib/db/errors";
import { readAfterCookie } from "@/lib/db/read-after.mjs";
import { logger, requestContext, type RequestContext } from "@/lib/observability/logger.mjs";
import { metrics } from "@/lib/observability/metrics.mjs";
import { activeSnapshot } from "@/lib/db/snapshot";

/**
 * Read replicas on PostgreSQL (DATABASE_REPLICA_URLS; docs/decisions/0012-read-replicas.md).
 *
 * Reads of safe requests (GET, HEAD, OPTIONS) go to a replica that is up, within the lag limit
 * and has replayed the client's own writes; everything else — writes, transactions, unsafe
 * requests, background work, and reads that must be current (authentication, health) — goes to
 * the primary. A request keeps the target of its first read, and only ever moves from a replica
 * to the primary, so that one response never mixes a newer state with an older one.
 *
 * Read-your-writes: after a write in a request, the primary's WAL insert position (at or past
 * the write's commit) is remembered for the client (the user id) in this process, broadcast to
 * every other process with NOTIFY, and sent to the client in the read-after cookie. A read then
 * goes to a replica only once that replica has replayed the highest of those positions.
 *
 * Replica health and lag are checked in the background (two tiny queries per interval); a
 * replica query that fails because the replica went away is retried on the primary.
 */

export type Lsn = bigint;

const NONE: Lsn = 0n;
/** FFFFFFFF/FFFFFFFF: a position no replica reaches (the client's reads go to the primary). */
const UNREACHABLE: Lsn = 2n ** 64n - 1n;

export function parseLsn(text: unknown): Lsn | null {
  if (typeof text !== "string") return null;
  const m = /^([0-9A-F]{1,8})\/([0-9A-F]{1,8})$/i.exec(text);
  return m ? (BigInt(`0x${m[1]}`) << 32n) | BigInt(`0x${m[2]}`) : null;
}

export function formatLsn(lsn: Lsn): string {
  return `${(lsn >> 32n).toString(16).toUpperCase()}/${(lsn & 0xffffffffn).toString(16).toUpperCase()}`;
}

const max = (a: Lsn, b: Lsn) => (a > b ? a : b);

/** A database server's handles: its pool and a Prisma client on that pool. */
export interface Connection<P> {
  /** host:port/database, for logs and metric labels (no credentials). */
  readonly name: string;
  readonly pool: pg.Pool;
  readonly prisma: P;
}

export type ReplicaState = "starting" | "ok" | "lagging" | "down";

export interface ReplicaStatus {
  readonly name: string;
  readonly state: ReplicaState;
  /** How far behind the primary its data is (seconds); null until first known. */
  readonly lagSeconds: number | null;
}

/** Why a read went to the primary (the label of enhydris_db_primary_reads_total). */
export type PrimaryReason =
  | "no_request" | "primary_only" | "unsafe_method" | "own_write" | "replica_down" | "replica_lagging" | "replica_failed";

interface Replica<P> extends Connection<P> {
  state: ReplicaState;
  /** The last WAL position it had replayed when checked. */
  replayed: Lsn | null;
  lagSeconds: number | null;
  checking: boolean;
}

/** Where the reads of one request go, kept in its request context. */
interface Routing<P> {
  /** undefined: not decided yet; null: the primary. */
  pinned: Replica<P> | null | undefined;
  reason: PrimaryReason;
  /** The read-after cookie's position, and the request's own writes. */
  readAfter: Lsn;
}

export interface ReplicaOptions {
  /** Replicas further behind than this are not read from (ENHYDRIS_REPLICA_MAX_LAG). */
  readonly maxLagSeconds: number;
  /** The background check's interval. */
  readonly checkMs?: number;
}

const CHANNEL = "enhydris_writes";
const CHECK_DEADLINE_MS = 1_000;
const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);
/** Recovery conflicts (a long read on a standby cancelled by replay) are retried on the primary. */
const RETRY_ON_PRIMARY = new Set(["40001"]);
/** A statement a replica refuses because it writes: it belongs on the primary. */
const READ_ONLY_TRANSACTION = new Set(["25006"]);

const PRIMARY_SCOPE = Symbol.for("enhydris.db.primaryScope");
type ScopeHolder = { [PRIMARY_SCOPE]?: AsyncLocalStorage<true> };

function primaryScope(): AsyncLocalStorage<true> {
  // On globalThis: every bundle of the process must see the same scope.
  return ((globalThis as ScopeHolder)[PRIMARY_SCOPE] ??= new AsyncLocalStorage<true>());
}

/**
 * Runs `fn` with every read on the primary: reads that must see the latest state whatever the
 * client wrote (tokens and sessions, which a logout deletes; the user's permissions; health).
 */
export function fromPrimary<T>(fn: () => T): T {
  return primaryScope().run(true, fn);
}

function withDeadline<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  promise.catch(() => undefined);
  return Promise.race([promise, new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
  })]).finally(() => clearTimeout(timer));
}

export class ReplicaSet<P> {
  private readonly replicas: Replica<P>[];
  private readonly maxLag: number;
  private readonly checkMs: number;
  /** The primary's WAL write position over time (a sample when it changed): the replicas' lag in seconds. */
  private samples: { at: number; lsn: Lsn }[] = [];
  /** Each recent writer's (user id) highest write position, from this process and, by NOTIFY, the others. */
  private readonly writers = new Map<number, { lsn: Lsn; at: number }>();
  /**
   * What other processes may have written before this one listened for their writes (the
   * primary's position when LISTEN started); unreachable while not listening.
   */
  private othersBefore: Lsn = UNREACHABLE;
  private next = 0;
  private timer: NodeJS.Timeout | null = null;
  private listener: pg.Client | null = null;
  private started = false;
  private closed = false;

  constructor(private readonly primary: Connection<P>, replicas: readonly Connection<P>[], private readonly primaryUrl: string, options: ReplicaOptions) {
    this.replicas = replicas.map((r) => ({ ...r, state: "starting", replayed: null, lagSeconds: null, checking: false }));
    this.maxLag = options.maxLagSeconds;
    this.checkMs = options.checkMs ?? 500;
  }

  /**
   * How long a write position matters (the read-after cookie's age and this process's memory of
   * writers): past the lag limit plus two checks, a replica that has not replayed it is not used.
   */
  get memorySeconds(): number {
    return this.maxLag + 5;
  }

  /** Starts the background checks and the listener for other processes' writes (the server does, at start-up). */
  start(): void {
    if (this.started || this.closed) return;
    this.started = true;
    const loop = async () => {
      await this.check().catch((e) => logger().warn(`read replicas: check failed: ${(e as Error).message}`));
      if (!this.closed) this.timer = setTimeout(loop, this.checkMs).unref();
    };
    void loop();
    this.listen();
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    await this.listener?.end().catch(() => undefined);
    await Promise.all(this.replicas.map(async (r) => {
      await (r.prisma as { $disconnect(): Promise<void> }).$disconnect();
      await r.pool.end();
    }));
  }

  status(): ReplicaStatus[] {
    return this.replicas.map(({ name, state, lagSeconds }) => ({ name, state, lagSeconds }));
  }

  /** Runs a read where the current request's reads go; on a replica that fails, again on the primary. */
  async read<T>(run: (connection: Connection<P>) => Promise<T>): Promise<T> {
    const replica = this.choose();
    const m = metrics();
    if (!replica) {
      m.dbQueries.inc({ target: "primary" });
      return run(this.primary);
    }
    m.dbQueries.inc({ target: "replica" });
    try {
      return await run(replica);
    } catch (error) {
      // A write the caller took for a read: the primary's, and the client's own write.
      if (hasErrorCode(error, READ_ONLY_TRANSACTION)) return this.write(() => run(this.primary));
      if (!isDatabaseUnavailable(error) && !hasErrorCode(error, RETRY_ON_PRIMARY)) throw error;
      if (isDatabaseUnavailable(error)) this.setState(replica, "down", (error as Error).message);
      this.pinPrimary("replica_failed");
      m.dbQueries.inc({ target: "primary" });
      return run(this.primary);
    }
  }

  /** Runs a write on the primary and remembers it as the client's (read-your-writes). */
  async write<T>(run: () => Promise<T>): Promise<T> {
    metrics().dbQueries.inc({ target: "primary" });
    const value = await run();
    await this.noteWrite();
    return value;
  }

  /**
   * After a write has committed in a request: the rest of the request reads from the primary,
   * and the client's next reads go to a replica only once it has replayed this write.
   */
  async noteWrite(): Promise<void> {
    const context = requestContext();
    if (!context) return;
    const routing = this.routingOf(context);
    routing.pinned = null;
    routing.reason = "own_write";
    const userId = context.userId;
    let lsn: Lsn;
    try {
      // The insert position is at or past the end of every record committed so far (with
      // synchronous_commit off, the write position may not be yet).
      const { rows } = userId === null
        ? await this.primary.pool.query("SELECT pg_current_wal_insert_lsn()::text AS lsn")
        : await this.primary.pool.query({
          text: `SELECT w.lsn::text AS lsn, pg_notify($1, $2 || ' ' || w.lsn::text) AS sent
            FROM (SELECT pg_current_wal_insert_lsn() AS lsn) AS w`,
          values: [CHANNEL, String(userId)],
        });
      lsn = parseLsn(rows[0].lsn) ?? UNREACHABLE;
    } catch (error) {
      // The write is done; its position is not known: the client reads from the primary for a while.
      logger().warn(`read replicas: the position of a write is unknown: ${(error as Error).message}`);
      lsn = UNREACHABLE;
    }
    routing.readAfter = max(routing.readAfter, lsn);
    context.setReadAfter = readAfterCookie(formatLsn(routing.readAfter), this.memorySeconds);
    if (userId !== null) this.rememberWriter(userId, lsn);
  }

  private rememberWriter(userId: number, lsn: Lsn): void {
    const known = this.writers.get(userId);
    this.writers.set(userId, { lsn: known ? max(known.lsn, lsn) : lsn, at: Date.now() });
  }

  private routingOf(context: RequestContext): Routing<P> {
    return ((context as { routing?: Routing<P> }).routing ??= {
      pinned: undefined, reason: "own_write", readAfter: parseLsn(context.readAfter) ?? NONE,
    });
  }

  private pinPrimary(reason: PrimaryReason): void {
    const context = requestContext();
    if (context) Object.assign(this.routingOf(context), { pinned: null, reason });
    metrics().dbPrimaryReads.inc({ reason });
  }

  /** The replica for the current request's next read, or null for the primary (counted by reason). */
  private choose(): Replica<P> | null {
    const primary = (reason: PrimaryReason) => {
      metrics().dbPrimaryReads.inc({ reason });
      return null;
    };
    if (primaryScope().getStore()) return primary("primary_only");
    const context = requestContext();
    if (!context) return primary("no_request");
    if (!SAFE_METHODS.has(context.method ?? "")) return primary("unsafe_method");
    const routing = this.routingOf(context);
    if (routing.pinned === null) return primary(routing.reason);
    // The client's writes: its cookie, this request's, and (for a user) those of every process.
    let required = routing.readAfter;
    if (context.userId !== null) {
      required = max(required, this.othersBefore);
      const writer = this.writers.get(context.userId);
      if (writer) required = max(required, writer.lsn);
    }
    const pinned = routing.pinned;
    if (pinned) {
      if (pinned.state === "ok" && pinned.replayed! >= required) return pinned;
      routing.pinned = null;
      routing.reason = pinned.state === "ok" ? "own_write" : pinned.state === "lagging" ? "replica_lagging" : "replica_down";
      return primary(routing.reason);
    }
    let behind = false;
    let lagging = false;
    for (let i = 0; i < this.replicas.length; i++) {
      const replica = this.replicas[(this.next + i) % this.replicas.length];
      if (replica.state === "lagging") lagging = true;
      if (replica.state !== "ok") continue;
      if (replica.replayed! >= required) {
        this.next = (this.next + i + 1) % this.replicas.length;
        routing.pinned = replica;
        return replica;
      }
      behind = true;
    }
    routing.pinned = null;
    routing.reason = behind ? "own_write" : lagging ? "replica_lagging" : "replica_down";
    return primary(routing.reason);
  }

  private setState(replica: Replica<P>, state: ReplicaState, why: string): void {
    if (replica.state === state) return;
    const line = `read replica ${replica.name}: ${replica.state} → ${state}${why ? ` (${why})` : ""}`;
    if (state === "ok") logger().info(line);
    else logger().warn(line);
    replica.state = state;
  }

  /** One background check: the primary's position, then each replica's. */
  private async check(): Promise<void> {
    const at = Date.now();
    try {
      const { rows } = await withDeadline(this.primary.pool.query("SELECT pg_current_wal_lsn()::text AS lsn"), CHECK_DEADLINE_MS);
      this.sample(at, parseLsn(rows[0].lsn)!);
    } catch {
      // The primary is away: the replicas are judged by the positions seen before.
    }
    await Promise.all(this.replicas.map((r) => this.checkReplica(r)));
    for (const [user, writer] of this.writers) if (at - writer.at > this.memorySeconds * 1000) this.writers.delete(user);
  }

  private sample(at: number, lsn: Lsn): void {
    const last = this.samples.at(-1);
    if (!last || lsn > last.lsn) this.samples.push({ at, lsn });
    // Keep enough history to tell any lag up to the limit (and ten minutes at least).
    const keep = Math.max(600, 4 * this.maxLag) * 1000;
    while (this.samples.length > 1 && this.samples[1].at < at - keep) this.samples.shift();
  }

  private async checkReplica(replica: Replica<P>): Promise<void> {
    // A replica whose previous check still hangs (a lost network) stays as that check left it.
    if (replica.checking) return;
    replica.checking = true;
    try {
      const { rows } = await withDeadline(replica.pool.query(`SELECT pg_is_in_recovery() AS recovery,
          pg_last_wal_replay_lsn()::text AS replayed,
          EXTRACT(EPOCH FROM now() - pg_last_xact_replay_timestamp())::float8 AS since_last_commit`), CHECK_DEADLINE_MS);
      const [row] = rows as { recovery: boolean; replayed: string | null; since_last_commit: number | null }[];
      const replayed = parseLsn(row.replayed);
      if (!row.recovery || replayed === null) {
        this.setState(replica, "down", "not a standby: promoted, or a primary");
        return;
      }
      replica.replayed = replayed;
      replica.lagSeconds = this.lagOf(replayed, row.since_last_commit);
      this.setState(replica, replica.lagSeconds > this.maxLag ? "lagging" : "ok", replica.lagSeconds > this.maxLag ? `${replica.lagSeconds.toFixed(1)} s behind` : "");
    } catch (error) {
      this.setState(replica, "down", (error as Error).message);
    } finally {
      replica.checking = false;
    }
  }

  /**
   * How long ago the primary had first written what the replica has not replayed: 0 when it has
   * replayed everything seen; from the samples when they reach back far enough; otherwise (just
   * started, or very far behind) the age of the last commit it replayed, an upper bound.
   */
  private lagOf(replayed: Lsn, sinceLastCommit: number | null): number {
    const now = Date.now();
    const { samples } = this;
    if (samples.length === 0 || replayed >= samples[samples.length - 1].lsn) return 0;
    if (replayed < samples[0].lsn) return Math.max(0, sinceLastCommit ?? Infinity, (now - samples[0].at) / 1000);
    const first = samples.find((s) => s.lsn > replayed)!;
    return (now - first.at) / 1000;
  }

  /**
   * LISTEN for the writes of other processes and instances on one connection to the primary,
   * reconnecting after a failure. Until it listens, every user's reads go to the primary; once it
   * does, to a replica that has replayed what was written before (the primary's position then).
   */
  private listen(): void {
    let delay = 500;
    const connect = async () => {
      if (this.closed) return;
      const client = new pg.Client({ connectionString: this.primaryUrl });
      this.listener = client;
      let retried = false;
      const retry = () => {
        if (retried || this.closed) return;
        retried = true;
        this.othersBefore = UNREACHABLE;
        client.end().catch(() => undefined);
        setTimeout(connect, delay).unref();
        delay = Math.min(delay * 2, 30_000);
      };
      client.on("error", retry);
      client.on("end", retry);
      client.on("notification", ({ channel, payload }) => {
        if (channel !== CHANNEL || !payload) return;
        const [user, position] = payload.split(" ");
        const lsn = parseLsn(position);
        if (/^\d+$/.test(user) && lsn !== null) this.rememberWriter(Number(user), lsn);
      });
      try {
        await client.connect();
        await client.query(`LISTEN ${CHANNEL}`);
        const { rows } = await client.query("SELECT pg_current_wal_insert_lsn()::text AS lsn");
        this.othersBefore = parseLsn(rows[0].lsn) ?? UNREACHABLE;
        delay = 500;
      } catch {
        retry();
      }
    };
    void connect();
  }
}

/** The model methods that only read: on a replica when the request allows. Every other one writes. */
const PRISMA_READS = new Set([
  "findUnique", "findUniqueOrThrow", "findFirst", "findFirstOrThrow", "findMany", "count", "aggregate", "groupBy",
]);

/**
 * The process's Prisma client with its reads routed: model reads and $queryRaw where the
 * request's reads go; model writes, $executeRaw and $transaction on the primary, noted as the
 * client's writes. Calls return plain promises (no fluent relations, no batching in $transaction([…])).
 */
export function routedPrisma<P extends object>(set: ReplicaSet<P>, primary: P): P {
  const delegates = new Map<string, unknown>();
  type Callable = (...args: unknown[]) => Promise<unknown>;
  const method = (target: object, name: string) => (target as Record<string, Callable>)[name];
  const delegate = (model: string) => new Proxy({}, {
    get(_, op) {
      if (typeof op !== "string") return undefined;
      if (PRISMA_READS.has(op)) return (...args: unknown[]) => set.read((c) => method((c.prisma as Record<string, object>)[model], op).apply((c.prisma as Record<string, object>)[model], args));
      const base = (primary as Record<string, object>)[model];
      return (...args: unknown[]) => set.write(() => method(base, op).apply(base, args));
    },
  });
  return new Proxy(primary, {
    get(target, prop) {
      const value = Reflect.get(target, prop, target) as unknown;
      if (typeof prop !== "string") return value;
      if (prop === "$queryRaw" || prop === "$queryRawUnsafe") {
        return (...args: unknown[]) => set.read((c) => method(c.prisma, prop).apply(c.prisma, args));
      }
      if (prop === "$executeRaw" || prop === "$executeRawUnsafe" || prop === "$transaction") {
        return (...args: unknown[]) => set.write(() => method(target, prop).apply(target, args));
      }
      if (value && typeof value === "object" && typeof (value as { findMany?: unknown }).findMany === "function") {
        if (!delegates.has(prop)) delegates.set(prop, delegate(prop));
        return delegates.get(prop);
      }
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}

/**
 * Reads and writes the native pool way: `query` and a client for a while (COPY). Within a read
 * snapshot (lib/db/snapshot.ts) both run in it.
 */
export interface ReadConnections {
  query(config: pg.QueryConfig | pg.QueryArrayConfig): Promise<pg.QueryResult>;
  /** Runs `fn` with a client of its own, released after (destroyed if `fn` failed); within a snapshot, its client. */
  withClient<T>(fn: (client: pg.PoolClient) => Promise<T>): Promise<T>;
  /**
   * A client of its own where the request's reads go, with `begin` run on it (a replica that
   * fails is left for the primary); the caller releases it.
   */
  connect(begin: (client: pg.PoolClient) => Promise<void>): Promise<pg.PoolClient>;
}

async function withClientOf<T>(pool: pg.Pool, fn: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  try {
    const value = await fn(client);
    client.release();
    return value;
  } catch (error) {
    client.release(error as Error);
    throw error;
  }
}

async function connectOn(pool: pg.Pool, begin: (client: pg.PoolClient) => Promise<void>): Promise<pg.PoolClient> {
  const client = await pool.connect();
  try {
    await begin(client);
    return client;
  } catch (error) {
    client.release(error as Error);
    throw error;
  }
}

/** The records store's reads: in the current read snapshot, on `pool`, or where the request's reads go. */
export function readConnections<P>(pool: pg.Pool, set: ReplicaSet<P> | null): ReadConnections {
  const inSnapshot = (config: pg.QueryConfig | pg.QueryArrayConfig) => activeSnapshot()?.query(config);
  const withSnapshot = <T>(fn: (client: pg.PoolClient) => Promise<T>) => {
    const snapshot = activeSnapshot();
    return snapshot ? snapshot.withClient(fn) : undefined;
  };
  if (!set) {
    return {
      query: (config) => inSnapshot(config) ?? pool.query(config),
      withClient: (fn) => withSnapshot(fn) ?? withClientOf(pool, fn),
      connect: (begin) => connectOn(pool, begin),
    };
  }
  return {
    query: (config) => inSnapshot(config) ?? set.read((c) => c.pool.query(config)),
    withClient: (fn) => withSnapshot(fn) ?? set.read((c) => withClientOf(c.pool, fn)),
    connect: (begin) => set.read((c) => connectOn(c.pool, begin)),
  };
}

/** host:port/database of a connection string, without its credentials. */
export function connectionName(url: string): string {
  try {
    const u = new URL(url);
    return `${u.hostname}:${u.port || "5432"}${u.pathname}`;
  } catch {
    return "replica";
  }
}
