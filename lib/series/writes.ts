import { ensureEditor, type Actor } from "@/lib/auth/permissions";
import { settings } from "@/lib/config";
import { db, type Tx } from "@/lib/db";
import { changedFields, changeSummary, named, recordActivity } from "@/lib/domain/activity-log";
import { ensureUnchanged, type ChangeOptions } from "@/lib/domain/concurrency";
import { contentsText, editableChild, editableStation, existingStation, groupContents, type StationAccess } from "@/lib/stations";
import { changeStatements } from "@/lib/jobs/registry";
import { orNotFound, ValidationFailed } from "@/lib/domain/errors";
import { valuesOf, type Given } from "@/lib/domain/given";
import { findGroup, type GroupRow } from "@/lib/series/groups";
import { remarksNorm } from "@/lib/domain/norms";
import type { SeriesPath } from "@/lib/series/context";
import { findSeriesAt, type SeriesWithGroup } from "@/lib/series/timeseries";
import { typeCode, typeName } from "@/lib/domain/timeseries-types";

/**
 * Writes of time series groups (api.md §5), time series (§6) and the older shape (§7.1) for an
 * actor, who must be an editor of the station. Each write is one transaction.
 */
export interface GroupData {
  name: string;
  hidden: boolean;
  precision: number;
  remarks: string;
  variableId: number;
  unitId: number;
}

export interface SeriesData {
  /** 1 Initial, 2 Checked, 3 Regularized, 4 Aggregated */
  type: number;
  timeStep: string;
  name: string;
  publiclyAvailable: boolean;
}

/** The older shape's values: its group's fields and its series' time step. */
export interface OlderShapeData {
  group: Partial<GroupData>;
  timeStep?: string;
}

/** The group of the path, if the actor may change it. */
async function editableGroup(actor: Actor, stationId: number, groupId: number): Promise<{ station: StationAccess; group: GroupRow }> {
  const { station, child: group } = await editableChild(actor, stationId, (s) => findGroup(s.id, groupId));
  return { station, group };
}

/** The series of the path, if the actor may change it; without a station in the path, the series' station. */
async function editableSeries(actor: Actor, path: SeriesPath): Promise<{ station: StationAccess; series: SeriesWithGroup }> {
  const named = path.stationId === undefined ? null : await existingStation(path.stationId);
  const series = orNotFound(await findSeriesAt(path));
  const station = named ?? (await existingStation(series.group.stationId));
  ensureEditor(actor, station);
  return { station, series };
}

/** Inserts a group in the caller's transaction (other services, seeding). */
export async function insertGroup(tx: Tx, stationId: number, data: GroupData): Promise<number> {
  const group = await tx.timeseriesGroup.create({
    data: { ...data, stationId, lastModified: new Date(), remarksNorm: remarksNorm(data.remarks) },
  });
  return group.id;
}

async function changeGroup(tx: Tx, id: number, data: Partial<GroupData>): Promise<void> {
  await tx.timeseriesGroup.update({
    where: { id },
    data: { ...data, lastModified: new Date(), ...(data.remarks !== undefined ? { remarksNorm: remarksNorm(data.remarks) } : {}) },
  });
}

/** Inserts a series in the caller's transaction (other services, seeding). */
export async function insertSeries(tx: Tx, groupId: number, data: SeriesData): Promise<number> {
  const series = await tx.timeseries.create({ data: { ...data, groupId, lastModified: new Date() } });
  return series.id;
}

/**
 * The group's set of series, or a series' type or time step, changed in the caller's
 * transaction: the processes reading or writing the group may have another source or target
 * now and run from scratch (processing.md §2); the runners wake once it has committed.
 */
async function seriesOfGroupChanged(tx: Tx, groupId: number): Promise<void> {
  for (const sql of changeStatements({ kind: "group-series-changed", groupIds: [groupId] })) await tx.$executeRaw(sql);
}

/** Changes a series' own fields; its version changes too (formats.md §9.2). */
async function changeSeries(tx: Tx, id: number, data: Partial<SeriesData>): Promise<void> {
  await tx.timeseries.update({ where: { id }, data: { ...data, lastModified: new Date(), version: { increment: 1 } } });
}

/**
 * The uniqueness rules of a series (api.md §6): one Initial, Checked and Regularized per group;
 * Aggregated ones differ by time step or name. Returns the message of a violation.
 */
async function seriesConflict(tx: Tx, groupId: number, data: SeriesData, exceptId?: number): Promise<string | null> {
  const others = { groupId, type: data.type, ...(exceptId ? { id: { not: exceptId } } : {}) };
  if (data.type !== 4) {
    const clash = await tx.timeseries.findFirst({ where: others, select: { id: true } });
    return clash ? `A time series with timeseries_group_id=${groupId} and type=${typeName(data.type)} already exists` : null;
  }
  const clash = await tx.timeseries.findFirst({ where: { ...others, timeStep: data.timeStep, name: data.name }, select: { id: true } });
  return clash ? "The fields timeseries_group, type, time_step, name must make a unique set." : null;
}

