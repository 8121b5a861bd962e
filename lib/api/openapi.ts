import { z } from "zod";
import { AccessRequestSchema, ACCESS_STATUSES, approveFields, denyFields, requestFields } from "@/lib/access";
import { specSchema, text, type FieldSpec } from "@/lib/http/fields";
import { attachmentFields, eventFields, stationFields } from "@/lib/stations";
import { deleteFields, editFields, groupFields, olderShapeFields, revertFields, seriesFields, transformFields, uploadFields } from "@/lib/series";
import {
  ActivitySchema, BoundingBoxSchema, ChartPointSchema, CorrectedSchema, CorrectionPreviewSchema, CorrectionSchema, DeletedSchema, DetailErrorSchema, DryRunSchema, EventSchema, FieldErrorsSchema, FileSchema, GeoJsonSchema,
  GroupSchema, ImageSchema, LOOKUP_SCHEMAS, OlderTimeseriesSchema, pageSchema, ReplicationRunSchema, ReplicationSourceSchema,
  StationSchema, SynopticGroupSchema, SynopticLatestSchema, SynopticWarningSchema, TimeseriesSchema, TokenSchema, UserSchema,
} from "@/lib/http/openapi-schemas";
import { allProcessFields, processBodySchema, ProcessSchema, RunSchema, runFields } from "@/lib/processing";
import { runFields as replicationRunFields, sourceFields } from "@/lib/replication";
import { LOOKUP_FIELDS, LOOKUP_NAMES } from "@/lib/lookups";
import { synopticGroupFields } from "@/lib/synoptic";
import {
  discoverFields, DiscoveredSchema, fetchFields, FetchRunSchema, telemetryFields, TelemetryLogSchema, TelemetrySchema, TelemetryTypeSchema,
} from "@/lib/telemetry";

/**
 * The OpenAPI 3.1 document of the current interface (api.md §3), generated from the zod
 * schemas of the request fields (the same specs that validate requests) and of the responses.
 */
type Method = "get" | "post" | "put" | "patch" | "delete";
type Who = "everyone" | "user" | "editor" | "superuser" | "station creator" | "the creator of the synoptic group and superusers";

interface Param {
  name: string;
  description: string;
  schema?: z.ZodType;
  required?: boolean;
}

interface Operation {
  method: Method;
  path: string;
  tag: string;
  summary: string;
  who: Who;
  query?: Param[];
  /** The body's fields (PATCH: each optional); `schema` when the spec alone says too little. */
  body?: { spec: FieldSpec; schema?: z.ZodType; multipart?: boolean };
  /** Status → [description, schema (JSON) or media types (other bodies)] */
  ok: [number, string, z.ZodType | string | string[] | null];
  /** The media type of a JSON body, when not application/json. */
  jsonType?: string;
  /** Another response with a body of its own. */
  alsoOk?: [number, string, z.ZodType];
  errors?: number[];
}

const PAGE: Param[] = [
  { name: "page", description: "Page number (1-based) or `last`", schema: z.string() },
  { name: "page_size", description: "Items per page (extension; up to ENHYDRIS_MAX_PAGE_SIZE)", schema: z.int() },
];
const STATION_QUERY: Param[] = [
  { name: "q", description: "Search: AND of terms; plain terms or owner:, type:, variable:, bbox:, in:, ts_only:, ts_has_years:" },
  { name: "bbox", description: "min_lon,min_lat,max_lon,max_lat" },
  { name: "gentity_id", description: "Only this station (q and bbox are then ignored)", schema: z.int() },
  { name: "sort", description: "Repeatable; a field name, `-` for descending", schema: z.array(z.string()) },
];
const RANGE: Param[] = [
  { name: "start_date", description: "YYYY-MM-DD[Thh:mm[:ss][offset]]; naive values are in the station's display time zone; inclusive" },
  { name: "end_date", description: "As start_date; inclusive" },
];
const TIMEZONE: Param = { name: "timezone", description: "IANA zone of the output timestamps; default the station's display time zone" };

