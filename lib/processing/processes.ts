import { ensureEditor, isEditor, type Actor } from "@/lib/auth/permissions";
import { db, Prisma, type Tx } from "@/lib/db";
import { MIN_INSTANT } from "@/lib/formats/date-param";
import { countJobs, getJob, jobHistory, jobRunJson, latestJobs, waitForJob, type Job } from "@/lib/jobs/queue";
import { configErrors, normalized, uniqueKey } from "@/lib/processing/config";
import { kindOf, type ProcessConfig, type ProcessType } from "@/lib/processing/types";
import { aggregation } from "@/lib/processing/types/aggregation";
import { checks } from "@/lib/processing/types/checks";
import { createMissingSeries, groupsOf, seriesOfGroups, sourceOf, targetOf } from "@/lib/processing/series";
import {
  loadProcess, lockGroupsProcessesStatements, PROCESS_COLUMNS, processFromRow, processKey, queueRunStatements, type ProcessRow,
} from "@/lib/processing/state";
import { named, recordActivity } from "@/lib/domain/activity-log";
import { ensureUnchanged, type ChangeOptions } from "@/lib/domain/concurrency";
import { NotFound, orNotFound, PermissionDenied, ValidationFailed } from "@/lib/domain/errors";
import { valuesOf, type Given } from "@/lib/domain/given";
import { findGroup, type GroupRow } from "@/lib/series";
import { isoSeconds } from "@/lib/domain/serialize";
import { DEFAULT_LOCALE, type Locale } from "@/lib/i18n";
import { runMessageIn } from "@/lib/site/field-errors";
import { existingStation, stationAccess, type StationAccess } from "@/lib/stations";
import type { Row } from "@/lib/jobs/sql";

/**
 * The processes of a time series group (processing.md §1): reads for everyone, writes and
 * runs for editors of the group's station. A process's changes are written with the statements
 * that queue its runs (the outbox), so a created or changed process runs from scratch.
 */
export interface GroupPath {
  stationId: number;
  groupId: number;
}

export interface ProcessPath extends GroupPath {
  processId: number;
}

export interface ProcessValues {
  enabled: boolean;
  definition: ProcessConfig;
}

/** What a process's write is given to check its values against. */
export interface GroupFound {
  station: StationAccess;
  group: GroupRow;
}

export interface ProcessFound extends GroupFound {
  process: ProcessRow;
}

export const PROCESS_MESSAGES = {
  /** The clash messages of the types (processing.md §1), by name. */
  checksExist: checks.clashMessage!,
  aggregationExists: aggregation.clashMessage!,
  cycle: "This process would make a cycle.",
  ownGroup: "The target group must be another group than the process's own.",
  targetForbidden: "You do not have permission to edit the station of target_timeseries_group.",
  typeFixed: "The type of a process cannot change.",
  disabled: "The process is disabled; enable it to run it.",
  /** The API's message for an unknown reference (api.md §1.2). */
  targetMissing: (id: number) => `Invalid pk "${id}" - object does not exist.`,
} as const;

// ---- reads ----

/** The group of a path (the station first): NotFound when either is missing or they do not match. */
export async function pathGroup(path: GroupPath): Promise<GroupFound> {
  const station = await existingStation(path.stationId);
  const group = orNotFound(await findGroup(station.id, path.groupId));
  return { station, group };
}

/** The process of a path, after its station and group. */
export async function pathProcess(path: ProcessPath): Promise<ProcessFound> {
  const found = await pathGroup(path);
  const process = await loadProcess(path.processId);
  if (!process || process.groupId !== found.group.id) throw new NotFound();
  return { ...found, process };
}

export async function countProcesses(groupId: number): Promise<number> {
  const [row] = await db().query<{ n: unknown }>(Prisma.sql`SELECT COUNT(*) AS n FROM process WHERE timeseries_group_id = ${groupId}`);
  return Number(row.n);
}

