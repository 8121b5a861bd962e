import { ValidationFailed } from "@/lib/domain/errors";
import { stationOwnerNames } from "@/lib/frontend/page-data";
import { stationQuery, stationSearch } from "@/lib/stations";
import type { Bbox } from "@/lib/stations";

/** One row of the home page's result list. */
export interface SiteStation {
  id: number;
  name: string;
  code: string;
  ownerName: string;
  lastUpdate: string | null;
}

export type SiteSearchResult =
  | { ok: true; count: number; boundingBox: Bbox; stations: SiteStation[] }
  | { ok: false; message: string };

/** The query string the map's GeoJSON request and the result list share. */
export function searchParamsOf(q: string, bbox: string): URLSearchParams {
  const params = new URLSearchParams();
  if (q) params.set("q", q);
  if (bbox) params.set("bbox", bbox);
  return params;
}

/** The messages of a malformed `q` or `bbox`, as one text. */
function messageOf(error: ValidationFailed): string {
  return Object.values(error.fields).flat().join(" ");
}

/**
 * The search of the home page (api.md §4.5, §4.6) with the same service as the API's list and
 * GeoJSON feed: the number of matches, their bounding box and one page of them in the list's
 * order. A malformed `q` or `bbox` gives the API's message instead.
 */
export async function siteSearch(q: string, bbox: string, offset: number, limit: number): Promise<SiteSearchResult> {
  let query;
  try {
    query = stationQuery({ q, bbox });
  } catch (e) {
    if (e instanceof ValidationFailed) return { ok: false, message: messageOf(e) };
    throw e;
  }
  const result = await stationSearch(query, { offset, limit });
  const owners = await stationOwnerNames(result.stations.map((s) => s.id));
  return {
    ok: true,
    count: result.count,
    boundingBox: result.boundingBox,
    stations: result.stations.map((s) => ({
      id: s.id, name: s.name, code: s.code, ownerName: owners.get(s.id) ?? "", lastUpdate: s.last_update,
    })),
  };
}
