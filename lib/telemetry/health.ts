/**
 * Feed health (telemetry.md §4): a station's data can stop (a dead modem) or freeze (a stuck
 * sensor) without a write to react to. For each mapped sensor of a telemetry that asks for it:
 * - stale: its group's Initial series has had no new record for `stale_after_minutes` (its last
 *   record is older than that; a series without records counts from when the telemetry was
 *   configured);
 * - stuck: its last `stuck_after_values` values are identical.
 * A sensor that becomes stale or stuck gets one e-mail, and one more when it recovers. The state
 * (since when) is kept on the sensor's row and changed by a conditional UPDATE in the
 * transaction that queues the e-mail, so that a restart, two checks at once or two instances
 * never send it twice. Stale feeds are checked every few minutes (the tick queues the check);
 * stuck ones after each fetch, as only a write can make or end them.
 */
import { settings } from "@/lib/config";
import { db, Prisma } from "@/lib/db";
import { enqueueSql, type Job } from "@/lib/jobs/queue";
import { DEFAULT_LOCALE, translator, type Locale } from "@/lib/i18n";
import { recipientsByLocale, sendMail, serviceSender } from "@/lib/mail";
import { records } from "@/lib/records";
import { formatDateTime } from "@/lib/site/time";
import { ALERT_KIND } from "@/lib/telemetry/keys";

/** How often the tick queues the check of stale feeds. */
export const HEALTH_EVERY_MINUTES = 5;
/** Tries of an alert's e-mail (5 s, 20 s, 80 s, … up to an hour apart). */
const ALERT_ATTEMPTS = 10;

type AlertKind = "stale" | "stuck";

interface WatchedSensor {
  id: number;
  sensorId: string;
  groupId: number;
  telemetryId: number;
  stationId: number;
  stationName: string;
  groupName: string;
  staleAfter: number | null;
  stuckAfter: number | null;
  staleSince: Date | null;
  stuckSince: Date | null;
  configured: Date;
  alertEmails: string[];
  seriesId: number | null;
  lastTimestamp: number | null;
}

const date = (v: unknown): Date | null => (v === null || v === undefined ? null : v instanceof Date ? v : new Date(Number(v)));
const num = (v: unknown): number | null => (v === null || v === undefined ? null : Number(v));

async function watchedSensors(telemetryIds: number[] | undefined): Promise<WatchedSensor[]> {
  const only = telemetryIds ? Prisma.sql`AND t.id IN (${Prisma.join(telemetryIds.length ? telemetryIds : [0])})` : Prisma.empty;
  const rows = await db().query<Record<string, unknown>>(Prisma.sql`
    SELECT ts.id, ts.sensor_id, ts.timeseries_group_id, ts.stale_since, ts.stuck_since, t.id AS telemetry_id, t.station_id,
      t.stale_after_minutes, t.stuck_after_values, t.alert_emails, t.created AS configured, s.name AS station_name,
      CASE WHEN g.name <> '' THEN g.name ELSE v.descr END AS group_name, x.id AS series_id, x.last_timestamp
    FROM telemetry_sensor ts JOIN telemetry t ON t.id = ts.telemetry_id JOIN station s ON s.id = t.station_id
      JOIN timeseries_group g ON g.id = ts.timeseries_group_id JOIN variable v ON v.id = g.variable_id
      LEFT JOIN timeseries x ON x.id = (SELECT MIN(i.id) FROM timeseries i WHERE i.timeseries_group_id = g.id AND i.type = 1)
    WHERE (t.stale_after_minutes IS NOT NULL OR t.stuck_after_values IS NOT NULL OR ts.stale_since IS NOT NULL OR ts.stuck_since IS NOT NULL) ${only}`);
  return rows.map((r) => ({
    id: Number(r.id), sensorId: String(r.sensor_id), groupId: Number(r.timeseries_group_id), telemetryId: Number(r.telemetry_id),
    stationId: Number(r.station_id), stationName: String(r.station_name ?? ""), groupName: String(r.group_name ?? ""),
    staleAfter: num(r.stale_after_minutes), stuckAfter: num(r.stuck_after_values),
    staleSince: date(r.stale_since), stuckSince: date(r.stuck_since), configured: date(r.configured)!,
    alertEmails: JSON.parse(String(r.alert_emails ?? "[]")) as string[],
    seriesId: num(r.series_id), lastTimestamp: num(r.last_timestamp),
  }));
}

