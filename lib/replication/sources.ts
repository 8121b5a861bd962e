/**
 * Replication sources (replication.md §1) for superusers: the configured instances to copy
 * from, their runs through the job queue (kind `replication.run`, one key per source, so that
 * a source's runs never overlap and survive restarts; dry runs, which write nothing, have a key
 * of their own), and detaching a replicated station.
 */
import { isDatabaseId } from "@/lib/domain/refs";
import { isSealed, seal, SecretBoxError, unseal } from "@/lib/auth/secret-box";
import { ensureSuperuser, type Actor } from "@/lib/auth/permissions";
import { db, Prisma } from "@/lib/db";
import { enqueueSql, getJob, jobHistory, jobRunJson, lastStartedJob, type Job } from "@/lib/jobs/queue";
import { now } from "@/lib/db/dialect-sql";
import { changedFields, changeSummary, named, recordActivity } from "@/lib/domain/activity-log";
import { ensureUnchanged, type ChangeOptions } from "@/lib/domain/concurrency";
import { Conflict, orNotFound, ValidationFailed } from "@/lib/domain/errors";
import { valuesOf, type Given } from "@/lib/domain/given";
import { existingStation, type StationAccess } from "@/lib/stations";
import { logError } from "@/lib/observability/log";
import { logger } from "@/lib/observability/logger.mjs";

export const REPLICATION_KIND = "replication.run";
export const sourceKey = (id: number) => `replication:${id}`;
/**
 * A dry run's key: the next scheduled run of a source is always queued under `sourceKey`, and a
 * dry run merged into it would either write (the scheduled run) or not (the run asked for).
 */
const dryRunKey = (id: number) => `${sourceKey(id)}:dry`;
const runKeys = (id: number) => [sourceKey(id), dryRunKey(id)];

export const SOURCE_DISABLED = "The source is disabled; enable it to run it.";

/** How the activity log names a source. */
const sourceName = (s: { id: number; name: string; url: string }) => `replication source ${named(s.name, s.id)} (${s.url})`;

/** The fields a change of a source lists in the activity log; credentials by kind, never their values. */
const FIELD_NAMES = { username: "credentials", password: "credentials", token: "credentials" };

export interface SourceValues {
  name: string;
  url: string;
  username: string;
  password: string;
  token: string;
  query: string;
  interval: number;
  enabled: boolean;
  prune: boolean;
}

export type SourceRow = Prisma.ReplicationSourceGetPayload<object>;

/**
 * The password and token are stored encrypted (lib/auth/secret-box.ts, a key derived from
 * ENHYDRIS_SECRET_KEY), each under a label of its own; rows written before that hold plaintext
 * until the start-up pass (sealStoredCredentials) or their next write seals them.
 */
export const SOURCE_SECRET_LABELS = { password: "replication source password", token: "replication source token" } as const;

/** Values to store: the password and token given, encrypted. */
function sealed<T extends Partial<SourceValues>>(values: T): T {
  const out = { ...values };
  for (const field of ["password", "token"] as const) {
    if (typeof out[field] === "string") out[field] = seal(SOURCE_SECRET_LABELS[field], out[field]);
  }
  return out;
}

/**
 * The credentials to read the source with, decrypted; SecretBoxError (its message names the
 * field and the key, never a value) when they were encrypted with another ENHYDRIS_SECRET_KEY.
 */
export function sourceCredentials(source: SourceRow): { username?: string; password?: string; token?: string } {
  return {
    username: source.username || undefined,
    password: unseal(SOURCE_SECRET_LABELS.password, source.password) || undefined,
    token: unseal(SOURCE_SECRET_LABELS.token, source.token) || undefined,
  };
}

/** The stored source with its secrets decrypted, to compare with new values; a secret that does not open compares as changed. */
function comparable(source: SourceRow): SourceRow {
  const opened = (field: "password" | "token") => {
    try {
      return unseal(SOURCE_SECRET_LABELS[field], source[field]);
    } catch (error) {
      if (error instanceof SecretBoxError) return "\u0000unreadable";
      throw error;
    }
  };
  return { ...source, password: opened("password"), token: opened("token") };
}

/**
 * Encrypts the passwords and tokens stored in plaintext (rows written before they were
 * encrypted); run at start-up, when the key is known (a migration cannot know it). A row changed
 * meanwhile is left to its own write. Returns how many rows it sealed; never throws.
 */
