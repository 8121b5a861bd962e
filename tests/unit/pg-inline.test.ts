/** Values inlined as SQL literals for the PostgreSQL store's multi-statement `also` (lib/records/pg-inline.ts). */
import { describe, expect, it } from "vitest";
import { Prisma } from "@/lib/db/generated/sqlite/client";
import { executeSql, postgresLiteral } from "@/lib/records/pg-inline";

describe("postgresLiteral", () => {
  it("quotes numbers, booleans and timestamps as pg sends them as parameters (text of unknown type)", () => {
    expect(postgresLiteral(42)).toBe("'42'");
    expect(postgresLiteral(-0.25)).toBe("'-0.25'");
    expect(postgresLiteral(1e-7)).toBe("'1e-7'");
    expect(postgresLiteral(9007199254740993n)).toBe("'9007199254740993'");
    expect(postgresLiteral(true)).toBe("'true'");
    expect(postgresLiteral(false)).toBe("'false'");
    expect(postgresLiteral(new Date(Date.UTC(2026, 10, 26, 5, 6, 7, 89)))).toBe("'2026-11-26T05:06:07.089Z'");
  });

  it("writes null and undefined as NULL", () => {
    expect(postgresLiteral(null)).toBe("NULL");
    expect(postgresLiteral(undefined)).toBe("NULL");
  });

  it("escapes strings: quotes doubled, backslashes in an E'' literal", () => {
    expect(postgresLiteral("")).toBe("''");
    expect(postgresLiteral("it's")).toBe("'it''s'");
    expect(postgresLiteral("a\\b'; DROP TABLE x; --")).toBe(" E'a\\\\b''; DROP TABLE x; --'");
    expect(postgresLiteral("$1 ? ; Ώρα")).toBe("'$1 ? ; Ώρα'");
  });

  it("refuses what it cannot write faithfully", () => {
    for (const v of [NaN, Infinity, -Infinity, new Date(NaN), [1, 2], { a: 1 }, Buffer.from("x"), Symbol("s"), () => 1]) {
      expect(() => postgresLiteral(v)).toThrow(TypeError);
    }
  });
});

describe("executeSql", () => {
  it("executes the prepared statement with the values of the statement, joined lists flattened", () => {
    const sql = Prisma.sql`UPDATE t SET a = ${"x'y"}, b = ${null} WHERE id IN (${Prisma.join([1, 2])}) AND k = 'lit $1' AND ${Prisma.raw("now()")} > ${new Date(0)}`;
    expect(executeSql("a0123abcd", sql)).toBe("EXECUTE a0123abcd('x''y', NULL, '1', '2', '1970-01-01T00:00:00.000Z')");
  });

  it("executes a statement without values without parentheses", () => {
    expect(executeSql("a1", Prisma.sql`SELECT 1`)).toBe("EXECUTE a1");
  });

  it("refuses a name that is not a plain identifier, and values it cannot write", () => {
    expect(() => executeSql("a; DROP TABLE x", Prisma.sql`SELECT 1`)).toThrow(TypeError);
    expect(() => executeSql("A1", Prisma.sql`SELECT 1`)).toThrow(TypeError);
    expect(() => executeSql("a1", Prisma.sql`SELECT ${NaN}`)).toThrow(TypeError);
  });
});
