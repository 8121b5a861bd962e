/**
 * "Fetch now" and what the station's editors see of the fetches (telemetry.md §1): a fetch is a
 * job of the queue (key `telemetry:<id>`, coalescing with a queued one), its progress the
 * sensors logged so far, its result the fetch's summary; the log, newest first.
 */
import type { Actor } from "@/lib/auth/permissions";
import { db, Prisma } from "@/lib/db";
import { recordActivity } from "@/lib/domain/activity-log";
import { NotFound } from "@/lib/domain/errors";
import { valuesOf, type Given } from "@/lib/domain/given";
import { isoMillis } from "@/lib/domain/serialize";
import { enqueueSql, getJob, jobRunJson, lastStartedJob, waitForJob, type Job } from "@/lib/jobs/queue";
import type { FetchSummary } from "@/lib/telemetry/fetch";
import { FETCH_ATTEMPTS, FETCH_KIND, fetchKey } from "@/lib/telemetry/keys";
import { loadTelemetry, readableTelemetry, writableStation, type StoredTelemetry } from "@/lib/telemetry/telemetries";

/** How long `fetch/` with `wait` waits for the fetch to finish before it answers 202 with the fetch as it is. */
export const FETCH_WAIT_MS = 60_000;

export interface FetchRunJson {
  id: number;
  status: Job["status"];
  queued_at: string | null;
  started_at: string | null;
  finished_at: string | null;
  /** Sensors fetched so far by a running fetch (all of them once it has finished). */
  sensors_done: number;
  sensors_total: number;
  /** Why the job failed (the service's own failures; a vendor's are in `fetch`). */
  error: string | null;
  /** What the fetch did, once it has finished. */
  fetch: FetchSummary | null;
}

function isSummary(result: unknown): result is FetchSummary {
  return typeof result === "object" && result !== null && "sensors" in result && "status" in result;
}

/** A fetch's job as `fetch/` shows it. */
export async function fetchRunJson(job: Job, telemetry: StoredTelemetry): Promise<FetchRunJson> {
  const summary = job.status === "succeeded" && isSummary(job.result) ? job.result : null;
  let done = summary ? summary.sensors.length : 0;
  if (job.status === "running" && job.startedAt) {
    const [row] = await db().query<{ n: unknown }>(Prisma.sql`SELECT COUNT(*) AS n FROM telemetry_log
      WHERE telemetry_id = ${telemetry.id} AND started >= ${job.startedAt} AND sensor IS NOT NULL`);
    done = Number(row.n);
  }
  return {
    ...jobRunJson(job),
    sensors_done: done,
    sensors_total: telemetry.sensors.length,
    error: job.status === "failed" || (job.status === "queued" && job.attempts > 0) ? job.error : null,
    fetch: summary,
  };
}

/**
 * Queues a fetch of the station's telemetry now (its editors) and, when asked, waits for it:
 * the fetch, and whether it finished (or its attempt failed) within `waitMs`.
 */
export async function requestFetch(actor: Actor, stationId: number, given: Given<{ wait: boolean }, StoredTelemetry>, waitMs = FETCH_WAIT_MS): Promise<{ run: FetchRunJson; finished: boolean }> {
  await writableStation(actor, stationId);
  const telemetry = await loadTelemetry(stationId);
  if (!telemetry) throw new NotFound();
  const request = await valuesOf(given, telemetry);
  const jobId = await db().write(async (tx) => {
    const [row] = await tx.$queryRaw<{ id: unknown }[]>(enqueueSql({ kind: FETCH_KIND, key: fetchKey(telemetry.id), maxAttempts: FETCH_ATTEMPTS }));
    await recordActivity(tx, actor, { action: "run", objectType: "telemetry", objectId: telemetry.id, stationId, summary: "Asked for a fetch of the telemetry now" });
    return Number(row.id);
  });
  const done = request.wait ? await waitForJob(jobId, waitMs) : null;
  const job = done ?? (await getJob(jobId));
  if (!job) throw new NotFound();
  return { run: await fetchRunJson(job, telemetry), finished: done !== null };
}

/** The station's last fetch (running, or the one that started last; a queued one when none has started), or null. */
export async function lastFetch(actor: Actor, stationId: number): Promise<FetchRunJson | null> {
  const telemetry = await readableTelemetry(actor, stationId);
  const job = await lastStartedJob([fetchKey(telemetry.id)]);
  return job ? fetchRunJson(job, telemetry) : null;
}

export interface LogJson {
  id: number;
  started: string;
  finished: string;
  status: "ok" | "error";
  records: number;
  sensor: string | null;
  error_name: string;
  message: string;
}

const date = (v: unknown): Date => (v instanceof Date ? v : new Date(Number(v)));

/** The log of the station's fetches, newest first (its editors): the count and a page. */
export async function telemetryLogs(actor: Actor, stationId: number): Promise<{ count: number; page(offset: number, limit: number): Promise<LogJson[]> }> {
  const telemetry = await readableTelemetry(actor, stationId);
  const [row] = await db().query<{ n: unknown }>(Prisma.sql`SELECT COUNT(*) AS n FROM telemetry_log WHERE telemetry_id = ${telemetry.id}`);
  return {
    count: Number(row.n),
    async page(offset, limit) {
      const rows = await db().query<Record<string, unknown>>(Prisma.sql`SELECT id, started, finished, status, records, sensor, error_name, message
        FROM telemetry_log WHERE telemetry_id = ${telemetry.id} ORDER BY id DESC LIMIT ${limit} OFFSET ${offset}`);
      return rows.map((r) => ({
        id: Number(r.id), started: isoMillis(date(r.started))!, finished: isoMillis(date(r.finished))!, status: r.status as "ok" | "error",
        records: Number(r.records), sensor: (r.sensor as string | null) ?? null, error_name: String(r.error_name), message: String(r.message),
      }));
    },
  };
}
