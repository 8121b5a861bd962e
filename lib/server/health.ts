import { fromPrimary } from "@/lib/db";
import { loadMigrations } from "@/lib/db/migrate";
import { appliedMigrationNames } from "@/lib/db/status";
import { parseDatabaseUrl } from "@/lib/db/url";
import { settings } from "@/lib/config";
import { queueStats } from "@/lib/jobs/queue";

/**
 * The service's health for load balancers and monitoring (`GET api/health/`): one query that
 * proves the database answers and lists the applied migrations, bounded by a deadline so that
 * an unreachable database is reported within a second; cheap enough to poll every second.
 */
export interface QueueHealth {
  depth: number;
  running: number;
  failed_24h: number;
  oldest_job_age_seconds: number | null;
}

export interface Health {
  status: "ok" | "error";
  database: "ok" | "unavailable";
  /** "pending": the database lacks a migration this code needs; "unknown": the database did not answer. */
  migrations: "ok" | "pending" | "unknown";
  /** The job queue (lib/jobs); null when the database did not answer. */
  queue: QueueHealth | null;
}

export const HEALTH_DEADLINE_MS = 800;

let expected: string[] | undefined;

/** The migrations this code needs (read once from prisma/migrations/). */
function expectedMigrations(): string[] {
  return (expected ??= loadMigrations(parseDatabaseUrl(settings().databaseUrl).dialect).map((m) => m.name));
}

function withDeadline<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
  });
  promise.catch(() => undefined);
  return Promise.race([promise, deadline]).finally(() => clearTimeout(timer));
}

async function appliedMigrations(): Promise<Set<string> | null> {
  try {
    return new Set(await withDeadline(appliedMigrationNames(), HEALTH_DEADLINE_MS));
  } catch {
    return null;
  }
}

async function queueHealth(): Promise<QueueHealth | null> {
  const stats = await withDeadline(queueStats(), HEALTH_DEADLINE_MS).catch(() => null);
  return stats && {
    depth: stats.queued, running: stats.running, failed_24h: stats.failed, oldest_job_age_seconds: stats.oldest_queued_age_seconds,
  };
}

/** The primary's health (read replicas have their own metrics). */
export function checkHealth(): Promise<Health> {
  return fromPrimary(checkPrimary);
}

async function checkPrimary(): Promise<Health> {
  const applied = await appliedMigrations();
  const database = applied ? "ok" : "unavailable";
  const migrations = !applied ? "unknown" : expectedMigrations().every((name) => applied.has(name)) ? "ok" : "pending";
  const queue = applied ? await queueHealth() : null;
  const status = database === "ok" && migrations === "ok" ? "ok" : "error";
  return { status, database, migrations, queue };
}
