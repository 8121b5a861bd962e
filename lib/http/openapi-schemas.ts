import { z } from "zod";

/**
 * The response shapes of the current interface (api.md), as zod schemas: the OpenAPI document
 * is generated from them, and the tests check real responses against them.
 */
const id = z.int().positive();
const lastModified = z.string().nullable().meta({ description: "ISO 8601 UTC with milliseconds, e.g. 2026-11-21T08:08:31.963Z" });
const date = z.string().nullable().meta({ description: "YYYY-MM-DD" });

export const StationSchema = z.object({
  id,
  last_update: z.string().nullable().meta({ description: "Latest record timestamp over the station's series, YYYY-MM-DDTHH:MM:SSZ" }),
  last_modified: lastModified,
  name: z.string(),
  code: z.string(),
  remarks: z.string(),
  original_srid: z.int().nullable(),
  altitude: z.number().nullable(),
  geom: z.string().meta({ description: "EWKT, e.g. SRID=4326;POINT (21.06071 39.09518)" }),
  display_timezone: z.string(),
  start_date: date,
  end_date: date,
  owner: id.meta({ description: "Organization or person id" }),
  overseer: z.string(),
  maintainers: z.array(id),
  stype: z.array(id),
  data_viewers: z.array(id),
  replicated_from: id.optional().meta({ description: "Only on replicated stations (read-only until detached): the replication source" }),
}).meta({ id: "Station" });

export const GroupSchema = z.object({
  id, last_modified: lastModified, name: z.string(), hidden: z.boolean(), precision: z.int().min(-10).max(20),
  remarks: z.string(), gentity: id, variable: id, unit_of_measurement: id,
}).meta({ id: "TimeseriesGroup" });

export const TimeseriesSchema = z.object({
  id, last_modified: lastModified, type: z.enum(["Initial", "Checked", "Regularized", "Aggregated"]), time_step: z.string(),
  timeseries_group: id, name: z.string(), publicly_available: z.boolean(),
}).meta({ id: "Timeseries" });

export const OlderTimeseriesSchema = z.object({
  id, last_modified: lastModified, name: z.string(), hidden: z.boolean(), precision: z.int(), remarks: z.string(), gentity: id,
  variable: id, unit_of_measurement: id, time_step: z.string(), timeseries_group: id,
}).meta({ id: "OlderTimeseries", description: "A time series joined with its group (api.md §7.1)" });

const content = z.string().meta({ description: "Absolute URL of the object's content/ endpoint" });
export const FileSchema = z.object({
  id, last_modified: lastModified, date, content, descr: z.string(), remarks: z.string(), gentity: id,
}).meta({ id: "StationFile" });
export const ImageSchema = z.object({
  id, last_modified: lastModified, date, content, descr: z.string(), remarks: z.string(), featured: z.boolean(), gentity: id,
}).meta({ id: "StationImage" });
export const EventSchema = z.object({
  id, last_modified: lastModified, date: z.string(), user: z.string(), report: z.string(), gentity: id, type: id,
}).meta({ id: "StationEvent" });

export const ActivitySchema = z.object({
  id, time: z.string(), user: z.string().nullable(), action: z.string(), object_type: z.string(), object_id: id, summary: z.string(),
}).meta({ id: "ActivityEntry" });

// descr_el: the optional Greek description (public.md §3); "" when none.
const descrEl = z.string().meta({ description: "The description in Greek (optional; pages in Greek fall back to descr)" });
const descrLookup = (name: string) => z.object({ id, last_modified: lastModified, descr: z.string(), descr_el: descrEl }).meta({ id: name });
export const LOOKUP_SCHEMAS = {
  stationtypes: descrLookup("StationType"),
  eventtypes: descrLookup("EventType"),
  variables: descrLookup("Variable"),
  filetypes: z.object({ id, last_modified: lastModified, descr: z.string(), mime_type: z.string(), descr_el: descrEl }).meta({ id: "FileType" }),
  organizations: z.object({ id, last_modified: lastModified, remarks: z.string(), name: z.string(), acronym: z.string() }).meta({ id: "Organization" }),
  persons: z.object({
    id, last_modified: lastModified, remarks: z.string(), last_name: z.string(), first_name: z.string(), middle_names: z.string(), initials: z.string(),
  }).meta({ id: "Person" }),
  units: z.object({ id, last_modified: lastModified, descr: z.string(), symbol: z.string(), variables: z.array(id) }).meta({ id: "UnitOfMeasurement" }),
  gareas: z.object({ id, last_modified: lastModified, name: z.string(), code: z.string(), remarks: z.string(), geom: z.string() }).meta({ id: "GeographicalArea" }),
} as const;

