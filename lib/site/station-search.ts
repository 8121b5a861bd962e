import { db, Prisma } from "@/lib/db";
import { ApiError } from "@/lib/http/errors";
import { OWNER_DISPLAY_SQL } from "@/lib/services/stations";
import { parseStationQuery, stationSearch } from "@/lib/services/station-query";
import type { Bbox } from "@/lib/services/station-list";
import { toNumber } from "@/lib/services/serialize";

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

async function ownerNames(stationIds: number[]): Promise<Map<number, string>> {
  if (stationIds.length === 0) return new Map();
  const rows = await db().prisma.$queryRaw<{ id: unknown; owner_name: string | null }[]>`
    SELECT s.id AS id, ${OWNER_DISPLAY_SQL} AS owner_name
    FROM station s LEFT JOIN organization o ON o.id = s.owner_id LEFT JOIN person p ON p.id = s.owner_id
    WHERE s.id IN (${Prisma.join(stationIds)})`;
  return new Map(rows.map((r) => [toNumber(r.id)!, r.owner_name ?? ""]));
}

/** The messages of a 400 from the query parser, as one text. */
function messageOf(error: ApiError): string {
  const body = error.body as Record<string, unknown>;
  return Object.values(body).flat().map(String).join(" ");
}

/**
 * The search of the home page (api.md §4.5, §4.6) with the same service as the API's list and
 * GeoJSON feed: the number of matches, their bounding box and one page of them in the list's
 * order. A malformed `q` or `bbox` gives the API's message instead.
 */
export async function siteSearch(q: string, bbox: string, offset: number, limit: number): Promise<SiteSearchResult> {
  let query;
  try {
    query = parseStationQuery(searchParamsOf(q, bbox));
  } catch (e) {
    if (e instanceof ApiError && e.status === 400) return { ok: false, message: messageOf(e) };
    throw e;
  }
  const result = await stationSearch(query, { offset, limit });
  const owners = await ownerNames(result.stations.map((s) => s.id));
  return {
    ok: true,
    count: result.count,
    boundingBox: result.boundingBox,
    stations: result.stations.map((s) => ({
      id: s.id, name: s.name, code: s.code, ownerName: owners.get(s.id) ?? "", lastUpdate: s.last_update,
    })),
  };
}
