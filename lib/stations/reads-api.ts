import type { RouteContext } from "@/lib/routing/router";
import { json } from "@/lib/http/respond";
import { requestOrigin } from "@/lib/http/urls";
import { listResponse } from "@/lib/http/handlers";
import { orNotFound } from "@/lib/domain/errors";
import { attachmentResponse } from "@/lib/stations/media-response";
import { existingStation } from "@/lib/stations/stations";
import { attachmentJson, attachmentsPage, countAttachments, findAttachment, type AttachmentKind } from "@/lib/stations/attachments";
import { countEvents, eventJson, eventsPage, findEvent } from "@/lib/stations/events";
import { attachmentContent } from "@/lib/stations/media";

/** Reads of a station's files, images (api.md §9) and events (§10). */

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
