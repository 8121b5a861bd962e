import pg from "pg";
import { migrate } from "@/lib/db/migrate";
import { parseDatabaseUrl } from "@/lib/db/url";
import { scratchDatabase, type ScratchDatabase } from "@/tests/support/server";
import { until } from "@/tests/support/wait";

/**
 * The streaming standby of TEST_PG_URL's cluster (TEST_PG_REPLICA_URL; .ci/run creates one with
 * `scripts/pg-cluster.sh standby`). Test databases are created on the primary and reach the
 * standby through replication.
 */
export const STANDBY_URL = process.env.TEST_PG_REPLICA_URL ?? "";

/** The standby's URL for a database of the primary, optionally through another port (a relay). */
export function standbyUrlOf(databaseUrl: string, port?: number): string {
  const url = new URL(STANDBY_URL);
  url.pathname = new URL(databaseUrl).pathname;
  if (port) {
    url.hostname = "127.0.0.1";
    url.port = String(port);
  }
  return url.toString();
}

async function scalar(url: string, sql: string): Promise<unknown> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return Object.values((await client.query(sql)).rows[0] ?? {})[0];
  } finally {
    await client.end();
  }
}

/** Waits until the standby has the database and every migration the primary has applied. */
export async function waitForStandby(databaseUrl: string, timeoutMs = 60_000): Promise<void> {
  const count = `SELECT COUNT(*)::int FROM "_migrations"`;
  const wanted = await scalar(databaseUrl, count);
  const seen = await until(() => scalar(standbyUrlOf(databaseUrl), count).catch(() => -1), (n) => n === wanted, timeoutMs, 100);
  if (seen !== wanted) throw new Error(`the standby did not replay the database ${databaseUrl} within ${timeoutMs} ms`);
}

/** Waits until the standby has replayed everything the primary had written when it was called. */
export async function waitForReplay(databaseUrl: string, timeoutMs = 30_000): Promise<void> {
  const lsn = await scalar(databaseUrl, "SELECT pg_current_wal_insert_lsn()::text");
  const replayed = `SELECT pg_last_wal_replay_lsn() >= '${lsn}'::pg_lsn`;
  const seen = await until(() => scalar(standbyUrlOf(databaseUrl), replayed), (ok) => ok === true, timeoutMs, 20);
  if (seen !== true) throw new Error(`the standby did not replay ${lsn} within ${timeoutMs} ms`);
}

/** A fresh, migrated database of the primary, once the standby has it too. */
export async function replicatedDatabase(): Promise<ScratchDatabase> {
  const database = await scratchDatabase();
  await migrate(parseDatabaseUrl(database.url));
  await waitForStandby(database.url);
  return database;
}

/** Pauses the standby's replay (it keeps receiving WAL), runs `fn`, and resumes it. */
export async function withReplayPaused<T>(fn: () => Promise<T>): Promise<T> {
  await scalar(STANDBY_URL, "SELECT pg_wal_replay_pause()");
  try {
    return await fn();
  } finally {
    await scalar(STANDBY_URL, "SELECT pg_wal_replay_resume()");
  }
}
