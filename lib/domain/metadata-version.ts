import { namedCache } from "@/lib/runtime/cache";
import { db, Prisma } from "@/lib/db";
import { toNumber } from "@/lib/domain/serialize";

/**
 * The metadata version (prisma/schema.prisma, model MetadataVersion): triggers bump it in the
 * transaction of every write of what the station list and search show or filter on, in whichever
 * process it happens; writes of records leave it alone. Results cached under it stay correct with
 * several workers and instances, as the series caches do with a series' version.
 */
const VERSION_SQL = Prisma.sql`SELECT version FROM metadata_version WHERE id = 1`;

/** The current version, or null if its row is missing (then nothing is cached). */
export async function metadataVersion(): Promise<number | null> {
  const [row] = await db().query<{ version: unknown }>(VERSION_SQL);
  return row ? toNumber(row.version) : null;
}

/**
 * The value of `key` computed by `compute` from metadata only, from the process's cache `name`
 * while the metadata version is unchanged. The version is read before `compute` queries: a write
 * committed in between is at worst cached under the older version, which no later request asks for.
 */
export async function cachedByMetadata<V>(
  cache: { name: string; maxSize: number; sizeOf: (value: V) => number }, key: string, compute: () => Promise<V>,
): Promise<{ value: V; cached: boolean }> {
  const version = await metadataVersion();
  if (version === null) return { value: await compute(), cached: false };
  const store = namedCache<V>(cache.name, cache.maxSize, cache.sizeOf);
  const versioned = `${version}\n${key}`;
  const hit = store.get(versioned);
  if (hit !== undefined) return { value: hit, cached: true };
  const value = await compute();
  store.set(versioned, value);
  return { value, cached: false };
}

/**
 * The metadata version read in one statement with the rows of `sql` (one round trip where two
 * would be: for a cached value of which a part is read afresh on every hit). `sql`'s rows must
 * have a non-null `key` column; they come back in no particular order.
 */
export async function metadataVersionWith<R extends Record<string, unknown>>(sql: Prisma.Sql, key: keyof R & string): Promise<{ version: number | null; rows: R[] }> {
  const rows = await db().query<R & { metadata_version: unknown }>(Prisma.sql`
    SELECT (SELECT version FROM metadata_version WHERE id = 1) AS metadata_version, x.*
    FROM (SELECT 1 AS one) AS o LEFT JOIN (${sql}) AS x ON 1 = 1`);
  return { version: rows.length ? toNumber(rows[0].metadata_version) : null, rows: rows.filter((r) => r[key] !== null) };
}
