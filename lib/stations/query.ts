import { db, Prisma } from "@/lib/db";
import { recordsExistSql } from "@/lib/records";
import { namedCache } from "@/lib/runtime/cache";
import { metadataVersion, metadataVersionWith } from "@/lib/domain/metadata-version";
import { parseBbox } from "@/lib/geo/wkt";
import { ErrorCollector } from "@/lib/domain/errors";
import { normalizeSearch } from "@/lib/formats/search-normalize";
import { containsSql, displayOffsetSecondsSql } from "@/lib/db/dialect-sql";
import { isoSeconds, toNumber } from "@/lib/domain/serialize";
import { LAST_UPDATE_SQL, lastUpdatesSql, OWNER_DISPLAY_SQL, stationsJson, type StationJson } from "@/lib/stations/stations";
import {
  ALL_STATIONS, boundingBox, DEFAULT_SORT, orderBySql, searchPage, type Bbox, type SortKey, type StationFilter,
} from "@/lib/stations/list";

/**
 * Which stations, in which order (api.md §4.4–§4.6): the search `q`, `bbox`, `gentity_id` and
 * `sort`, shared by the list, the CSV export, the GeoJSON feed and the site's map page.
 */
export interface StationQuery {
  readonly filter: StationFilter;
  readonly sort: SortKey[];
}

const bboxMessage = (text: string) =>
  `Invalid bbox "${text}": use four comma-separated numbers min_lon,min_lat,max_lon,max_lat.`;
const yearsMessage = (text: string) => `Invalid ts_has_years "${text}": use comma-separated years such as 2005,2012.`;

const s = (column: string) => Prisma.raw(`s.${column}`);

function bboxCondition([x0, y0, x1, y1]: Bbox): Prisma.Sql {
  return Prisma.sql`(s.lon >= ${x0} AND s.lon <= ${x1} AND s.lat >= ${y0} AND s.lat <= ${y1})`;
}

/**
 * Conditions on related rows are uncorrelated `IN (subquery)` forms: the database evaluates the
 * subquery once and probes its result per station, instead of a join or subquery per station.
 */
function ownerCondition(needle: string): Prisma.Sql {
  return Prisma.sql`s.owner_id IN (SELECT id FROM organization WHERE ${containsSql(Prisma.sql`search_norm`, needle)}
    UNION ALL SELECT id FROM person WHERE ${containsSql(Prisma.sql`search_norm`, needle)})`;
}

/** More conditions than this are each kept as a condition of their own (below). */
const FEW_CONDITIONS = 8;

/**
 * Conditions that must all hold. Nested by halves: SQLite refuses an expression deeper than 1000
 * (a `q` of a thousand words joined in one chain of ANDs), a balanced tree is only log2(n) deep.
 * Beyond a few, each is wrapped in `IS TRUE`: PostgreSQL turns every top-level `IN (subquery)` or
 * `EXISTS` into a join and its planning time grows steeply with their number (80 took 2.5 s to
 * plan); wrapped, each is a subplan of its own and planning stays linear.
 */
function allOf(conditions: Prisma.Sql[]): Prisma.Sql {
  return bothHalves(conditions.length > FEW_CONDITIONS ? conditions.map((c) => Prisma.sql`(${c}) IS TRUE`) : conditions);
}

function bothHalves(conditions: Prisma.Sql[]): Prisma.Sql {
  if (conditions.length === 1) return conditions[0];
  const half = conditions.length >> 1;
  return Prisma.sql`(${bothHalves(conditions.slice(0, half))} AND ${bothHalves(conditions.slice(half))})`;
}

/** UTC epoch seconds of January 1st, 00:00 of a year (years before 1000 included). */
function yearStart(year: number): number {
  const d = new Date(0);
  d.setUTCFullYear(year, 0, 1);
  return d.getTime() / 1000;
}

/** The start of a year as a BIGINT: PostgreSQL would take the bare number for an INTEGER (years from 2038 overflow it). */
const since = (year: number) => Prisma.sql`CAST(${yearStart(year)} AS BIGINT)`;

