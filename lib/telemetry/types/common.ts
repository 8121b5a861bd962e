/** Helpers shared by the telemetry types: configuration checks and the zone of the data. */
import { resolveTimeZone, type TimeZone } from "@/lib/formats/timezone";
import type { ConnectionField, FieldErrors, TelemetryConfig } from "@/lib/telemetry/driver";
import { TelemetryError } from "@/lib/telemetry/errors";
import { urlProblem } from "@/lib/telemetry/http";

const FIELD_VALUES: Record<ConnectionField, (c: TelemetryConfig) => string> = {
  device_locator: (c) => c.deviceLocator,
  username: (c) => c.username,
  password: (c) => c.password,
  remote_station_id: (c) => c.remoteStationId,
  data_timezone: (c) => c.dataTimezone,
};

/** Adds a message to a field's errors. */
export function addError(errors: FieldErrors, field: string, message: string): void {
  (errors[field] ??= []).push(message);
}

/** "This field is required." for each of the fields that is blank. */
export function requireFields(config: TelemetryConfig, fields: readonly ConnectionField[], errors: FieldErrors): void {
  for (const field of fields) {
    if (FIELD_VALUES[field](config).trim() === "") addError(errors, field, "This field is required.");
  }
}

/** A message on device_locator when it is given and is not an http(s) URL. */
export function checkUrlField(config: TelemetryConfig, errors: FieldErrors): void {
  const text = config.deviceLocator.trim();
  if (text === "") return;
  const problem = urlProblem(text);
  if (problem) addError(errors, "device_locator", problem);
}

/** A string of additional_config, "" when absent or not a string. */
export function configString(config: TelemetryConfig, key: string): string {
  const value = config.additionalConfig[key];
  return typeof value === "string" ? value : "";
}

/**
 * Checks keys of additional_config: each one given must be a string; the `required` ones must
 * not be blank. Messages go to the field additional_config and name the key.
 */
export function checkConfigStrings(config: TelemetryConfig, keys: readonly string[], required: readonly string[], errors: FieldErrors): void {
  for (const key of keys) {
    const value = config.additionalConfig[key];
    if (value !== undefined && value !== null && typeof value !== "string") addError(errors, "additional_config", `"${key}" must be a string.`);
    else if (required.includes(key) && (typeof value !== "string" || value.trim() === "")) addError(errors, "additional_config", `"${key}" is required.`);
  }
}

/** The zone of the data, or a TelemetryError. */
export function dataZone(config: TelemetryConfig): TimeZone {
  const zone = resolveTimeZone(config.dataTimezone);
  if (zone === null) throw new TelemetryError(`"${config.dataTimezone}" is not a valid time zone`);
  return zone;
}

/** A message on data_timezone when it is not an IANA zone. */
export function checkZoneField(config: TelemetryConfig, errors: FieldErrors): void {
  if (resolveTimeZone(config.dataTimezone) === null) addError(errors, "data_timezone", `"${config.dataTimezone}" is not a valid choice.`);
}
