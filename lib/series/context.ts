import { db, Prisma } from "@/lib/db";
import { stationZone, type TimeZone } from "@/lib/formats/timezone";
import { ensureDataReader, ensureEditor, isEditor, type Actor } from "@/lib/auth/permissions";
import { orNotFound, PermissionDenied } from "@/lib/domain/errors";
import { isDatabaseId } from "@/lib/domain/refs";
import { toNumber } from "@/lib/domain/serialize";
import { idListSql, parseIdList } from "@/lib/db/dialect-sql";
import type { StationAccess } from "@/lib/stations";

/** What the data endpoints need to know about a series, loaded by native queries (loadSeriesContext). */
export interface SeriesContext {
  id: number;
  version: number;
  lastModified: Date | null;
  publiclyAvailable: boolean;
  timeStep: string;
  recordCount: number;
  firstTimestamp: number | null;
  lastTimestamp: number | null;
  lastValue: number | null;
  lastFlags: string | null;
  group: { id: number; name: string; remarks: string; precision: number; lastModified: Date | null };
  station: { id: number; name: string; displayTimezone: string; lon: number; lat: number; altitude: number | null; lastModified: Date | null };
  access: StationAccess;
  variable: { descr: string; lastModified: Date | null };
  unit: { symbol: string; lastModified: Date | null };
}

interface Row {
  id: number; version: number; last_modified: Date | null; publicly_available: boolean; time_step: string; record_count: number;
  first_timestamp: number | null; last_timestamp: number | null; last_value: number | null; last_flags: string | null;
  group_id: number; group_name: string; group_remarks: string; precision: number; group_last_modified: Date | null;
  station_id: number; station_name: string; display_timezone: string; lon: number; lat: number; altitude: number | null;
  station_last_modified: Date | null; creator_id: number | null; replicated_from: number | null; maintainers: string | null; data_viewers: string | null;
  variable_descr: string; variable_last_modified: Date | null; unit_symbol: string; unit_last_modified: Date | null;
}

/** A time series named by its id, and by its station and group when a path names them. */
export interface SeriesPath {
  seriesId: number;
  stationId?: number;
  groupId?: number;
}

/**
 * What only metadata writes change (the group, station, access and variable of a series), kept per
 * process and database under the metadata version it was read with (lib/domain/metadata-version.ts:
 * the triggers bump it in the transaction of every such write, in any process). The series' own
 * columns and its unit (whose writes leave the version alone) are read afresh on every request,
 * with the version, in one statement that looks rows up by key only.
 */
interface MetadataParts {
  metadataVersion: number;
  group: SeriesContext["group"];
  station: SeriesContext["station"];
  access: StationAccess;
  variable: SeriesContext["variable"];
}

const MAX_CACHED_SERIES = 20_000;
const PARTS_KEY = Symbol.for("enhydris.seriesContextParts");
type PartsHolder = { [PARTS_KEY]?: WeakMap<object, Map<number, MetadataParts>> };

function partsCache(): Map<number, MetadataParts> {
  const holder = globalThis as PartsHolder;
  const byDb = (holder[PARTS_KEY] ??= new WeakMap());
  const current = db();
  let cache = byDb.get(current);
  if (!cache) byDb.set(current, (cache = new Map()));
  return cache;
}

const METADATA_VERSION = Prisma.sql`(SELECT version FROM metadata_version WHERE id = 1)`;

interface SeriesRow {
  id: number; version: number; last_modified: Date | null; publicly_available: boolean; time_step: string; record_count: number;
  first_timestamp: number | null; last_timestamp: number | null; last_value: number | null; last_flags: string | null;
  group_id: number; unit_symbol: string; unit_last_modified: Date | null; metadata_version: unknown;
}

/** The series' own columns, its unit and the metadata version: what a request reads when the rest is cached. */
function seriesRowSql(id: number): Prisma.Sql {
  return Prisma.sql`
    SELECT t.id, t.version, t.last_modified, t.publicly_available, t.time_step, t.record_count, t.first_timestamp,
      t.last_timestamp, t.last_value, t.last_flags, t.timeseries_group_id AS group_id,
      u.symbol AS unit_symbol, u.last_modified AS unit_last_modified, ${METADATA_VERSION} AS metadata_version
    FROM timeseries t
      JOIN timeseries_group g ON g.id = t.timeseries_group_id
      JOIN unit_of_measurement u ON u.id = g.unit_id
    WHERE t.id = ${id}`;
}

function contextOf(r: SeriesRow, parts: Omit<MetadataParts, "metadataVersion">): SeriesContext {
  return {
    id: r.id, version: r.version, lastModified: r.last_modified, publiclyAvailable: r.publicly_available, timeStep: r.time_step,
    recordCount: r.record_count, firstTimestamp: r.first_timestamp, lastTimestamp: r.last_timestamp, lastValue: r.last_value,
    lastFlags: r.last_flags, group: parts.group, station: parts.station, access: parts.access, variable: parts.variable,
    unit: { symbol: r.unit_symbol, lastModified: r.unit_last_modified },
  };
}

