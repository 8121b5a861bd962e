/**
 * A station's telemetry (telemetry.md §1): read and written by the station's editors only (it
 * holds connection data), one per station. The password is write-only: sealed with
 * ENHYDRIS_SECRET_KEY when stored (lib/auth/secret-box.ts), opened only to connect to the
 * vendor, and answered as `password_set`. Services know nothing of HTTP; they take an actor, the
 * station's id and the parsed values (or a function that reads them once the station and the
 * permission have been checked, lib/domain/given.ts).
 */
import { ensureEditor, isEditor, type Actor } from "@/lib/auth/permissions";
import { seal, unseal } from "@/lib/auth/secret-box";
import { db, type Tx } from "@/lib/db";
import { changedFields, named, recordActivity } from "@/lib/domain/activity-log";
import { NotFound, PermissionDenied, ValidationFailed } from "@/lib/domain/errors";
import { valuesOf, type Given } from "@/lib/domain/given";
import { isDatabaseId } from "@/lib/domain/refs";
import { isoMillis } from "@/lib/domain/serialize";
import { existingStation, type StationAccess } from "@/lib/stations";
import { normalizedValues, telemetryErrors, typeOf, type SensorMapping, type TelemetryValues } from "@/lib/telemetry/config";
import { fetchKey, tickSql } from "@/lib/telemetry/keys";
import { nextDue, scheduleText } from "@/lib/telemetry/schedule";

/** The secret-box label of telemetry passwords: a value sealed for another purpose does not open as one. */
export const PASSWORD_LABEL = "telemetry-password";

export type TelemetryStatus = "never" | "ok" | "error";

/** A telemetry as stored (the password sealed). */
export interface StoredTelemetry {
  id: number;
  stationId: number;
  type: string;
  dataTimezone: string;
  fetchIntervalMinutes: number;
  fetchOffsetMinutes: number;
  deviceLocator: string;
  username: string;
  /** Sealed; "" for none. */
  password: string;
  remoteStationId: string;
  additionalConfig: Record<string, unknown>;
  verifyTls: boolean;
  staleAfterMinutes: number | null;
  stuckAfterValues: number | null;
  alertEmails: string[];
  nextFetch: Date;
  lastFetch: Date | null;
  status: TelemetryStatus;
  created: Date;
  lastModified: Date;
  sensors: SensorMapping[];
}

function parseJson<T>(text: string, fallback: T): T {
  try {
    return JSON.parse(text) as T;
  } catch {
    return fallback;
  }
}

export async function loadTelemetry(stationId: number): Promise<StoredTelemetry | null> {
  if (!isDatabaseId(stationId)) return null;
  const row = await db().prisma.telemetry.findUnique({ where: { stationId }, include: { sensors: { orderBy: { id: "asc" } } } });
  if (!row) return null;
  return {
    id: row.id, stationId: row.stationId, type: row.type, dataTimezone: row.dataTimezone,
    fetchIntervalMinutes: row.fetchIntervalMinutes, fetchOffsetMinutes: row.fetchOffsetMinutes,
    deviceLocator: row.deviceLocator, username: row.username, password: row.password, remoteStationId: row.remoteStationId,
    additionalConfig: parseJson(row.additionalConfig, {}), verifyTls: row.verifyTls,
    staleAfterMinutes: row.staleAfterMinutes, stuckAfterValues: row.stuckAfterValues, alertEmails: parseJson(row.alertEmails, []),
    nextFetch: row.nextFetch, lastFetch: row.lastFetch, status: row.status as TelemetryStatus, created: row.created, lastModified: row.lastModified,
    sensors: row.sensors.map((s) => ({ sensor_id: s.sensorId, timeseries_group: s.timeseriesGroupId })),
  };
}

/** The stored telemetry's values, with the password opened (SecretBoxError when the key has changed). */
export function storedValues(t: StoredTelemetry, options: { openPassword: boolean }): TelemetryValues {
  return {
    type: t.type, data_timezone: t.dataTimezone, fetch_interval_minutes: t.fetchIntervalMinutes, fetch_offset_minutes: t.fetchOffsetMinutes,
    device_locator: t.deviceLocator, username: t.username, password: options.openPassword ? unseal(PASSWORD_LABEL, t.password) : t.password,
    remote_station_id: t.remoteStationId, additional_config: t.additionalConfig, verify_tls: t.verifyTls,
    stale_after_minutes: t.staleAfterMinutes, stuck_after_values: t.stuckAfterValues, alert_emails: t.alertEmails, sensors: t.sensors,
  };
}

