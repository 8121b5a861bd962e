import { db, Prisma } from "@/lib/db";
import { isoMillis } from "@/lib/services/serialize";

export type EventRow = Prisma.EventGetPayload<object>;

/** The event object of api.md §10. */
export function eventJson(e: EventRow) {
  return {
    id: e.id,
    last_modified: isoMillis(e.lastModified),
    date: e.date,
    user: e.user,
    report: e.report,
    gentity: e.stationId,
    type: e.typeId,
  };
}

export async function countEvents(stationId: number): Promise<number> {
  return db().prisma.event.count({ where: { stationId } });
}

export async function eventsPage(stationId: number, skip: number, take: number): Promise<EventRow[]> {
  return db().prisma.event.findMany({ where: { stationId }, orderBy: [{ date: "desc" }, { id: "asc" }], skip, take });
}

export async function findEvent(stationId: number, id: number): Promise<EventRow | null> {
  return db().prisma.event.findFirst({ where: { id, stationId } });
}