function crud(base: string, item: string, tag: string, itemSchema: z.ZodType, spec: FieldSpec | null, who: Who, extraList: Param[] = [], listExtra: z.ZodRawShape = {}): Operation[] {
  const ops: Operation[] = [
    { method: "get", path: base, tag, summary: `List ${tag.toLowerCase()}`, who: "everyone", query: [...extraList, ...PAGE], ok: [200, "A page", pageSchema(itemSchema, listExtra)], errors: [400, 404] },
    { method: "get", path: `${base}${item}/`, tag, summary: `Get one`, who: "everyone", ok: [200, "The object", itemSchema], errors: [404] },
  ];
  if (spec) {
    ops.push(
      { method: "post", path: base, tag, summary: "Create", who, body: { spec }, ok: [201, "Created", itemSchema], errors: [400, 401, 403, 404, 413, 415] },
      { method: "put", path: `${base}${item}/`, tag, summary: "Replace (omitted optional fields keep their values)", who, body: { spec }, ok: [200, "Replaced", itemSchema], errors: [400, 401, 403, 404, 413, 415] },
      { method: "patch", path: `${base}${item}/`, tag, summary: "Update the fields sent", who, body: { spec }, ok: [200, "Updated", itemSchema], errors: [400, 401, 403, 404, 413, 415] },
      { method: "delete", path: `${base}${item}/`, tag, summary: "Delete", who, ok: [204, "Deleted", null], errors: [401, 403, 404] },
    );
  }
  return ops;
}

const HealthSchema = z.object({
  status: z.enum(["ok", "error"]),
  database: z.enum(["ok", "unavailable"]),
  migrations: z.enum(["ok", "pending", "unknown"]),
  queue: z.object({ depth: z.int(), running: z.int(), failed_24h: z.int(), oldest_job_age_seconds: z.number().nullable() }).nullable(),
}).meta({ id: "Health" });

/** Telemetry (telemetry.md §1): everything but the list of types is for the station's editors. */
function telemetryOperations(station: string): Operation[] {
  const base = `${station}telemetry/`;
  const tag = "Telemetry";
  const write = [400, 401, 403, 404, 413, 415];
  return [
    { method: "get", path: base, tag, summary: "The station's telemetry (404 when it has none)", who: "editor", ok: [200, "The telemetry", TelemetrySchema], errors: [401, 403, 404] },
    { method: "put", path: base, tag, summary: "Create (201) or replace (200; omitted optional fields keep their values, the password too)", who: "editor",
      body: { spec: telemetryFields() }, ok: [200, "Replaced", TelemetrySchema], alsoOk: [201, "Created", TelemetrySchema], errors: write },
    { method: "patch", path: base, tag, summary: "Update the fields sent", who: "editor", body: { spec: telemetryFields() }, ok: [200, "Updated", TelemetrySchema], errors: write },
    { method: "delete", path: base, tag, summary: "Delete (the fetched records stay)", who: "editor", ok: [204, "Deleted", null], errors: [401, 403, 404] },
    { method: "post", path: `${base}discover/`, tag, summary: "Connect with the connection fields (the saved ones stand in for those not sent) and list the vendor's stations, or the sensors of remote_station_id; what the vendor said on failure under connection (400)",
      who: "editor", body: { spec: discoverFields() }, ok: [200, "Stations or sensors", DiscoveredSchema], errors: [...write, 429] },
    { method: "get", path: `${base}fetch/`, tag, summary: "The last fetch (running, or the one that started last), or null", who: "editor", ok: [200, "The fetch", FetchRunSchema.nullable()], errors: [401, 403, 404] },
    { method: "post", path: `${base}fetch/`, tag, summary: "Fetch now (a job; wait: answer with the finished fetch, at most 60 s)", who: "editor",
      query: [{ name: "wait", description: "As the body's wait (the body's wins when both are given)", schema: z.boolean() }],
      body: { spec: fetchFields() }, ok: [202, "Queued (or not finished within 60 s)", FetchRunSchema], alsoOk: [200, "Finished (wait)", FetchRunSchema], errors: write },
    { method: "get", path: `${base}logs/`, tag, summary: "The log of the fetches, newest first: one entry per sensor fetched, and one without a sensor when a whole fetch failed", who: "editor",
      query: PAGE, ok: [200, "A page", pageSchema(TelemetryLogSchema)], errors: [401, 403, 404] },
    { method: "get", path: "/api/telemetry/types/", tag, summary: "The telemetry types and the fields each shows, with their labels", who: "everyone", ok: [200, "The types", z.array(TelemetryTypeSchema)] },
  ];
}

