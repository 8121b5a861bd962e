import { db, Prisma } from "@/lib/db";
import { isDatabaseId } from "@/lib/domain/refs";
import { isoMillis } from "@/lib/domain/serialize";

export type GroupRow = Prisma.TimeseriesGroupGetPayload<object>;

/** The time series group object of api.md §5. */
export function groupJson(g: GroupRow) {
  return {
    id: g.id,
    last_modified: isoMillis(g.lastModified),
    name: g.name,
    hidden: g.hidden,
    precision: g.precision,
    remarks: g.remarks,
    gentity: g.stationId,
    variable: g.variableId,
    unit_of_measurement: g.unitId,
  };
}

/** The group, if it belongs to the station. */
export async function findGroup(stationId: number, groupId: number): Promise<GroupRow | null> {
  return db().prisma.timeseriesGroup.findFirst({ where: { id: groupId, stationId } });
}

/** The unit symbol of a group (of any station), or null when there is no such group. */
export async function groupUnitSymbol(groupId: number): Promise<string | null> {
  if (!isDatabaseId(groupId)) return null;
  const group = await db().prisma.timeseriesGroup.findUnique({ where: { id: groupId }, select: { unit: { select: { symbol: true } } } });
  return group ? group.unit.symbol : null;
}

export async function countGroups(stationId: number): Promise<number> {
  return db().prisma.timeseriesGroup.count({ where: { stationId } });
}

export async function groupsPage(stationId: number, offset: number, limit: number): Promise<GroupRow[]> {
  return db().prisma.timeseriesGroup.findMany({
    where: { stationId }, orderBy: [{ name: "asc" }, { id: "asc" }], skip: offset, take: limit,
  });
}