export async function processesPage(groupId: number, offset: number, limit: number): Promise<ProcessRow[]> {
  const rows = await db().query<Row>(Prisma.sql`SELECT ${PROCESS_COLUMNS} FROM process p WHERE p.timeseries_group_id = ${groupId}
    ORDER BY p.id LIMIT ${limit} OFFSET ${offset}`);
  return rows.map(processFromRow);
}

// ---- output ----

export interface RunJson {
  id: number;
  status: Job["status"];
  queued_at: string | null;
  started_at: string | null;
  finished_at: string | null;
  from: string | null;
  records_written: number;
  error: string | null;
}

/** Where a run that has not finished yet replaces the target from: what is pending (null: from scratch, or nothing). */
function pendingFrom(p: ProcessRow): string | null {
  const marks = [p.dirtyFrom, p.runningFrom].filter((t): t is number => t !== null);
  const earliest = marks.length ? Math.min(...marks) : null;
  return earliest === null || earliest <= MIN_INSTANT ? null : isoSeconds(earliest);
}

/** A run (processing.md §1) from its job: the result of a finished one, the pending changes of one to come. */
export function runJson(job: Job, process: ProcessRow | null, showError = true): RunJson {
  const result = (job.result ?? {}) as { from?: string | null; records_written?: number };
  const waiting = job.status === "queued" || job.status === "running";
  return {
    ...jobRunJson(job),
    from: waiting && process ? pendingFrom(process) : result.from ?? null,
    records_written: result.records_written ?? 0,
    error: showError ? job.error : null,
  };
}

/**
 * A run as the management pages show it: the API's run and, for a finished run that computed
 * nothing (no changes since the last run, the process disabled or gone, taken over), its
 * result's note why. Its `from` is null then too, as it is for a run from scratch.
 */
export interface SiteRun extends RunJson {
  note: string | null;
}

/** `locale`: the page's language, of the error and the note (stored in English, as the API lists them). */
export function siteRunJson(job: Job, process: ProcessRow | null, locale: Locale = DEFAULT_LOCALE): SiteRun {
  const note = (job.result as { note?: unknown } | null)?.note;
  const run = runJson(job, process);
  return { ...run, error: run.error === null ? null : runMessageIn(locale, run.error), note: typeof note === "string" ? runMessageIn(locale, note) : null };
}

export interface ProcessJson {
  id: number;
  type: ProcessType;
  timeseries_group: number;
  enabled: boolean;
  source_timeseries: number | null;
  target_timeseries: number | null;
  last_run: RunJson | null;
  [field: string]: unknown;
}

/**
 * The process objects of processing.md §1, in one query for their series and one for their
 * last runs. The error of a failed run is shown to editors of the station only (like runs/).
 */
export async function processesJson(rows: ProcessRow[], actor: Actor, station: StationAccess): Promise<ProcessJson[]> {
  const series = await seriesOfGroups(rows.flatMap((p) => groupsOf(p.groupId, p.definition)));
  const runs = await latestJobs(rows.map((p) => processKey(p.id)));
  const editor = isEditor(actor, station);
  return rows.map((p) => {
    const run = runs.get(processKey(p.id));
    return {
      id: p.id,
      type: p.definition.type,
      timeseries_group: p.groupId,
      enabled: p.enabled,
      source_timeseries: sourceOf(p.groupId, p.definition, series)?.id ?? null,
      target_timeseries: targetOf(p.groupId, p.definition, series)?.id ?? null,
      last_run: run ? runJson(run, p, editor) : null,
      ...kindOf(p.definition).output(p.definition),
    };
  });
}

export async function processJson(found: ProcessFound, actor: Actor): Promise<ProcessJson> {
  return (await processesJson([found.process], actor, found.station))[0];
}