/** The whole context in one statement, with the metadata version it was read at (cached under it). */
async function loadWholeContext(id: number): Promise<SeriesContext | null> {
  const [r] = await db().query<Row & { metadata_version: unknown }>(Prisma.sql`
    SELECT t.id, t.version, t.last_modified, t.publicly_available, t.time_step, t.record_count, t.first_timestamp,
      t.last_timestamp, t.last_value, t.last_flags,
      g.id AS group_id, g.name AS group_name, g.remarks AS group_remarks, g.precision, g.last_modified AS group_last_modified,
      s.id AS station_id, s.name AS station_name, s.display_timezone, s.lon, s.lat, s.altitude,
      s.last_modified AS station_last_modified, s.creator_id, s.replicated_from,
      ${idListSql("station_maintainer", "user_id", "station_id", Prisma.sql`s.id`)} AS maintainers,
      ${idListSql("station_data_viewer", "user_id", "station_id", Prisma.sql`s.id`)} AS data_viewers,
      v.descr AS variable_descr, v.last_modified AS variable_last_modified, u.symbol AS unit_symbol, u.last_modified AS unit_last_modified,
      ${METADATA_VERSION} AS metadata_version
    FROM timeseries t
      JOIN timeseries_group g ON g.id = t.timeseries_group_id
      JOIN station s ON s.id = g.station_id
      JOIN variable v ON v.id = g.variable_id
      JOIN unit_of_measurement u ON u.id = g.unit_id
    WHERE t.id = ${id}`);
  const cache = partsCache();
  if (!r) {
    cache.delete(id);
    return null;
  }
  // Frozen: the cached parts are shared by every request for the series.
  const parts: Omit<MetadataParts, "metadataVersion"> = {
    group: Object.freeze({ id: r.group_id, name: r.group_name, remarks: r.group_remarks, precision: groupPrecision(r.precision), lastModified: r.group_last_modified }),
    station: Object.freeze({
      id: r.station_id, name: r.station_name, displayTimezone: r.display_timezone, lon: r.lon, lat: r.lat, altitude: r.altitude,
      lastModified: r.station_last_modified,
    }),
    access: Object.freeze({
      id: r.station_id, creatorId: r.creator_id, maintainers: Object.freeze(parseIdList(r.maintainers)) as number[],
      dataViewers: Object.freeze(parseIdList(r.data_viewers)) as number[], replicatedFrom: r.replicated_from === null ? null : Number(r.replicated_from),
    }),
    variable: Object.freeze({ descr: r.variable_descr, lastModified: r.variable_last_modified }),
  };
  const version = toNumber(r.metadata_version);
  if (version !== null) {
    if (cache.size >= MAX_CACHED_SERIES) cache.clear();
    cache.set(id, { metadataVersion: version, ...parts });
  }
  return contextOf({ ...r, metadata_version: version }, parts);
}

/**
 * The series by id, restricted to a station (and group) when the path names them: one statement
 * reading the series' own columns by key while the metadata version is the one its cached parts
 * were read at; otherwise the whole context (and the cache renewed).
 */
export async function loadSeriesContext(id: number, path: { stationId?: number; groupId?: number } = {}): Promise<SeriesContext | null> {
  if (!isDatabaseId(id)) return null;
  let s: SeriesContext | null = null;
  const parts = partsCache().get(id);
  if (parts) {
    const [r] = await db().query<SeriesRow>(seriesRowSql(id));
    if (!r) {
      partsCache().delete(id);
      return null;
    }
    if (toNumber(r.metadata_version) === parts.metadataVersion && r.group_id === parts.group.id) s = contextOf(r, parts);
  }
  s ??= await loadWholeContext(id);
  if (!s) return null;
  if (path.groupId !== undefined && s.group.id !== path.groupId) return null;
  if (path.stationId !== undefined && s.station.id !== path.stationId) return null;
  return s;
}

/**
 * A group's precision as values are written with it: the API stores −10 to 20 (api.md §5); one
 * outside (written into the database directly) is read as the nearest of them, so that the
 * group's values can still be read.
 */
export function groupPrecision(precision: number): number {
  if (precision >= -10 && precision <= 20 && Number.isInteger(precision)) return precision;
  return Number.isNaN(precision) ? 0 : Math.min(20, Math.max(-10, Math.round(precision)));
}

/** The station's display zone: the default output zone and the zone of naive dates (formats.md §3). */
export function displayZone(s: SeriesContext): TimeZone {
  return stationZone(s.station.displayTimezone);
}

export { stationZone } from "@/lib/formats/timezone";

/** The latest last_modified among the series, its group, station, variable and unit (formats.md §9.4). */
export function latestModification(s: SeriesContext): Date {
  const times = [s.lastModified, s.group.lastModified, s.station.lastModified, s.variable.lastModified, s.unit.lastModified]
    .filter((d): d is Date => d !== null)
    .map((d) => d.getTime());
  return new Date(times.length ? Math.max(...times) : 0);
}

/** The series, if the actor may read its records (the private-data rule, api.md §15.2). */
export async function readableSeries(actor: Actor, path: SeriesPath): Promise<SeriesContext> {
  const s = await seriesOfPath(path);
  ensureDataReader(actor, s.access, s.publiclyAvailable);
  return s;
}

/**
 * The series a path names, or 404, with no permission checked yet: for a call whose path names
 * an object below the series too, which is looked up before the permission (api.md §1.7).
 */
export async function seriesOfPath(path: SeriesPath): Promise<SeriesContext> {
  return orNotFound(await loadSeriesContext(path.seriesId, path));
}

/** The series, if the actor may write its records (an editor of its station). */
export async function writableSeries(actor: Actor, path: SeriesPath): Promise<SeriesContext> {
  const s = await seriesOfPath(path);
  ensureEditor(actor, s.access);
  return s;
}

/**
 * The series, if the actor is an editor of its station, for what only editors read (the history
 * of corrections): on a replicated station too, which nobody may write.
 */
export async function editorsSeries(actor: Actor, path: SeriesPath): Promise<SeriesContext> {
  const s = await seriesOfPath(path);
  ensureEditorsRead(actor, s);
  return s;
}

/** Refuses (401/403) an actor who is not an editor of the series' station. */
export function ensureEditorsRead(actor: Actor, s: SeriesContext): void {
  if (!isEditor(actor, s.access)) throw new PermissionDenied(actor === null);
}
