import { createHash } from "node:crypto";
import pg from "pg";
import type { Prisma, ReadConnections } from "@/lib/db";
import { executeSql } from "@/lib/records/pg-inline";
import type { LastRecord, SeriesSummary } from "@/lib/records/types";

/**
 * What the records stores on PostgreSQL share: named queries, bigint columns read as numbers,
 * transactions whose `also` statements run with the COMMIT, and VACUUM after bulk loads.
 */

/** bigint columns hold epoch seconds and counts, all far below 2^53: read them as numbers. */
export const TYPES = {
  getTypeParser: (oid: number, format?: string) =>
    oid === 20 ? (value: string) => Number(value) : pg.types.getTypeParser(oid, format as "text"),
} as pg.CustomTypesConfig;

const names = new Map<string, string>();

/** A named query: each connection parses and plans it once. */
export function q(text: string, values: unknown[] = []): pg.QueryConfig {
  let name = names.get(text);
  if (!name) {
    name = `r${createHash("sha1").update(text).digest("hex").slice(0, 16)}`;
    if (names.size > 2000) names.clear();
    names.set(text, name);
  }
  return { name, text, values, types: TYPES };
}

/** After a bulk load, VACUUM sets the new pages' visibility, so that the first reads need not. */
const VACUUM_AFTER = 50_000;

/**
 * Runs the stores' transactions on a pool's clients, and VACUUM (ANALYZE) of the records'
 * tables after bulk changes.
 */
export class PgTransactions {
  private vacuum: "idle" | "running" | "again" = "idle";

  constructor(private readonly pool: pg.Pool) {}

  /** Runs VACUUM (ANALYZE) in the background; requests made meanwhile coalesce into one more run. */
  scheduleVacuum(): void {
    if (this.vacuum !== "idle") {
      this.vacuum = "again";
      return;
    }
    this.vacuum = "running";
    void (async () => {
      try {
        do {
          this.vacuum = "running";
          await this.pool.query("VACUUM (ANALYZE) timeseries_record, timeseries_block");
        } while ((this.vacuum as string) === "again");
      } catch (e) {
        console.error("VACUUM after a bulk load failed:", (e as Error).message);
      } finally {
        this.vacuum = "idle";
      }
    })();
  }

  /**
   * Runs `fn` in a transaction on a client of its own, begun by `begin` (BEGIN, and the lock of a
   * series' row in the same round trip, whose result `fn` is given); a bulk change is followed by
   * VACUUM. The write's `also` statements that `fn` returns run with the COMMIT, in one round trip
   * too (alsoWithCommit): the first that fails skips the rest and the COMMIT, and the transaction
   * is rolled back.
   */
  async run<T, L>(begin: (client: pg.PoolClient) => Promise<L>, fn: (client: pg.PoolClient, locked: L) => Promise<Done<T>>): Promise<T> {
    const client = await this.pool.connect();
    let broken = false;
    let sentPrepares = false;
    try {
      try {
        const locked = await begin(client);
        const { value, commit, written, also } = await fn(client, locked);
        if (!commit || !also?.length) {
          await client.query(commit ? "COMMIT" : "ROLLBACK");
        } else {
          const { text, preparing } = alsoWithCommit(client, also);
          sentPrepares = preparing.length > 0;
          await client.query(text);
          for (const name of preparing) preparedOf(client).add(name);
        }
        if (commit && written >= VACUUM_AFTER) this.scheduleVacuum();
        return value;
      } catch (e) {
        await client.query("ROLLBACK").catch(() => { broken = true; });
        // Which PREPAREs ran before the failure, the server knows.
        if (sentPrepares && !broken) await resyncPrepared(client).catch(() => { broken = true; });
        throw e;
      }
    } finally {
      client.release(broken);
    }
  }
}

/** What a transaction's body gives back: its value, whether to commit, how many records it changed, the `also` statements to commit with. */
export interface Done<T> {
  value: T;
  commit: boolean;
  written: number;
  also?: readonly Prisma.Sql[];
}

