/**
 * The source and target series of a process (processing.md §2), resolved from the series its
 * groups hold now: checks read the group's Initial series and write its Checked one; curve
 * interpolations and aggregations read the Checked series if the group has one, else the
 * Initial; a curve interpolation writes the target group's Initial series, an aggregation the
 * group's Aggregated series of its target time step named after its method.
 */
import { db, Prisma, type Tx } from "@/lib/db";
import { settings } from "@/lib/config";
import { typeCode } from "@/lib/domain/timeseries-types";
import { groupSeriesChangedStatements } from "./state";
import { kindOf, type ProcessConfig } from "./types";
import type { TargetKey } from "./types/kind";

export interface SeriesInfo {
  id: number;
  groupId: number;
  /** 1 Initial, 2 Checked, 3 Regularized, 4 Aggregated */
  type: number;
  timeStep: string;
  name: string;
  publiclyAvailable: boolean;
}

const INITIAL = typeCode("Initial");
const CHECKED = typeCode("Checked");
const AGGREGATED = typeCode("Aggregated");

/** The series of these groups, in one query. */
export async function seriesOfGroups(groupIds: readonly number[]): Promise<SeriesInfo[]> {
  if (groupIds.length === 0) return [];
  const rows = await db().query<{ id: number; timeseries_group_id: number; type: number; time_step: string; name: string; publicly_available: boolean }>(
    Prisma.sql`SELECT id, timeseries_group_id, type, time_step, name, publicly_available FROM timeseries
      WHERE timeseries_group_id IN (${Prisma.join([...new Set(groupIds)])}) ORDER BY id`);
  return rows.map((r) => ({
    id: r.id, groupId: r.timeseries_group_id, type: r.type, timeStep: r.time_step, name: r.name, publiclyAvailable: Boolean(r.publicly_available),
  }));
}

/** The groups whose series a process reads or writes. */
export function groupsOf(groupId: number, p: ProcessConfig): number[] {
  const other = kindOf(p).targetGroupId(p);
  return other === null ? [groupId] : [groupId, other];
}

export function sourceOf(groupId: number, p: ProcessConfig, series: readonly SeriesInfo[]): SeriesInfo | null {
  const own = (type: number) => series.find((s) => s.groupId === groupId && s.type === type) ?? null;
  return kindOf(p).reads === "initial" ? own(INITIAL) : own(CHECKED) ?? own(INITIAL);
}

export function targetOf(groupId: number, p: ProcessConfig, series: readonly SeriesInfo[]): SeriesInfo | null {
  const key: TargetKey = kindOf(p).target(groupId, p);
  return series.find((s) => s.groupId === key.groupId && s.type === key.type
    && (key.timeStep === undefined || s.timeStep === key.timeStep) && (key.name === undefined || s.name === key.name)) ?? null;
}

/**
 * The enabled processes among `processes` that records written into series `seriesId` run
 * (processing.md §2): those whose source it is, then those whose source is what these write,
 * and so on (an upload to Initial runs the checks, whose Checked records run the aggregations).
 */
export function processesFedBy(seriesId: number, processes: readonly { id: number; groupId: number; enabled: boolean; definition: ProcessConfig }[], series: readonly SeriesInfo[]): number[] {
  const written = new Set([seriesId]);
  const fed = new Set<number>();
  for (let grown = true; grown;) {
    grown = false;
    for (const p of processes) {
      if (!p.enabled || fed.has(p.id)) continue;
      const source = sourceOf(p.groupId, p.definition, series);
      if (!source || !written.has(source.id)) continue;
      fed.add(p.id);
      const target = targetOf(p.groupId, p.definition, series);
      if (target) written.add(target.id);
      grown = true;
    }
  }
  return processes.filter((p) => fed.has(p.id)).map((p) => p.id);
}

async function insert(tx: Tx, groupId: number, type: number, timeStep: string, name: string, publiclyAvailable: boolean): Promise<void> {
  await tx.timeseries.create({ data: { groupId, type, timeStep, name, publiclyAvailable, lastModified: new Date() } });
}

/**
 * Creates, in the caller's transaction, the series a process needs and its groups lack: the
 * checks' Initial source, and the target. A target copies time_step (checks, curves) and
 * publicly_available from the source when there is one. Returns whether it created any.
 *
 * A new Initial or Checked series may be another process's source or target now, so the
 * processes of the groups are marked for runs from scratch (the runners wake once the caller's
 * transaction has committed). An aggregation's new Aggregated series is not: no process reads an
 * Aggregated series and only that aggregation writes it, so the group's checks and other
 * processes are not run again for it (the caller queues the aggregation's own run).
 */
export async function createMissingSeries(tx: Tx, groupId: number, p: ProcessConfig): Promise<boolean> {
  const groupIds = groupsOf(groupId, p);
  const read = async () => (await tx.timeseries.findMany({ where: { groupId: { in: groupIds } }, orderBy: { id: "asc" } }))
    .map((t): SeriesInfo => ({ id: t.id, groupId: t.groupId, type: t.type, timeStep: t.timeStep, name: t.name, publiclyAvailable: t.publiclyAvailable }));
  let series = await read();
  const publicByDefault = settings().defaultPubliclyAvailable;
  let created = false;
  let othersConcerned = false;
  if (kindOf(p).reads === "initial" && !sourceOf(groupId, p, series)) {
    await insert(tx, groupId, INITIAL, "", "", publicByDefault);
    series = await read();
    created = othersConcerned = true;
  }
  if (!targetOf(groupId, p, series)) {
    const source = sourceOf(groupId, p, series);
    const key = kindOf(p).target(groupId, p);
    await insert(tx, key.groupId, key.type, key.timeStep ?? source?.timeStep ?? "", key.name ?? "", source?.publiclyAvailable ?? publicByDefault);
    created = true;
    othersConcerned ||= key.type !== AGGREGATED;
  }
  if (othersConcerned) for (const sql of groupSeriesChangedStatements(groupIds)) await tx.$executeRaw(sql);
  return created;
}