/** The runs of a process, newest first (editors only). */
export async function processRuns(actor: Actor, path: ProcessPath): Promise<{ count: number; page(offset: number, limit: number): Promise<RunJson[]>; sitePage(offset: number, limit: number, locale?: Locale): Promise<SiteRun[]> }> {
  const { station, process } = await pathProcess(path);
  ensureEditor(actor, station);
  const key = processKey(process.id);
  return {
    count: await countJobs(key),
    page: async (offset, limit) => (await jobHistory(key, limit, offset)).map((job) => runJson(job, process)),
    sitePage: async (offset, limit, locale) => (await jobHistory(key, limit, offset)).map((job) => siteRunJson(job, process, locale)),
  };
}

// ---- writes ----

/** The group of the path, if the actor may change it (404 before 401/403, api.md §1.7). */
async function editableGroup(actor: Actor, path: GroupPath): Promise<GroupFound> {
  const found = await pathGroup(path);
  ensureEditor(actor, found.station);
  return found;
}

async function editableProcess(actor: Actor, path: ProcessPath): Promise<ProcessFound> {
  const found = await pathProcess(path);
  ensureEditor(actor, found.station);
  return found;
}

/**
 * The rules that involve other objects: the group a process writes into, when not its own (a
 * curve interpolation's target group), must exist, be another group, belong to a station the
 * actor may edit, and not close a loop of such processes between groups.
 */
async function checkValues(actor: Actor, groupId: number, values: ProcessValues): Promise<void> {
  const errors = configErrors(values.definition);
  if (Object.keys(errors).length) throw new ValidationFailed(errors);
  const targetGroupId = kindOf(values.definition).targetGroupId(values.definition);
  if (targetGroupId === null) return;
  const target = await db().prisma.timeseriesGroup.findUnique({ where: { id: targetGroupId } });
  if (!target) throw ValidationFailed.field("target_timeseries_group", PROCESS_MESSAGES.targetMissing(targetGroupId));
  if (target.id === groupId) throw ValidationFailed.field("target_timeseries_group", PROCESS_MESSAGES.ownGroup);
  const targetStation = await stationAccess(target.stationId);
  if (!targetStation || !isEditor(actor, targetStation)) throw new PermissionDenied(actor === null, PROCESS_MESSAGES.targetForbidden);
}

/**
 * Whether a process from `groupId` into `targetGroupId` closes a loop: whether the target
 * group's processes into other groups (curve interpolations) lead back to `groupId`. The groups' rows are locked first
 * (PostgreSQL), so that two writes that would close a loop together run one after the other.
 */
async function closesLoop(tx: Tx, groupId: number, targetGroupId: number, exceptId: number | null): Promise<boolean> {
  if (db().dialect === "postgres") {
    await tx.$queryRaw(Prisma.sql`SELECT id FROM timeseries_group WHERE id IN (${groupId}, ${targetGroupId}) ORDER BY id FOR UPDATE`);
  }
  const edges = await tx.process.findMany({
    where: { targetGroupId: { not: null }, ...(exceptId === null ? {} : { id: { not: exceptId } }) },
    select: { groupId: true, targetGroupId: true },
  });
  const next = new Map<number, number[]>();
  for (const e of edges) next.set(e.groupId, [...(next.get(e.groupId) ?? []), e.targetGroupId!]);
  const seen = new Set<number>();
  const stack = [targetGroupId];
  while (stack.length) {
    const g = stack.pop()!;
    if (g === groupId) return true;
    if (seen.has(g)) continue;
    seen.add(g);
    stack.push(...(next.get(g) ?? []));
  }
  return false;
}

/** The one-per-group rules (checks; aggregation by target_time_step and method). */
async function uniquenessError(tx: Tx, groupId: number, definition: ProcessConfig, exceptId: number | null): Promise<string | null> {
  const key = uniqueKey(definition);
  if (key === null) return null;
  const clash = await tx.process.findFirst({ where: { groupId, uniqueKey: key, ...(exceptId === null ? {} : { id: { not: exceptId } }) }, select: { id: true } });
  return clash ? kindOf(definition).clashMessage ?? null : null;
}

