import { db, Prisma } from "@/lib/db";
import { formatPointEwkt } from "@/lib/geo/wkt";
import { isoMillis, isoSeconds, toNumber } from "@/lib/services/serialize";

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
}

const STATION_INCLUDE = {
  maintainers: { select: { userId: true }, orderBy: { userId: "asc" } },
  dataViewers: { select: { userId: true }, orderBy: { userId: "asc" } },
  stypes: { select: { stationTypeId: true }, orderBy: { stationTypeId: "asc" } },
} as const satisfies Prisma.StationInclude;

type StationRow = Prisma.StationGetPayload<{ include: typeof STATION_INCLUDE }>;

function stationJson(s: StationRow, lastUpdate: number | null): StationJson {
  return {
    id: s.id,
    last_update: isoSeconds(lastUpdate),
    last_modified: isoMillis(s.lastModified),
    name: s.name,
    code: s.code,
    remarks: s.remarks,
    original_srid: s.originalSrid,
    altitude: s.altitude,
    geom: formatPointEwkt(s.lon, s.lat),
    display_timezone: s.displayTimezone,
    start_date: s.startDate,
    end_date: s.endDate,
    owner: s.ownerId,
    overseer: s.overseer,
    maintainers: s.maintainers.map((m) => m.userId),
    stype: s.stypes.map((t) => t.stationTypeId),
    data_viewers: s.dataViewers.map((v) => v.userId),
  };
}

/**
 * The latest record timestamp over each station's time series (every type, private ones
 * included), from the series summaries; absent for stations without records.
 */
export async function lastUpdates(stationIds: number[]): Promise<Map<number, number>> {
  const result = new Map<number, number>();
  if (stationIds.length === 0) return result;
  const rows = await db().prisma.$queryRaw<{ station_id: unknown; last: unknown }[]>`
    SELECT g.station_id AS station_id, MAX(t.last_timestamp) AS last
    FROM timeseries t JOIN timeseries_group g ON g.id = t.timeseries_group_id
    WHERE g.station_id IN (${Prisma.join(stationIds)}) AND t.last_timestamp IS NOT NULL
    GROUP BY g.station_id`;
  for (const row of rows) result.set(toNumber(row.station_id)!, toNumber(row.last)!);
  return result;
}

/** Station objects for ids, in the order of `ids` (missing ids are skipped). */
export async function stationsJson(ids: number[]): Promise<StationJson[]> {
  if (ids.length === 0) return [];
  const [rows, updates] = await Promise.all([
    db().prisma.station.findMany({ where: { id: { in: ids } }, include: STATION_INCLUDE }),
    lastUpdates(ids),
  ]);
  const byId = new Map(rows.map((r) => [r.id, r]));
  return ids.flatMap((id) => {
    const row = byId.get(id);
    return row ? [stationJson(row, updates.get(id) ?? null)] : [];
  });
}

export async function stationJsonById(id: number): Promise<StationJson | null> {
  return (await stationsJson([id]))[0] ?? null;
}

/** The owner display name (api.md §4.6) as an SQL expression over `o` (organization) and `p` (person). */
export const OWNER_DISPLAY_SQL = Prisma.sql`COALESCE(CASE WHEN o.name <> '' THEN o.name ELSE o.acronym END, TRIM(p.last_name || ' ' || p.first_name))`;

/** What permission checks need to know about a station. */
export interface StationAccess {
  id: number;
  creatorId: number | null;
  maintainers: number[];
  dataViewers: number[];
}

export async function stationAccess(id: number): Promise<StationAccess | null> {
  const s = await db().prisma.station.findUnique({
    where: { id },
    select: { id: true, creatorId: true, maintainers: { select: { userId: true } }, dataViewers: { select: { userId: true } } },
  });
  if (!s) return null;
  return { id: s.id, creatorId: s.creatorId, maintainers: s.maintainers.map((m) => m.userId), dataViewers: s.dataViewers.map((v) => v.userId) };
}
