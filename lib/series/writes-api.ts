import { validatedFields } from "@/lib/http/fields";
import { json, noContent } from "@/lib/http/respond";
import type { RouteContext } from "@/lib/routing/router";
import { writeMode } from "@/lib/http/handlers";
import { GENTITY, groupData, olderShapeFields, readGroupInput, readSeriesInput } from "@/lib/series/fields";
import { findGroup, groupJson } from "@/lib/series/groups";
import type { SeriesPath } from "@/lib/series/context";
import {
  createGroup, createOlderShape, createSeries, deleteGroup, deleteOlderShape, deleteSeries, updateGroup, updateOlderShape, updateSeries,
  type GroupData, type OlderShapeData, type SeriesData,
} from "@/lib/series/writes";
import { olderShapeJson, seriesAt, seriesJson } from "@/lib/series/timeseries";

/** Writes of groups (api.md §5), time series (§6) and the older shape (§7.1). */

async function readGroup(ctx: RouteContext, stationId: number): Promise<Partial<GroupData>> {
  return readGroupInput(await ctx.input(), writeMode(ctx), stationId);
}

async function readSeries(ctx: RouteContext, groupId: number): Promise<Partial<SeriesData>> {
  return readSeriesInput(await ctx.input(), writeMode(ctx), groupId);
}

/** The older shape's body: group fields (gentity fixed to the path) and the series' time step. */
async function readOlderShape(ctx: RouteContext, stationId: number): Promise<OlderShapeData> {
  const mode = writeMode(ctx);
  const v = await validatedFields(await ctx.input(), olderShapeFields(), mode, (v, errors) => GENTITY(errors, v.gentity, stationId, mode));
  return { group: groupData(v), timeStep: v.time_step };
}

function seriesPath(ctx: RouteContext): SeriesPath {
  return { seriesId: ctx.params.tid, stationId: ctx.params.sid, groupId: ctx.params.gid };
}

export async function createGroupHandler(ctx: RouteContext): Promise<Response> {
  const { sid } = ctx.params;
  const id = await createGroup(ctx.auth.user, sid, async (station) => (await readGroup(ctx, station.id)) as GroupData);
  return json(groupJson((await findGroup(sid, id))!), 201);
}

export async function updateGroupHandler(ctx: RouteContext): Promise<Response> {
  const { sid, gid } = ctx.params;
  await updateGroup(ctx.auth.user, sid, gid, (station) => readGroup(ctx, station.id));
  return json(groupJson((await findGroup(sid, gid))!));
}

export async function deleteGroupHandler(ctx: RouteContext): Promise<Response> {
  await deleteGroup(ctx.auth.user, ctx.params.sid, ctx.params.gid);
  return noContent();
}

export async function createSeriesHandler(ctx: RouteContext): Promise<Response> {
  const { sid, gid } = ctx.params;
  const id = await createSeries(ctx.auth.user, sid, gid, async (group) => (await readSeries(ctx, group.id)) as SeriesData);
  return json(seriesJson(await seriesAt({ seriesId: id, stationId: sid })), 201);
}

export async function updateSeriesHandler(ctx: RouteContext): Promise<Response> {
  const path = seriesPath(ctx);
  await updateSeries(ctx.auth.user, path, (series) => readSeries(ctx, series.groupId));
  return json(seriesJson(await seriesAt(path)));
}

export async function deleteSeriesHandler(ctx: RouteContext): Promise<Response> {
  await deleteSeries(ctx.auth.user, seriesPath(ctx));
  return noContent();
}

/** POST stations/{sid}/timeseries/: a group and, in it, an Initial time series. */
export async function createOlderShapeHandler(ctx: RouteContext): Promise<Response> {
  const { sid } = ctx.params;
  const id = await createOlderShape(ctx.auth.user, sid, (station) => readOlderShape(ctx, station.id));
  return json(olderShapeJson(await seriesAt({ seriesId: id, stationId: sid })), 201);
}

export async function updateOlderShapeHandler(ctx: RouteContext): Promise<Response> {
  const path = seriesPath(ctx);
  await updateOlderShape(ctx.auth.user, path, (series) => readOlderShape(ctx, series.group.stationId));
  return json(olderShapeJson(await seriesAt(path)));
}

/** DELETE of the older shape: the series, and its group when it was the last one (api.md §7.1). */
export async function deleteOlderShapeHandler(ctx: RouteContext): Promise<Response> {
  await deleteOlderShape(ctx.auth.user, seriesPath(ctx));
  return noContent();
}
