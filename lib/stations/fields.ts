import { z } from "zod";
import { parsePointGeom } from "@/lib/geo/wkt";
import type { RequestInput } from "@/lib/http/body";
import { choice, date, integer, number, pkList, pk, text, validatedFields, type Field, type Values, type WriteMode } from "@/lib/http/fields";
import { sent } from "@/lib/http/handlers";
import { existing } from "@/lib/domain/refs";
import type { StationData } from "@/lib/stations/writes";

/** The writable fields of a station (api.md §4.1, §4.2). */
export const DISPLAY_TIMEZONES = [
  "UTC", "Etc/GMT",
  ...Array.from({ length: 12 }, (_, i) => `Etc/GMT+${i + 1}`),
  ...Array.from({ length: 14 }, (_, i) => `Etc/GMT-${i + 1}`),
] as const;

export interface PointInput {
  lon: number;
  lat: number;
  srid: number;
}

/** `geom`: WKT or EWKT point, transformed to WGS84 (api.md §4.2). */
export function geomField(): Field<PointInput> {
  return {
    required: true,
    parse(raw) {
      if (raw === null) return { ok: false, errors: ["This field may not be null."] };
      const point = parsePointGeom(typeof raw === "string" ? raw : JSON.stringify(raw));
      return point.ok ? { ok: true, value: { lon: point.lon, lat: point.lat, srid: point.srid } } : { ok: false, errors: [point.message] };
    },
    schema: z.string().meta({ description: "WKT or EWKT point, e.g. POINT (21.06071 39.09518) or SRID=2100;POINT (250000 4300000)", example: "POINT (21.06071 39.09518)" }),
  };
}

export const stationFields = () => ({
  name: text({ max: 200 }),
  code: text({ max: 50 }),
  remarks: text(),
  original_srid: integer({ nullable: true, default: null }),
  altitude: number({ nullable: true, default: null }),
  geom: geomField(),
  display_timezone: choice(DISPLAY_TIMEZONES, { default: "Etc/GMT" }),
  start_date: date(),
  end_date: date(),
  owner: pk(existing("lentity"), { required: true }),
  overseer: text({ max: 30 }),
  maintainers: pkList(existing("user")),
  stype: pkList(existing("stationType")),
  data_viewers: pkList(existing("user")),
});

export type StationFields = ReturnType<typeof stationFields>;

/** Body fields → station data; `original_srid` follows `geom` unless sent (api.md §4.2). */
function stationData(v: Values<StationFields>, hasOriginalSrid: boolean): Partial<StationData> {
  const data: Partial<StationData> = {
    name: v.name, code: v.code, remarks: v.remarks, altitude: v.altitude, displayTimezone: v.display_timezone,
    startDate: v.start_date, endDate: v.end_date, ownerId: v.owner ?? undefined, overseer: v.overseer,
    maintainers: v.maintainers, stype: v.stype, dataViewers: v.data_viewers,
  };
  if (v.geom) {
    data.lon = v.geom.lon;
    data.lat = v.geom.lat;
    if (!hasOriginalSrid) data.originalSrid = v.geom.srid;
  }
  if (hasOriginalSrid) data.originalSrid = v.original_srid;
  return sent(data);
}

/** The station fields of a body or a site form (create: every value; replace and update: those sent). */
export async function readStationInput(input: RequestInput, mode: WriteMode): Promise<Partial<StationData>> {
  return stationData(await validatedFields(input, stationFields(), mode), input.has("original_srid"));
}
