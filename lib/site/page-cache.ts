import { createHash } from "node:crypto";
import { csrfCookieHeader, newCsrfToken } from "@/lib/auth/csrf";
import { namedCache, type LruCache } from "@/lib/runtime/cache";
import { db, Prisma } from "@/lib/db";
import { bridge } from "@/lib/runtime/bridge";

/**
 * What the server needs to serve the group page's HTML to anonymous visitors from a per-process
 * cache (lib/server/page-cache.ts, docs/decisions/0018-page-cache.md), registered on the bridge
 * (lib/runtime/bridge.ts) when the page's bundle is loaded, as the API's routers register themselves.
 */

/** A page as sent, cut at its CSP nonce (lib/server/page-cache.ts). */
export interface CachedPage {
  status: number;
  headers: [string, string | string[]][];
  parts: Buffer[];
  size: number;
}

export interface PageCacheRegistration {
  groupPageKey(stationId: number, groupId: number): Promise<string | null>;
  store: LruCache<CachedPage>;
  csrfCookie(secure: boolean): string;
}

const MAX_BYTES = 16 * 1024 * 1024;

const text = (sql: Prisma.Sql) => Prisma.sql`CAST(${sql} AS TEXT)`;

/**
 * Everything the group page shows an anonymous visitor, as versions and rows, in one statement
 * that looks rows up by key only: the metadata version (the station, its access, the group, its
 * variable, the target groups of its processes; migration 0009), and what that version does not
 * cover: the group's unit, each of its series (own columns and records' version and extent), and
 * each of its processes with its last successful run (its jobs' key: processKey, lib/processing/state.ts).
 * The part column names each row's kind.
 */
export function groupPageKeySql(groupId: number): Prisma.Sql {
  const none = Prisma.sql`CAST(NULL AS TEXT)`;
  return Prisma.sql`
    SELECT 'metadata' AS part, ${text(Prisma.sql`version`)} AS a, ${none} AS b, ${none} AS c, ${none} AS d, ${none} AS e,
      ${none} AS f, ${none} AS g, ${none} AS h, ${none} AS i
    FROM metadata_version WHERE id = 1
    UNION ALL
    SELECT 'unit', ${text(Prisma.sql`u.id`)}, u.symbol, u.descr, ${none}, ${none}, ${none}, ${none}, ${none}, ${none}
    FROM timeseries_group g JOIN unit_of_measurement u ON u.id = g.unit_id WHERE g.id = ${groupId}
    UNION ALL
    SELECT 'series', ${text(Prisma.sql`t.id`)}, ${text(Prisma.sql`t.version`)}, ${text(Prisma.sql`t.type`)}, t.time_step, t.name,
      ${text(Prisma.sql`t.publicly_available`)}, ${text(Prisma.sql`t.first_timestamp`)}, ${text(Prisma.sql`t.last_timestamp`)},
      ${text(Prisma.sql`t.record_count`)}
    FROM timeseries t WHERE t.timeseries_group_id = ${groupId}
    UNION ALL
    SELECT 'process', ${text(Prisma.sql`p.id`)}, p.type, ${text(Prisma.sql`p.enabled`)}, p.config, ${text(Prisma.sql`p.target_group_id`)},
      ${text(Prisma.sql`(SELECT MAX(j.finished_at) FROM job j WHERE j.key = 'process:' || ${text(Prisma.sql`p.id`)} AND j.status = 'succeeded')`)},
      ${none}, ${none}, ${none}
    FROM process p WHERE p.timeseries_group_id = ${groupId}`;
}

type KeyRow = { part: string } & Record<"a" | "b" | "c" | "d" | "e" | "f" | "g" | "h" | "i", string | null>;

/**
 * The key of the group page's content now (a digest of groupPageKeySql's rows, in a fixed order),
 * or null when there is no such group or no metadata version (then nothing is cached).
 */
export async function groupPageKey(stationId: number, groupId: number): Promise<string | null> {
  const rows = await db().query<KeyRow>(groupPageKeySql(groupId));
  if (!rows.some((r) => r.part === "metadata") || !rows.some((r) => r.part === "unit")) return null;
  const lines = rows.map((r) => JSON.stringify([r.part, r.a, r.b, r.c, r.d, r.e, r.f, r.g, r.h, r.i])).sort();
  return createHash("sha256").update(`${stationId}/${groupId}\n${lines.join("\n")}`).digest("base64url");
}

/** Registers the page cache's functions for the server (once per process; a reload replaces them). */
export function registerPageCache(): void {
  bridge().pageCache = {
    groupPageKey,
    store: namedCache<CachedPage>("group-page-html", MAX_BYTES, (page) => page.size + 64 * page.parts.length + 1024),
    csrfCookie: (secure) => csrfCookieHeader(newCsrfToken(), secure),
  };
}
