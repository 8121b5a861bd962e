import { db, Prisma } from "@/lib/db";
import { isoMillis } from "@/lib/services/serialize";
import { typeName } from "@/lib/services/timeseries-types";
import { groupJson, type GroupRow } from "@/lib/services/groups";

export type SeriesRow = Prisma.TimeseriesGetPayload<object>;
export type SeriesWithGroup = Prisma.TimeseriesGetPayload<{ include: { group: true } }>;

/** The time series object of api.md §6. */
export function seriesJson(t: SeriesRow) {
  return {
    id: t.id,
    last_modified: isoMillis(t.lastModified),
    type: typeName(t.type),
    time_step: t.timeStep,
    timeseries_group: t.groupId,
    name: t.name,
    publicly_available: t.publiclyAvailable,
  };
}

function later(a: Date | null, b: Date | null): Date | null {
  if (!a) return b;
  if (!b) return a;
  return a > b ? a : b;
}

/** The older shape of api.md §7.1: a time series joined with its group. */
export function olderShapeJson(t: SeriesRow, g: GroupRow) {
  const group = groupJson(g);
  return {
    id: t.id,
    last_modified: isoMillis(later(t.lastModified, g.lastModified)),
    name: group.name,
    hidden: group.hidden,
    precision: group.precision,
    remarks: group.remarks,
    gentity: group.gentity,
    variable: group.variable,
    unit_of_measurement: group.unit_of_measurement,
    time_step: t.timeStep,
    timeseries_group: g.id,
  };
}

/** The series, if it belongs to the group, which belongs to the station. */
export async function findSeries(stationId: number, groupId: number, seriesId: number): Promise<SeriesWithGroup | null> {
  return db().prisma.timeseries.findFirst({ where: { id: seriesId, groupId, group: { stationId } }, include: { group: true } });
}

/** The series, if its group belongs to the station (the short paths of api.md §7). */
export async function findStationSeries(stationId: number, seriesId: number): Promise<SeriesWithGroup | null> {
  return db().prisma.timeseries.findFirst({ where: { id: seriesId, group: { stationId } }, include: { group: true } });
}

export async function countSeries(groupId: number): Promise<number> {
  return db().prisma.timeseries.count({ where: { groupId } });
}

export async function seriesPage(groupId: number, offset: number, limit: number): Promise<SeriesRow[]> {
  return db().prisma.timeseries.findMany({ where: { groupId }, orderBy: [{ type: "asc" }, { id: "asc" }], skip: offset, take: limit });
}

export async function countStationSeries(stationId: number): Promise<number> {
  return db().prisma.timeseries.count({ where: { group: { stationId } } });
}

/** Every series of a station, by group name, group id, type, id (api.md §7.1). */
export async function stationSeriesPage(stationId: number, offset: number, limit: number): Promise<SeriesWithGroup[]> {
  return db().prisma.timeseries.findMany({
    where: { group: { stationId } },
    orderBy: [{ group: { name: "asc" } }, { groupId: "asc" }, { type: "asc" }, { id: "asc" }],
    include: { group: true },
    skip: offset,
    take: limit,
  });
}
