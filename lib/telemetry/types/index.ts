/** The telemetry types (telemetry.md §2), by id. */
import type { TelemetryType } from "@/lib/telemetry/driver";
import { addupi } from "@/lib/telemetry/types/addupi";
import { enhydris } from "@/lib/telemetry/types/enhydris";
import { httpCsv } from "@/lib/telemetry/types/http_csv";
import { influxdb } from "@/lib/telemetry/types/influxdb";
import { insigh } from "@/lib/telemetry/types/insigh";
import { meteoview2 } from "@/lib/telemetry/types/meteoview2";

/** Every type, sorted by name (the reference's choices are). */
export const TELEMETRY_TYPES: readonly TelemetryType[] = [addupi, meteoview2, influxdb, insigh, enhydris, httpCsv]
  .sort((a, b) => a.name.localeCompare(b.name, "en"));

const BY_ID = new Map(TELEMETRY_TYPES.map((t) => [t.id, t]));

/** The type of an id, or null. */
export function telemetryType(id: string): TelemetryType | null {
  return BY_ID.get(id) ?? null;
}