/** Writes under the uniqueness rules; a unique-index race lost between the check and the write ends as the check's error. */
async function uniquely<T>(groupId: number, data: SeriesData, exceptId: number | undefined, write: (tx: Tx) => Promise<T>): Promise<T> {
  try {
    return await db().write(async (tx) => {
      const conflict = await seriesConflict(tx, groupId, data, exceptId);
      if (conflict) throw ValidationFailed.nonField(conflict);
      return write(tx);
    });
  } catch (e) {
    if ((e as { code?: string }).code === "P2002") {
      const conflict = await db().write((tx) => seriesConflict(tx, groupId, data, exceptId));
      if (conflict) throw ValidationFailed.nonField(conflict);
    }
    throw e;
  }
}

/** How the activity log names a group and a series. */
const groupName = (g: { id: number; name: string }) => `time series group ${named(g.name, g.id)}`;
const seriesName = (t: { id: number; type: number; timeStep: string; name: string }, group: { id: number; name: string }) =>
  `time series ${[typeName(t.type), t.timeStep, t.name].filter(Boolean).join(" ")} #${t.id} of ${groupName(group)}`;
const GROUP_FIELDS: Record<string, string> = { variableId: "variable", unitId: "unit_of_measurement" };
const SERIES_FIELDS: Record<string, string> = { timeStep: "time_step", publiclyAvailable: "publicly_available" };

async function groupCreated(tx: Tx, actor: Actor, stationId: number, id: number, name: string): Promise<void> {
  await recordActivity(tx, actor, { action: "create", objectType: "timeseries_group", objectId: id, stationId, summary: `Created ${groupName({ id, name })}` });
}

async function seriesCreated(tx: Tx, actor: Actor, stationId: number, id: number, data: SeriesData, group: { id: number; name: string }): Promise<void> {
  await recordActivity(tx, actor, { action: "create", objectType: "timeseries", objectId: id, stationId, summary: `Created ${seriesName({ id, ...data }, group)}` });
}

async function groupDeleted(tx: Tx, actor: Actor, group: GroupRow): Promise<void> {
  const taken = contentsText(await groupContents(group.id, tx));
  await tx.timeseriesGroup.delete({ where: { id: group.id } });
  await recordActivity(tx, actor, {
    action: "delete", objectType: "timeseries_group", objectId: group.id, stationId: group.stationId,
    summary: `Deleted ${groupName(group)}${taken ? ` with ${taken}` : ""}`,
  });
}

async function seriesDeleted(tx: Tx, actor: Actor, series: SeriesWithGroup): Promise<void> {
  await tx.timeseries.delete({ where: { id: series.id } });
  const taken = contentsText({ records: series.recordCount });
  await recordActivity(tx, actor, {
    action: "delete", objectType: "timeseries", objectId: series.id, stationId: series.group.stationId,
    summary: `Deleted ${seriesName(series, series.group)}${taken ? ` with ${taken}` : ""}`,
  });
}

/** A new group of the station; its id. */
export async function createGroup(actor: Actor, stationId: number, given: Given<GroupData, StationAccess>): Promise<number> {
  const station = await editableStation(actor, stationId);
  const data = await valuesOf(given, station);
  return db().write(async (tx) => {
    const id = await insertGroup(tx, station.id, data);
    await groupCreated(tx, actor, station.id, id, data.name);
    return id;
  });
}

export async function updateGroup(actor: Actor, stationId: number, groupId: number, given: Given<Partial<GroupData>, StationAccess>, options?: ChangeOptions): Promise<void> {
  const { station, group } = await editableGroup(actor, stationId, groupId);
  const data = await valuesOf(given, station);
  await db().write(async (tx) => {
    await ensureUnchanged(tx, "timeseriesGroup", group.id, options, "time series group");
    const current = await tx.timeseriesGroup.findUniqueOrThrow({ where: { id: group.id } });
    await changeGroup(tx, group.id, data);
    await recordActivity(tx, actor, {
      action: "change", objectType: "timeseries_group", objectId: group.id, stationId: station.id,
      summary: changeSummary(groupName({ id: group.id, name: data.name ?? current.name }), changedFields(current, data, GROUP_FIELDS)),
    });
  });
}

/** Deletes the group with its series and their records. */
export async function deleteGroup(actor: Actor, stationId: number, groupId: number): Promise<void> {
  const { group } = await editableGroup(actor, stationId, groupId);
  await db().write((tx) => groupDeleted(tx, actor, group));
}