/** Access requests (public.md §2): a user asks to read a station's protected data, its editors decide. */
function accessOperations(station: string): Operation[] {
  const base = `${station}accessrequests/`;
  const tag = "Access requests";
  const write = [400, 401, 403, 404, 413, 415];
  return [
    { method: "get", path: base, tag, summary: "The requests: an editor of the station sees all, another user their own; newest first", who: "user",
      query: [{ name: "status", description: "Only requests in this state", schema: z.enum(ACCESS_STATUSES) }, ...PAGE], ok: [200, "A page", pageSchema(AccessRequestSchema)], errors: [400, 401, 404] },
    { method: "post", path: base, tag, summary: "Ask to read the station's protected data (400 when the caller can read it already, already has a pending request, or the station has none); the station's maintainers are e-mailed",
      who: "user", body: { spec: requestFields() }, ok: [201, "Requested", AccessRequestSchema], errors: [400, 401, 404, 413, 415] },
    { method: "get", path: `${base}{id}/`, tag, summary: "One request (its requester, or an editor of the station)", who: "user", ok: [200, "The request", AccessRequestSchema], errors: [401, 403, 404] },
    { method: "delete", path: `${base}{id}/`, tag, summary: "Withdraw the request (its requester only); withdrawing an approved one ends the access it gave", who: "user", ok: [204, "Withdrawn", null], errors: [401, 403, 404] },
    { method: "post", path: `${base}{id}/approve/`, tag, summary: "Approve a pending request: the requester reads the station's protected data until valid_until begins (null: no end; a job queued with the approval ends it then), and is e-mailed",
      who: "editor", body: { spec: approveFields() }, ok: [200, "Approved", AccessRequestSchema], errors: write },
    { method: "post", path: `${base}{id}/deny/`, tag, summary: "Deny a pending request with a reason, which the requester is e-mailed", who: "editor",
      body: { spec: denyFields() }, ok: [200, "Denied", AccessRequestSchema], errors: write },
  ];
}

