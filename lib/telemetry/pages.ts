/**
 * What the management pages show of telemetry (telemetry.md §5), as plain data: a station's
 * telemetry with its sensors, their feeds' state and its log; the summary on the station's page;
 * the stations whose feed needs attention, on /manage/. Each read checks the permission first,
 * as the services do.
 */
import { isSuperuser, type Actor } from "@/lib/auth/permissions";
import { db, Prisma } from "@/lib/db";
import { lastStartedJob } from "@/lib/jobs/queue";
import { fetchKey } from "@/lib/telemetry/keys";
import { fetchRunJson, telemetryLogs, type FetchRunJson, type LogJson } from "@/lib/telemetry/runs";
import { scheduleText } from "@/lib/telemetry/schedule";
import { loadTelemetry, readableStation, type StoredTelemetry } from "@/lib/telemetry/telemetries";
import { telemetryType } from "@/lib/telemetry/types";

export interface SensorState {
  sensorId: string;
  groupId: number;
  groupName: string;
  staleSince: Date | null;
  stuckSince: Date | null;
}

export interface TelemetryPage {
  telemetry: StoredTelemetry | null;
  typeName: string;
  schedule: string;
  sensors: SensorState[];
  lastFetch: FetchRunJson | null;
  logCount: number;
  log: LogJson[];
}

const date = (v: unknown): Date | null => (v === null || v === undefined ? null : v instanceof Date ? v : new Date(Number(v)));

/** A station's telemetry page (its editors): the telemetry (null before the first), its sensors' feeds, the last fetch and a page of the log. */
export async function telemetryPage(actor: Actor, stationId: number, logOffset = 0, logLimit = 20): Promise<TelemetryPage> {
  await readableStation(actor, stationId);
  const telemetry = await loadTelemetry(stationId);
  if (!telemetry) return { telemetry: null, typeName: "", schedule: "", sensors: [], lastFetch: null, logCount: 0, log: [] };
  const rows = await db().query<Record<string, unknown>>(Prisma.sql`
    SELECT ts.sensor_id, ts.timeseries_group_id, ts.stale_since, ts.stuck_since, CASE WHEN g.name <> '' THEN g.name ELSE v.descr END AS group_name
    FROM telemetry_sensor ts JOIN timeseries_group g ON g.id = ts.timeseries_group_id JOIN variable v ON v.id = g.variable_id
    WHERE ts.telemetry_id = ${telemetry.id} ORDER BY ts.id`);
  const job = await lastStartedJob([fetchKey(telemetry.id)]);
  const logs = await telemetryLogs(actor, stationId);
  return {
    telemetry,
    typeName: telemetryType(telemetry.type)?.name ?? telemetry.type,
    schedule: scheduleText(telemetry.fetchIntervalMinutes, telemetry.fetchOffsetMinutes),
    sensors: rows.map((r) => ({
      sensorId: String(r.sensor_id), groupId: Number(r.timeseries_group_id), groupName: String(r.group_name ?? ""),
      staleSince: date(r.stale_since), stuckSince: date(r.stuck_since),
    })),
    lastFetch: job ? await fetchRunJson(job, telemetry) : null,
    logCount: logs.count,
    log: await logs.page(logOffset, logLimit),
  };
}

/** The station page's line about its telemetry, or null when it has none. */
export interface TelemetrySummary {
  typeName: string;
  status: StoredTelemetry["status"];
  lastFetch: Date | null;
  nextFetch: Date;
  schedule: string;
  sensors: number;
  /** Sensors whose feed is stale or stuck. */
  unhealthy: number;
}

export async function telemetrySummary(stationId: number): Promise<TelemetrySummary | null> {
  const t = await loadTelemetry(stationId);
  if (!t) return null;
  const unhealthy = await db().prisma.telemetrySensor.count({ where: { telemetryId: t.id, OR: [{ staleSince: { not: null } }, { stuckSince: { not: null } }] } });
  return {
    typeName: telemetryType(t.type)?.name ?? t.type, status: t.status, lastFetch: t.lastFetch, nextFetch: t.nextFetch,
    schedule: scheduleText(t.fetchIntervalMinutes, t.fetchOffsetMinutes), sensors: t.sensors.length, unhealthy,
  };
}

/** A station whose feed needs attention (the /manage/ home's list). */
export interface FeedProblem {
  stationId: number;
  stationName: string;
  /** The last fetch failed. */
  failing: boolean;
  stale: string[];
  stuck: string[];
  lastFetch: Date | null;
}

/**
 * The stations the actor may edit whose telemetry's last fetch failed or whose feeds are stale
 * or stuck, the most recently fetched first; at most `limit`. (The condition "may edit" is
 * api.md §15.1's, as the manage home's list of stations writes it.)
 */
export async function feedProblems(actor: Actor, limit: number): Promise<FeedProblem[]> {
  if (!actor) return [];
  const editable = isSuperuser(actor) ? Prisma.sql`1 = 1`
    : Prisma.sql`(s.creator_id = ${actor.id} OR s.id IN (SELECT station_id FROM station_maintainer WHERE user_id = ${actor.id}))`;
  const rows = await db().query<Record<string, unknown>>(Prisma.sql`
    SELECT t.id, s.id AS station_id, s.name AS station_name, t.status, t.last_fetch
    FROM telemetry t JOIN station s ON s.id = t.station_id
    WHERE ${editable} AND (t.status = 'error' OR EXISTS (SELECT 1 FROM telemetry_sensor ts WHERE ts.telemetry_id = t.id AND (ts.stale_since IS NOT NULL OR ts.stuck_since IS NOT NULL)))
    ORDER BY t.last_fetch DESC NULLS LAST, t.id LIMIT ${limit}`);
  if (rows.length === 0) return [];
  const ids = rows.map((r) => Number(r.id));
  const sensors = await db().query<Record<string, unknown>>(Prisma.sql`
    SELECT ts.telemetry_id, ts.stale_since, ts.stuck_since, CASE WHEN g.name <> '' THEN g.name ELSE v.descr END AS group_name
    FROM telemetry_sensor ts JOIN timeseries_group g ON g.id = ts.timeseries_group_id JOIN variable v ON v.id = g.variable_id
    WHERE ts.telemetry_id IN (${Prisma.join(ids)}) AND (ts.stale_since IS NOT NULL OR ts.stuck_since IS NOT NULL) ORDER BY ts.id`);
  return rows.map((r) => {
    const mine = sensors.filter((s) => Number(s.telemetry_id) === Number(r.id));
    return {
      stationId: Number(r.station_id), stationName: String(r.station_name ?? ""), failing: r.status === "error",
      stale: mine.filter((s) => s.stale_since !== null).map((s) => String(s.group_name)),
      stuck: mine.filter((s) => s.stuck_since !== null).map((s) => String(s.group_name)),
      lastFetch: date(r.last_fetch),
    };
  });
}