/** The state checks inside the write's transaction; a lost race on the unique index ends as the same message. */
async function checkedWrite<T>(groupId: number, definition: ProcessConfig, exceptId: number | null, write: (tx: Tx) => Promise<T>): Promise<T> {
  const check = async (tx: Tx) => {
    const clash = await uniquenessError(tx, groupId, definition, exceptId);
    if (clash) throw ValidationFailed.nonField(clash);
    const targetGroupId = kindOf(definition).targetGroupId(definition);
    if (targetGroupId !== null && (await closesLoop(tx, groupId, targetGroupId, exceptId))) {
      throw ValidationFailed.nonField(PROCESS_MESSAGES.cycle);
    }
  };
  try {
    return await db().write(async (tx) => {
      await check(tx);
      return write(tx);
    });
  } catch (e) {
    if ((e as { code?: string }).code === "P2002") await db().write(check);
    throw e;
  }
}

function columns(definition: ProcessConfig) {
  const { config, targetGroupId } = kindOf(definition).toStored(definition);
  return { type: definition.type, config: JSON.stringify(config), targetGroupId, uniqueKey: uniqueKey(definition) };
}

/** Queues a run of the process in the caller's transaction (if it is enabled); the id of the queued job. */
async function queueRun(tx: Tx, processId: number, fromScratch: boolean): Promise<number | null> {
  const statements = queueRunStatements(processId, fromScratch);
  for (const sql of statements.slice(0, -1)) await tx.$executeRaw(sql);
  const rows = await tx.$queryRaw<{ id: unknown }[]>(statements[statements.length - 1]);
  return rows.length ? Number(rows[0].id) : null;
}

/**
 * Queues the process's run from scratch, then creates the series it needs (marking the
 * processes of the groups whose sources or targets may change for runs from scratch too).
 */
async function prepareSeries(tx: Tx, groupId: number, definition: ProcessConfig, processId: number): Promise<void> {
  await queueRun(tx, processId, true);
  await createMissingSeries(tx, groupId, definition);
}

/** How the activity log names a process: `aggregation 1h mean #3 of time series group "Rain" (#5)`. */
function processName(id: number, definition: ProcessConfig, group: GroupRow): string {
  return `process ${kindOf(definition).name(definition)} #${id} of time series group ${named(group.name, group.id)}`;
}

/** A new process of the group, with its series; its first run (from scratch) is queued. Its id. */
export async function createProcess(actor: Actor, path: GroupPath, given: Given<ProcessValues, GroupFound>): Promise<number> {
  const found = await editableGroup(actor, path);
  const values = await valuesOf(given, found);
  await checkValues(actor, found.group.id, values);
  const definition = normalized(values.definition);
  const groupId = found.group.id;
  const id = await checkedWrite(groupId, definition, null, async (tx) => {
    const now = new Date();
    const created = await tx.process.create({
      data: { groupId, enabled: values.enabled, ...columns(definition), created: now, lastModified: now },
    });
    await prepareSeries(tx, groupId, definition, created.id);
    await recordActivity(tx, actor, {
      action: "create", objectType: "process", objectId: created.id, stationId: found.station.id,
      summary: `Created ${processName(created.id, definition, found.group)}${values.enabled ? "" : " (disabled)"}`,
    });
    return created.id;
  });
  return id;
}

/**
 * Changes a process (PUT and PATCH give the whole new values); the type cannot change. The
 * target is then recomputed from scratch (processing.md §1).
 */