function operations(): Operation[] {
  const station = "/api/stations/{sid}/";
  const group = `${station}timeseriesgroups/{gid}/`;
  const series = `${group}timeseries/{tid}/`;
  const dataOps = (base: string, tag: string): Operation[] => [
    { method: "get", path: `${base}data/`, tag, summary: "Records as CSV, HTS or HTS2 (streamed)", who: "everyone",
      query: [{ name: "fmt", description: "csv (default), hts or hts2" }, TIMEZONE, ...RANGE], ok: [200, "Record lines (csv: text/csv; hts and hts2: text/vnd.openmeteo.timeseries)", ["text/csv", "text/vnd.openmeteo.timeseries"]], errors: [400, 401, 403, 404] },
    { method: "post", path: `${base}data/`, tag, summary: "Append, insert or replace records (recorded as a correction)", who: "editor", body: { spec: uploadFields() }, ok: [204, "Stored (200 with the summary on a dry run)", null], errors: [400, 401, 403, 404, 413, 415] },
    { method: "delete", path: `${base}data/`, tag: "Corrections", summary: "Delete the records of a range (at least one bound, or all=true), as a correction", who: "editor",
      query: Object.entries(deleteFields()).map(([name, field]) => ({ name, description: (field.schema.meta() as { description?: string } | undefined)?.description ?? name, schema: field.schema })),
      ok: [200, "Deleted", DeletedSchema], errors: [400, 401, 403, 404] },
    { method: "patch", path: `${base}data/`, tag: "Corrections", summary: "Change the value and/or flags of stored records named by their timestamps, all or none, as a correction", who: "editor",
      body: { spec: editFields(), schema: specSchema(editFields()) }, ok: [200, "Changed (a dry run: the records that would change)", z.union([CorrectedSchema, CorrectionPreviewSchema])],
      errors: [400, 401, 403, 404, 413, 415] },
    { method: "post", path: `${base}data/transform/`, tag: "Corrections", summary: "Offset, scale, set, interpolate, flag or unflag the records of a range, as a correction", who: "editor",
      body: { spec: transformFields() }, ok: [200, "Changed (a dry run: the records that would change)", z.union([CorrectedSchema, CorrectionPreviewSchema])],
      errors: [400, 401, 403, 404, 413, 415] },
    { method: "get", path: `${base}corrections/`, tag: "Corrections", summary: "The history of the series' corrections (uploads included), newest first", who: "editor",
      query: [...PAGE, { name: "after", description: "Only corrections with a larger id", schema: z.int().min(0) }], ok: [200, "A page", pageSchema(CorrectionSchema)], errors: [400, 401, 403, 404] },
    { method: "get", path: `${base}corrections/{cid}/`, tag: "Corrections", summary: "One correction", who: "editor", ok: [200, "The correction", CorrectionSchema], errors: [401, 403, 404] },
    { method: "post", path: `${base}corrections/{cid}/revert/`, tag: "Corrections",
      summary: "Restore exactly the records a correction changed, as a new correction; 409 when it was reverted already, when a later correction of the same records stands (named), or when they changed outside the history",
      who: "editor", body: { spec: revertFields() }, ok: [200, "The new correction (a dry run: the records that would change)", z.union([CorrectionSchema, CorrectionPreviewSchema])],
      errors: [400, 401, 403, 404, 409, 413, 415] },
    { method: "get", path: `${base}bottom/`, tag, summary: "The last record", who: "everyone", query: [TIMEZONE], ok: [200, "One record line", "text/plain"], errors: [400, 401, 403, 404] },
    { method: "get", path: `${base}chart/`, tag, summary: "Min, max and mean over equal intervals", who: "everyone",
      query: [...RANGE, { name: "points", description: "Number of intervals, 1–2000 (default 200)", schema: z.int() }], ok: [200, "Chart points", z.array(ChartPointSchema)], errors: [400, 401, 403, 404] },
  ];
  const attachments = (kind: "files" | "images", schema: z.ZodType): Operation[] =>
    crud(`${station}${kind}/`, "{id}", kind === "files" ? "Files" : "Images", schema, null, "editor").concat([
      { method: "post", path: `${station}${kind}/`, tag: kind === "files" ? "Files" : "Images", summary: "Upload", who: "editor", body: { spec: attachmentFields(kind, true), multipart: true }, ok: [201, "Created", schema], errors: [400, 401, 403, 404, 413, 415] },
      { method: "put", path: `${station}${kind}/{id}/`, tag: kind === "files" ? "Files" : "Images", summary: "Replace (a new content, multipart only, replaces the bytes)", who: "editor", body: { spec: attachmentFields(kind, false) }, ok: [200, "Replaced", schema], errors: [400, 401, 403, 404, 413, 415] },
      { method: "patch", path: `${station}${kind}/{id}/`, tag: kind === "files" ? "Files" : "Images", summary: "Update (a new content, multipart only, replaces the bytes)", who: "editor", body: { spec: attachmentFields(kind, false) }, ok: [200, "Updated", schema], errors: [400, 401, 403, 404, 413, 415] },
      { method: "delete", path: `${station}${kind}/{id}/`, tag: kind === "files" ? "Files" : "Images", summary: "Delete (the bytes too)", who: "editor", ok: [204, "Deleted", null], errors: [401, 403, 404] },
      { method: "get", path: `${station}${kind}/{id}/content/`, tag: kind === "files" ? "Files" : "Images", summary: "The bytes", who: "everyone", ok: [200, "The bytes; Content-Type from the file name's extension (application/octet-stream when unknown)", "*/*"], errors: [404] },
    ]);
  return [
    { method: "get", path: "/api/", tag: "Root", summary: "Top-level lists", who: "everyone", ok: [200, "Absolute URLs", z.record(z.string(), z.string())] },
    { method: "get", path: "/api/schema/", tag: "Root", summary: "This OpenAPI document", who: "everyone", ok: [200, "OpenAPI 3.1", "application/json"] },
    { method: "get", path: "/api/docs/", tag: "Root", summary: "This document as a readable page", who: "everyone", ok: [200, "HTML", "text/html"] },
    { method: "get", path: "/api/health/", tag: "Root", summary: "Health for load balancers and monitoring (no login, any host)", who: "everyone",
      ok: [200, "Healthy", HealthSchema], alsoOk: [503, "Unhealthy: the database or its migrations fail, naming the part", HealthSchema] },
    ...crud("/api/stations/", "{sid}", "Stations", StationSchema, stationFields(), "editor", STATION_QUERY, { bounding_box: BoundingBoxSchema })
      .map((op) => (op.method === "post" ? { ...op, who: "station creator" as Who } : op)),
    { method: "get", path: "/api/stations/csv/", tag: "Stations", summary: "Export as data.zip (stations.csv, timeseries.csv)", who: "everyone", query: STATION_QUERY, ok: [200, "A zip", "application/zip"], errors: [400] },
    { method: "get", path: "/api/stations/geojson/", tag: "Stations", summary: "Every match as GeoJSON (for maps)", who: "everyone", query: STATION_QUERY, ok: [200, "FeatureCollection", GeoJsonSchema], jsonType: "application/geo+json", errors: [400] },
    ...crud(`${station}timeseriesgroups/`, "{gid}", "Time series groups", GroupSchema, groupFields(), "editor"),
    ...crud(`${group}timeseries/`, "{tid}", "Time series", TimeseriesSchema, seriesFields(), "editor"),
    ...dataOps(series, "Time series data"),
    ...crud(`${group}processes/`, "{pid}", "Processes", ProcessSchema, allProcessFields(), "editor")
      .map((op) => (op.method === "post" ? { ...op, summary: "Create; its first run (from scratch) is queued", body: { spec: op.body!.spec, schema: processBodySchema() } }
        : op.method === "put" ? { ...op, summary: `${op.summary}; the target is recomputed from scratch`, body: { spec: op.body!.spec, schema: processBodySchema() } }
          : op.method === "patch" ? { ...op, summary: `${op.summary}; the target is recomputed from scratch` }
          : op.method === "delete" ? { ...op, summary: "Delete (the target series and its records stay)" } : op)),
    { method: "get", path: `${group}processes/{pid}/runs/`, tag: "Processes", summary: "Runs, newest first", who: "editor", query: PAGE,
      ok: [200, "A page", pageSchema(RunSchema)], errors: [401, 403, 404] },
    { method: "post", path: `${group}processes/{pid}/run/`, tag: "Processes", summary: "Queue a run (from_scratch: of the whole target; wait: answer when it has finished, at most 60 s)",
      who: "editor", body: { spec: runFields() }, ok: [202, "Queued (or not finished within 60 s)", RunSchema], alsoOk: [200, "Finished (wait)", RunSchema],
      errors: [400, 401, 403, 404, 413, 415] },
    ...crud(`${station}timeseries/`, "{tid}", "Time series (older shape)", OlderTimeseriesSchema, olderShapeFields(), "editor"),
    ...dataOps(`${station}timeseries/{tid}/`, "Time series data"),
    ...attachments("files", FileSchema),
    ...attachments("images", ImageSchema),
    ...crud(`${station}events/`, "{id}", "Events", EventSchema, eventFields(), "editor"),
    { method: "get", path: `${station}activity/`, tag: "Activity", summary: "The station's changes (site, API, legacy), newest first", who: "editor",
      query: PAGE, ok: [200, "A page", pageSchema(ActivitySchema)], errors: [401, 403, 404] },
    ...LOOKUP_NAMES.flatMap((name) => crud(`/api/${name}/`, "{id}", `Lookups: ${name}`, LOOKUP_SCHEMAS[name], LOOKUP_FIELDS[name](), "superuser")
      .map((op) => (op.method === "delete" ? { ...op, summary: "Delete (409 while other objects refer to it)", errors: [...op.errors!, 409] } : op))),
    ...crud("/api/replication/sources/", "{id}", "Replication", ReplicationSourceSchema, sourceFields(), "superuser")
      .map((op) => (op.method === "get" ? { ...op, who: "superuser" as Who, errors: [...(op.errors ?? []), 401, 403] } : op)),
    { method: "post", path: "/api/replication/sources/{id}/run/", tag: "Replication", summary: "Queue a run (wait: answer with the finished run, at most 60 s; prune: delete here what was deleted there; dry_run: write nothing, apart from the schedule; a run already queued of the same kind becomes this one, due now); 400 when the source is disabled", who: "superuser",
      body: { spec: replicationRunFields() }, ok: [202, "Queued (or not finished within 60 s)", ReplicationRunSchema], alsoOk: [200, "Finished (wait)", ReplicationRunSchema],
      errors: [400, 401, 403, 404, 413, 415] },
    { method: "get", path: "/api/replication/sources/{id}/runs/", tag: "Replication", summary: "The source's runs, newest first: those not yet started, then the others by when they started", who: "superuser", query: PAGE,
      ok: [200, "A page", pageSchema(ReplicationRunSchema)], errors: [401, 403, 404] },
    { method: "post", path: "/api/stations/{sid}/detach/", tag: "Replication", summary: "Make a replicated station this instance's own (it is no longer updated from its source)", who: "superuser",
      ok: [200, "The station", StationSchema], errors: [401, 403, 404, 409] },
    ...crud("/api/synopticgroups/", "{id}", "Synoptic groups", SynopticGroupSchema, synopticGroupFields(), "the creator of the synoptic group and superusers")
      .map((op) => (op.method === "post" ? { ...op, who: "user" as Who, errors: [400, 401, 413, 415] } : op)),
    { method: "get", path: "/api/synopticgroups/{id}/latest/", tag: "Synoptic groups", who: "everyone",
      summary: "Each station's values at its last common date, their status and freshness (values of private series only for their data readers)",
      ok: [200, "The stations in order", SynopticLatestSchema], errors: [404] },
    { method: "get", path: "/api/synopticgroups/{id}/warnings/", tag: "Synoptic groups", who: "the creator of the synoptic group and superusers",
      summary: "The early warnings recorded, newest first, and whether their e-mail has gone", query: PAGE,
      ok: [200, "A page", pageSchema(SynopticWarningSchema)], errors: [401, 403, 404] },
    ...telemetryOperations(station),
    ...accessOperations(station),
    { method: "post", path: "/api/auth/login/", tag: "Authentication", summary: "Log in: a new token", who: "everyone",
      body: { spec: { username: text(), email: text(), password: text({ required: true, trim: false }) } }, ok: [200, "The token", TokenSchema], errors: [400, 415, 429] },
    { method: "post", path: "/api/auth/logout/", tag: "Authentication", summary: "Revoke the token used (or end the site sessions)", who: "user", ok: [200, "Logged out", DetailErrorSchema], errors: [401] },
    { method: "get", path: "/api/auth/user/", tag: "Authentication", summary: "The caller's profile", who: "user", ok: [200, "The user", UserSchema], errors: [401] },
    { method: "put", path: "/api/auth/user/", tag: "Authentication", summary: "Replace the profile", who: "user", body: { spec: { username: text({ required: true, max: 150 }), first_name: text({ max: 150 }), last_name: text({ max: 150 }) } }, ok: [200, "The user", UserSchema], errors: [400, 401] },
    { method: "patch", path: "/api/auth/user/", tag: "Authentication", summary: "Update the profile", who: "user", body: { spec: { username: text({ max: 150 }), first_name: text({ max: 150 }), last_name: text({ max: 150 }) } }, ok: [200, "The user", UserSchema], errors: [400, 401] },
    { method: "post", path: "/api/auth/password/change/", tag: "Authentication", summary: "Change the password", who: "user", body: { spec: { old_password: text({ required: true }), new_password1: text({ required: true }), new_password2: text({ required: true }) } }, ok: [200, "Saved", DetailErrorSchema], errors: [400, 401] },
    { method: "post", path: "/api/auth/password/reset/", tag: "Authentication", summary: "Mail a reset link (same answer for unknown addresses)", who: "everyone", body: { spec: { email: text({ required: true }) } }, ok: [200, "Sent", DetailErrorSchema], errors: [400] },
    { method: "post", path: "/api/auth/password/reset/confirm/", tag: "Authentication", summary: "Set a new password with the link's uid and token", who: "everyone", body: { spec: { uid: text({ required: true }), token: text({ required: true }), new_password1: text({ required: true }), new_password2: text({ required: true }) } }, ok: [200, "Reset", DetailErrorSchema], errors: [400] },
  ];
}

