/**
 * The fields of `stations/{sid}/telemetry/` (telemetry.md §1), read as the API reads every body
 * (lib/http/fields.ts, Django REST framework's messages). `additional_config` and `sensors` are
 * JSON (JSON text in a form body); `alert_emails` a JSON list, or the key repeated in a form.
 * The rules across fields and those that need the station are in config.ts and the service.
 */
import { z } from "zod";
import { emailListField } from "@/lib/accounts";
import { IANA_ZONE_NAMES } from "@/lib/formats/tz-names";
import { pythonTypeName, RequestInput } from "@/lib/http/body";
import { boolean, choice, integer, MSG, parsePk, specSchema, text, validatedFields, type Field, type Parsed, type WriteMode } from "@/lib/http/fields";
import { jsonValue, listOf, nestedField, objectOf, sharedSpec } from "@/lib/http/nested-fields";
import {
  MAX_ADDITIONAL_CONFIG, MAX_ALERT_EMAILS, MAX_SENSORS, TELEMETRY_RULES, type SensorMapping, type TelemetryValues,
} from "@/lib/telemetry/config";
import { MAX_INTERVAL, MIN_INTERVAL } from "@/lib/telemetry/schedule";
import { TELEMETRY_TYPES } from "@/lib/telemetry/types";

const ok = <T>(value: T): Parsed<T> => ({ ok: true, value });
const fail = <T>(...errors: string[]): Parsed<T> => ({ ok: false, errors });

const ZONES = new Set(IANA_ZONE_NAMES);

/** An IANA zone name, as the tz database spells it. */
function zoneField(): Field<string> {
  return {
    required: false,
    default: () => "UTC",
    parse(raw) {
      if (raw === null) return fail(MSG.null);
      if (typeof raw !== "string") return fail(MSG.string);
      const name = raw.trim();
      return ZONES.has(name) ? ok(name) : fail(MSG.choice(name));
    },
    schema: z.string().meta({ description: "An IANA time zone name, such as Europe/Athens or Etc/GMT-2", example: "Europe/Athens" }),
  };
}

/** A JSON object of short settings (strings, numbers, booleans). */
function additionalConfigField(): Field<Record<string, unknown>> {
  return {
    required: false,
    default: () => ({}),
    parse(raw) {
      const value = jsonValue(raw);
      if (!value.ok) return value;
      if (value.value === null) return fail(MSG.null);
      if (typeof value.value !== "object" || Array.isArray(value.value)) return fail(`Invalid data. Expected a dictionary, but got ${pythonTypeName(value.value)}.`);
      const object = value.value as Record<string, unknown>;
      const bad = Object.entries(object).find(([, v]) => !(v === null || ["string", "number", "boolean"].includes(typeof v)));
      if (bad) return fail(`"${bad[0]}": Expected a string, a number or a boolean.`);
      if (JSON.stringify(object).length > MAX_ADDITIONAL_CONFIG) return fail(TELEMETRY_RULES.configTooLarge);
      return ok(object);
    },
    schema: z.record(z.string(), z.union([z.string(), z.number(), z.boolean(), z.null()])).meta({ description: "Settings of the type (telemetry/types/ lists its keys)" }),
  };
}

const sensorSpec = sharedSpec(() => ({
  sensor_id: text({ required: true, blank: false, max: 200 }),
  timeseries_group: { required: true, parse: parsePk, schema: z.int() } as Field<number>,
}));

function sensorsField(): Field<SensorMapping[]> {
  return nestedField("sensors", (v) => listOf(v, (item, at) => objectOf(item, sensorSpec(), at) as Parsed<SensorMapping>),
    (sensors) => (sensors.length > MAX_SENSORS ? [TELEMETRY_RULES.tooManySensors] : []),
    z.array(specSchema(sensorSpec())).max(MAX_SENSORS).meta({ description: "Each remote sensor read, and the time series group (of this station) whose Initial series it feeds; sensors not listed are ignored" }),
    { default: () => [] });
}

export const telemetryFields = () => ({
  type: choice(TELEMETRY_TYPES.map((t) => t.id), { required: true }),
  data_timezone: zoneField(),
  fetch_interval_minutes: integer({ required: true, min: MIN_INTERVAL, max: MAX_INTERVAL }) as Field<number>,
  fetch_offset_minutes: integer({ min: 0, max: MAX_INTERVAL - 1, default: 0 }) as Field<number>,
  device_locator: text({ max: 1000 }),
  username: text({ max: 200 }),
  password: { ...text({ trim: false, max: 1000 }), schema: z.string().max(1000).meta({ writeOnly: true, description: "Write-only: never in an answer (see password_set)" }) } as Field<string>,
  remote_station_id: text({ max: 200 }),
  additional_config: additionalConfigField(),
  verify_tls: boolean({ default: true }),
  stale_after_minutes: integer({ nullable: true, min: 10, max: 525_600, default: null }),
  stuck_after_values: integer({ nullable: true, min: 3, max: 1000, default: null }),
  alert_emails: emailListField({ name: "alert_emails", max: MAX_ALERT_EMAILS, tooMany: TELEMETRY_RULES.tooManyEmails, invalid: TELEMETRY_RULES.email }),
  sensors: sensorsField(),
});

/** A telemetry's values from a request body: all of them on create, those sent on replace and update. */
export async function readTelemetry(input: RequestInput, mode: WriteMode): Promise<Partial<TelemetryValues>> {
  const v = await validatedFields(input, telemetryFields(), mode);
  return Object.fromEntries(Object.entries(v).filter(([, value]) => value !== undefined)) as Partial<TelemetryValues>;
}

/** The connection fields of a discover/ body (each optional: the saved telemetry's stand in). */
export const discoverFields = () => {
  const all = telemetryFields();
  return {
    type: { ...all.type, required: false, default: undefined },
    data_timezone: { ...all.data_timezone, default: undefined },
    device_locator: { ...all.device_locator, default: undefined },
    username: { ...all.username, default: undefined },
    password: { ...all.password, default: undefined },
    remote_station_id: { ...all.remote_station_id, default: undefined },
    additional_config: { ...all.additional_config, default: undefined },
    verify_tls: { ...all.verify_tls, default: undefined },
  };
};

export async function readDiscover(input: RequestInput): Promise<Partial<TelemetryValues>> {
  const v = await validatedFields(input, discoverFields(), "update");
  return Object.fromEntries(Object.entries(v).filter(([, value]) => value !== undefined)) as Partial<TelemetryValues>;
}

export const fetchFields = () => ({
  wait: {
    ...boolean({ default: false }),
    schema: z.boolean().meta({
      description: "Wait for the fetch to finish (at most 60 s) and answer it (200); also accepted in the query string (?wait=true), the body's value first",
    }),
  } satisfies Field<boolean>,
});

/** `fetch/`'s request: `wait` from the body or, when the body has none, from the query string (`?wait=true`). */
export async function readFetchRequest(input: RequestInput, query?: URLSearchParams): Promise<{ wait: boolean }> {
  const v = await validatedFields(input, fetchFields(), "create");
  const fromQuery = query?.get("wait");
  if (input.has("wait") || fromQuery === null || fromQuery === undefined) return { wait: v.wait === true };
  const q = await validatedFields(RequestInput.form([["wait", fromQuery]]), fetchFields(), "create");
  return { wait: q.wait === true };
}