export async function sealStoredCredentials(): Promise<number> {
  try {
    const rows = await db().prisma.replicationSource.findMany({ where: { OR: [{ password: { not: "" } }, { token: { not: "" } }] }, select: { id: true, password: true, token: true } });
    let count = 0;
    const plain = (value: string) => value !== "" && !isSealed(value);
    for (const row of rows) {
      if (!plain(row.password) && !plain(row.token)) continue;
      const data = {
        password: plain(row.password) ? seal(SOURCE_SECRET_LABELS.password, row.password) : row.password,
        token: plain(row.token) ? seal(SOURCE_SECRET_LABELS.token, row.token) : row.token,
      };
      const { count: n } = await db().write((tx) => tx.replicationSource.updateMany({ where: { id: row.id, password: row.password, token: row.token }, data }));
      count += n;
    }
    if (count) logger().info(`Encrypted the stored credentials of ${count} replication ${count === 1 ? "source" : "sources"}.`);
    return count;
  } catch (error) {
    logError("encrypting the stored credentials of replication sources", error);
    return 0;
  }
}

/** What a run's job carries. */
export interface RunPayload {
  prune?: boolean;
  dryRun?: boolean;
}

/** A run as `runs/` shows it: the job's times and status, and the counts of its report. */
export interface RunJson {
  id: number;
  status: string;
  queued_at: string | null;
  started_at: string | null;
  finished_at: string | null;
  /** A dry run wrote nothing: its counts say what a run would have done. */
  dry_run: boolean;
  created: number | null;
  updated: number | null;
  unchanged: number | null;
  deleted: number | null;
  records: number | null;
  warnings: string[];
  error: string | null;
}

export function runJson(job: Job): RunJson {
  const r = (job.result ?? {}) as Record<string, unknown>;
  const n = (k: string) => (typeof r[k] === "number" ? (r[k] as number) : null);
  return {
    ...jobRunJson(job),
    dry_run: (job.payload as RunPayload | null)?.dryRun === true,
    created: n("created"),
    updated: n("updated"),
    unchanged: n("unchanged"),
    deleted: n("deleted"),
    records: n("records"),
    // A run that found its source disabled (or deleted) did nothing: it says so.
    warnings: typeof r.skipped === "string" ? [`Not run: ${r.skipped}.`] : Array.isArray(r.warnings) ? (r.warnings as string[]) : [],
    error: job.error,
  };
}

/** The source object of replication.md §1; credentials are write-only and never shown. */
export function sourceJson(s: SourceRow, lastRun: Job | null) {
  return {
    id: s.id,
    name: s.name,
    url: s.url,
    username: s.username,
    query: s.query,
    interval: s.interval,
    enabled: s.enabled,
    prune: s.prune,
    last_run: lastRun ? runJson(lastRun) : null,
  };
}

/**
 * The source's last run: the one that started last, dry or not. A source with an interval always
 * has its next run queued, so "the newest run" would be that run, never the report of the last one.
 */
export function lastRun(id: number): Promise<Job | null> {
  return lastStartedJob(runKeys(id));
}

/** The source as stored (null when there is none), for callers that have checked who asks. */
export async function storedSource(id: number): Promise<SourceRow | null> {
  return isDatabaseId(id) ? db().prisma.replicationSource.findUnique({ where: { id } }) : null;
}

async function existingSource(actor: Actor, id: number): Promise<SourceRow> {
  const source = orNotFound(await storedSource(id));
  ensureSuperuser(actor);
  return source;
}

export async function countSources(actor: Actor): Promise<number> {
  ensureSuperuser(actor);
  return db().prisma.replicationSource.count();
}

export async function sourcesPage(actor: Actor, skip: number, take: number): Promise<SourceRow[]> {
  ensureSuperuser(actor);
  return db().prisma.replicationSource.findMany({ orderBy: { id: "asc" }, skip, take });
}

export async function getSource(actor: Actor, id: number): Promise<SourceRow> {
  return existingSource(actor, id);
}

/** The next scheduled run of an enabled source with an interval, `delayMs` from now. */
function scheduleSql(source: SourceRow, delayMs: number): Prisma.Sql | null {
  if (!source.enabled || source.interval <= 0) return null;
  return enqueueSql({ kind: REPLICATION_KIND, key: sourceKey(source.id), payload: {}, delayMs, maxAttempts: 1 });
}

