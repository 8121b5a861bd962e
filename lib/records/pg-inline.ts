import pg from "pg";
import type { Prisma } from "@/lib/db";

/**
 * A value as the SQL literal that means what pg's bound parameter means: pg sends parameters as
 * text of unknown type, which the server types from their context; a quoted literal ('…') is
 * typed the same way, so the statement behaves as it does with parameters. Numbers must be
 * finite, Dates become timestamps in UTC (as lib/db's postgresValue sends them); anything else
 * (objects, arrays, Buffers…) throws rather than guess.
 */
export function postgresLiteral(value: unknown): string {
  if (value === null || value === undefined) return "NULL";
  switch (typeof value) {
    case "string":
      return pg.escapeLiteral(value);
    case "number":
      if (!Number.isFinite(value)) throw new TypeError(`cannot inline the number ${value} in SQL`);
      return `'${value}'`;
    case "bigint":
      return `'${value}'`;
    case "boolean":
      return value ? "'true'" : "'false'";
    default:
      if (value instanceof Date && !Number.isNaN(value.getTime())) return `'${value.toISOString()}'`;
      throw new TypeError(`cannot inline a ${Object.prototype.toString.call(value)} in SQL`);
  }
}

/**
 * `EXECUTE name(…)` of a statement prepared (SQL PREPARE, from `sql.text`) as `name`, its
 * values inlined as literals: the server coerces each to the parameter's type, as it does a
 * bound parameter, and reuses the statement's plan (a statement inlined whole would be parsed
 * and planned at every write).
 */
export function executeSql(name: string, sql: Prisma.Sql): string {
  if (!/^[a-z][a-z0-9_]*$/.test(name)) throw new TypeError(`not a statement name: ${name}`);
  return sql.values.length ? `EXECUTE ${name}(${sql.values.map(postgresLiteral).join(", ")})` : `EXECUTE ${name}`;
}
