/**
 * Telemetry's background work (lib/jobs): the scheduler's tick, the fetches it queues, the feed
 * health check and its e-mails, and the upkeep of the log.
 *
 * - The tick (`telemetry.tick`, one key) runs a second after each minute starts and queues the
 *   next one when it ends. In one transaction it moves every telemetry whose next_fetch has
 *   passed to its next due minute and queues a fetch of each (`telemetry.fetch`, key
 *   `telemetry:<id>`): one indexed UPDATE, and on PostgreSQL the row locks make a second
 *   instance's tick of the same minute find nothing left to queue. A fetch missed while no runner
 *   ran is queued once, by the first tick after the start.
 * - A fetch's key makes the queue run one fetch of a telemetry at a time, across processes and
 *   instances; "fetch now" queues the same key (coalescing with a queued fetch).
 * - The hourly upkeep deletes old log rows, and queues the tick should it ever have been lost.
 */
import { db, Prisma } from "@/lib/db";
import { nowPlus } from "@/lib/db/dialect-sql";
import { enqueue, enqueueSql } from "@/lib/jobs/queue";
import type { JobHandler, UpkeepTask } from "@/lib/jobs/registry";
import { logError } from "@/lib/observability/log";
import { fetchTelemetry } from "@/lib/telemetry/fetch";
import { checkFeeds, HEALTH_EVERY_MINUTES, sendAlert } from "@/lib/telemetry/health";
import { FETCH_ATTEMPTS, FETCH_KIND, HEALTH_KEY, HEALTH_KIND, TICK_KEY, TICK_KIND, untilNextTick } from "@/lib/telemetry/keys";
import { dueAfterMinuteOfSql, MINUTE_MS } from "@/lib/telemetry/schedule";

/** The fetch jobs of a list of telemetry ids (JSON text: one parameter, whatever their number). */
function fetchesOf(ids: number[]): Prisma.Sql {
  const json = JSON.stringify(ids);
  return db().dialect === "postgres"
    ? Prisma.sql`SELECT 'telemetry:' || x AS key, '{}' AS payload FROM jsonb_array_elements_text(CAST(${json} AS jsonb)) AS x`
    : Prisma.sql`SELECT 'telemetry:' || value AS key, '{}' AS payload FROM json_each(${json})`;
}

/**
 * The scheduler's tick at `nowMs`: queues a fetch of every telemetry due by then and moves each
 * to its next due minute after now's, in one transaction. Returns the ids of those it queued.
 */
export async function tick(nowMs = Date.now()): Promise<number[]> {
  const dialect = db().dialect;
  const at = new Date(nowMs);
  return db().write(async (tx) => {
    const due = await tx.$queryRaw<{ id: unknown }[]>(Prisma.sql`UPDATE telemetry SET next_fetch = ${dueAfterMinuteOfSql(nowMs, dialect)}
      WHERE next_fetch <= ${at} RETURNING id`);
    const ids = due.map((r) => Number(r.id)).sort((a, b) => a - b);
    if (ids.length) await tx.$queryRaw(enqueueSql({ kind: FETCH_KIND, select: fetchesOf(ids), maxAttempts: FETCH_ATTEMPTS }, dialect));
    return ids;
  });
}

/** Queues the next tick, a second after the next minute starts. */
export async function scheduleTick(nowMs = Date.now()): Promise<void> {
  await enqueue({ kind: TICK_KIND, key: TICK_KEY, delayMs: untilNextTick(nowMs), maxAttempts: 1 });
}

export const tickJob: JobHandler = async () => {
  const nowMs = Date.now();
  try {
    const queued = (await tick(nowMs)).length;
    if (Math.floor(nowMs / MINUTE_MS) % HEALTH_EVERY_MINUTES === 0) await enqueue({ kind: HEALTH_KIND, key: HEALTH_KEY });
    return { queued };
  } finally {
    // The tick goes on while there are telemetries (a new one queues it again).
    const any = await db().prisma.telemetry.findFirst({ select: { id: true } }).catch(() => ({ id: 0 }));
    if (any) await scheduleTick().catch((e) => logError("telemetry: queueing the next tick", e));
  }
};

/** A fetch (`telemetry:<id>`): its summary is the job's result; the feeds it wrote are checked at once. */
export const fetchJob: JobHandler = async (job, ctx) => {
  const id = Number(job.key.slice("telemetry:".length));
  const summary = await fetchTelemetry(id, { signal: ctx.signal, onProgress: (done, total) => ctx.progress(total ? done / total : 1) });
  if (summary === null) return { skipped: "the telemetry was deleted" };
  await checkFeeds({ telemetryIds: [id] }).catch((e) => logError(`telemetry ${id}: checking its feeds`, e));
  return summary;
};

/** The periodic check of every watched feed (stale ones have no write to react to). */
export const healthJob: JobHandler = async () => checkFeeds({});

export const alertJob: JobHandler = async (job) => sendAlert(job);

/** Log rows are kept this many days, and at most this many per telemetry. */
export const LOG_DAYS = 30;
export const LOG_ROWS_PER_TELEMETRY = 5000;

/** Deletes log rows older than LOG_DAYS, and beyond the newest LOG_ROWS_PER_TELEMETRY of each telemetry. */
export async function pruneLog(): Promise<number> {
  const d = db().dialect;
  return db().write(async (tx) => {
    const old = await tx.$executeRaw(Prisma.sql`DELETE FROM telemetry_log WHERE finished < ${nowPlus(d, -LOG_DAYS * 86_400_000)}`);
    const many = await tx.$executeRaw(Prisma.sql`DELETE FROM telemetry_log WHERE id IN (
      SELECT id FROM (SELECT id, ROW_NUMBER() OVER (PARTITION BY telemetry_id ORDER BY id DESC) AS n FROM telemetry_log) AS ranked
      WHERE n > ${LOG_ROWS_PER_TELEMETRY})`);
    return old + many;
  });
}

export const upkeep: UpkeepTask[] = [
  { name: "telemetry_log", run: pruneLog },
  {
    // The tick queues the next one whatever happens; should it ever be lost, this queues it again.
    name: "telemetry_tick",
    async run() {
      if (await db().prisma.telemetry.findFirst({ select: { id: true } })) await scheduleTick();
      return 0;
    },
  },
];