const queuedRunsDeletion = (id: number) => Prisma.sql`DELETE FROM job WHERE key IN (${Prisma.join(runKeys(id))}) AND status = 'queued'`;
/** The scheduled runs (not yet due, so not one asked for with Run now) of a source now run only on demand. */
const scheduledRunsDeletion = (id: number) => Prisma.sql`DELETE FROM job WHERE key = ${sourceKey(id)} AND status = 'queued' AND run_after > ${now(db().dialect)}`;

/**
 * The source that `npm run replicate` keeps its id map under: the first of this URL and query, or
 * a new one named after the host (no stored credentials, run only on demand: the command line
 * gives the credentials at each run). The operator's own command: no actor, no activity entry.
 */
export async function commandLineSource(url: string, query: string): Promise<number> {
  const existing = await db().prisma.replicationSource.findFirst({ where: { url, query }, orderBy: { id: "asc" }, select: { id: true } });
  if (existing) return existing.id;
  const source = await db().write((tx) => tx.replicationSource.create({ data: { name: new URL(url).host, url, query, lastModified: new Date() } }));
  return source.id;
}

export async function createSource(actor: Actor, given: Given<SourceValues>): Promise<number> {
  ensureSuperuser(actor);
  const values = await valuesOf(given, undefined);
  const id = await db().write(async (tx) => {
    const source = await tx.replicationSource.create({ data: { ...sealed(values), lastModified: new Date() } });
    const schedule = scheduleSql(source, 0);
    if (schedule) await tx.$queryRaw(schedule);
    await recordActivity(tx, actor, {
      action: "create", objectType: "replication_source", objectId: source.id, stationId: null,
      summary: `Created ${sourceName(source)}${source.enabled ? "" : " (disabled)"}`,
    });
    return source.id;
  });
  return id;
}

/**
 * Changes the fields given (credentials not given are kept, but one kind replaces the other: a new
 * token drops a stored username and password, a new username a stored token); a new interval
 * schedules the next run, and disabling drops the queued ones. With `options.unchangedSince` (a
 * form's), refused as stale when someone saved the source since.
 */
export async function updateSource(actor: Actor, id: number, given: Given<Partial<SourceValues>>, options?: ChangeOptions): Promise<void> {
  const before = await existingSource(actor, id);
  const values = await valuesOf(given, undefined);
  if (values.token && values.username === undefined) Object.assign(values, { username: "", password: "" });
  if (values.username && values.token === undefined) values.token = "";
  await db().write(async (tx) => {
    await ensureUnchanged(tx, "replicationSource", id, options, "replication source");
    const source = await tx.replicationSource.update({ where: { id }, data: { ...sealed(values), lastModified: new Date() } });
    const schedule = scheduleSql(source, source.interval * 1000);
    if (schedule && (values.interval !== undefined || values.enabled !== undefined)) await tx.$queryRaw(schedule);
    // A disabled source does not run: its queued runs go (one that has started finishes).
    if (!source.enabled) await tx.$executeRaw(queuedRunsDeletion(id));
    else if (source.interval === 0) await tx.$executeRaw(scheduledRunsDeletion(id));
    await recordActivity(tx, actor, {
      action: "change", objectType: "replication_source", objectId: id, stationId: null,
      summary: changeSummary(sourceName(source), changedFields(comparable(before), values, FIELD_NAMES)),
    });
  });
}

/** Deletes the source and its id map; its stations stay, as local stations. */
export async function deleteSource(actor: Actor, id: number): Promise<void> {
  const source = await existingSource(actor, id);
  await db().write(async (tx) => {
    await tx.$executeRaw(queuedRunsDeletion(id));
    await tx.replicationSource.delete({ where: { id } });
    await recordActivity(tx, actor, { action: "delete", objectType: "replication_source", objectId: id, stationId: null, summary: `Deleted ${sourceName(source)}` });
  });
}

/**
 * Queues a run now (400 for a disabled source), in the activity log; its job. A run already
 * queued of the same kind (the next scheduled run, or a Run now not yet started) becomes this
 * run, due now, and prunes when either asked to.
 */