export async function updateProcess(actor: Actor, path: ProcessPath, given: Given<ProcessValues, ProcessFound>, options?: ChangeOptions): Promise<void> {
  const found = await editableProcess(actor, path);
  const values = await valuesOf(given, found);
  if (values.definition.type !== found.process.definition.type) throw ValidationFailed.field("type", PROCESS_MESSAGES.typeFixed);
  await checkValues(actor, found.group.id, values);
  const definition = normalized(values.definition);
  const { id, groupId } = found.process;
  await checkedWrite(groupId, definition, id, async (tx) => {
    const groups = [...new Set([...groupsOf(groupId, found.process.definition), ...groupsOf(groupId, definition)])];
    for (const sql of lockGroupsProcessesStatements(groups)) await tx.$executeRaw(sql);
    await ensureUnchanged(tx, "process", id, options, "process");
    await tx.process.update({ where: { id }, data: { enabled: values.enabled, ...columns(definition), lastModified: new Date() } });
    await prepareSeries(tx, groupId, definition, id);
    const enabling = values.enabled === found.process.enabled ? "" : values.enabled ? " (enabled)" : " (disabled)";
    await recordActivity(tx, actor, {
      action: "change", objectType: "process", objectId: id, stationId: found.station.id, summary: `Changed ${processName(id, definition, found.group)}${enabling}`,
    });
  });
}

/** Deletes the process and its queued run; its target series and their records stay. */
export async function deleteProcess(actor: Actor, path: ProcessPath): Promise<void> {
  const { process, station, group } = await editableProcess(actor, path);
  await db().write(async (tx) => {
    await tx.process.delete({ where: { id: process.id } });
    await tx.job.deleteMany({ where: { key: processKey(process.id), status: "queued" } });
    await recordActivity(tx, actor, {
      action: "delete", objectType: "process", objectId: process.id, stationId: station.id, summary: `Deleted ${processName(process.id, process.definition, group)}`,
    });
  });
}

export interface RunRequest {
  /** Recompute the whole target. */
  fromScratch: boolean;
  /** Wait (at most `waitMs`) for the run to finish. */
  wait: boolean;
}

export const RUN_WAIT_MS = 60_000;

/**
 * Queues a run of the process (from scratch on request; otherwise of the changes pending) and,
 * when asked, waits for it: the run, and whether it finished (or its attempt failed) in time.
 */
export async function requestRun(actor: Actor, path: ProcessPath, given: Given<RunRequest, ProcessFound>, waitMs = RUN_WAIT_MS): Promise<{ run: RunJson; finished: boolean }> {
  const found = await editableProcess(actor, path);
  const request = await valuesOf(given, found);
  const { process } = found;
  if (!process.enabled) throw ValidationFailed.nonField(PROCESS_MESSAGES.disabled);
  const jobId = await db().write(async (tx) => {
    const queued = await queueRun(tx, process.id, request.fromScratch);
    if (queued !== null) {
      await recordActivity(tx, actor, {
        action: "run", objectType: "process", objectId: process.id, stationId: found.station.id,
        summary: `Queued a run${request.fromScratch ? " from scratch" : ""} of ${processName(process.id, process.definition, found.group)}`,
      });
    }
    return queued;
  });
  if (jobId === null) throw ValidationFailed.nonField(PROCESS_MESSAGES.disabled);
  const done = request.wait ? await waitForJob(jobId, waitMs) : null;
  const job = done ?? (await getJob(jobId));
  const current = (await loadProcess(process.id)) ?? process;
  return { run: runJson(job!, current), finished: done !== null };
}

/** The ids of the group's processes. */
async function groupProcessIds(groupId: number): Promise<number[]> {
  return (await db().prisma.process.findMany({ where: { groupId }, select: { id: true }, orderBy: { id: "asc" } })).map((p) => p.id);
}

/** Queues runs of every enabled process of a group (from scratch on request); the ids of the queued jobs. */
export async function queueGroupRuns(groupId: number, fromScratch: boolean): Promise<number[]> {
  const ids = await groupProcessIds(groupId);
  const jobs = await db().write(async (tx) => {
    const out: number[] = [];
    for (const id of ids) {
      const job = await queueRun(tx, id, fromScratch);
      if (job !== null) out.push(job);
    }
    return out;
  });
  return jobs;
}
