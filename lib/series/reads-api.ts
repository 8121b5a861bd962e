import type { RouteContext } from "@/lib/routing/router";
import { json } from "@/lib/http/respond";
import { listResponse } from "@/lib/http/handlers";
import { orNotFound } from "@/lib/domain/errors";
import { countGroups, findGroup, groupJson, groupsPage } from "@/lib/series/groups";
import { existingStation } from "@/lib/stations";
import { countSeries, countStationSeries, olderShapeJson, seriesAt, seriesJson, seriesPage, stationSeriesPage, type SeriesWithGroup } from "@/lib/series/timeseries";

/** Reads of a station's time series groups and time series (api.md §5–§7). */

export async function listGroups(ctx: RouteContext): Promise<Response> {
  const station = await existingStation(ctx.params.sid);
  return listResponse(ctx, await countGroups(station.id), async (o, l) => (await groupsPage(station.id, o, l)).map(groupJson));
}

async function pathGroup(ctx: RouteContext) {
  return orNotFound(await findGroup(ctx.params.sid, ctx.params.gid));
}

export async function getGroup(ctx: RouteContext): Promise<Response> {
  return json(groupJson(await pathGroup(ctx)));
}

export async function listSeries(ctx: RouteContext): Promise<Response> {
  const group = await pathGroup(ctx);
  return listResponse(ctx, await countSeries(group.id), async (o, l) => (await seriesPage(group.id, o, l)).map(seriesJson));
}

/** The series of a full path (…/timeseriesgroups/{gid}/timeseries/{tid}/) or a short one (…/timeseries/{tid}/). */
function pathSeries(ctx: RouteContext): Promise<SeriesWithGroup> {
  const { sid, gid, tid } = ctx.params;
  return seriesAt({ seriesId: tid, stationId: sid, groupId: gid });
}

export async function getSeries(ctx: RouteContext): Promise<Response> {
  return json(seriesJson(await pathSeries(ctx)));
}

/** GET stations/{sid}/timeseries/ (older shape, api.md §7.1). */
export async function listOlderShape(ctx: RouteContext): Promise<Response> {
  const station = await existingStation(ctx.params.sid);
  return listResponse(ctx, await countStationSeries(station.id),
    async (o, l) => (await stationSeriesPage(station.id, o, l)).map((t) => olderShapeJson(t)));
}

export async function getOlderShape(ctx: RouteContext): Promise<Response> {
  return json(olderShapeJson(await pathSeries(ctx)));
}