/** Whether the last `n` values of a series are identical (nulls equal to nulls); false with fewer than n records. */
export async function lastValuesIdentical(seriesId: number, n: number): Promise<boolean> {
  const summary = await records().summary(seriesId);
  if (!summary || summary.count < n || summary.last === null || summary.first === null) return false;
  // The last n records, read in growing windows back from the last one (their spacing is unknown).
  for (let window = 86_400; ; window *= 8) {
    const from = Math.max(summary.first, summary.last - window);
    const values: number[] = [];
    for await (const chunk of records().read(seriesId, from, summary.last)) for (let i = 0; i < chunk.length; i++) values.push(chunk.values[i]);
    if (values.length >= n || from === summary.first) {
      const last = values.slice(-n);
      if (last.length < n) return false;
      const same = (a: number, b: number) => a === b || (Number.isNaN(a) && Number.isNaN(b));
      return last.every((v) => same(v, last[0]));
    }
  }
}

/** The addresses of a feed's alerts: the telemetry's, or else the station's maintainers' (active, with an address). */
async function recipients(sensor: WatchedSensor): Promise<string[]> {
  if (sensor.alertEmails.length) return sensor.alertEmails;
  const rows = await db().query<{ email: string }>(Prisma.sql`SELECT u.email FROM station_maintainer m JOIN users u ON u.id = m.user_id
    WHERE m.station_id = ${sensor.stationId} AND u.is_active = ${true} AND u.email <> '' ORDER BY u.id`);
  return [...new Set(rows.map((r) => r.email))];
}

function siteName(): string {
  const { siteName, siteUrl } = settings();
  return siteName || (siteUrl ? new URL(siteUrl).host : "Enhydris");
}

/** The e-mail of a feed that became stale or stuck, or recovered, in a language (public.md §3). */
export function alertMail(sensor: WatchedSensor, kind: AlertKind, recovered: boolean, nowMs: number, locale: Locale = DEFAULT_LOCALE): { subject: string; body: string } {
  const t = translator(locale, "mailTelemetry");
  const names = { group: sensor.groupName, sensor: sensor.sensorId, station: sensor.stationName };
  const last = sensor.lastTimestamp === null ? t("noRecords") : `${formatDateTime(sensor.lastTimestamp, 0)} UTC`;
  const stale = kind === "stale";
  const subject = recovered
    ? t("recoveredSubject", { site: siteName(), station: sensor.stationName, group: sensor.groupName })
    : t(stale ? "staleSubject" : "stuckSubject", { site: siteName(), station: sensor.stationName, group: sensor.groupName });
  const reason = stale
    ? t("staleReason", { minutes: String(sensor.staleAfter), last })
    : t("stuckReason", { count: String(sensor.stuckAfter), last });
  const lines = recovered
    ? [stale ? t("recoveredStale", { ...names, last }) : t("recoveredStuck", names)]
    : [t(stale ? "isStale" : "isStuck", names), reason, t("oneMore")];
  const url = settings().siteUrl;
  if (url) lines.push("", t("telemetryLink", { link: `${url}/manage/stations/${sensor.stationId}/telemetry/` }));
  lines.push("", t("checkedAt", { time: `${formatDateTime(Math.floor(nowMs / 1000), 0)} UTC` }));
  return { subject, body: lines.join("\n") };
}