const ERROR_DESCRIPTIONS: Record<number, string> = {
  400: "Invalid parameters or fields", 401: "Not authenticated, or bad credentials (WWW-Authenticate: Token)", 403: "Not allowed",
  404: "Not found (or an invalid page)", 409: "Still referenced, or a correction that cannot be reverted (the detail says why)", 413: "Body too large", 415: "Unsupported media type", 429: "Throttled (Retry-After)",
  503: "The database cannot be reached, or a write found no disk space left and was undone (Retry-After)",
};

/**
 * Statuses any operation may answer: 401 for bad credentials, sent even where no login is needed
 * (and for anonymous requests under ENHYDRIS_AUTHENTICATION_REQUIRED), 503 (api.md §1).
 */
const ALWAYS_POSSIBLE = [401, 503];

/**
 * Converts a schema, lifting named sub-schemas into components.schemas. A named schema read in
 * a request body is a component of its own (`…Input`): as input, its optional members and
 * unknown keys are allowed where the answer has them all and nothing else.
 */
function convert(schema: z.ZodType, components: Record<string, unknown>, io: "input" | "output"): unknown {
  const json = z.toJSONSchema(schema, { target: "draft-2020-12", io, unrepresentable: "any" }) as Record<string, unknown>;
  const defs = (json.$defs ?? {}) as Record<string, unknown>;
  delete json.$defs;
  delete json.$schema;
  const suffix = io === "input" ? "Input" : "";
  const id = (schema.meta() as { id?: string } | undefined)?.id;
  const rewrite = (value: unknown): unknown => JSON.parse(JSON.stringify(value).replace(/"#\/\$defs\/([^"]+)"/g, `"#/components/schemas/$1${suffix}"`));
  for (const [name, def] of Object.entries(defs)) components[name + suffix] = rewrite(def);
  if (id) {
    // zod puts a named root schema in $defs itself and answers a $ref to it: keep the definition.
    if (!(id in defs)) components[id + suffix] = rewrite(json);
    return { $ref: `#/components/schemas/${id}${suffix}` };
  }
  return rewrite(json);
}