export const UserSchema = z.object({ pk: id, username: z.string(), email: z.string(), first_name: z.string(), last_name: z.string() }).meta({ id: "User" });

export const ChartPointSchema = z.object({
  timestamp: z.int().meta({ description: "Middle of the interval, Unix seconds" }),
  min: z.string().nullable(), max: z.string().nullable(), mean: z.string().nullable(),
}).meta({ id: "ChartPoint" });

export const BoundingBoxSchema = z.tuple([z.number(), z.number(), z.number(), z.number()]).meta({ description: "[min_lon, min_lat, max_lon, max_lat]" });

export const GeoJsonSchema = z.object({
  type: z.literal("FeatureCollection"),
  bbox: BoundingBoxSchema,
  features: z.array(z.object({
    type: z.literal("Feature"),
    id,
    geometry: z.object({ type: z.literal("Point"), coordinates: z.tuple([z.number(), z.number()]) }),
    properties: z.object({ name: z.string(), code: z.string(), owner: id, owner_name: z.string(), last_update: z.string().nullable() }),
  })),
}).meta({ id: "StationsGeoJson" });

export function pageSchema<T extends z.ZodType>(item: T, extra: z.ZodRawShape = {}) {
  return z.object({
    count: z.int().min(0),
    next: z.string().nullable(),
    previous: z.string().nullable(),
    results: z.array(item),
    ...extra,
  });
}

export const DetailErrorSchema = z.object({ detail: z.string() }).meta({ id: "ErrorDetail" });
export const FieldErrorsSchema = z.record(z.string(), z.array(z.string())).meta({
  id: "FieldErrors", description: "Field name (or non_field_errors) → messages",
});
export const TokenSchema = z.object({ key: z.string().regex(/^[0-9a-f]{40}$/) }).meta({ id: "Token" });
export const DryRunSchema = z.object({
  count: z.int(), start_date: z.string().nullable(), end_date: z.string().nullable(),
  replaced: z.int().min(0).optional().meta({ description: "mode=replace: the stored records of the range, which the upload replaces" }),
}).meta({ id: "DryRun" });

const recordState = z.object({ value: z.number().nullable(), flags: z.string() }).nullable();

export const CorrectionSchema = z.object({
  id,
  user: z.string().nullable(),
  created: z.string().meta({ description: "ISO 8601 UTC with milliseconds" }),
  kind: z.enum(["upload", "replace", "delete", "edit", "transform", "revert"]),
  detail: z.string().meta({ description: "upload: append or insert; transform: the operation and its amount or flags (offset 0.5, set empty, flag SUSPECT)" }),
  start_date: z.string().meta({ description: "The first record it changed, YYYY-MM-DDTHH:MM:SSZ" }),
  end_date: z.string().meta({ description: "The last record it changed" }),
  records_before: z.int().min(0).meta({ description: "Records it deleted or changed (as they were)" }),
  records_after: z.int().min(0).meta({ description: "Records it inserted or changed (as it wrote them)" }),
  comment: z.string(),
  reverts: id.nullable().meta({ description: "A revert: the correction it reverts" }),
  reverted_by: id.nullable().meta({ description: "The correction that reverted it" }),
}).meta({ id: "Correction", description: "A change of a series' records (corrections that changed nothing are not kept)" });

export const CorrectionPreviewSchema = z.object({
  changed: z.int().min(0),
  records: z.array(z.object({
    timestamp: z.string().meta({ description: "YYYY-MM-DDTHH:MM:SSZ" }),
    before: recordState.meta({ description: "null: the record is inserted" }),
    after: recordState.meta({ description: "null: the record is deleted" }),
  })),
}).meta({ id: "CorrectionPreview", description: "A dry run: the records that would change, as they are and as they would be" });

export const CorrectedSchema = z.object({
  changed: z.int().min(0),
  correction: id.nullable().meta({ description: "The correction recorded; null when no record changed" }),
}).meta({ id: "Corrected" });

export const DeletedSchema = z.object({
  deleted: z.int().min(0),
  correction: id.nullable().meta({ description: "The correction recorded; null when no record was deleted, or on a dry run" }),
}).meta({ id: "Deleted" });

