import { z } from "zod";
import { parsePointGeom } from "@/lib/geo/wkt";
import { choice, date, integer, number, pkList, pk, text, type Field } from "@/lib/http/fields";
import { existing } from "@/lib/services/refs";

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