export interface TelemetryJson {
  id: number;
  station: number;
  type: string;
  data_timezone: string;
  fetch_interval_minutes: number;
  fetch_offset_minutes: number;
  device_locator: string;
  username: string;
  password_set: boolean;
  remote_station_id: string;
  additional_config: Record<string, unknown>;
  verify_tls: boolean;
  stale_after_minutes: number | null;
  stuck_after_values: number | null;
  alert_emails: string[];
  sensors: SensorMapping[];
  last_fetch: string | null;
  next_fetch: string | null;
  status: TelemetryStatus;
}

export function telemetryJson(t: StoredTelemetry): TelemetryJson {
  return {
    id: t.id, station: t.stationId, type: t.type, data_timezone: t.dataTimezone,
    fetch_interval_minutes: t.fetchIntervalMinutes, fetch_offset_minutes: t.fetchOffsetMinutes,
    device_locator: t.deviceLocator, username: t.username, password_set: t.password !== "",
    remote_station_id: t.remoteStationId, additional_config: t.additionalConfig, verify_tls: t.verifyTls,
    stale_after_minutes: t.staleAfterMinutes, stuck_after_values: t.stuckAfterValues, alert_emails: t.alertEmails,
    sensors: t.sensors, last_fetch: isoMillis(t.lastFetch), next_fetch: isoMillis(t.nextFetch), status: t.status,
  };
}

// ---- access ----

/** The station, if the actor may read its telemetry: its editors (a replicated station's too). */
export async function readableStation(actor: Actor, stationId: number): Promise<StationAccess> {
  const station = await existingStation(stationId);
  if (!isEditor(actor, station)) throw new PermissionDenied(actor === null);
  return station;
}

/** The station, if the actor may change its telemetry (its editors; not a replicated station). */
export async function writableStation(actor: Actor, stationId: number): Promise<StationAccess> {
  const station = await existingStation(stationId);
  ensureEditor(actor, station);
  return station;
}

/** The station's telemetry for an editor: NotFound when it has none (after the permission, so that a stranger learns nothing). */
export async function readableTelemetry(actor: Actor, stationId: number): Promise<StoredTelemetry> {
  await readableStation(actor, stationId);
  const t = await loadTelemetry(stationId);
  if (!t) throw new NotFound();
  return t;
}

export async function getTelemetryJson(actor: Actor, stationId: number): Promise<TelemetryJson> {
  return telemetryJson(await readableTelemetry(actor, stationId));
}

/** The ids of the station's time series groups. */
export async function stationGroupIds(stationId: number): Promise<Set<number>> {
  const rows = await db().prisma.timeseriesGroup.findMany({ where: { stationId }, select: { id: true } });
  return new Set(rows.map((r) => r.id));
}

// ---- writes ----

export interface TelemetryFound {
  station: StationAccess;
  existing: StoredTelemetry | null;
}

/** The values stored: the new password sealed, or the stored one kept. */
function columns(values: TelemetryValues, storedPassword: string | null) {
  return {
    type: values.type,
    dataTimezone: values.data_timezone,
    fetchIntervalMinutes: values.fetch_interval_minutes,
    fetchOffsetMinutes: values.fetch_offset_minutes,
    deviceLocator: values.device_locator,
    username: values.username,
    password: storedPassword ?? seal(PASSWORD_LABEL, values.password),
    remoteStationId: values.remote_station_id,
    additionalConfig: JSON.stringify(values.additional_config),
    verifyTls: values.verify_tls,
    staleAfterMinutes: values.stale_after_minutes,
    stuckAfterValues: values.stuck_after_values,
    alertEmails: JSON.stringify(values.alert_emails),
  };
}

/** Replaces the sensor mappings, keeping the rows (and their feed-health state) of those that stay the same. */
async function writeSensors(tx: Tx, telemetryId: number, before: SensorMapping[], after: SensorMapping[]): Promise<void> {
  const same = (a: SensorMapping, b: SensorMapping) => a.sensor_id === b.sensor_id && a.timeseries_group === b.timeseries_group;
  const kept = after.filter((s) => before.some((b) => same(b, s)));
  const gone = before.filter((b) => !kept.some((s) => same(b, s)));
  for (const g of gone) await tx.telemetrySensor.deleteMany({ where: { telemetryId, sensorId: g.sensor_id } });
  const added = after.filter((s) => !kept.some((k) => same(k, s)));
  if (added.length) await tx.telemetrySensor.createMany({ data: added.map((s) => ({ telemetryId, sensorId: s.sensor_id, timeseriesGroupId: s.timeseries_group })) });
}

const SECRET_FIELDS = new Set(["password"]);

