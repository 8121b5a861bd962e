import { AsyncLocalStorage } from "node:async_hooks";
import type pg from "pg";

/**
 * Read snapshots on PostgreSQL (docs/decisions/0019-records-in-blocks.md, "Later"): the reads of
 * one response — the series' context (its version for the ETag, its count) and its records,
 * however many statements they take — see one committed state, as one read transaction does on
 * SQLite. A snapshot is a read-only REPEATABLE READ transaction on one pooled connection (on the
 * replica the request reads from, if any); while it is current (`run`), `db().query()` of reading
 * statements and the records store's reads run on it. It ends (COMMIT, the connection back to the
 * pool) when its last hold is released: the handler's when it returns, a streamed body's read once
 * it has fetched what it needs (lib/records/postgres-blocks.ts), or when the body is cancelled.
 *
 * PostgreSQL's readers block no writer; what a snapshot takes is a connection. So snapshots may
 * take all the pool's connections but two (SNAPSHOT_RESERVE: writes, Prisma's reads and the
 * statements run outside a snapshot always find one, and a snapshot never waits for a
 * connection held by another), and a read that has to wait for a slow client while it still has
 * records to fetch may keep its snapshot only in one of a quarter of the pool's connections, and
 * only while the client takes something within LINGER_IDLE_MS (`linger`). While open, a
 * snapshot holds the share locks of the tables it read (DDL waits for it, as for any statement).
 */

/** Connections of the pool that snapshots leave to everything else. */
const SNAPSHOT_RESERVE = 2;

/**
 * How long a snapshot kept for a slow client (`linger`) waits for it to take something, at most:
 * a reader that keeps up frees room with every day it decodes; one that stalls longer lets go.
 */
export const LINGER_IDLE_MS = 5_000;

/** Slots of a kind, taken in order of asking. */
export class Slots {
  private used = 0;
  private readonly waiting: (() => void)[] = [];

  constructor(readonly size: number) {}

  acquire(): Promise<void> | void {
    if (this.used < this.size) {
      this.used++;
      return;
    }
    return new Promise<void>((resolve) => this.waiting.push(resolve));
  }

  /** A slot if one is free now. */
  tryAcquire(): boolean {
    if (this.used >= this.size || this.waiting.length > 0) return false;
    this.used++;
    return true;
  }

  release(): void {
    const next = this.waiting.shift();
    if (next) next();
    else this.used--;
  }
}

/** The snapshot slots of a pool: how many may be open, and how many may linger. */
export interface SnapshotLimits {
  readonly open: Slots;
  readonly linger: Slots;
}

const LIMITS = Symbol.for("enhydris.db.snapshotLimits");
type LimitsHolder = { [LIMITS]?: WeakMap<object, SnapshotLimits> };

/** The limits for a pool of `poolMax` connections, one set per pool in the process. */
export function snapshotLimits(pool: object, poolMax: number): SnapshotLimits {
  const byPool = ((globalThis as LimitsHolder)[LIMITS] ??= new WeakMap());
  let limits = byPool.get(pool);
  if (!limits) {
    limits = { open: new Slots(Math.max(1, poolMax - SNAPSHOT_RESERVE)), linger: new Slots(Math.max(1, Math.floor(poolMax / 4))) };
    byPool.set(pool, limits);
  }
  return limits;
}

export class ReadSnapshot {
  private holds = 0;
  private ended = false;
  private lingering = false;
  /** The last use of the client: uses run one after the other (a pg client runs one query at a time). */
  private tail: Promise<unknown> = Promise.resolve();

  constructor(private readonly client: pg.PoolClient, private readonly limits: SnapshotLimits) {}

  /** Whether statements may still run in it. */
  get open(): boolean {
    return !this.ended;
  }

  private serially<T>(use: () => Promise<T>): Promise<T> {
    const done = this.tail.then(use);
    this.tail = done.catch(() => undefined);
    return done;
  }

  /** Runs a statement in the snapshot, after those sent before it. */
  query(config: pg.QueryConfig | pg.QueryArrayConfig): Promise<pg.QueryResult> {
    if (this.ended) return Promise.reject(new Error("read snapshot: a statement after its end"));
    return this.serially(() => this.client.query(config as pg.QueryConfig));
  }

  /** Runs `fn` with the snapshot's client (which it must not release), after the statements sent before. */
  withClient<T>(fn: (client: pg.PoolClient) => Promise<T>): Promise<T> {
    if (this.ended) return Promise.reject(new Error("read snapshot: a statement after its end"));
    return this.serially(() => fn(this.client));
  }

  /** Runs `fn` with the snapshot current: the reads it makes (and those it starts) run in it while it is open. */
  run<T>(fn: () => T): T {
    return scope().run(this, fn);
  }

  /** Keeps the snapshot open until the function returned is called (once). */
  hold(): () => void {
    if (this.ended) throw new Error("read snapshot: held after its end");
    this.holds++;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      if (--this.holds === 0) this.end();
    };
  }

  /**
   * Asks to keep the snapshot while a slow client is waited for: true if one of the lingering
   * slots was free (kept until the snapshot ends), false if the caller should leave the snapshot.
   */
  linger(): boolean {
    if (this.lingering) return true;
    if (this.ended || !this.limits.linger.tryAcquire()) return false;
    this.lingering = true;
    return true;
  }

  private end(): void {
    if (this.ended) return;
    this.ended = true;
    if (this.lingering) this.limits.linger.release();
    // Statements already sent run before the COMMIT; nothing waits for it.
    this.serially(() => this.client.query("COMMIT")).then(
      () => this.client.release(),
      (error: Error) => this.client.release(error),
    ).finally(() => this.limits.open.release());
  }
}

const SCOPE = Symbol.for("enhydris.db.readSnapshot");
type ScopeHolder = { [SCOPE]?: AsyncLocalStorage<ReadSnapshot> };

function scope(): AsyncLocalStorage<ReadSnapshot> {
  // On globalThis: every bundle of the process must see the same scope.
  return ((globalThis as ScopeHolder)[SCOPE] ??= new AsyncLocalStorage<ReadSnapshot>());
}

/** The snapshot the current reads run in, if one is current and still open. */
export function activeSnapshot(): ReadSnapshot | null {
  const snapshot = scope().getStore();
  return snapshot?.open ? snapshot : null;
}

/**
 * Opens a snapshot: a slot, a connection where the request's reads go (`connect` runs `begin` on
 * it; a replica that fails there is left for the primary), and its transaction begun.
 */
export async function openSnapshot(
  connect: (begin: (client: pg.PoolClient) => Promise<void>) => Promise<pg.PoolClient>, limits: SnapshotLimits,
): Promise<ReadSnapshot> {
  await limits.open.acquire();
  try {
    const client = await connect(async (c) => {
      await c.query("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY");
    });
    return new ReadSnapshot(client, limits);
  } catch (error) {
    limits.open.release();
    throw error;
  }
}
