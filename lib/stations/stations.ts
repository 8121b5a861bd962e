import { ensureEditor, type Actor, type StationAccess } from "@/lib/auth/permissions";
import { db, Prisma } from "@/lib/db";
import { formatPointEwkt } from "@/lib/geo/wkt";
import { isoMillis, isoSeconds, LAST_SHOWN_INSTANT } from "@/lib/domain/serialize";
import { orNotFound } from "@/lib/domain/errors";
import { isDatabaseId } from "@/lib/domain/refs";
import { idListSql, parseIdList, rowsForIds } from "@/lib/db/dialect-sql";

/** The station object of api.md §4.1, keys in output order. */
export interface StationJson {
  id: number;
  last_update: string | null;
  last_modified: string | null;
  name: string;
  code: string;
  remarks: string;
  original_srid: number | null;
  altitude: number | null;
  geom: string;
  display_timezone: string;
  start_date: string | null;
  end_date: string | null;
  owner: number;
  overseer: string;
  maintainers: number[];
  stype: number[];
  data_viewers: number[];
  /** Only on replicated stations: the replication source they are copied from (replication.md §2). */
  replicated_from?: number;
}

interface StationRow {
  id: number; last_update: number | null; last_modified: Date | null; name: string; code: string; remarks: string;
  original_srid: number | null; altitude: number | null; lon: number; lat: number; display_timezone: string;
  start_date: string | null; end_date: string | null; owner_id: number; overseer: string;
  maintainers: string | null; stype: string | null; data_viewers: string | null; replicated_from: number | null;
}

/**
 * The latest record timestamp over the station's series (every type, private ones included); a
 * series whose last record lies beyond the year 9999 (shownInstant) does not count.
 */
export const LAST_UPDATE_SQL = Prisma.sql`(SELECT MAX(t.last_timestamp) FROM timeseries t JOIN timeseries_group g ON g.id = t.timeseries_group_id
  WHERE g.station_id = s.id AND t.last_timestamp <= ${Prisma.raw(String(LAST_SHOWN_INSTANT))})`;

function stationRows(condition: Prisma.Sql): Promise<StationRow[]> {
  return db().query<StationRow>(Prisma.sql`
    SELECT s.id, ${LAST_UPDATE_SQL} AS last_update, s.last_modified, s.name, s.code, s.remarks, s.original_srid, s.altitude,
      s.lon, s.lat, s.display_timezone, s.start_date, s.end_date, s.owner_id, s.overseer, s.replicated_from,
      ${idListSql("station_maintainer", "user_id", "station_id", Prisma.sql`s.id`)} AS maintainers,
      ${idListSql("station_stype", "station_type_id", "station_id", Prisma.sql`s.id`)} AS stype,
      ${idListSql("station_data_viewer", "user_id", "station_id", Prisma.sql`s.id`)} AS data_viewers
    FROM station s ${condition}`);
}

/** Station objects for ids, in the order of `ids` (missing ids are skipped); one native query. */
export async function stationsJson(ids: number[]): Promise<StationJson[]> {
  if (ids.length === 0) return [];
  const rows = await stationRows(Prisma.sql`WHERE s.id IN (${Prisma.join(ids)})`);
  const byId = new Map(rows.map((r) => [r.id, r]));
  return ids.flatMap((id) => {
    const r = byId.get(id);
    return r ? [stationRowJson(r)] : [];
  });
}

/** Every station object, by id (the legacy list, legacy.md §2.1); one native query. */
export async function allStationsJson(): Promise<StationJson[]> {
  return (await stationRows(Prisma.sql`ORDER BY s.id`)).map(stationRowJson);
}

