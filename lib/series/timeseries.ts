import { db, Prisma } from "@/lib/db";
import { isoMillis } from "@/lib/domain/serialize";
import { typeName } from "@/lib/domain/timeseries-types";
import { orNotFound } from "@/lib/domain/errors";
import { groupJson } from "@/lib/series/groups";
import { isDatabaseId } from "@/lib/domain/refs";
import type { SeriesPath } from "@/lib/series/context";

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
export function olderShapeJson(t: SeriesWithGroup) {
  const g = t.group;
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

/** The series of a path: by id, in the group and station when the path names them. */
export async function findSeriesAt({ seriesId, stationId, groupId }: SeriesPath): Promise<SeriesWithGroup | null> {
  if (!isDatabaseId(seriesId)) return null;
  const where = { id: seriesId, ...(groupId === undefined ? {} : { groupId }), ...(stationId === undefined ? {} : { group: { stationId } }) };
  return db().prisma.timeseries.findFirst({ where, include: { group: true } });
}

/** The series of a path (with its group), or NotFound. */
export async function seriesAt(path: SeriesPath): Promise<SeriesWithGroup> {
  return orNotFound(await findSeriesAt(path));
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
