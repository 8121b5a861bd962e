import { requireEditor } from "@/lib/auth/permissions";
import { db } from "@/lib/db";
import { ErrorCollector } from "@/lib/http/errors";
import { boolean, date, file, pk, text, validateFields, type WriteMode } from "@/lib/http/fields";
import { json, noContent } from "@/lib/http/respond";
import type { RouteContext } from "@/lib/http/router";
import { requestOrigin } from "@/lib/http/urls";
import { orNotFound, pathStation } from "@/lib/api/common";
import { parentField } from "@/lib/api/series-fields";
import { attachmentJson, findAttachment, type AttachmentKind } from "@/lib/services/attachments";
import { createAttachment, deleteAttachment, updateAttachment } from "@/lib/services/attachment-writes";
import { eventJson, findEvent } from "@/lib/services/events";
import { existing } from "@/lib/services/refs";

/** Writes of files, images (api.md §9) and events (§10) for the station's editors. */

const IMAGE = /\.(jpe?g|png|gif|webp)$/i;
const GENTITY_EQUAL = "Must equal the station id in the URL.";

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

const mode = (ctx: RouteContext, create: boolean): WriteMode => (create ? "create" : ctx.method === "PUT" ? "replace" : "update");

type Thing = "file" | "image" | "event";

function checkGentity(errors: ErrorCollector, sent: number | undefined, stationId: number, create: boolean, thing: Thing): void {
  if (sent !== undefined && sent !== stationId) {
    errors.add("gentity", create ? GENTITY_EQUAL : `It is not allowed to change the gentity of ${thing === "image" ? "an" : "a"} ${thing}.`);
  }
}

export function attachmentWriters(kind: AttachmentKind) {
  const read = async (ctx: RouteContext, stationId: number, create: boolean) => {
    const errors = new ErrorCollector();
    const v = await validateFields(await ctx.input(), attachmentFields(kind, create), mode(ctx, create), errors);
    checkGentity(errors, v.gentity, stationId, create, kind === "files" ? "file" : "image");
    errors.throwIfAny();
    const { content, gentity: _g, ...data } = v as typeof v & { featured?: boolean };
    return { data: Object.fromEntries(Object.entries(data).filter(([, x]) => x !== undefined)), content: content ?? null };
  };
  const respond = async (ctx: RouteContext, stationId: number, id: number, status = 200) =>
    json(attachmentJson(kind, (await findAttachment(kind, stationId, id))!, requestOrigin(ctx.request)), status);
  return {
    create: async (ctx: RouteContext) => {
      const station = await pathStation(ctx);
      requireEditor(ctx, station);
      const { data, content } = await read(ctx, station.id, true);
      return respond(ctx, station.id, await createAttachment(kind, station.id, data, content!), 201);
    },
    update: async (ctx: RouteContext) => {
      const station = await pathStation(ctx);
      const row = orNotFound(await findAttachment(kind, station.id, ctx.params.id));
      requireEditor(ctx, station);
      const { data, content } = await read(ctx, station.id, false);
      await updateAttachment(kind, station.id, row.id, data, content);
      return respond(ctx, station.id, row.id);
    },
    remove: async (ctx: RouteContext) => {
      const station = await pathStation(ctx);
      const row = orNotFound(await findAttachment(kind, station.id, ctx.params.id));
      requireEditor(ctx, station);
      await deleteAttachment(kind, row.id);
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

async function readEvent(ctx: RouteContext, stationId: number, create: boolean) {
  const errors = new ErrorCollector();
  const v = await validateFields(await ctx.input(), eventFields(), mode(ctx, create), errors);
  checkGentity(errors, v.gentity, stationId, create, "event");
  errors.throwIfAny();
  return Object.fromEntries(Object.entries({ date: v.date ?? undefined, user: v.user, report: v.report, typeId: v.type ?? undefined })
    .filter(([, x]) => x !== undefined)) as { date?: string; user?: string; report?: string; typeId?: number };
}

export async function createEvent(ctx: RouteContext): Promise<Response> {
  const station = await pathStation(ctx);
  requireEditor(ctx, station);
  const data = await readEvent(ctx, station.id, true);
  const row = await db().write((tx) => tx.event.create({
    data: { stationId: station.id, date: data.date!, user: data.user ?? "", report: data.report ?? "", typeId: data.typeId!, lastModified: new Date() },
  }));
  return json(eventJson(row), 201);
}

export async function updateEvent(ctx: RouteContext): Promise<Response> {
  const station = await pathStation(ctx);
  const event = orNotFound(await findEvent(station.id, ctx.params.id));
  requireEditor(ctx, station);
  const data = await readEvent(ctx, station.id, false);
  const row = await db().write((tx) => tx.event.update({ where: { id: event.id }, data: { ...data, lastModified: new Date() } }));
  return json(eventJson(row));
}

export async function deleteEvent(ctx: RouteContext): Promise<Response> {
  const station = await pathStation(ctx);
  const event = orNotFound(await findEvent(station.id, ctx.params.id));
  requireEditor(ctx, station);
  await db().write((tx) => tx.event.delete({ where: { id: event.id } }));
  return noContent();
}