/** A new series of the group; its id. */
export async function createSeries(actor: Actor, stationId: number, groupId: number, given: Given<SeriesData, GroupRow>): Promise<number> {
  const { group } = await editableGroup(actor, stationId, groupId);
  const data = await valuesOf(given, group);
  const id = await uniquely(group.id, data, undefined, async (tx) => {
    const created = await insertSeries(tx, group.id, data);
    await seriesCreated(tx, actor, group.stationId, created, data, group);
    await seriesOfGroupChanged(tx, group.id);
    return created;
  });
  return id;
}

export async function updateSeries(actor: Actor, path: SeriesPath, given: Given<Partial<SeriesData>, SeriesWithGroup>, options?: ChangeOptions): Promise<void> {
  const { series } = await editableSeries(actor, path);
  const data = await valuesOf(given, series);
  const merged: SeriesData = { type: series.type, timeStep: series.timeStep, name: series.name, publiclyAvailable: series.publiclyAvailable, ...data };
  const sourcesChange = merged.type !== series.type || merged.timeStep !== series.timeStep;
  await uniquely(series.groupId, merged, series.id, async (tx) => {
    await ensureUnchanged(tx, "timeseries", series.id, options, "time series");
    await changeSeries(tx, series.id, data);
    await recordActivity(tx, actor, {
      action: "change", objectType: "timeseries", objectId: series.id, stationId: series.group.stationId,
      summary: changeSummary(seriesName({ ...merged, id: series.id }, series.group), changedFields(series, data, SERIES_FIELDS)),
    });
    if (sourcesChange) await seriesOfGroupChanged(tx, series.groupId);
  });
}

/** Deletes the series and its records. */
export async function deleteSeries(actor: Actor, path: SeriesPath): Promise<void> {
  const { series } = await editableSeries(actor, path);
  await db().write(async (tx) => {
    await seriesDeleted(tx, actor, series);
    await seriesOfGroupChanged(tx, series.groupId);
  });
}

/** The older shape's create: a group and, in it, an Initial time series; the series' id. */
export async function createOlderShape(actor: Actor, stationId: number, given: Given<OlderShapeData, StationAccess>): Promise<number> {
  const station = await editableStation(actor, stationId);
  const body = await valuesOf(given, station);
  return db().write(async (tx) => {
    const group = body.group as GroupData;
    const groupId = await insertGroup(tx, station.id, group);
    await groupCreated(tx, actor, station.id, groupId, group.name);
    const data: SeriesData = { type: typeCode("Initial"), timeStep: body.timeStep ?? "", name: "", publiclyAvailable: settings().defaultPubliclyAvailable };
    const id = await insertSeries(tx, groupId, data);
    await seriesCreated(tx, actor, station.id, id, data, { id: groupId, name: group.name });
    return id;
  });
}

export async function updateOlderShape(actor: Actor, path: SeriesPath, given: Given<OlderShapeData, SeriesWithGroup>): Promise<void> {
  const { series } = await editableSeries(actor, path);
  const body = await valuesOf(given, series);
  const sourcesChange = body.timeStep !== undefined && body.timeStep !== series.timeStep;
  await db().write(async (tx) => {
    const stationId = series.group.stationId;
    if (Object.keys(body.group).length) {
      await changeGroup(tx, series.groupId, body.group);
      await recordActivity(tx, actor, {
        action: "change", objectType: "timeseries_group", objectId: series.groupId, stationId,
        summary: changeSummary(groupName({ id: series.groupId, name: body.group.name ?? series.group.name }), changedFields(series.group, body.group, GROUP_FIELDS)),
      });
    }
    if (body.timeStep !== undefined) {
      await changeSeries(tx, series.id, { timeStep: body.timeStep });
      await recordActivity(tx, actor, {
        action: "change", objectType: "timeseries", objectId: series.id, stationId,
        summary: changeSummary(seriesName({ ...series, timeStep: body.timeStep }, series.group), changedFields(series, { timeStep: body.timeStep }, SERIES_FIELDS)),
      });
    }
    if (sourcesChange) await seriesOfGroupChanged(tx, series.groupId);
  });
}

/** The older shape's delete: the series, and its group when it was the last one (api.md §7.1). */
export async function deleteOlderShape(actor: Actor, path: SeriesPath): Promise<void> {
  const { series } = await editableSeries(actor, path);
  await db().write(async (tx) => {
    await seriesDeleted(tx, actor, series);
    if ((await tx.timeseries.count({ where: { groupId: series.groupId } })) === 0) await groupDeleted(tx, actor, series.group);
    else await seriesOfGroupChanged(tx, series.groupId);
  });
}