export const ReplicationRunSchema = z.object({
  id, status: z.enum(["queued", "running", "succeeded", "failed"]),
  queued_at: z.string().nullable(), started_at: z.string().nullable(), finished_at: z.string().nullable(),
  dry_run: z.boolean().meta({ description: "A dry run wrote nothing; its counts say what a run would have done" }),
  created: z.int().nullable(), updated: z.int().nullable(), unchanged: z.int().nullable(), deleted: z.int().nullable(), records: z.int().nullable(),
  warnings: z.array(z.string()), error: z.string().nullable(),
}).meta({ id: "ReplicationRun", description: "A run of a replication source; the counts are null until it has finished" });

export const ReplicationSourceSchema = z.object({
  id, name: z.string(), url: z.string(), username: z.string(), query: z.string(), interval: z.int().min(0), enabled: z.boolean(), prune: z.boolean(),
  last_run: ReplicationRunSchema.nullable().meta({ description: "The run that started last (dry or not), or the queued one when none has started; a scheduled source's next run, queued ahead, is in runs/" }),
}).meta({ id: "ReplicationSource", description: "Another instance to copy stations from; password and token are write-only" });
const threshold = z.object({ delta_t: z.string().meta({ description: "A positive integer and min, h or D: 10min, 1h, 1D" }), allowed_diff: z.number() });
const synopticSeries = z.object({
  timeseries_group: id,
  title: z.string().max(50),
  subtitle: z.string().max(50),
  low_limit: z.number().nullable(),
  high_limit: z.number().nullable(),
  default_chart_min: z.number().nullable(),
  default_chart_max: z.number().nullable(),
  // At most 50 thresholds, as the checks' (MAX_THRESHOLDS of lib/processing/types/checks.ts, whose rules these follow).
  rate_of_change: z.object({ symmetric: z.boolean(), thresholds: z.array(threshold).min(1).max(50) }).nullable()
    .meta({ description: "Rate-of-change thresholds checked at the last common date (processing.md §3), or null" }),
}).meta({ id: "SynopticSeries" });

export const SynopticStationsSchema = z.array(z.object({ station: id, timeseries_groups: z.array(synopticSeries) }).meta({ id: "SynopticStation" }))
  .meta({ description: "In order; each time series group must belong to its station. JSON text in a form body." });

export const SynopticGroupSchema = z.object({
  id,
  last_modified: lastModified,
  name: z.string().max(50),
  slug: z.string().max(50),
  display_timezone: z.string(),
  fresh_time_limit: z.int().min(1).meta({ description: "Seconds: older data are shown as old" }),
  early_warning_emails: z.array(z.string()),
  stations: SynopticStationsSchema,
}).meta({ id: "SynopticGroup" });

export const SynopticLatestSchema = z.array(z.object({
  station: id,
  name: z.string(),
  geom: z.string(),
  last_common_date: z.string().nullable().meta({ description: "The earliest of the last timestamps of the station's series, YYYY-MM-DDTHH:MM:SSZ" }),
  freshness: z.enum(["recent", "old"]),
  values: z.array(z.object({
    timeseries_group: id,
    title: z.string(),
    unit: z.string(),
    value: z.number().nullable().meta({ description: "At the last common date, with the group's precision; null when missing or hidden" }),
    status: z.enum(["ok", "low", "high", "error", "hidden"]),
  })),
})).meta({ id: "SynopticLatest" });

export const SynopticWarningSchema = z.object({
  id,
  created: z.string(),
  status: z.enum(["pending", "sent", "failed", "no_recipients", "withheld"])
    .meta({ description: "pending: queued or being retried (see error); withheld: recorded, not sent, every recipient having had its hourly cap of warnings (ENHYDRIS_ALARM_EMAILS_PER_HOUR)" }),
  sent: z.string().nullable(),
  error: z.string().nullable(),
  recipients: z.array(z.string()),
  withheld: z.array(z.string()).meta({ description: "The recipients it was not sent to, having had their hourly cap of warnings" }),
  subject: z.string(),
  body: z.string(),
  alarms: z.array(z.object({
    station: z.string(), variable: z.string(), kind: z.enum(["low", "high", "rate_of_change"]), time: z.int().meta({ description: "Unix seconds" }),
    value: z.number(), precision: z.int(), unit: z.string(), limit: z.number().optional(),
    change: z.object({ diff: z.number(), allowed: z.number(), over: z.string(), implied: z.boolean() }).optional(),
    fresh: z.boolean().meta({ description: "Raised by this warning (false: still in force since an earlier one)" }),
  })),
}).meta({ id: "SynopticWarning" });

