import { db, Prisma } from "@/lib/db";
import { formatPointWkt } from "@/lib/geo/wkt";
import { isDatabaseId } from "@/lib/domain/refs";
import { OWNER_DISPLAY_SQL } from "@/lib/stations";

/** Station information with geodata (legacy.md §6): the stations' records of the info endpoints. */
export interface StationInfo {
  id: number;
  name: string;
  code: string;
  srid: 4326;
  point: string;
  altitude: number | null;
  original_srid: number | null;
  owner: { id: number; name_any: string };
  types: { id: number; descr: string }[];
  start_date: string | null;
  end_date: string | null;
  remarks: string;
}

interface InfoRow {
  id: number; name: string; code: string; lon: number; lat: number; altitude: number | null; original_srid: number | null;
  owner_id: number; name_any: string | null; start_date: string | null; end_date: string | null; remarks: string;
}

/** The records of the stations with the given ids (every station when null), by id; two queries. */
export async function stationInfo(requested: number[] | null): Promise<StationInfo[]> {
  const ids = requested === null ? null : requested.filter(isDatabaseId);
  if (ids !== null && ids.length === 0) return [];
  const stationWhere = ids === null ? Prisma.empty : Prisma.sql`WHERE s.id IN (${Prisma.join(ids)})`;
  const typeWhere = ids === null ? Prisma.empty : Prisma.sql`WHERE ss.station_id IN (${Prisma.join(ids)})`;
  const [rows, types] = await Promise.all([
    db().query<InfoRow>(Prisma.sql`
      SELECT s.id, s.name, s.code, s.lon, s.lat, s.altitude, s.original_srid, s.owner_id, ${OWNER_DISPLAY_SQL} AS name_any,
        s.start_date, s.end_date, s.remarks
      FROM station s LEFT JOIN organization o ON o.id = s.owner_id LEFT JOIN person p ON p.id = s.owner_id
      ${stationWhere} ORDER BY s.id`),
    db().query<{ station_id: number; id: number; descr: string }>(Prisma.sql`
      SELECT ss.station_id, t.id, t.descr FROM station_stype ss JOIN station_type t ON t.id = ss.station_type_id
      ${typeWhere} ORDER BY ss.station_id, t.id`),
  ]);
  const typesOf = new Map<number, { id: number; descr: string }[]>();
  for (const t of types) {
    const list = typesOf.get(t.station_id);
    if (list) list.push({ id: t.id, descr: t.descr });
    else typesOf.set(t.station_id, [{ id: t.id, descr: t.descr }]);
  }
  return rows.map((r) => ({
    id: r.id,
    name: r.name,
    code: r.code,
    srid: 4326,
    point: formatPointWkt(r.lon, r.lat),
    altitude: r.altitude,
    original_srid: r.original_srid,
    owner: { id: r.owner_id, name_any: r.name_any ?? "" },
    types: typesOf.get(r.id) ?? [],
    start_date: r.start_date,
    end_date: r.end_date,
    remarks: r.remarks,
  }));
}
