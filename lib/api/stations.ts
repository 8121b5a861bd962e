import type { RouteContext } from "@/lib/http/router";
import { json } from "@/lib/http/respond";
import { listResponse, orNotFound } from "@/lib/api/common";
import { stationJsonById, stationsJson } from "@/lib/services/stations";
import { ALL_STATIONS, boundingBox, countAndExtent, DEFAULT_SORT, orderedStationIds } from "@/lib/services/station-list";

/** GET stations/ (api.md §4.3–4.6): a page of stations plus the bounding box of every match. */
export async function listStations(ctx: RouteContext): Promise<Response> {
  const filter = ALL_STATIONS;
  const sort = DEFAULT_SORT;
  const { count, extent } = await countAndExtent(filter);
  return listResponse(ctx, count, async (offset, limit) => stationsJson(await orderedStationIds(filter, sort, offset, limit)),
    { bounding_box: boundingBox(extent) });
}

/** GET stations/{sid}/ */
export async function getStation(ctx: RouteContext): Promise<Response> {
  return json(orNotFound(await stationJsonById(ctx.params.sid)));
}
