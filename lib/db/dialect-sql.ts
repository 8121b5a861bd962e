import { db, Prisma } from "@/lib/db";
import type { Dialect } from "@/lib/db/url";

/** SQL that differs between the dialects, as Prisma.Sql fragments. */

/** `text` contains `needle` as a plain substring (no wildcards). */
export function containsSql(column: Prisma.Sql, needle: string): Prisma.Sql {
  return db().dialect === "sqlite" ? Prisma.sql`instr(${column}, ${needle}) > 0` : Prisma.sql`strpos(${column}, ${needle}) > 0`;
}

/**
 * The UTC offset in seconds of a display time zone column (one of UTC, Etc/GMT, Etc/GMT±N,
 * POSIX sign: Etc/GMT-2 is +7200).
 */
export function displayOffsetSecondsSql(column: Prisma.Sql): Prisma.Sql {
  return Prisma.sql`(CASE WHEN ${column} IN ('UTC', 'Etc/GMT') THEN 0 ELSE -3600 * CAST(substr(${column}, 8) AS INTEGER) END)`;
}

/**
 * The ascending ids in `table.column` of the rows whose `parentColumn` equals `parent` (an SQL
 * expression), as one comma-separated text: a station's maintainers, data viewers or types.
 */
export function idListSql(table: string, column: string, parentColumn: string, parent: Prisma.Sql): Prisma.Sql {
  const t = Prisma.raw(table);
  const c = Prisma.raw(column);
  const p = Prisma.raw(parentColumn);
  return db().dialect === "sqlite"
    ? Prisma.sql`(SELECT group_concat(x, ',') FROM (SELECT ${c} AS x FROM ${t} WHERE ${p} = ${parent} ORDER BY ${c}))`
    : Prisma.sql`(SELECT string_agg(${c}::text, ',' ORDER BY ${c}) FROM ${t} WHERE ${p} = ${parent})`;
}

/** The ids of idListSql's text. */
export function parseIdList(text: unknown): number[] {
  return typeof text === "string" && text !== "" ? text.split(",").map(Number) : [];
}

/**
 * Prisma rounds floating-point arguments to about 16 significant digits (0.1 + 0.2 arrives as
 * 0.3), so float columns written through it are rewritten in the same transaction from their
 * exact decimal text, which the database converts (correctly rounded).
 */
export async function writeExactFloats(tx: { $executeRaw(sql: Prisma.Sql): Promise<number> }, table: "station" | "garea" | "synoptic_timeseries_group", id: number,
  values: Record<string, number | null | undefined>): Promise<void> {
  const sets = Object.entries(values)
    .filter(([, v]) => v !== undefined)
    .map(([column, v]) => Prisma.sql`${Prisma.raw(column)} = ${exactFloatSql(v as number | null)}`);
  if (sets.length) await tx.$executeRaw(Prisma.sql`UPDATE ${Prisma.raw(table)} SET ${Prisma.join(sets, ", ")} WHERE id = ${id}`);
}

/** A float (or NULL) for an SQL statement, written as its exact decimal text for the database to convert (see writeExactFloats). */
export function exactFloatSql(value: number | null): Prisma.Sql {
  if (value === null) return Prisma.sql`NULL`;
  return Prisma.sql`CAST(${String(value)} AS ${Prisma.raw(db().dialect === "sqlite" ? "REAL" : "DOUBLE PRECISION")})`;
}

/**
 * The rows of a query over a list of ids, run on slices of at most `IDS_PER_QUERY` of them:
 * an `IN (…)` of one bound parameter per id fails beyond SQLite's 32,766 and PostgreSQL's
 * 65,535 parameters, and request bodies can name any number of ids.
 */
export const IDS_PER_QUERY = 10_000;
export async function rowsForIds<T>(ids: readonly number[], query: (slice: number[]) => Promise<T[]>): Promise<T[]> {
  const rows: T[] = [];
  for (let i = 0; i < ids.length; i += IDS_PER_QUERY) rows.push(...(await query(ids.slice(i, i + IDS_PER_QUERY))));
  return rows;
}

/**
 * The database's clock, as the dialect's timestamp columns hold it: epoch ms on SQLite, UTC in
 * TIMESTAMP(3) on PostgreSQL. Rounded to the millisecond as the columns are, so that a job queued
 * "now" is due to a claim that reads the clock a moment later (an unrounded clock could still be
 * half a millisecond below the stored, rounded-up time).
 */
export function now(dialect: Dialect): Prisma.Sql {
  return Prisma.raw(dialect === "sqlite" ? "CAST(ROUND(unixepoch('subsec') * 1000) AS INTEGER)" : "(now() AT TIME ZONE 'UTC')::timestamp(3)");
}

/** The database's clock plus `ms` milliseconds (negative for the past). */
export function nowPlus(dialect: Dialect, ms: number): Prisma.Sql {
  return dialect === "sqlite"
    ? Prisma.sql`(${now(dialect)} + ${Math.round(ms)})`
    : Prisma.sql`(${now(dialect)} + make_interval(secs => ${ms / 1000}::float8))`;
}
