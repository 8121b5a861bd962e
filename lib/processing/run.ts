/**
 * A run of a process: the job handler of kind "process.run" (docs/decisions/0011). It takes the
 * pending changes of its source (dirty_from), reads the source from where the process's engine
 * needs it, computes the target from there on, and in one transaction replaces the target's
 * records from that point, marks the processes that read the target (the chain) and clears the
 * changes it took; that transaction commits only while the run still holds its job (fencing).
 * A run that fails changes nothing: the changes stay taken (running_from) for the next run.
 */
import { db, Prisma } from "@/lib/db";
import { MIN_INSTANT } from "@/lib/formats/date-param";
import { resolveTimeZone } from "@/lib/formats/timezone";
import { changeStatements, type JobContext, type JobHandler } from "@/lib/jobs/registry";
import { heldJobSql, runWhileHeld, type Job } from "@/lib/jobs/queue";
import { records, ReplaceRefused } from "@/lib/records";
import { FROM_SCRATCH, IncrementalContextError } from "./numerics/incremental";
import { EMPTY } from "./numerics/series";
import {
  changesDoneStatements, processFromRow, SCRATCH, takeChangesStatement, takeChangesWhileHeldStatement, type ProcessRow,
} from "./state";
import { createMissingSeries, groupsOf, seriesOfGroups, sourceOf, targetOf, type SeriesInfo } from "./series";
import { unstorable } from "./storable";
import { kindOf, type ProcessConfig } from "./types";
import type { Computed } from "./types/kind";

export { readRecords } from "./reads";

/** What a run reports (its job's result): where the target was replaced from (null: from scratch) and how many records it wrote. */
export interface RunResult {
  from: string | null;
  records_written: number;
  /** Why nothing was computed, when so. */
  note?: string;
}

/** The display zone's offset of the group's station, in seconds (aggregation works in local time). */
async function zoneOffsetOf(groupId: number): Promise<number> {
  const [row] = await db().query<{ display_timezone: string }>(Prisma.sql`SELECT s.display_timezone FROM timeseries_group g
    JOIN station s ON s.id = g.station_id WHERE g.id = ${groupId}`);
  const zone = resolveTimeZone(row?.display_timezone ?? "UTC") ?? resolveTimeZone("UTC")!;
  return zone.fixedOffsetMinutes !== null ? zone.fixedOffsetMinutes * 60 : zone.offsetSecondsAt(Date.now() / 1000);
}

/**
 * The target records from the plan's targetFrom on, for a source changed from `dirtyFrom` on
 * (−Infinity: from scratch). Throws IncrementalContextError when the stored target is not what
 * earlier runs wrote (the caller then computes from scratch).
 */
async function compute(p: ProcessConfig, source: SeriesInfo | null, target: SeriesInfo, zoneOffset: number, dirtyFrom: number): Promise<Computed> {
  if (!source) return { plan: FROM_SCRATCH, target: EMPTY, stored: Promise.resolve(null) };
  return kindOf(p).compute(p, { source, target, zoneOffset, dirtyFrom });
}

/** What a run's result depends on besides the source's records: another value than last time means a run from scratch. */
function inputsOf(p: ProcessConfig, source: SeriesInfo | null, target: SeriesInfo, zoneOffset: number): string {
  const common = `source=${source?.id ?? "none"} target=${target.id}`;
  return kindOf(p).usesZone ? `${common} time_step=${source?.timeStep ?? ""} zone=${zoneOffset}` : common;
}

/** The process's series, the target (and the checks' source) created first if missing. */
async function seriesFor(process: ProcessRow): Promise<{ source: SeriesInfo | null; target: SeriesInfo }> {
  const { groupId, definition } = process;
  let series = await seriesOfGroups(groupsOf(groupId, definition));
  let target = targetOf(groupId, definition, series);
  if (!target || (kindOf(definition).reads === "initial" && !sourceOf(groupId, definition, series))) {
    // The group's other processes may read a new series now (marked by createMissingSeries); this run is from scratch anyway.
    await db().write((tx) => createMissingSeries(tx, groupId, definition));
    series = await seriesOfGroups(groupsOf(groupId, definition));
    target = targetOf(groupId, definition, series)!;
  }
  return { source: sourceOf(groupId, definition, series), target };
}

const iso = (t: number) => new Date(t * 1000).toISOString().replace(".000Z", "Z");

/**
 * Takes the process's pending changes while `owner` holds the job: the process's row after it
 * ([] when the process no longer exists), or null when the job is no longer the owner's.
 */
async function takeChanges(processId: number, job: Job, owner: string): Promise<Record<string, unknown>[] | null> {
  const startedAt = job.startedAt ?? new Date();
  if (db().dialect === "sqlite") return runWhileHeld(job.id, owner, [takeChangesStatement(processId, startedAt)]);
  const [row] = await db().query<Record<string, unknown>>(takeChangesWhileHeldStatement(processId, startedAt, heldJobSql(job.id, owner)));
  if (Number(row.held) === 0) return null;
  return row.id === null ? [] : [row];
}

export async function runProcess(processId: number, job: Job, ctx: JobContext): Promise<RunResult> {
  const jobId = job.id;
  const taken = await takeChanges(processId, job, ctx.owner);
  if (taken === null) return { from: null, records_written: 0, note: "The job was taken over by another runner." };
  if (taken.length === 0) return { from: null, records_written: 0, note: "The process no longer exists." };
  const process = processFromRow(taken[0]);
  if (!process.enabled) return { from: null, records_written: 0, note: "The process is disabled." };
  if (process.runningFrom === null) return { from: null, records_written: 0, note: "Nothing to do: no changes since the last run." };
  ctx.progress(0.05);

  const [{ source, target }, zoneOffset] = await Promise.all([
    seriesFor(process),
    kindOf(process.definition).usesZone ? zoneOffsetOf(process.groupId) : 0,
  ]);
  const inputs = inputsOf(process.definition, source, target, zoneOffset);
  const scratch = process.runningFrom <= MIN_INSTANT || inputs !== process.inputs;
  let computed: Computed;
  try {
    computed = await compute(process.definition, source, target, zoneOffset, scratch ? -Infinity : process.runningFrom);
  } catch (e) {
    if (!(e instanceof IncrementalContextError)) throw e;
    computed = await compute(process.definition, source, target, zoneOffset, -Infinity);
  }
  ctx.progress(0.7);

  const { plan, target: batch } = computed;
  const refused = unstorable(batch);
  if (refused) throw new Error(refused);
  const whole = plan.targetFrom === -Infinity;
  const from = whole ? Math.min(MIN_INSTANT, batch.timestamps.length ? batch.timestamps[0] : MIN_INSTANT) : plan.targetFrom;
  try {
    const written = await records().replace(target.id, from, batch, {
      onlyIf: heldJobSql(jobId, ctx.owner),
      stored: await computed.stored,
      also: changesDoneStatements(process.id, target.id, inputs, changeStatements({ kind: "series-written", seriesId: target.id, first: whole ? SCRATCH : from })),
    });
    ctx.progress(1);
    return { from: whole ? null : iso(from), records_written: written };
  } catch (e) {
    if (e instanceof ReplaceRefused) return { from: null, records_written: 0, note: "The job was taken over by another runner." };
    throw e;
  }
}

/** The handler of kind "process.run"; the job's key is process:<id>. */
export const processRunHandler: JobHandler = (job, ctx) => runProcess((job.payload as { process: number }).process, job, ctx);