/** The also statements prepared (SQL PREPARE) on each connection, by name. */
const preparedAlso = new WeakMap<pg.ClientBase, Set<string>>();
const preparedOf = (client: pg.ClientBase) => {
  let names = preparedAlso.get(client);
  if (!names) preparedAlso.set(client, (names = new Set()));
  return names;
};
const ALSO_NAME = /^a[0-9a-f]{16}$/;

/**
 * A write's also statements and COMMIT as one simple-protocol query string: each statement
 * prepared once per connection (PREPARE, in the string where it is first used; its plan is
 * kept, as for a named statement) and executed with its values as literals (executeSql).
 * Returns the names it prepares, to be remembered when the string succeeded.
 */
function alsoWithCommit(client: pg.ClientBase, also: readonly Prisma.Sql[]): { text: string; preparing: string[] } {
  const prepared = preparedOf(client);
  const preparing: string[] = [];
  const parts: string[] = [];
  for (const sql of also) {
    const name = `a${createHash("sha1").update(sql.text).digest("hex").slice(0, 16)}`;
    if (!prepared.has(name) && !preparing.includes(name)) {
      preparing.push(name);
      parts.push(`PREPARE ${name} AS ${sql.text}`);
    }
    parts.push(executeSql(name, sql));
  }
  parts.push("COMMIT");
  return { text: parts.join(";\n"), preparing };
}

/** After a failed string: the also statements that the connection holds prepared, as the server lists them. */
async function resyncPrepared(client: pg.ClientBase): Promise<void> {
  const { rows } = await client.query("SELECT name FROM pg_prepared_statements");
  const names = preparedOf(client);
  names.clear();
  for (const r of rows as { name: string }[]) if (ALSO_NAME.test(r.name)) names.add(r.name);
}


/** The summary after `n` records were appended, the first at `first`, the last (t, value, flags); `now` in epoch milliseconds (the parameters named). */
export const APPENDED_SUMMARY_SQL = (n: string, first: string, t: string, value: string, flags: string, now: string, series: string) =>
  `UPDATE timeseries SET
        record_count = record_count + ${n},
        first_timestamp = LEAST(first_timestamp, ${first}),
        last_value = CASE WHEN last_timestamp IS NULL OR last_timestamp < ${t} THEN ${value} ELSE last_value END,
        last_flags = CASE WHEN last_timestamp IS NULL OR last_timestamp < ${t} THEN ${flags} ELSE last_flags END,
        last_timestamp = GREATEST(last_timestamp, ${t}),
        version = version + 1,
        last_modified = to_timestamp(${now}::float8 / 1000) AT TIME ZONE 'UTC'
      WHERE id = ${series}`;


/** The series' summary after a replacement from `from` that deleted `deleted` records and wrote `n` (the first at `first`), the last record now `last`. */
export async function replacedSummary(client: pg.ClientBase, seriesId: number, from: number, deleted: number, n: number, first: number | null, last: LastRecord): Promise<void> {
  await client.query(q(`UPDATE timeseries SET
      record_count = record_count - $1 + $2,
      first_timestamp = CASE WHEN first_timestamp < $3 THEN first_timestamp ELSE $4 END,
      last_timestamp = $5, last_value = $6, last_flags = $7,
      version = version + 1,
      last_modified = to_timestamp($8::float8 / 1000) AT TIME ZONE 'UTC'
    WHERE id = $9`,
  [deleted, n, from, first, ...last, Date.now(), seriesId]));
}

/** The series' summary row (null when there is no such series), read where reads go. */
export async function seriesSummary(reads: ReadConnections, seriesId: number): Promise<SeriesSummary | null> {
  const { rows } = await reads.query(q(`SELECT record_count, first_timestamp, last_timestamp, last_value, last_flags, version
    FROM timeseries WHERE id = $1`, [seriesId]));
  if (rows.length === 0) return null;
  const r = rows[0];
  return { count: r.record_count, first: r.first_timestamp, last: r.last_timestamp, lastValue: r.last_value, lastFlags: r.last_flags, version: r.version };
}
