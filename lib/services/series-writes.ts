import { ensureEditor, type Actor } from "@/lib/auth/permissions";
import { settings } from "@/lib/config";
import { db, type Tx } from "@/lib/db";
import { notifyJobsQueued } from "@/lib/jobs/queue";
import { groupSeriesChangedStatements } from "@/lib/processing/state";
import { orNotFound, ValidationFailed } from "@/lib/services/errors";
import { valuesOf, type Given } from "@/lib/services/given";
import { findGroup, type GroupRow } from "@/lib/services/groups";
import { remarksNorm } from "@/lib/services/norms";
import type { SeriesPath } from "@/lib/services/series-context";
import { editableChild, editableStation, existingStation, type StationAccess } from "@/lib/services/stations";
import { findSeriesAt, type SeriesWithGroup } from "@/lib/services/timeseries";
import { typeCode, typeName } from "@/lib/services/timeseries-types";

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
 * now and run from scratch (processing.md §2). The caller calls notifyJobsQueued() after it.
 */
async function seriesOfGroupChanged(tx: Tx, groupId: number): Promise<void> {
  for (const sql of groupSeriesChangedStatements([groupId])) await tx.$executeRaw(sql);
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

/** A new group of the station; its id. */
export async function createGroup(actor: Actor, stationId: number, given: Given<GroupData, StationAccess>): Promise<number> {
  const station = await editableStation(actor, stationId);
  const data = await valuesOf(given, station);
  return db().write((tx) => insertGroup(tx, station.id, data));
}

export async function updateGroup(actor: Actor, stationId: number, groupId: number, given: Given<Partial<GroupData>, StationAccess>): Promise<void> {
  const { station, group } = await editableGroup(actor, stationId, groupId);
  const data = await valuesOf(given, station);
  await db().write((tx) => changeGroup(tx, group.id, data));
}

/** Deletes the group with its series and their records. */
export async function deleteGroup(actor: Actor, stationId: number, groupId: number): Promise<void> {
  const { group } = await editableGroup(actor, stationId, groupId);
  await db().write((tx) => tx.timeseriesGroup.delete({ where: { id: group.id } }));
}

/** A new series of the group; its id. */
export async function createSeries(actor: Actor, stationId: number, groupId: number, given: Given<SeriesData, GroupRow>): Promise<number> {
  const { group } = await editableGroup(actor, stationId, groupId);
  const data = await valuesOf(given, group);
  const id = await uniquely(group.id, data, undefined, async (tx) => {
    const created = await insertSeries(tx, group.id, data);
    await seriesOfGroupChanged(tx, group.id);
    return created;
  });
  notifyJobsQueued();
  return id;
}

export async function updateSeries(actor: Actor, path: SeriesPath, given: Given<Partial<SeriesData>, SeriesWithGroup>): Promise<void> {
  const { series } = await editableSeries(actor, path);
  const data = await valuesOf(given, series);
  const merged: SeriesData = { type: series.type, timeStep: series.timeStep, name: series.name, publiclyAvailable: series.publiclyAvailable, ...data };
  const sourcesChange = merged.type !== series.type || merged.timeStep !== series.timeStep;
  await uniquely(series.groupId, merged, series.id, async (tx) => {
    await changeSeries(tx, series.id, data);
    if (sourcesChange) await seriesOfGroupChanged(tx, series.groupId);
  });
  if (sourcesChange) notifyJobsQueued();
}

/** Deletes the series and its records. */
export async function deleteSeries(actor: Actor, path: SeriesPath): Promise<void> {
  const { series } = await editableSeries(actor, path);
  await db().write(async (tx) => {
    await tx.timeseries.delete({ where: { id: series.id } });
    await seriesOfGroupChanged(tx, series.groupId);
  });
  notifyJobsQueued();
}

/** The older shape's create: a group and, in it, an Initial time series; the series' id. */
export async function createOlderShape(actor: Actor, stationId: number, given: Given<OlderShapeData, StationAccess>): Promise<number> {
  const station = await editableStation(actor, stationId);
  const body = await valuesOf(given, station);
  return db().write(async (tx) => {
    const groupId = await insertGroup(tx, station.id, body.group as GroupData);
    return insertSeries(tx, groupId, { type: typeCode("Initial"), timeStep: body.timeStep ?? "", name: "", publiclyAvailable: settings().defaultPubliclyAvailable });
  });
}

export async function updateOlderShape(actor: Actor, path: SeriesPath, given: Given<OlderShapeData, SeriesWithGroup>): Promise<void> {
  const { series } = await editableSeries(actor, path);
  const body = await valuesOf(given, series);
  const sourcesChange = body.timeStep !== undefined && body.timeStep !== series.timeStep;
  await db().write(async (tx) => {
    if (Object.keys(body.group).length) await changeGroup(tx, series.groupId, body.group);
    if (body.timeStep !== undefined) await changeSeries(tx, series.id, { timeStep: body.timeStep });
    if (sourcesChange) await seriesOfGroupChanged(tx, series.groupId);
  });
  if (sourcesChange) notifyJobsQueued();
}

/** The older shape's delete: the series, and its group when it was the last one (api.md §7.1). */
export async function deleteOlderShape(actor: Actor, path: SeriesPath): Promise<void> {
  const { series } = await editableSeries(actor, path);
  await db().write(async (tx) => {
    await tx.timeseries.delete({ where: { id: series.id } });
    if ((await tx.timeseries.count({ where: { groupId: series.groupId } })) === 0) await tx.timeseriesGroup.delete({ where: { id: series.groupId } });
    else await seriesOfGroupChanged(tx, series.groupId);
  });
  notifyJobsQueued();
}