/** `Changed telemetry of station "X": fetch_interval_minutes, password` (names only, never a value). */
function changeSummary(before: TelemetryValues, after: TelemetryValues, passwordSent: boolean, station: string): string {
  const plain = Object.fromEntries(Object.entries(after).filter(([k]) => !SECRET_FIELDS.has(k)));
  const old = Object.fromEntries(Object.entries(before).map(([k, v]) => [k, typeof v === "object" && v !== null ? JSON.stringify(v) : v]));
  const now = Object.fromEntries(Object.entries(plain).map(([k, v]) => [k, typeof v === "object" && v !== null ? JSON.stringify(v) : v]));
  const fields = changedFields(old, now);
  if (passwordSent) fields.push("password");
  return `Changed the telemetry of station ${station}${fields.length ? `: ${fields.join(", ")}` : " (nothing changed)"}`;
}

/**
 * Creates the station's telemetry or replaces it (PUT), or changes the fields sent (PATCH,
 * `partial`); the whole result is checked (the type's rules, the schedule, the sensors' groups).
 * A telemetry whose schedule changed is next due at its new schedule's next due minute.
 */
export async function saveTelemetry(actor: Actor, stationId: number, given: Given<Partial<TelemetryValues>, TelemetryFound>,
  options: { partial?: boolean; stationName?: string } = {}): Promise<{ created: boolean; id: number }> {
  const station = await writableStation(actor, stationId);
  const existing = await loadTelemetry(stationId);
  if (options.partial && !existing) throw new NotFound();
  const sent = await valuesOf(given, { station, existing });
  const before = existing ? storedValues(existing, { openPassword: false }) : null;
  const passwordSent = sent.password !== undefined;
  const merged = normalizedValues({ ...(before ?? {}), ...sent } as TelemetryValues);
  // The type's rules see a stored password as set (without opening it).
  const checked = telemetryErrors(!passwordSent && before?.password ? { ...merged, password: "(stored)" } : merged, await stationGroupIds(stationId));
  if (Object.keys(checked).length) throw new ValidationFailed(checked);
  const keepPassword = !passwordSent && existing ? (typeOf(merged).fields.password ? existing.password : "") : null;
  const now = new Date();
  const scheduleChanged = !existing || existing.fetchIntervalMinutes !== merged.fetch_interval_minutes || existing.fetchOffsetMinutes !== merged.fetch_offset_minutes;
  const nextFetch = scheduleChanged ? new Date(nextDue(now.getTime(), merged.fetch_interval_minutes, merged.fetch_offset_minutes)) : existing.nextFetch;
  const stationName = named(options.stationName ?? (await db().prisma.station.findUnique({ where: { id: stationId }, select: { name: true } }))?.name, stationId);
  try {
    const id = await db().write(async (tx) => {
      let id: number;
      if (existing) {
        id = existing.id;
        await tx.telemetry.update({ where: { id }, data: { ...columns(merged, keepPassword), nextFetch, lastModified: now } });
        await writeSensors(tx, id, existing.sensors, merged.sensors);
      } else {
        id = (await tx.telemetry.create({ data: { stationId, ...columns(merged, keepPassword), nextFetch, created: now, lastModified: now } })).id;
        await writeSensors(tx, id, [], merged.sensors);
      }
      await tx.$executeRaw(tickSql(now.getTime()));
      await recordActivity(tx, actor, {
        action: existing ? "change" : "create", objectType: "telemetry", objectId: id, stationId,
        summary: existing ? changeSummary(before!, merged, passwordSent, stationName)
          : `Configured telemetry (${typeOf(merged).name}, ${scheduleText(merged.fetch_interval_minutes, merged.fetch_offset_minutes)}) of station ${stationName}`,
      });
      return id;
    });
    return { created: !existing, id };
  } catch (error) {
    // Two requests created the station's telemetry at once: the other one won.
    if ((error as { code?: string }).code === "P2002" && !existing) throw ValidationFailed.nonField("This station's telemetry was configured by another request at the same time; send yours again to replace it.");
    throw error;
  }
}

/** Deletes the station's telemetry, its sensor mappings and its log; the fetched records stay. */
export async function deleteTelemetry(actor: Actor, stationId: number): Promise<void> {
  await writableStation(actor, stationId);
  const existing = await loadTelemetry(stationId);
  if (!existing) throw new NotFound();
  const station = await db().prisma.station.findUnique({ where: { id: stationId }, select: { name: true } });
  await db().write(async (tx) => {
    // Another request may have deleted it since: then this one finds nothing (404), not a failure.
    const { count } = await tx.telemetry.deleteMany({ where: { id: existing.id } });
    if (count === 0) throw new NotFound();
    await tx.job.deleteMany({ where: { key: fetchKey(existing.id), status: "queued" } });
    await recordActivity(tx, actor, {
      action: "delete", objectType: "telemetry", objectId: existing.id, stationId,
      summary: `Deleted the telemetry of station ${named(station?.name, stationId)}; the fetched records stay`,
    });
  });
}
