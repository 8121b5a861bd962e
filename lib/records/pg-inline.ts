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

/** A Prisma statement with its values inlined as literals, for a multi-statement simple query. */
export function inlineSql(sql: Prisma.Sql): string {
  const { strings, values } = sql;
  let out = strings[0];
  for (let i = 0; i < values.length; i++) out += postgresLiteral(values[i]) + strings[i + 1];
  return out;
}

/**
 * Statements as one simple-protocol query string: one round trip for them all. Inside a
 * transaction, the first that fails ends the string (the server skips the rest) and fails the
 * transaction, as when they are sent one by one.
 */
export function inlineStatements(statements: readonly Prisma.Sql[]): string {
  return statements.map(inlineSql).join(";\n");
}
