import { isSuperuser, type Actor } from "@/lib/auth/permissions";
import { db, Prisma, type Tx } from "@/lib/db";
import { now } from "@/lib/jobs/sql";
import { isoMillis, toNumber } from "@/lib/domain/serialize";
import { editableStation } from "@/lib/stations/stations";

/**
 * The activity log (management.md §3): who changed what, when, in one line. The services record
 * every change in the change's own transaction, so the site, the API, the legacy interface,
 * scripts and jobs all leave the same trace:
 *
 *   await recordActivity(tx, actor, { action: "create", objectType: "station", objectId: id, stationId: id, summary: … });
 *
 * and, for a records write, `activitySql(…)` among the write's `also` statements.
 */
export interface ActivityEntry {
  /** create | change | delete | upload, or a kind a later feature adds (run, …) */
  action: string;
  /** station, timeseries_group, timeseries, file, image, event, the lookup's name, user, process… */
  objectType: string;
  objectId: number;
  /** The station the object belongs to; null for lookups and users. */
  stationId: number | null;
  /** One line, e.g. `Changed station "Komboti": name, altitude`. */
  summary: string;
}

const SUMMARY_LIMIT = 500;

/** The statement that records one entry, for a transaction's raw statements (a records write's `also`). */
export function activitySql(actor: Actor, entry: ActivityEntry): Prisma.Sql {
  const line = entry.summary.replace(/\s+/g, " ").trim();
  const summary = [...line].length > SUMMARY_LIMIT ? `${[...line].slice(0, SUMMARY_LIMIT - 1).join("")}…` : line;
  return Prisma.sql`INSERT INTO activity (at, user_id, username, action, object_type, object_id, station_id, summary)
    VALUES (${now(db().dialect)}, ${actor?.id ?? null}, ${actor?.username ?? ""}, ${entry.action}, ${entry.objectType},
      ${entry.objectId}, ${entry.stationId}, ${summary})`;
}

/** Records one entry in the caller's transaction: the one call every write service makes. */
export async function recordActivity(tx: Tx, actor: Actor, entry: ActivityEntry): Promise<void> {
  await tx.$executeRaw(activitySql(actor, entry));
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

/** `"name"`, or a fallback such as `#12` when the name is blank: how summaries name objects. */
export function named(name: string | null | undefined, id: number): string {
  return name ? `"${name}"` : `#${id}`;
}

/**
 * The API names of the fields whose values differ between `before` and `after` (only the keys
 * of `after` are compared; lists compare as sets), as `after` names them through `names`.
 */
export function changedFields(before: object, after: object, names: Record<string, string> = {}): string[] {
  const old = before as Record<string, unknown>;
  const same = (a: unknown, b: unknown) => {
    if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && [...a].sort().join() === [...b].sort().join();
    if (a instanceof Date && b instanceof Date) return a.getTime() === b.getTime();
    return a === b;
  };
  const fields: string[] = [];
  for (const [key, value] of Object.entries(after)) {
    if (value === undefined || same(old[key], value)) continue;
    const name = names[key] ?? key;
    if (!fields.includes(name)) fields.push(name);
  }
  return fields;
}

/** `Changed station "X": name, code` — or ` (nothing changed)`. */
export function changeSummary(what: string, fields: string[]): string {
  return `Changed ${what}${fields.length ? `: ${fields.join(", ")}` : " (nothing changed)"}`;
}
