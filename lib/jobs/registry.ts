import { db, type Prisma } from "@/lib/db";
import type { Dialect } from "@/lib/db/url";
import type { Job } from "@/lib/jobs/queue";

/**
 * What the capabilities tell the kernel about background work, registered once per process by
 * lib/capabilities (the queue and the runner name no capability):
 * - job kinds, their handlers and the pool each runs in;
 * - reactions to changes: the statements a change runs in its own transaction to queue the work
 *   it causes (processing.md §2, synoptic.md §3), so that the work commits with the change;
 * - upkeep tasks of the hourly maintenance job.
 * The registries live on globalThis: Next may load this module once per bundle, and every bundle
 * of the process must see the same registrations.
 */

export interface JobContext {
  /** Aborted when the runner shuts down or the job's lease is lost: stop, changing nothing more. */
  readonly signal: AbortSignal;
  /** The runner's lease_owner. */
  readonly owner: string;
  /** Reports progress (0…1, shown by the runner) and throws if the signal was aborted. */
  progress(fraction?: number): void;
}

/** Runs one job; returns its result (JSON-able, kept in the run history). Throwing fails the attempt. */
export type JobHandler = (job: Job, ctx: JobContext) => Promise<unknown>;

/**
 * The kinds of work, each with its own slots in the runner (ENHYDRIS_JOB_CONCURRENCY each), so
 * that one kind never waits for another: a slow or trickling replication source does not hold up
 * a process run, nor a burst of process runs an alarm's evaluation or its e-mail.
 */
export const JOB_POOLS = ["processing", "replication", "telemetry", "alarms", "mail", "upkeep"] as const;
export type JobPool = (typeof JOB_POOLS)[number];

export interface JobKind {
  readonly kind: string;
  readonly handler: JobHandler;
  /** The pool whose slots its jobs take. */
  readonly pool: JobPool;
  /**
   * How many slots its pool has in a runner (read when a runner starts), when not the runner's
   * ENHYDRIS_JOB_CONCURRENCY: work that mostly waits on others (a vendor's answer) runs more at once.
   */
  readonly poolSlots?: () => number;
}

/** A change that other capabilities may react to, inside the change's transaction. */
export type Change =
  /** Records of a series were written from `first` on (an upload, a process run, replication). */
  | { readonly kind: "series-written"; readonly seriesId: number; readonly first: number }
  /** Series were added to, removed from or retyped in these groups. */
  | { readonly kind: "group-series-changed"; readonly groupIds: readonly number[] }
  /** A station's display time zone changed. */
  | { readonly kind: "station-zone-changed"; readonly stationId: number };

export type ChangeKind = Change["kind"];
export type Reaction<K extends ChangeKind = ChangeKind> = (change: Extract<Change, { kind: K }>, dialect: Dialect) => Prisma.Sql[];
export type Reactions = { readonly [K in ChangeKind]?: Reaction<K> };

/** An upkeep task: deletes what has expired; returns the number of rows it deleted. */
export interface UpkeepTask {
  /** The name its count is reported under in the upkeep job's result (a table name). */
  readonly name: string;
  run(): Promise<number>;
}

interface Registry {
  registered: boolean;
  kinds: Map<string, { handler: JobHandler; pool: JobPool }>;
  poolSlots: Map<JobPool, () => number>;
  reactions: Map<string, { owner: string; reaction: Reactions }>;
  upkeep: Map<string, UpkeepTask>;
}

const KEY = Symbol.for("enhydris.jobs.registry");
type Holder = { [KEY]?: Registry };

function registry(): Registry {
  return ((globalThis as Holder)[KEY] ??= { registered: false, kinds: new Map(), poolSlots: new Map(), reactions: new Map(), upkeep: new Map() });
}

/** What one capability registers (every part optional). */
export interface BackgroundWork {
  readonly name: string;
  readonly jobKinds?: readonly JobKind[];
  readonly reactions?: Reactions;
  readonly upkeep?: readonly UpkeepTask[];
}

/** Registers capabilities' background work (again: the later registration of a name wins). */
export function registerBackgroundWork(parts: readonly BackgroundWork[]): void {
  const r = registry();
  for (const part of parts) {
    for (const k of part.jobKinds ?? []) {
      r.kinds.set(k.kind, { handler: k.handler, pool: k.pool });
      if (k.poolSlots) r.poolSlots.set(k.pool, k.poolSlots);
    }
    if (part.reactions) r.reactions.set(part.name, { owner: part.name, reaction: part.reactions });
    for (const task of part.upkeep ?? []) r.upkeep.set(task.name, task);
  }
  r.registered = true;
}

function registered(): Registry {
  const r = registry();
  // A process that writes without the capabilities registered would silently queue nothing.
  if (!r.registered) throw new Error("The capabilities are not registered in this process: call registerCapabilities() (lib/capabilities) at start-up.");
  return r;
}

/** The handlers of every registered job kind. */
export function jobHandlers(): ReadonlyMap<string, JobHandler> {
  return new Map([...registered().kinds].map(([kind, { handler }]) => [kind, handler]));
}

/** The pool of every registered job kind (none before the registration). */
export function jobPools(): ReadonlyMap<string, JobPool> {
  return new Map([...registry().kinds].map(([kind, { pool }]) => [kind, pool]));
}

/** The pools whose number of slots a kind sets, and that number (read now). */
export function jobPoolSlots(): ReadonlyMap<string, number> {
  return new Map([...registry().poolSlots].map(([pool, slots]) => [pool, Math.max(1, slots())]));
}

/** The statements that queue what a change causes, to run in the change's transaction. */
export function changeStatements(change: Change, dialect: Dialect = db().dialect): Prisma.Sql[] {
  const out: Prisma.Sql[] = [];
  for (const { reaction } of registered().reactions.values()) {
    const react = reaction[change.kind] as Reaction | undefined;
    if (react) out.push(...react(change, dialect));
  }
  return out;
}

/** The registered upkeep tasks. */
export function upkeepTasks(): UpkeepTask[] {
  return [...registered().upkeep.values()];
}