function stationRowJson(r: StationRow): StationJson {
  return {
    id: r.id,
    last_update: isoSeconds(r.last_update),
    last_modified: isoMillis(r.last_modified),
    name: r.name,
    code: r.code,
    remarks: r.remarks,
    original_srid: r.original_srid,
    altitude: r.altitude,
    geom: formatPointEwkt(r.lon, r.lat),
    display_timezone: r.display_timezone,
    start_date: r.start_date,
    end_date: r.end_date,
    owner: r.owner_id,
    overseer: r.overseer,
    maintainers: parseIdList(r.maintainers),
    stype: parseIdList(r.stype),
    data_viewers: parseIdList(r.data_viewers),
    ...(r.replicated_from === null ? {} : { replicated_from: Number(r.replicated_from) }),
  };
}

/** The query of the stations' `last_update`s (columns id, last_update); `stationIds` not empty. */
export function lastUpdatesSql(stationIds: number[]): Prisma.Sql {
  return Prisma.sql`SELECT s.id, ${LAST_UPDATE_SQL} AS last_update FROM station s WHERE s.id IN (${Prisma.join(stationIds)})`;
}

/** The latest record timestamp of each station that has records. */
export async function lastUpdates(stationIds: number[]): Promise<Map<number, number>> {
  const result = new Map<number, number>();
  if (stationIds.length === 0) return result;
  const rows = await db().query<{ id: number; last_update: number | null }>(lastUpdatesSql(stationIds));
  for (const r of rows) if (r.last_update !== null) result.set(r.id, r.last_update);
  return result;
}

export async function stationJsonById(id: number): Promise<StationJson | null> {
  return (await stationsJson([id]))[0] ?? null;
}

/** The owner display name (api.md §4.6) as an SQL expression over `o` (organization) and `p` (person). */
export const OWNER_DISPLAY_SQL = Prisma.sql`COALESCE(CASE WHEN o.name <> '' THEN o.name ELSE o.acronym END, TRIM(p.last_name || ' ' || p.first_name))`;

/** What permission checks need to know about a station. */
export type { StationAccess } from "@/lib/auth/permissions";

/** What permission checks need to know about each of these stations, by id (unknown ids are left out). */
export async function stationAccesses(ids: number[]): Promise<Map<number, StationAccess>> {
  const valid = [...new Set(ids)].filter(isDatabaseId);
  if (!valid.length) return new Map();
  const rows = await rowsForIds(valid, (slice) => db().query<{ id: number; creator_id: number | null; replicated_from: number | null; maintainers: string | null; data_viewers: string | null }>(Prisma.sql`
    SELECT s.id, s.creator_id, s.replicated_from,
      ${idListSql("station_maintainer", "user_id", "station_id", Prisma.sql`s.id`)} AS maintainers,
      ${idListSql("station_data_viewer", "user_id", "station_id", Prisma.sql`s.id`)} AS data_viewers
    FROM station s WHERE s.id IN (${Prisma.join(slice)})`));
  return new Map(rows.map((r) => [r.id, {
    id: r.id, creatorId: r.creator_id, maintainers: parseIdList(r.maintainers), dataViewers: parseIdList(r.data_viewers),
    replicatedFrom: r.replicated_from === null ? null : Number(r.replicated_from),
  }]));
}

export async function stationAccess(id: number): Promise<StationAccess | null> {
  return (await stationAccesses([id])).get(id) ?? null;
}

/** The station, or NotFound. */
export async function existingStation(id: number): Promise<StationAccess> {
  return orNotFound(await stationAccess(id));
}

/** The station, if the actor may change it and what belongs to it (api.md §15.2). */
export async function editableStation(actor: Actor, id: number): Promise<StationAccess> {
  const station = await existingStation(id);
  ensureEditor(actor, station);
  return station;
}

/**
 * An object of the station in a path, if the actor may change it: the station and then the
 * object are looked up (404) before the permission is checked (api.md §1.7).
 */
export async function editableChild<T>(actor: Actor, stationId: number, find: (station: StationAccess) => Promise<T | null>): Promise<{ station: StationAccess; child: T }> {
  const station = await existingStation(stationId);
  const child = orNotFound(await find(station));
  ensureEditor(actor, station);
  return { station, child };
}
