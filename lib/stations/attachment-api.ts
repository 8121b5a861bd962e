import type { RequestInput } from "@/lib/http/body";
import { boolean, date, file, pk, text, validatedFields, type WriteMode } from "@/lib/http/fields";
import { json, noContent } from "@/lib/http/respond";
import type { RouteContext } from "@/lib/routing/router";
import { requestOrigin } from "@/lib/http/urls";
import { sent, writeMode } from "@/lib/http/handlers";
import { parentCheck, parentField } from "@/lib/http/fields";
import { attachmentJson, findAttachment, type AttachmentKind } from "@/lib/stations/attachments";
import { createAttachment, deleteAttachment, updateAttachment, type AttachmentValues, type NewContent } from "@/lib/stations/attachment-writes";
import { createEvent, deleteEvent, eventJson, updateEvent, type EventData } from "@/lib/stations/events";
import { existing } from "@/lib/domain/refs";

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

/** The fields of a file or image in a body or a site form, for an object of station `stationId`. */
export async function readAttachmentInput(kind: AttachmentKind, input: RequestInput, mode: WriteMode, stationId: number): Promise<AttachmentValues> {
  const gentity = gentityCheck(kind === "files" ? "a file" : "an image");
  const v = await validatedFields(input, attachmentFields(kind, mode === "create"), mode, (v, errors) => gentity(errors, v.gentity, stationId, mode));
  const { content, gentity: _g, ...data } = v as typeof v & { featured?: boolean };
  return { data: sent(data), content: content ?? null };
}

export function attachmentWriters(kind: AttachmentKind) {
  const read = async (ctx: RouteContext, stationId: number): Promise<AttachmentValues> => readAttachmentInput(kind, await ctx.input(), writeMode(ctx), stationId);
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

/** The fields of an event in a body or a site form, for an event of station `stationId`. */
export async function readEventInput(input: RequestInput, mode: WriteMode, stationId: number): Promise<EventData> {
  const v = await validatedFields(input, eventFields(), mode, (v, errors) => eventGentity(errors, v.gentity, stationId, mode));
  return sent({ date: v.date ?? undefined, user: v.user, report: v.report, typeId: v.type ?? undefined });
}

async function readEvent(ctx: RouteContext, stationId: number): Promise<EventData> {
  return readEventInput(await ctx.input(), writeMode(ctx), stationId);
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
