import { boolean, date, file, pk, text, validatedFields } from "@/lib/http/fields";
import { json, noContent } from "@/lib/http/respond";
import type { RouteContext } from "@/lib/http/router";
import { requestOrigin } from "@/lib/http/urls";
import { sent, writeMode } from "@/lib/api/common";
import { parentCheck, parentField } from "@/lib/api/series-fields";
import { attachmentJson, findAttachment, type AttachmentKind } from "@/lib/services/attachments";
import { createAttachment, deleteAttachment, updateAttachment, type AttachmentValues, type NewContent } from "@/lib/services/attachment-writes";
import { createEvent, deleteEvent, eventJson, updateEvent, type EventData } from "@/lib/services/events";
import { existing } from "@/lib/services/refs";

/** Writes of files, images (api.md §9) and events (§10) for the station's editors. */

const IMAGE = /\.(jpe?g|png|gif|webp)$/i;
const GENTITY_EQUAL = "Must equal the station id in the URL.";
const gentityCheck = (thing: "a file" | "an image" | "a event") =>
  parentCheck("gentity", GENTITY_EQUAL, `It is not allowed to change the gentity of ${thing}.`);

export function attachmentFields(kind: AttachmentKind, create: boolean) {
  return {
    date: date(),
    content: file({
      required: create,
      validate: (f) => (kind === "images" && !IMAGE.test(f.name) ? "Upload a valid image (JPEG, PNG, GIF or WebP)." : null),
    }),
    descr: kind === "files" ? text({ max: 100, required: true, blank: false }) : text({ max: 100 }),
    remarks: text(),
    ...(kind === "images" ? { featured: boolean({ default: false }) } : {}),
    gentity: parentField(),
  };
}

export function attachmentWriters(kind: AttachmentKind) {
  const gentity = gentityCheck(kind === "files" ? "a file" : "an image");
  const read = async (ctx: RouteContext, stationId: number): Promise<AttachmentValues> => {
    const mode = writeMode(ctx);
    const v = await validatedFields(await ctx.input(), attachmentFields(kind, mode === "create"), mode,
      (v, errors) => gentity(errors, v.gentity, stationId, mode));
    const { content, gentity: _g, ...data } = v as typeof v & { featured?: boolean };
    return { data: sent(data), content: content ?? null };
  };
  const respond = async (ctx: RouteContext, id: number, status = 200) =>
    json(attachmentJson(kind, (await findAttachment(kind, ctx.params.sid, id))!, requestOrigin(ctx.request)), status);
  return {
    create: async (ctx: RouteContext) => {
      const id = await createAttachment(ctx.auth.user, kind, ctx.params.sid,
        async (station) => (await read(ctx, station.id)) as AttachmentValues & { content: NewContent });
      return respond(ctx, id, 201);
    },
    update: async (ctx: RouteContext) => {
      await updateAttachment(ctx.auth.user, kind, ctx.params.sid, ctx.params.id, (station) => read(ctx, station.id));
      return respond(ctx, ctx.params.id);
    },
    remove: async (ctx: RouteContext) => {
      await deleteAttachment(ctx.auth.user, kind, ctx.params.sid, ctx.params.id);
      return noContent();
    },
  };
}

export const eventFields = () => ({
  date: date({ required: true, nullable: false }),
  user: text({ max: 64 }),
  report: text(),
  gentity: parentField(),
  type: pk(existing("eventType"), { required: true }),
});

// "a event": the message as first published; clients may match it.
const eventGentity = gentityCheck("a event");

async function readEvent(ctx: RouteContext, stationId: number): Promise<EventData> {
  const mode = writeMode(ctx);
  const v = await validatedFields(await ctx.input(), eventFields(), mode, (v, errors) => eventGentity(errors, v.gentity, stationId, mode));
  return sent({ date: v.date ?? undefined, user: v.user, report: v.report, typeId: v.type ?? undefined });
}

export async function createEventHandler(ctx: RouteContext): Promise<Response> {
  const row = await createEvent(ctx.auth.user, ctx.params.sid, async (station) => (await readEvent(ctx, station.id)) as EventData & { date: string; typeId: number });
  return json(eventJson(row), 201);
}

export async function updateEventHandler(ctx: RouteContext): Promise<Response> {
  return json(eventJson(await updateEvent(ctx.auth.user, ctx.params.sid, ctx.params.id, (station) => readEvent(ctx, station.id))));
}

export async function deleteEventHandler(ctx: RouteContext): Promise<Response> {
  await deleteEvent(ctx.auth.user, ctx.params.sid, ctx.params.id);
  return noContent();
}