/** One search term (api.md §4.5), or null when the term is ignored. */
function termCondition(term: string, errors: ErrorCollector): Prisma.Sql | null {
  const colon = term.indexOf(":");
  if (colon < 0) {
    const needle = normalizeSearch(term);
    return Prisma.sql`(${containsSql(s("search_norm"), needle)} OR ${ownerCondition(needle)}
      OR s.id IN (SELECT station_id FROM timeseries_group WHERE ${containsSql(Prisma.sql`remarks_norm`, needle)}))`;
  }
  const type = term.slice(0, colon);
  const value = term.slice(colon + 1);
  if (value === "" && type !== "ts_only") return null;
  const needle = normalizeSearch(value);
  switch (type) {
    case "owner":
      return ownerCondition(needle);
    case "type":
      return Prisma.sql`s.id IN (SELECT st.station_id FROM station_stype st JOIN station_type t ON t.id = st.station_type_id
        WHERE ${containsSql(Prisma.sql`t.descr_norm`, needle)})`;
    case "variable":
      return Prisma.sql`s.id IN (SELECT g.station_id FROM timeseries_group g JOIN variable v ON v.id = g.variable_id
        WHERE ${containsSql(Prisma.sql`v.descr_norm`, needle)})`;
    case "bbox": {
      const box = parseBbox(value);
      if (!box) {
        errors.add("q", bboxMessage(value));
        return null;
      }
      return bboxCondition(box);
    }
    case "in":
      return Prisma.sql`EXISTS (SELECT 1 FROM garea a WHERE ${containsSql(Prisma.sql`a.search_norm`, needle)}
        AND s.lon >= a.min_lon AND s.lon <= a.max_lon AND s.lat >= a.min_lat AND s.lat <= a.max_lat)`;
    case "ts_only":
      return Prisma.sql`s.id IN (SELECT g.station_id FROM timeseries t JOIN timeseries_group g ON g.id = t.timeseries_group_id)`;
    case "ts_has_years": {
      const years = value.split(",").map((y) => y.trim());
      if (years.some((y) => !/^[+-]?\d{1,6}$/.test(y))) {
        errors.add("q", yearsMessage(value));
        return null;
      }
      // One subquery over the years, whatever their number: a station is dropped at its first
      // year without records, so the cost grows with the records a station has, not with the
      // list typed (a condition per year made 1,000 years take seconds to parse and plan).
      const bounds = Prisma.join([...new Set(years.map(Number))].map((year) => Prisma.sql`(${since(year)}, ${since(year + 1)})`));
      const offset = displayOffsetSecondsSql(s("display_timezone"));
      return Prisma.sql`NOT EXISTS (SELECT 1 FROM (SELECT column1 AS year_start, column2 AS year_end FROM (VALUES ${bounds}) AS v) AS y WHERE NOT EXISTS (SELECT 1 FROM timeseries t
          JOIN timeseries_group g ON g.id = t.timeseries_group_id
          WHERE g.station_id = s.id AND ${recordsExistSql(Prisma.sql`t.id`, Prisma.sql`(y.year_start - ${offset})`, Prisma.sql`(y.year_end - ${offset})`)}))`;
    }
    default:
      return null;
  }
}

/** What to search: `q` and `bbox` in the syntax of api.md §4.5–4.6, or one station. */
export interface StationSearchTerms {
  q?: string;
  bbox?: string | null;
  /** Only this station (q and bbox are then ignored). */
  gentityId?: number | null;
  sort?: SortKey[];
}

/** The query of the terms; a malformed `q` or `bbox` is a ValidationFailed naming it. */
export function stationQuery(terms: StationSearchTerms): StationQuery {
  const sort = terms.sort ?? DEFAULT_SORT;
  if (terms.gentityId !== undefined && terms.gentityId !== null) return { filter: { where: Prisma.sql`s.id = ${terms.gentityId}` }, sort };
  const errors = new ErrorCollector();
  const conditions: Prisma.Sql[] = [];
  let readsRecords = false;
  // A term repeated adds nothing to the AND but its cost.
  for (const term of new Set((terms.q ?? "").split(/\s+/).filter(Boolean))) {
    const condition = termCondition(term, errors);
    if (condition) conditions.push(condition);
    if (condition && term.startsWith("ts_has_years:")) readsRecords = true;
  }
  const bbox = terms.bbox;
  if (bbox !== null && bbox !== undefined && bbox !== "") {
    const box = parseBbox(bbox);
    if (box) conditions.push(bboxCondition(box));
    else errors.add("bbox", bboxMessage(bbox));
  }
  errors.throwIfAny();
  return { filter: conditions.length ? { where: allOf(conditions), readsRecords } : ALL_STATIONS, sort };
}

export interface StationSearchResult {
  count: number;
  boundingBox: Bbox;
  stations: StationJson[];
}