/**
 * The fields of a request body that form and multipart bodies carry as JSON text (objects, and
 * lists of objects or pairs); lists of plain values are the key repeated (api.md §1.2).
 */
function jsonTextFields(schema: unknown): Record<string, { contentType: string }> | undefined {
  const alternatives = (schema as { anyOf?: unknown[] }).anyOf ?? [schema];
  const names = new Set(alternatives.flatMap((alternative) => Object.entries((alternative as { properties?: Record<string, unknown> }).properties ?? {})
    .filter(([, property]) => /"type":"object"|"\$ref"|"prefixItems"/.test(JSON.stringify(property))).map(([name]) => name)));
  return names.size ? Object.fromEntries([...names].map((name) => [name, { contentType: "application/json" }])) : undefined;
}

export function openApiDocument(origin: string): object {
  const components: Record<string, unknown> = {};
  const paths: Record<string, Record<string, unknown>> = {};
  const errorBody = {
    "application/json": { schema: { oneOf: [convert(DetailErrorSchema, components, "output"), convert(FieldErrorsSchema, components, "output")] } },
  };
  for (const op of operations()) {
    const pathParams = [...op.path.matchAll(/\{(\w+)\}/g)].map((m) => ({ name: m[1], in: "path", required: true, schema: { type: "integer" } }));
    const query = (op.query ?? []).map((p) => ({ name: p.name, in: "query", required: false, description: p.description, schema: convert(p.schema ?? z.string(), components, "input") }));
    const [status, description, body] = op.ok;
    const responses: Record<string, unknown> = {
      [status]: {
        description,
        ...(body === null ? {} : typeof body === "string" || Array.isArray(body) ? { content: Object.fromEntries([body].flat().map((media) => [media, {}])) }
          : { content: { [op.jsonType ?? "application/json"]: { schema: convert(body, components, "output") } } }),
      },
    };
    for (const code of new Set([...(op.errors ?? []), ...ALWAYS_POSSIBLE])) responses[code] = { description: ERROR_DESCRIPTIONS[code], content: errorBody };
    if (op.alsoOk) {
      const [code, text, schema] = op.alsoOk;
      responses[code] = { description: text, content: { "application/json": { schema: convert(schema, components, "output") } } };
    }
    if (op.method === "post" && op.path.endsWith("data/")) {
      responses[200] = { description: "Dry run: what would be stored", content: { "application/json": { schema: convert(DryRunSchema, components, "output") } } };
    }
    const bodySchema = op.body && (op.body.schema ?? (op.method === "patch" ? specSchema(op.body.spec).partial() : specSchema(op.body.spec)));
    const requestSchema = bodySchema ? convert(bodySchema, components, "input") : undefined;
    const encoding = requestSchema && jsonTextFields(requestSchema);
    const asText = { schema: requestSchema, ...(encoding ? { encoding } : {}) };
    paths[op.path] ??= {};
    paths[op.path][op.method] = {
      tags: [op.tag],
      summary: op.summary,
      description: `Allowed: ${op.who}.`,
      ...(pathParams.length + query.length ? { parameters: [...pathParams, ...query] } : {}),
      ...(requestSchema ? {
        requestBody: {
          required: true,
          content: op.body!.multipart
            ? { "multipart/form-data": asText }
            : { "application/json": { schema: requestSchema }, "application/x-www-form-urlencoded": asText, "multipart/form-data": asText },
        },
      } : {}),
      responses,
      ...(op.who === "everyone" ? {} : { security: [{ token: [] }, { session: [] }] }),
    };
  }
  return {
    openapi: "3.1.0",
    info: {
      title: "Enhydris API",
      version: "1",
      description: "Stations, time series and their records. Paths end in /; lists are paginated; errors are JSON in Django REST framework's shape. "
        + "Authenticate with `Authorization: Token <key>` from POST /api/auth/login/. A database that cannot be reached, or a write that finds no disk space left (undone whole), gives 503 with Retry-After. "
        + "Browsers may call the API from the origins of ENHYDRIS_CORS_ALLOWED_ORIGINS (no credentials).",
    },
    servers: [{ url: origin }],
    paths,
    components: {
      schemas: components,
      securitySchemes: {
        token: { type: "apiKey", in: "header", name: "Authorization", description: "`Token <key>` (or `Bearer <key>`)" },
        session: { type: "apiKey", in: "cookie", name: "next-auth.session-token", description: "The site's session; unsafe methods also need X-CSRFToken" },
      },
    },
  };
}
