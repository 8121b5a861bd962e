import { pageRequest, paginate, resolvePage } from "@/lib/http/pagination";
import { json, noContent, text } from "@/lib/http/respond";
import type { RouteContext } from "@/lib/routing/router";
import { writeMode } from "@/lib/http/handlers";
import { readStationInput } from "@/lib/stations/fields";
import { readStationQuery } from "@/lib/stations/params";
import { orNotFound } from "@/lib/domain/errors";
import { stationExportZip } from "@/lib/stations/export";
import { stationGeoJson, stationSearch } from "@/lib/stations/query";
import { countAndExtent } from "@/lib/stations/list";
import { createStation, deleteStation, updateStation, type StationData } from "@/lib/stations/writes";
import { stationJsonById } from "@/lib/stations/stations";

/** GET stations/ (api.md §4.3–4.6): a page of stations plus the bounding box of every match. */
export async function listStations(ctx: RouteContext): Promise<Response> {
  const query = readStationQuery(ctx.url.searchParams);
  const request = pageRequest(ctx.url);
  // The page, the count and the extent come from one query; only `page=last` counts first.
  const number = request.page === "last" ? resolvePage((await countAndExtent(query.filter)).count, request).number : request.page;
  const result = await stationSearch(query, { offset: (number - 1) * request.pageSize, limit: request.pageSize });
  const page = await paginate(ctx.request, ctx.url, result.count, async () => result.stations);
  return json({ ...page, bounding_box: result.boundingBox });
}

/** GET stations/{sid}/ */
export async function getStation(ctx: RouteContext): Promise<Response> {
  return json(orNotFound(await stationJsonById(ctx.params.sid)));
}

/** GET stations/geojson/ (api.md §4.8) */
export async function stationsGeoJson(ctx: RouteContext): Promise<Response> {
  const body = await stationGeoJson(readStationQuery(ctx.url.searchParams));
  return text(body, "application/geo+json");
}

/** GET stations/csv/ (api.md §4.7): a zip streamed as it is written. */
export async function stationsCsv(ctx: RouteContext): Promise<Response> {
  const query = readStationQuery(ctx.url.searchParams);
  return new Response(stationExportZip(query), {
    headers: { "Content-Type": "application/zip", "Content-Disposition": 'attachment; filename="data.zip"' },
  });
}

/** The station fields of the body (after the service's permission check). */
async function readStation(ctx: RouteContext): Promise<Partial<StationData>> {
  return readStationInput(await ctx.input(), writeMode(ctx));
}

/** POST stations/: the creator is recorded (api.md §4.3). */
export async function createStationHandler(ctx: RouteContext): Promise<Response> {
  const id = await createStation(ctx.auth.user, async () => (await readStation(ctx)) as StationData);
  return json(await stationJsonById(id), 201);
}

/** PUT / PATCH stations/{sid}/ */
export async function updateStationHandler(ctx: RouteContext): Promise<Response> {
  await updateStation(ctx.auth.user, ctx.params.sid, () => readStation(ctx));
  return json(await stationJsonById(ctx.params.sid));
}

/** DELETE stations/{sid}/: everything under the station goes with it. */
export async function deleteStationHandler(ctx: RouteContext): Promise<Response> {
  await deleteStation(ctx.auth.user, ctx.params.sid);
  return noContent();
}