const SEARCH_CACHE = {
  name: "station-search",
  maxSize: 16 * 1024 * 1024,
  /** About the length of the JSON. */
  sizeOf: (result: StationSearchResult) => 200 + 400 * result.stations.length,
};

/**
 * A page of the list with the count and bounding box of every match (the list, the site's search).
 * Cached by the metadata version, except `last_update`, which records change: it is read afresh,
 * in the statement that reads the version (one round trip for a page found in the cache).
 */
export async function stationSearch(query: StationQuery, page: { offset: number; limit: number }): Promise<StationSearchResult> {
  if (query.filter.readsRecords) return stationSearchNow(query, page);
  const { where } = query.filter;
  const key = JSON.stringify([where.sql, where.values, query.sort, page.offset, page.limit]);
  const store = namedCache<{ version: number; value: StationSearchResult }>(SEARCH_CACHE.name, SEARCH_CACHE.maxSize, (e) => SEARCH_CACHE.sizeOf(e.value));
  const entry = store.get(key);
  let version: number | null;
  if (entry && entry.value.stations.length) {
    const fresh = await metadataVersionWith<{ id: number; last_update: number | null }>(lastUpdatesSql(entry.value.stations.map((s) => s.id)), "id");
    version = fresh.version;
    if (version === entry.version) {
      const updates = new Map(fresh.rows.map((r) => [toNumber(r.id)!, toNumber(r.last_update)]));
      return { ...entry.value, stations: entry.value.stations.map((s) => ({ ...s, last_update: isoSeconds(updates.get(s.id)) })) };
    }
  } else {
    version = await metadataVersion();
    if (entry && version === entry.version) return entry.value;
  }
  // The version was read before these queries: a write committed in between is at worst cached
  // under the older version, which no later request matches.
  const value = await stationSearchNow(query, page);
  if (version !== null) store.set(key, { version, value });
  return value;
}

async function stationSearchNow(query: StationQuery, page: { offset: number; limit: number }): Promise<StationSearchResult> {
  const { count, extent, ids } = await searchPage(query.filter, query.sort, page.offset, page.limit);
  return { count, boundingBox: boundingBox(extent), stations: await stationsJson(ids) };
}

const FROM = Prisma.sql`station s LEFT JOIN organization o ON o.id = s.owner_id LEFT JOIN person p ON p.id = s.owner_id`;

/** The light rows of every match, in list order: for the map and the CSV export. */
export interface StationRow {
  id: number;
  name: string;
  code: string;
  ownerId: number;
  ownerName: string;
  lon: number;
  lat: number;
  lastUpdate: number | null;
}

export async function stationRows(query: StationQuery): Promise<StationRow[]> {
  const rows = await db().query(Prisma.sql`
    SELECT s.id AS id, s.name AS name, s.code AS code, s.owner_id AS owner_id, ${OWNER_DISPLAY_SQL} AS owner_name,
      s.lon AS lon, s.lat AS lat, ${LAST_UPDATE_SQL} AS last_update
    FROM ${FROM} WHERE ${query.filter.where} ORDER BY ${orderBySql(query.sort)}`);
  return rows.map((r) => ({
    id: toNumber(r.id)!, name: String(r.name), code: String(r.code), ownerId: toNumber(r.owner_id)!,
    ownerName: String(r.owner_name ?? ""), lon: toNumber(r.lon)!, lat: toNumber(r.lat)!, lastUpdate: toNumber(r.last_update),
  }));
}

/** The GeoJSON FeatureCollection of api.md §4.8, serialized. */
export async function stationGeoJson(query: StationQuery): Promise<string> {
  const rows = await stationRows(query);
  const extent = rows.length
    ? rows.reduce<Bbox>((b, r) => [Math.min(b[0], r.lon), Math.min(b[1], r.lat), Math.max(b[2], r.lon), Math.max(b[3], r.lat)],
      [Infinity, Infinity, -Infinity, -Infinity])
    : null;
  const features = rows.map((r) => JSON.stringify({
    type: "Feature",
    id: r.id,
    geometry: { type: "Point", coordinates: [r.lon, r.lat] },
    properties: { name: r.name, code: r.code, owner: r.ownerId, owner_name: r.ownerName, last_update: isoSeconds(r.lastUpdate) },
  }));
  return `{"type":"FeatureCollection","bbox":${JSON.stringify(boundingBox(extent))},"features":[${features.join(",")}]}`;
}
