import type { Actor } from "@/lib/auth/permissions";
import { db, Prisma } from "@/lib/db";
import { changedFields, changeSummary, recordActivity } from "@/lib/domain/activity-log";
import { ensureUnchanged, type ChangeOptions } from "@/lib/domain/concurrency";
import { valuesOf, type Given } from "@/lib/domain/given";
import { isoMillis } from "@/lib/domain/serialize";
import { editableChild, editableStation, type StationAccess } from "@/lib/stations/stations";

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

/** An event's fields; `date` and `typeId` are required on create. */
export interface EventData {
  date?: string;
  user?: string;
  report?: string;
  typeId?: number;
}

/** How the activity log names an event: "event #4 of 2020-05-01". */
const describe = (e: { id: number; date: string }) => `event #${e.id} of ${e.date}`;

/** Writes of events (api.md §10) by the station's editors. */
export async function createEvent(actor: Actor, stationId: number, given: Given<EventData & { date: string; typeId: number }, StationAccess>): Promise<EventRow> {
  const station = await editableStation(actor, stationId);
  const data = await valuesOf(given, station);
  return db().write(async (tx) => {
    const row = await tx.event.create({
      data: { stationId: station.id, date: data.date, user: data.user ?? "", report: data.report ?? "", typeId: data.typeId, lastModified: new Date() },
    });
    await recordActivity(tx, actor, { action: "create", objectType: "event", objectId: row.id, stationId: station.id, summary: `Added ${describe(row)}` });
    return row;
  });
}

/** Changes the fields given. */
export async function updateEvent(actor: Actor, stationId: number, id: number, given: Given<EventData, StationAccess>, options?: ChangeOptions): Promise<EventRow> {
  const { station, child: event } = await editableChild(actor, stationId, (s) => findEvent(s.id, id));
  const data = await valuesOf(given, station);
  return db().write(async (tx) => {
    await ensureUnchanged(tx, "event", event.id, options, "event");
    const row = await tx.event.update({ where: { id: event.id }, data: { ...data, lastModified: new Date() } });
    await recordActivity(tx, actor, {
      action: "change", objectType: "event", objectId: row.id, stationId: station.id, summary: changeSummary(describe(row), changedFields(event, data, { typeId: "type" })),
    });
    return row;
  });
}

export async function deleteEvent(actor: Actor, stationId: number, id: number): Promise<void> {
  const { station, child: event } = await editableChild(actor, stationId, (s) => findEvent(s.id, id));
  await db().write(async (tx) => {
    await tx.event.delete({ where: { id: event.id } });
    await recordActivity(tx, actor, { action: "delete", objectType: "event", objectId: event.id, stationId: station.id, summary: `Deleted ${describe(event)}` });
  });
}