/**
 * Changes a sensor's state (stale_since or stuck_since) if it still is the other one, and in
 * the same transaction queues the e-mail: false when another check changed it first.
 */
async function transition(sensor: WatchedSensor, kind: AlertKind, entering: boolean, nowMs: number): Promise<boolean> {
  const column = Prisma.raw(kind === "stale" ? "stale_since" : "stuck_since");
  // One e-mail per language of the recipients (their accounts', else English).
  const mails = [...(await recipientsByLocale(await recipients(sensor)))].map(([locale, to]) => ({ locale, to, ...alertMail(sensor, kind, !entering, nowMs, locale) }));
  return db().write(async (tx) => {
    const changed = await tx.$queryRaw<{ id: unknown }[]>(entering
      ? Prisma.sql`UPDATE telemetry_sensor SET ${column} = ${new Date(nowMs)} WHERE id = ${sensor.id} AND ${column} IS NULL RETURNING id`
      : Prisma.sql`UPDATE telemetry_sensor SET ${column} = NULL WHERE id = ${sensor.id} AND ${column} IS NOT NULL RETURNING id`);
    if (changed.length === 0) return false;
    for (const mail of mails) {
      await tx.$queryRaw(enqueueSql({
        kind: ALERT_KIND, key: `telemetry-alert:${sensor.id}:${kind}:${entering ? "on" : "off"}:${nowMs}${mail.locale === DEFAULT_LOCALE ? "" : `:${mail.locale}`}`,
        payload: { to: mail.to, subject: mail.subject, body: mail.body }, maxAttempts: ALERT_ATTEMPTS,
      }));
    }
    return true;
  });
}

export interface HealthResult {
  checked: number;
  alerts: number;
}

/**
 * Checks the watched feeds (of `telemetryIds`, or all), at `nowMs`: stale ones, and stuck ones
 * when `telemetryIds` is given (after a fetch) or `stuck` is asked. A threshold removed while its
 * alert is on ends the alert without an e-mail.
 */
export async function checkFeeds(options: { telemetryIds?: number[]; nowMs?: number; stuck?: boolean }): Promise<HealthResult> {
  const nowMs = options.nowMs ?? Date.now();
  const sensors = await watchedSensors(options.telemetryIds);
  let alerts = 0;
  for (const sensor of sensors) {
    const nowSeconds = nowMs / 1000;
    if (sensor.staleAfter === null) {
      if (sensor.staleSince) await clearSilently(sensor.id, "stale_since");
    } else {
      const reference = sensor.lastTimestamp ?? sensor.configured.getTime() / 1000;
      const stale = nowSeconds - reference > sensor.staleAfter * 60;
      if (stale !== (sensor.staleSince !== null) && (await transition(sensor, "stale", stale, nowMs))) alerts++;
    }
    if (sensor.stuckAfter === null) {
      if (sensor.stuckSince) await clearSilently(sensor.id, "stuck_since");
    } else if ((options.telemetryIds || options.stuck) && sensor.seriesId !== null) {
      const stuck = await lastValuesIdentical(sensor.seriesId, sensor.stuckAfter);
      if (stuck !== (sensor.stuckSince !== null) && (await transition(sensor, "stuck", stuck, nowMs))) alerts++;
    }
  }
  return { checked: sensors.length, alerts };
}

async function clearSilently(sensorRowId: number, column: "stale_since" | "stuck_since"): Promise<void> {
  await db().write((tx) => tx.$executeRaw(Prisma.sql`UPDATE telemetry_sensor SET ${Prisma.raw(column)} = NULL WHERE id = ${sensorRowId}`));
}

/** Sends an alert's e-mail; a failure is retried by the queue. */
export async function sendAlert(job: Job): Promise<unknown> {
  const { to, subject, body } = job.payload as { to: string[]; subject: string; body: string };
  await sendMail({ to: to.join(", "), from: serviceSender(), subject, text: body });
  return { sent: to.length };
}
