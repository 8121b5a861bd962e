import { bridge } from "@/lib/runtime/bridge";

/**
 * The job runners' wake-up after a commit that queued work, without any caller having to ask for
 * it. The statement that queues a job (lib/jobs/queue.ts, enqueueSql) is marked here; every
 * commit path watches for marked statements and, once its transaction has committed, wakes the
 * runners: db().write (the statements its transaction runs through `tx.$executeRaw` and
 * `tx.$queryRaw`), the records store (a write's `also`), and the queue's own native
 * transactions (lib/jobs/sql.ts, runWhileHeld). A marked statement must be run as it is: one
 * built around it (`Prisma.sql\`…${statement}…\``) is not marked, and its commit then wakes the
 * runners of other processes only (NOTIFY on PostgreSQL, SQLite's data_version within 25 ms).
 */
const marked = new WeakSet<object>();

/** Marks a statement whose commit queues background work. */
export function queuesWork<T extends object>(statement: T): T {
  marked.add(statement);
  return statement;
}

/** Whether one of the statements queues work. */
export function queuingWork(statements: Iterable<unknown> | null | undefined): boolean {
  if (!statements) return false;
  for (const statement of statements) if (typeof statement === "object" && statement !== null && marked.has(statement)) return true;
  return false;
}

let wakeScheduled = false;

/**
 * Wakes the runners, once the transaction that queued work has committed: this process's (a job
 * worker's, a test's) and, through the bridge's `forward` (lib/runtime/bridge.ts), the job
 * process's (from a web process, through the primary) or a job thread's runner. They wake in the
 * next turn of the event loop, so that the request that queued the work answers first (an upload
 * does not wait for the runs it causes to start).
 */
export function jobsQueued(): void {
  if (wakeScheduled) return;
  wakeScheduled = true;
  setImmediate(() => {
    wakeScheduled = false;
    const { listeners, forward } = bridge().jobWakeups;
    for (const listener of listeners) listener();
    forward?.();
  });
}

/**
 * A transaction client that notes, in `seen`, whether a statement it runs with `$executeRaw` or
 * `$queryRaw` queues work (db().write wakes the runners after the commit when it does).
 */
export function watchingQueuedWork<Tx extends object>(tx: Tx, seen: { queued: boolean }): Tx {
  return new Proxy(tx, {
    get(target, property) {
      const value = Reflect.get(target, property) as unknown;
      if ((property === "$executeRaw" || property === "$queryRaw") && typeof value === "function") {
        return (query: unknown, ...values: unknown[]) => {
          if (typeof query === "object" && query !== null && marked.has(query)) seen.queued = true;
          return (value as (...args: unknown[]) => unknown).call(target, query, ...values);
        };
      }
      return value;
    },
  });
}
