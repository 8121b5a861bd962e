import { db, fromPrimary, Prisma } from "@/lib/db";
import type { ReplicaStatus } from "@/lib/db/replicas";

/**
 * What the transports (the server's health check, metrics and start-up) may know of the
 * database: its state, never its rows. They import these rather than the handle, so that every
 * query stays in a capability or the kernel (scripts/check-layers.mjs).
 */

/** The names of the migrations applied to the database (a query on the handle, unlike lib/db/migrate.ts's own connection). */
export async function appliedMigrationNames(): Promise<string[]> {
  const rows = await db().query<{ name: string }>(Prisma.sql`SELECT "name" FROM "_migrations"`);
  return rows.map((r) => r.name);
}

/** PostgreSQL's size of the database on disk, asked of the primary. */
export async function postgresDatabaseBytes(): Promise<number | null> {
  const rows = await fromPrimary(() => db().query<{ bytes: number }>(Prisma.sql`SELECT pg_database_size(current_database())::int8 AS "bytes"`));
  return rows[0]?.bytes ?? null;
}

/** Connections in use, idle, and requests waiting for one (Db.poolUse). */
export function databasePoolUse(): { inUse: number; idle: number; waiting: number } {
  return db().poolUse();
}

/** The read replicas' states (none without DATABASE_REPLICA_URLS, or on SQLite). */
export function replicaStatus(): ReplicaStatus[] {
  return db().replicas?.status() ?? [];
}

/**
 * Starts checking the read replicas' lag; their names, or null when the database has no replicas
 * (SQLite, where DATABASE_REPLICA_URLS is ignored).
 */
export function startReplicaChecks(): string[] | null {
  const replicas = db().replicas;
  if (!replicas) return null;
  replicas.start();
  return replicas.status().map((r) => r.name);
}
