import { db, Prisma } from "@/lib/db";

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
