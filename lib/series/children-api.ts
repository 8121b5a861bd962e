import type { RouteContext } from "@/lib/routing/router";
import { json } from "@/lib/http/respond";
import { requestOrigin } from "@/lib/http/urls";
import { listResponse } from "@/lib/http/handlers";
import { attachmentResponse } from "@/lib/stations/media-response";
import { orNotFound } from "@/lib/domain/errors";
import { countGroups, findGroup, groupJson, groupsPage } from "@/lib/series/groups";
import { existingStation } from "@/lib/stations/stations";
import { countSeries, countStationSeries, olderShapeJson, seriesAt, seriesJson, seriesPage, stationSeriesPage, type SeriesWithGroup } from "@/lib/series/timeseries";
import { attachmentJson, attachmentsPage, countAttachments, findAttachment, type AttachmentKind } from "@/lib/stations/attachments";
import { countEvents, eventJson, eventsPage, findEvent } from "@/lib/stations/events";
import { attachmentContent } from "@/lib/stations/media";

/** Reads of what belongs to a station: groups, time series, files, images, events. */

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

export function attachmentReaders(kind: AttachmentKind) {
  const one = async (ctx: RouteContext) => orNotFound(await findAttachment(kind, ctx.params.sid, ctx.params.id));
  return {
    list: async (ctx: RouteContext) => {
      const station = await existingStation(ctx.params.sid);
      const origin = requestOrigin(ctx.request);
      return listResponse(ctx, await countAttachments(kind, station.id),
        async (o, l) => (await attachmentsPage(kind, station.id, o, l)).map((row) => attachmentJson(kind, row, origin)));
    },
    detail: async (ctx: RouteContext) => json(attachmentJson(kind, await one(ctx), requestOrigin(ctx.request))),
    content: async (ctx: RouteContext) => attachmentResponse(await attachmentContent(await one(ctx))),
  };
}

export async function listEvents(ctx: RouteContext): Promise<Response> {
  const station = await existingStation(ctx.params.sid);
  return listResponse(ctx, await countEvents(station.id), async (o, l) => (await eventsPage(station.id, o, l)).map(eventJson));
}

export async function getEvent(ctx: RouteContext): Promise<Response> {
  return json(eventJson(orNotFound(await findEvent(ctx.params.sid, ctx.params.id))));
}
