import type { Actor } from "@/lib/auth/permissions";
import { db, Prisma, type Tx } from "@/lib/db";
import { now } from "@/lib/db/dialect-sql";

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
  return activityInsert(actor, entry, Prisma.sql`${oneLine(entry.summary)}`);
}

/**
 * activitySql for an entry that names a row the same transaction inserts, whose id is not known
 * before: the last `{id}` in the summary (put it after any name a user gave) stands for the
 * value of `id`, an SQL expression (a subquery).
 */
export function activitySqlWithId(actor: Actor, entry: ActivityEntry, id: Prisma.Sql): Prisma.Sql {
  const line = oneLine(entry.summary);
  const at = line.lastIndexOf("{id}");
  if (at < 0) return activityInsert(actor, entry, Prisma.sql`${line}`);
  return activityInsert(actor, entry, Prisma.sql`${line.slice(0, at)} || CAST(${id} AS TEXT) || ${line.slice(at + 4)}`);
}

function oneLine(text: string): string {
  const line = text.replace(/\s+/g, " ").trim();
  return [...line].length > SUMMARY_LIMIT ? `${[...line].slice(0, SUMMARY_LIMIT - 1).join("")}…` : line;
}

function activityInsert(actor: Actor, entry: ActivityEntry, summary: Prisma.Sql): Prisma.Sql {
  return Prisma.sql`INSERT INTO activity (at, user_id, username, action, object_type, object_id, station_id, summary)
    VALUES (${now(db().dialect)}, ${actor?.id ?? null}, ${actor?.username ?? ""}, ${entry.action}, ${entry.objectType},
      ${entry.objectId}, ${entry.stationId}, ${summary})`;
}

/** Records one entry in the caller's transaction: the one call every write service makes. */
export async function recordActivity(tx: Tx, actor: Actor, entry: ActivityEntry): Promise<void> {
  await tx.$executeRaw(activitySql(actor, entry));
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
