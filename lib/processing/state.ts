/**
 * The processing state of processes in SQL (docs/decisions/0011-processing-runs.md), as
 * statements for the transactions that cause runs (the outbox): a write to a series marks the
 * processes that read it dirty from its first timestamp and queues their runs; a change of a
 * group's series, or of a process, marks them for a run from scratch. A run takes the changes
 * (dirty_from → running_from) when it starts and clears them with its result.
 */
import { db, Prisma } from "@/lib/db";
import type { Dialect } from "@/lib/db/url";
import { enqueueSql } from "@/lib/jobs/queue";
import { now } from "@/lib/db/dialect-sql";
import type { Row } from "@/lib/jobs/sql";
import { INITIAL_READERS, kindNamed, ZONE_USERS, type ProcessConfig, type ProcessType } from "./types";

export const PROCESS_KIND = "process.run";

export function processKey(id: number): string {
  return `process:${id}`;
}

/** dirty_from that means "recompute from scratch": below every record timestamp, so marks keep it. */
export const SCRATCH = Number.MIN_SAFE_INTEGER;

function least(dialect: Dialect, a: Prisma.Sql, b: Prisma.Sql): Prisma.Sql {
  return dialect === "sqlite" ? Prisma.sql`MIN(${a}, ${b})` : Prisma.sql`LEAST(${a}, ${b})`;
}

/**
 * On PostgreSQL, every transaction that changes processes locks all the rows it will change in
 * one statement, in id order, after the series rows it writes (a records write locks its
 * series first): so that transactions changing overlapping sets of processes wait for one
 * another instead of deadlocking. SQLite has one writer at a time.
 */
function lockedProcesses(where: Prisma.Sql): Prisma.Sql {
  return Prisma.sql`SELECT p.id FROM process p WHERE ${where} ORDER BY p.id FOR UPDATE`;
}

/** Marks the processes `p` that match `where` dirty from `from` (SCRATCH: from scratch) and queues their runs. */
function markAndQueue(where: Prisma.Sql, from: number, dialect: Dialect): Prisma.Sql[] {
  const t = Prisma.sql`${from}`;
  const set = Prisma.sql`dirty_from = ${least(dialect, Prisma.sql`COALESCE(p.dirty_from, ${t})`, t)}, dirty_since = COALESCE(p.dirty_since, ${now(dialect)})`;
  return [
    dialect === "postgres"
      ? Prisma.sql`UPDATE process AS p SET ${set} FROM (${lockedProcesses(where)}) AS locked WHERE p.id = locked.id`
      : Prisma.sql`UPDATE process AS p SET ${set} WHERE ${where}`,
    enqueueSql({
      kind: PROCESS_KIND,
      select: Prisma.sql`SELECT 'process:' || p.id AS key, '{"process":' || p.id || '}' AS payload FROM process p WHERE ${where}`,
    }, dialect),
  ];
}

/** `p.type` is one of `types` (their names are the registry's, written as SQL literals). */
function typeIn(types: readonly ProcessType[]): Prisma.Sql {
  return types.length === 0 ? Prisma.sql`1 = 0` : Prisma.raw(`p.type IN (${types.map((t) => `'${t}'`).join(", ")})`);
}

/**
 * The processes whose source is series `seriesId` (processing.md §2): those that read Initial
 * (checks) read the group's Initial series; the others its Checked series if it has one, else
 * its Initial.
 */
function readersOf(seriesId: number): Prisma.Sql {
  const initialReaders = typeIn(INITIAL_READERS);
  return Prisma.sql`p.enabled AND p.timeseries_group_id = (SELECT t.timeseries_group_id FROM timeseries t WHERE t.id = ${seriesId})
    AND (SELECT CASE
        WHEN t.type = 2 THEN NOT (${initialReaders})
        WHEN t.type = 1 THEN ${initialReaders} OR NOT EXISTS (SELECT 1 FROM timeseries c WHERE c.timeseries_group_id = t.timeseries_group_id AND c.type = 2)
        ELSE 1 = 0 END
      FROM timeseries t WHERE t.id = ${seriesId})`;
}

/** Records of series `seriesId` were written from `firstTimestamp` on: its readers run from there. */
export function sourceWrittenStatements(seriesId: number, firstTimestamp: number, dialect: Dialect = db().dialect): Prisma.Sql[] {
  return markAndQueue(readersOf(seriesId), firstTimestamp, dialect);
}

/**
 * The series of these groups changed (one created or deleted, a type or time step changed):
 * the processes of the groups and those writing into them may have another source or target
 * now, so they run from scratch.
 */
export function groupSeriesChangedStatements(groupIds: readonly number[], dialect: Dialect = db().dialect): Prisma.Sql[] {
  const ids = Prisma.join([...groupIds]);
  return markAndQueue(Prisma.sql`p.enabled AND (p.timeseries_group_id IN (${ids}) OR p.target_group_id IN (${ids}))`, SCRATCH, dialect);
}

/**
 * For a transaction that changes a process and then marks the processes of its groups
 * (groupSeriesChangedStatements): locks them all first, in id order (PostgreSQL; none on SQLite).
 */
export function lockGroupsProcessesStatements(groupIds: readonly number[], dialect: Dialect = db().dialect): Prisma.Sql[] {
  const ids = Prisma.join([...groupIds]);
  return dialect === "postgres" ? [lockedProcesses(Prisma.sql`p.timeseries_group_id IN (${ids}) OR p.target_group_id IN (${ids})`)] : [];
}

