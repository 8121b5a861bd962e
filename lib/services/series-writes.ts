import type { Tx } from "@/lib/db";
import { remarksNorm } from "@/lib/services/norms";
import { typeName } from "@/lib/services/timeseries-types";

/** Writes of time series groups (api.md §5) and time series (api.md §6), inside a transaction. */
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

export async function createGroup(tx: Tx, stationId: number, data: GroupData): Promise<number> {
  const group = await tx.timeseriesGroup.create({
    data: { ...data, stationId, lastModified: new Date(), remarksNorm: remarksNorm(data.remarks) },
  });
  return group.id;
}

export async function updateGroup(tx: Tx, id: number, data: Partial<GroupData>): Promise<void> {
  await tx.timeseriesGroup.update({
    where: { id },
    data: { ...data, lastModified: new Date(), ...(data.remarks !== undefined ? { remarksNorm: remarksNorm(data.remarks) } : {}) },
  });
}

export async function deleteGroup(tx: Tx, id: number): Promise<void> {
  await tx.timeseriesGroup.delete({ where: { id } });
}

/**
 * The uniqueness rules of a series (api.md §6): one Initial, Checked and Regularized per group;
 * Aggregated ones differ by time step or name. Returns the 400 message of a violation.
 */
export async function seriesConflict(tx: Tx, groupId: number, data: SeriesData, exceptId?: number): Promise<string | null> {
  const others = { groupId, type: data.type, ...(exceptId ? { id: { not: exceptId } } : {}) };
  if (data.type !== 4) {
    const clash = await tx.timeseries.findFirst({ where: others, select: { id: true } });
    return clash ? `A time series with timeseries_group_id=${groupId} and type=${typeName(data.type)} already exists` : null;
  }
  const clash = await tx.timeseries.findFirst({ where: { ...others, timeStep: data.timeStep, name: data.name }, select: { id: true } });
  return clash ? "The fields timeseries_group, type, time_step, name must make a unique set." : null;
}

export async function createSeries(tx: Tx, groupId: number, data: SeriesData): Promise<number> {
  const series = await tx.timeseries.create({ data: { ...data, groupId, lastModified: new Date() } });
  return series.id;
}

/** Changes a series' own fields; its version changes too (formats.md §9.2). */
export async function updateSeries(tx: Tx, id: number, data: Partial<SeriesData>): Promise<void> {
  await tx.timeseries.update({ where: { id }, data: { ...data, lastModified: new Date(), version: { increment: 1 } } });
}

export async function deleteSeries(tx: Tx, id: number): Promise<void> {
  await tx.timeseries.delete({ where: { id } });
}
