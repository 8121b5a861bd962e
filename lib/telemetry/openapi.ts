/** The answers of telemetry's API as zod schemas, for the OpenAPI document (lib/api/openapi.ts). */
import { z } from "zod";

const id = z.int();
const item = z.object({ id: z.string(), name: z.string() });
const fieldMeta = z.object({ label: z.string(), help: z.string(), required: z.boolean() });

export const TelemetrySchema = z.object({
  id,
  station: id,
  type: z.string(),
  data_timezone: z.string(),
  fetch_interval_minutes: z.int().min(10).max(1440),
  fetch_offset_minutes: z.int().min(0).max(1439),
  device_locator: z.string(),
  username: z.string(),
  password_set: z.boolean().meta({ description: "Whether a password is stored (it is write-only)" }),
  remote_station_id: z.string(),
  additional_config: z.record(z.string(), z.unknown()),
  verify_tls: z.boolean(),
  stale_after_minutes: z.int().nullable(),
  stuck_after_values: z.int().nullable(),
  alert_emails: z.array(z.string()).meta({ description: "Where feed alerts go; empty: the station's maintainers" }),
  sensors: z.array(z.object({ sensor_id: z.string(), timeseries_group: id })),
  last_fetch: z.string().nullable(),
  next_fetch: z.string().nullable(),
  status: z.enum(["never", "ok", "error"]).meta({ description: "How the last fetch ended" }),
}).meta({ id: "Telemetry", description: "Where a station's data is fetched from, when, and into which groups; the password is write-only" });

export const TelemetryTypeSchema = z.object({
  id: z.string(),
  name: z.string(),
  fields: z.record(z.string(), fieldMeta.extend({ fields: z.record(z.string(), fieldMeta).optional() })),
  lists_stations: z.boolean(),
}).meta({ id: "TelemetryType", description: "A telemetry type and the fields its configuration shows, with their labels" });

export const DiscoveredSchema = z.union([z.object({ stations: z.array(item) }), z.object({ sensors: z.array(item) })])
  .meta({ id: "TelemetryDiscovered", description: "The vendor's stations, or the sensors of remote_station_id" });

const summary = z.object({
  status: z.enum(["ok", "error"]),
  started: z.string(),
  finished: z.string(),
  records: z.int().min(0),
  message: z.string().meta({ description: "Why the whole fetch failed, or empty" }),
  sensors: z.array(z.object({ sensor_id: z.string(), timeseries_group: id, records: z.int().min(0), status: z.enum(["ok", "error"]), message: z.string() })),
});

export const FetchRunSchema = z.object({
  id,
  status: z.enum(["queued", "running", "succeeded", "failed"]),
  queued_at: z.string().nullable(),
  started_at: z.string().nullable(),
  finished_at: z.string().nullable(),
  sensors_done: z.int().min(0),
  sensors_total: z.int().min(0),
  error: z.string().nullable().meta({ description: "Why the job failed (the service's own failures; a vendor's are in fetch)" }),
  fetch: summary.nullable().meta({ description: "What the fetch did, once it has finished" }),
}).meta({ id: "TelemetryFetch", description: "A fetch of a telemetry (a job of the queue)" });

export const TelemetryLogSchema = z.object({
  id,
  started: z.string(),
  finished: z.string(),
  status: z.enum(["ok", "error"]),
  records: z.int().min(0),
  sensor: z.string().nullable().meta({ description: "The remote sensor; null for the whole fetch" }),
  error_name: z.string(),
  message: z.string(),
}).meta({ id: "TelemetryLog" });