/** The station's display time zone changed: its processes that work in local time (aggregations) run from scratch. */
export function stationZoneChangedStatements(stationId: number, dialect: Dialect = db().dialect): Prisma.Sql[] {
  return markAndQueue(
    Prisma.sql`p.enabled AND ${typeIn(ZONE_USERS)} AND p.timeseries_group_id IN (SELECT g.id FROM timeseries_group g WHERE g.station_id = ${stationId})`,
    SCRATCH, dialect);
}

/** A run of process `id` (if enabled), from scratch when `fromScratch`, else of what is pending. */
export function queueRunStatements(id: number, fromScratch: boolean, dialect: Dialect = db().dialect): Prisma.Sql[] {
  const where = Prisma.sql`p.id = ${id} AND p.enabled`;
  if (fromScratch) return markAndQueue(where, SCRATCH, dialect);
  return [enqueueSql({ kind: PROCESS_KIND, select: Prisma.sql`SELECT 'process:' || p.id AS key, '{"process":' || p.id || '}' AS payload FROM process p WHERE ${where}` }, dialect)];
}

/** A process as stored. */
export interface ProcessRow {
  id: number;
  groupId: number;
  enabled: boolean;
  definition: ProcessConfig;
  created: Date;
  lastModified: Date;
  dirtyFrom: number | null;
  runningFrom: number | null;
  /** What the last successful run depended on (source, target, …); "" before the first. */
  inputs: string;
}

function date(v: unknown): Date {
  return v instanceof Date ? v : new Date(Number(v));
}

function nullableNumber(v: unknown): number | null {
  return v === null || v === undefined ? null : Number(v);
}

/** A process row as either driver returns it (SQLite: integers for booleans and dates). */
export function processFromRow(r: Row): ProcessRow {
  const definition: ProcessConfig = kindNamed(r.type as ProcessType).fromStored(JSON.parse(r.config as string), nullableNumber(r.target_group_id));
  return {
    id: Number(r.id),
    groupId: Number(r.timeseries_group_id),
    enabled: r.enabled === true || r.enabled === 1,
    definition,
    created: date(r.created),
    lastModified: date(r.last_modified),
    dirtyFrom: nullableNumber(r.dirty_from),
    runningFrom: nullableNumber(r.running_from),
    inputs: r.inputs as string,
  };
}

const COLUMNS = ["id", "timeseries_group_id", "type", "enabled", "config", "target_group_id", "created", "last_modified", "dirty_from", "running_from", "inputs"];
/** The columns of a ProcessRow, of `process p`. */
export const PROCESS_COLUMNS = Prisma.raw(COLUMNS.map((c) => `p.${c}`).join(", "));

export async function loadProcess(id: number): Promise<ProcessRow | null> {
  const [row] = await db().query<Row>(Prisma.sql`SELECT ${PROCESS_COLUMNS} FROM process p WHERE p.id = ${id}`);
  return row ? processFromRow(row) : null;
}

/**
 * When a run (whose job was claimed at `startedAt`) starts: the pending changes join those a
 * failed or interrupted run took before (running_from), and dirty_from is free for writes made
 * during the run. Changes all marked after the claim are left to the run they queued. Returns
 * the row.
 */
export function takeChangesStatement(id: number, startedAt: Date, dialect: Dialect = db().dialect, condition: Prisma.Sql = Prisma.sql`TRUE`): Prisma.Sql {
  const later = Prisma.sql`(p.dirty_since IS NOT NULL AND p.dirty_since > ${startedAt})`;
  return Prisma.sql`UPDATE process AS p SET
      running_from = CASE WHEN ${later} OR p.dirty_from IS NULL THEN p.running_from WHEN p.running_from IS NULL THEN p.dirty_from
        ELSE ${least(dialect, Prisma.sql`p.running_from`, Prisma.sql`p.dirty_from`)} END,
      dirty_from = CASE WHEN ${later} THEN p.dirty_from ELSE NULL END,
      dirty_since = CASE WHEN ${later} THEN p.dirty_since ELSE NULL END
    WHERE p.id = ${id} AND ${condition}
    RETURNING ${Prisma.raw(COLUMNS.join(", "))}`;
}

/**
 * takeChangesStatement in one statement on PostgreSQL, only while the run's runner holds its job
 * (heldJobSql, whose row it locks as a transaction would): one round trip instead of a
 * transaction's four. One row: `held` (0 when the job is no longer the owner's, and nothing was
 * changed) and the process's columns (null when it no longer exists).
 */
export function takeChangesWhileHeldStatement(id: number, startedAt: Date, held: Prisma.Sql): Prisma.Sql {
  return Prisma.sql`WITH held AS (${held}),
      taken AS (${takeChangesStatement(id, startedAt, "postgres", Prisma.sql`EXISTS (SELECT 1 FROM held)`)})
    SELECT (SELECT COUNT(*) FROM held) AS held, taken.* FROM (SELECT 1) AS one LEFT JOIN taken ON TRUE`;
}

/**
 * With a run's result, after the statements that mark the readers of its target: the changes it
 * took are done, and what it depended on is kept. On PostgreSQL the run's process and those
 * readers are locked first, together (see lockedProcesses).
 */
export function changesDoneStatements(id: number, targetId: number, inputs: string, marks: readonly Prisma.Sql[], dialect: Dialect = db().dialect): Prisma.Sql[] {
  return [
    ...(dialect === "postgres" ? [lockedProcesses(Prisma.sql`p.id = ${id} OR (${readersOf(targetId)})`)] : []),
    ...marks,
    Prisma.sql`UPDATE process SET running_from = NULL, inputs = ${inputs} WHERE id = ${id}`,
  ];
}
