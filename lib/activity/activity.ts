import { isSuperuser, type Actor } from "@/lib/auth/permissions";
import { db, Prisma } from "@/lib/db";
import { isoMillis, toNumber } from "@/lib/domain/serialize";
import { editableStation } from "@/lib/stations";

/** Reading the activity log (management.md §3); entries are written by lib/domain/activity-log.ts. */

/**
 * Every action the services record (lib/domain/activity-log.ts's `action`), as the manage pages
 * name them in each language (the catalogues' `manageParts.action`). A service that records a new
 * action adds it here and to every catalogue: tests/unit/activity-actions-i18n.test.ts reads the
 * actions the sources record and fails on one missing here or in a catalogue.
 */
export const ACTIVITY_ACTIONS = ["create", "change", "delete", "upload", "correct", "reset", "run", "fetch", "approve", "deny", "expire"] as const;
export type ActivityAction = (typeof ACTIVITY_ACTIONS)[number];

/** Whether a stored action is one of ACTIVITY_ACTIONS. */
export function isActivityAction(action: string): action is ActivityAction {
  return (ACTIVITY_ACTIONS as readonly string[]).includes(action);
}

/** An entry as `GET api/stations/{sid}/activity/` gives it (management.md §3). */
export interface ActivityJson {
  id: number;
  time: string;
  user: string | null;
  action: string;
  object_type: string;
  object_id: number;
  summary: string;
}

interface Row {
  id: unknown; at: unknown; user_id: unknown; username: string; action: string; object_type: string; object_id: unknown;
  station_id: unknown; summary: string;
}

/** An entry with the station it belongs to, for the lists of the manage pages. */
export interface ActivityItem extends ActivityJson {
  station: number | null;
}

function item(r: Row): ActivityItem {
  const at = r.at instanceof Date ? r.at : new Date(Number(r.at));
  return {
    id: toNumber(r.id)!, time: isoMillis(at)!, user: r.user_id === null && r.username === "" ? null : r.username,
    action: r.action, object_type: r.object_type, object_id: toNumber(r.object_id)!, summary: r.summary, station: toNumber(r.station_id),
  };
}

export function activityJson(a: ActivityItem): ActivityJson {
  return { id: a.id, time: a.time, user: a.user, action: a.action, object_type: a.object_type, object_id: a.object_id, summary: a.summary };
}

const COLUMNS = Prisma.sql`id, at, user_id, username, action, object_type, object_id, station_id, summary`;

/** The number of entries of a station, for an editor of it (NotFound, PermissionDenied). */
export async function countStationActivity(actor: Actor, stationId: number): Promise<number> {
  await editableStation(actor, stationId);
  const [row] = await db().query<{ n: unknown }>(Prisma.sql`SELECT COUNT(*) AS n FROM activity WHERE station_id = ${stationId}`);
  return toNumber(row.n)!;
}

/** A page of a station's entries, newest first (call countStationActivity first: it checks the permission). */
export async function stationActivityPage(stationId: number, offset: number, limit: number): Promise<ActivityItem[]> {
  const rows = await db().query<Row>(Prisma.sql`SELECT ${COLUMNS} FROM activity WHERE station_id = ${stationId}
    ORDER BY id DESC LIMIT ${limit} OFFSET ${offset}`);
  return rows.map(item);
}

/**
 * The latest entries the user may see on `{site}/manage/`: every entry for a superuser, else
 * those of the stations the user edits (as creator or maintainer).
 */
export async function recentActivity(actor: Actor, limit: number): Promise<ActivityItem[]> {
  if (!actor) return [];
  const where = isSuperuser(actor) ? Prisma.empty : Prisma.sql`WHERE station_id IN (
      SELECT id FROM station WHERE creator_id = ${actor.id} UNION SELECT station_id FROM station_maintainer WHERE user_id = ${actor.id})`;
  const rows = await db().query<Row>(Prisma.sql`SELECT ${COLUMNS} FROM activity ${where} ORDER BY id DESC LIMIT ${limit}`);
  return rows.map(item);
}
