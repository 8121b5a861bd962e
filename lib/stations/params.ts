import { MSG } from "@/lib/http/fields";
import { ValidationFailed } from "@/lib/domain/errors";
import { stationQuery, type StationQuery } from "@/lib/stations/query";
import { DEFAULT_SORT, SORT_FIELDS, type SortField, type SortKey } from "@/lib/stations/list";

/** The station list's query parameters (api.md §4.4–§4.6), for the list, the CSV export and the GeoJSON feed. */

/** `sort` values: a field name, `-` for descending; unknown and repeated fields are ignored. */
function parseSort(values: string[]): SortKey[] {
  const keys: SortKey[] = [];
  for (const raw of values) {
    const value = raw.trim();
    const descending = value.startsWith("-");
    const field = (descending ? value.slice(1) : value) as SortField;
    if (!(SORT_FIELDS as readonly string[]).includes(field) || keys.some((k) => k.field === field)) continue;
    keys.push({ field, descending });
  }
  return keys.length ? keys : DEFAULT_SORT;
}

/** `gentity_id`: null when absent, empty or 0 (every station). */
function gentityId(params: URLSearchParams): number | null {
  const gentity = params.get("gentity_id")?.trim() ?? "";
  if (gentity === "" || gentity === "0") return null;
  if (!/^\+?\d{1,15}$/.test(gentity)) throw ValidationFailed.field("gentity_id", MSG.integer);
  return Number(gentity);
}

/** Reads the list parameters; malformed values are a ValidationFailed naming the parameter. */
export function readStationQuery(params: URLSearchParams): StationQuery {
  const sort = parseSort(params.getAll("sort"));
  return stationQuery({ gentityId: gentityId(params), q: params.get("q") ?? "", bbox: params.get("bbox"), sort });
}