export async function queueRun(actor: Actor, id: number, payload: RunPayload): Promise<Job> {
  const source = await existingSource(actor, id);
  if (!source.enabled) throw ValidationFailed.nonField(SOURCE_DISABLED);
  const how = [payload.dryRun && "dry", payload.prune && "pruning"].filter(Boolean).join(", ");
  const key = payload.dryRun ? dryRunKey(id) : sourceKey(id);
  const jobId = await db().write(async (tx) => {
    const [queued] = await tx.$queryRaw<{ id: unknown }[]>(enqueueSql({ kind: REPLICATION_KIND, key, payload, maxAttempts: 1 }));
    // The queue keeps a queued job's payload; within a key the only option that differs is prune.
    if (payload.prune) await tx.$executeRaw(Prisma.sql`UPDATE job SET payload = ${JSON.stringify(payload)} WHERE id = ${Number(queued.id)} AND status = 'queued'`);
    await recordActivity(tx, actor, {
      action: "run", objectType: "replication_source", objectId: id, stationId: null, summary: `Queued a run${how ? ` (${how})` : ""} of ${sourceName(source)}`,
    });
    return Number(queued.id);
  });
  return (await getJob(jobId))!;
}

/** The source's runs, newest first (the job queue keeps the latest 100). */
export async function sourceRuns(actor: Actor, id: number): Promise<Job[]> {
  await existingSource(actor, id);
  return sourceRunHistory(id);
}

/** The latest `limit` runs of a source, dry ones too, newest first (for callers that have checked who asks). */
export function sourceRunHistory(id: number, limit?: number): Promise<Job[]> {
  return jobHistory(runKeys(id), limit);
}

/** A replicated station, for a superuser (404, then 403, then 409 when it is not replicated). */
async function replicatedStation(actor: Actor, stationId: number): Promise<StationAccess & { replicatedFrom: number }> {
  const station = await existingStation(stationId);
  ensureSuperuser(actor);
  if (station.replicatedFrom === null) throw new Conflict("This station is not replicated from another instance.");
  return { ...station, replicatedFrom: station.replicatedFrom };
}

/** The stations copied from the source (they stay, as stations of this instance, when it is deleted). */
export async function copiedStationCount(actor: Actor, id: number): Promise<number> {
  await existingSource(actor, id);
  return db().prisma.station.count({ where: { replicatedFrom: id } });
}

/** A replicated station and its source, for a superuser who may detach it (404, 403, or 409 when it is not replicated). */
export async function detachableStation(actor: Actor, stationId: number) {
  const station = await replicatedStation(actor, stationId);
  const [row, source] = await Promise.all([
    db().prisma.station.findUniqueOrThrow({ where: { id: station.id }, select: { id: true, name: true, code: true } }),
    db().prisma.replicationSource.findUniqueOrThrow({ where: { id: station.replicatedFrom }, select: { id: true, name: true, url: true } }),
  ]);
  return { ...row, source: { id: source.id, name: source.name || source.url } };
}

/** Makes a replicated station an ordinary one of this instance (superusers); replication leaves it alone from then on. */
export async function detachStation(actor: Actor, stationId: number): Promise<void> {
  const station = await replicatedStation(actor, stationId);
  await db().write(async (tx) => {
    const row = await tx.station.update({ where: { id: station.id }, data: { replicatedFrom: null, lastModified: new Date() } });
    const source = await tx.replicationSource.findUnique({ where: { id: station.replicatedFrom } });
    await recordActivity(tx, actor, {
      action: "change", objectType: "station", objectId: row.id, stationId: row.id,
      summary: `Detached station ${named(row.name, row.id)} from ${source ? sourceName(source) : `replication source #${station.replicatedFrom}`}`,
    });
  });
}

/**
 * Queues the next scheduled run of a source with an interval: a run does it when it starts (so
 * that a run killed with its process still has a successor), and again, sooner, when it fails
 * (the earlier time wins: retried after at most 5 minutes, never more often than the interval).
 */
export async function scheduleNext(source: SourceRow, failed: boolean): Promise<void> {
  const delay = failed ? Math.min(source.interval, 300) : source.interval;
  const schedule = scheduleSql(source, delay * 1000);
  if (!schedule) return;
  await db().write((tx) => tx.$queryRaw(schedule));
}
