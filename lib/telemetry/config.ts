/**
 * A telemetry's configuration (telemetry.md §1) as typed values in the API's snake_case, and the
 * rules across its fields (the schedule, the type's own rules on the connection fields), each
 * message under the field it concerns, so that the API, the wizard and scripts report the same
 * words.
 */
import type { FieldErrors, TelemetryConfig, TelemetryType } from "@/lib/telemetry/driver";
import { telemetryType } from "@/lib/telemetry/types";

export interface SensorMapping {
  sensor_id: string;
  timeseries_group: number;
}

export interface TelemetryValues {
  type: string;
  data_timezone: string;
  fetch_interval_minutes: number;
  fetch_offset_minutes: number;
  device_locator: string;
  username: string;
  /** Plain text here; sealed when stored. */
  password: string;
  remote_station_id: string;
  additional_config: Record<string, unknown>;
  verify_tls: boolean;
  stale_after_minutes: number | null;
  stuck_after_values: number | null;
  alert_emails: string[];
  sensors: SensorMapping[];
}

/** The connection fields (those a type may show), and the type and zone they go with. */
export const CONNECTION_FIELDS = ["type", "data_timezone", "device_locator", "username", "password", "remote_station_id", "additional_config", "verify_tls"] as const;
export type ConnectionValues = Pick<TelemetryValues, (typeof CONNECTION_FIELDS)[number]>;

/** Sensors a telemetry may map: a station with more is not a logger's. */
export const MAX_SENSORS = 200;
/** Addresses of the feed alerts. */
export const MAX_ALERT_EMAILS = 20;
/** additional_config as JSON text, at most. */
export const MAX_ADDITIONAL_CONFIG = 10_000;

export const TELEMETRY_RULES = {
  offset: (interval: number) => `Ensure this value is less than fetch_interval_minutes (${interval}).`,
  sensorTwice: (id: string) => `Sensor "${id}" is listed twice.`,
  groupTwice: (gid: number) => `Time series group ${gid} is mapped to another sensor already.`,
  notOfStation: (gid: number) => `Time series group ${gid} does not belong to this station.`,
  tooManySensors: `Ensure this list has no more than ${MAX_SENSORS} sensors.`,
  tooManyEmails: `Ensure this list has no more than ${MAX_ALERT_EMAILS} addresses.`,
  email: "Enter a valid email address.",
  configTooLarge: `Ensure this object has no more than ${MAX_ADDITIONAL_CONFIG} characters as JSON.`,
  noStations: "No stations found.",
} as const;

/**
 * A configuration with the fields its type does not show blanked, and the zone of a type whose
 * timestamps are UTC set to UTC (the reference hides them; a hidden field is ignored).
 */
export function normalizedValues(values: TelemetryValues): TelemetryValues {
  const type = telemetryType(values.type);
  if (!type) return values;
  const shown = (field: keyof typeof type.fields, value: string) => (type.fields[field] ? value : "");
  return {
    ...values,
    data_timezone: type.usesDataTimezone ? values.data_timezone : "UTC",
    device_locator: shown("device_locator", values.device_locator),
    username: shown("username", values.username),
    password: shown("password", values.password),
    remote_station_id: type.listsStations ? values.remote_station_id : "",
    additional_config: Object.keys(type.additionalConfig).length ? values.additional_config : {},
  };
}

/** What a driver takes of a configuration. */
export function driverConfig(values: ConnectionValues): TelemetryConfig {
  return {
    deviceLocator: values.device_locator,
    username: values.username,
    password: values.password,
    remoteStationId: values.remote_station_id,
    additionalConfig: values.additional_config,
    dataTimezone: values.data_timezone,
    verifyTls: values.verify_tls,
  };
}

/** The type of a configuration (its id has been checked by the field reader). */
export function typeOf(values: Pick<TelemetryValues, "type">): TelemetryType {
  const type = telemetryType(values.type);
  if (!type) throw new Error(`unknown telemetry type ${values.type}`);
  return type;
}

/**
 * The rules across fields of a whole configuration (the field readers checked each field):
 * the offset is below the interval, the type's rules on its connection fields, each sensor and
 * each group mapped once, each group one of the station's (`stationGroups`). `{}` when valid.
 */
export function telemetryErrors(values: TelemetryValues, stationGroups: ReadonlySet<number>, options: { connectionOnly?: boolean } = {}): FieldErrors {
  const errors: FieldErrors = {};
  const add = (field: string, message: string) => (errors[field] ??= []).push(message);
  const type = telemetryType(values.type);
  if (!type) return { type: [`"${values.type}" is not a valid choice.`] };
  for (const [field, messages] of Object.entries(type.validate(driverConfig(values)))) for (const m of messages) add(field, m);
  if (type.listsStations && values.remote_station_id.trim() === "" && !options.connectionOnly) add("remote_station_id", "This field is required.");
  if (options.connectionOnly) return errors;
  if (values.fetch_offset_minutes >= values.fetch_interval_minutes) add("fetch_offset_minutes", TELEMETRY_RULES.offset(values.fetch_interval_minutes));
  const sensors = new Map<string, number>();
  const groups = new Map<number, string>();
  values.sensors.forEach((s, i) => {
    if (sensors.has(s.sensor_id)) add("sensors", `sensors[${i}].sensor_id: ${TELEMETRY_RULES.sensorTwice(s.sensor_id)}`);
    else sensors.set(s.sensor_id, i);
    if (!stationGroups.has(s.timeseries_group)) add("sensors", `sensors[${i}].timeseries_group: ${TELEMETRY_RULES.notOfStation(s.timeseries_group)}`);
    else if (groups.has(s.timeseries_group)) add("sensors", `sensors[${i}].timeseries_group: ${TELEMETRY_RULES.groupTwice(s.timeseries_group)}`);
    else groups.set(s.timeseries_group, s.sensor_id);
  });
  return errors;
}
