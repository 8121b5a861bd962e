import { randomBytes } from "node:crypto";
import { rename, rm } from "node:fs/promises";
import type { Actor } from "@/lib/auth/permissions";
import { db } from "@/lib/db";
import { changedFields, changeSummary, named, recordActivity } from "@/lib/domain/activity-log";
import { findAttachment, type AttachmentKind } from "@/lib/stations/attachments";
import { ensureUnchanged, type ChangeOptions } from "@/lib/domain/concurrency";
import { valuesOf, type Given } from "@/lib/domain/given";
import { mediaDirectory, mediaPath } from "@/lib/stations/media";
import { makePrivateDirectory, writeNewPrivateFile } from "@/lib/runtime/private-files";
import { editableChild, editableStation, type StationAccess } from "@/lib/stations/stations";

/**
 * Writes of station files and images (api.md §9) by the station's editors: bytes are stored
 * under generated names in the media directory, never under a name the client chose; the name
 * the client sent is kept (sanitized) only for Content-Disposition.
 */
export interface AttachmentData {
  date?: string | null;
  descr?: string;
  remarks?: string;
  featured?: boolean;
}

/** The content of a new file or image: the name it had where it came from, and its bytes. */
export interface NewContent {
  readonly name: string;
  bytes(): Promise<Uint8Array>;
}

/** The fields given, and new content (required on create). */
export interface AttachmentValues {
  data: AttachmentData;
  content: NewContent | null;
}

/** The base name of an uploaded file: no path, no control characters. */
export function sanitizeFileName(name: string): string {
  const base = name.split(/[\\/]/).pop() ?? "";
  const clean = base.replace(/[\x00-\x1f\x7f]/g, "").trim();
  return clean === "" || clean === "." || clean === ".." ? "file" : clean.slice(0, 200);
}

function extension(name: string): string {
  const ext = /\.([A-Za-z0-9]{1,10})$/.exec(name)?.[1]?.toLowerCase();
  return ext ? `.${ext}` : "";
}

/** Adds a suffix when the station already has an attachment of that kind with the name. */
async function uniqueName(kind: AttachmentKind, stationId: number, wanted: string, exceptId?: number): Promise<string> {
  const where = { stationId, ...(exceptId ? { id: { not: exceptId } } : {}) };
  const p = db().prisma;
  const taken = new Set((kind === "files"
    ? await p.gentityFile.findMany({ where, select: { fileName: true } })
    : await p.gentityImage.findMany({ where, select: { fileName: true } })).map((r) => r.fileName));
  if (!taken.has(wanted)) return wanted;
  const dot = wanted.lastIndexOf(".");
  const [stem, ext] = dot > 0 ? [wanted.slice(0, dot), wanted.slice(dot)] : [wanted, ""];
  for (let i = 2; ; i++) if (!taken.has(`${stem}_${i}${ext}`)) return `${stem}_${i}${ext}`;
}

/** Writes the bytes atomically under a new generated name (also for replication's copies). */
export async function storeContent(file: NewContent): Promise<string> {
  // Media are private to the service's user (lib/runtime/private-files.ts): 0700 directory, 0600 files.
  makePrivateDirectory(mediaDirectory());
  const storedName = `${randomBytes(16).toString("hex")}${extension(file.name)}`;
  const temp = mediaPath(`${storedName.replace(/\..*$/, "")}-tmp`);
  try {
    await writeNewPrivateFile(temp, await file.bytes());
    await rename(temp, mediaPath(storedName));
  } catch (error) {
    // A disk that filled up mid-write leaves part of the file: give its space back.
    await rm(temp, { force: true });
    throw error;
  }
  return storedName;
}

export async function discard(storedName: string | null | undefined): Promise<void> {
  if (storedName) await rm(mediaPath(storedName), { force: true });
}

const NOUN: Record<AttachmentKind, "file" | "image"> = { files: "file", images: "image" };
const describe = (kind: AttachmentKind, row: { id: number; descr: string; fileName: string }) => `${NOUN[kind]} ${named(row.descr || row.fileName, row.id)}`;

/** A new file or image of the station; its id. */
export async function createAttachment(actor: Actor, kind: AttachmentKind, stationId: number,
  given: Given<AttachmentValues & { content: NewContent }, StationAccess>): Promise<number> {
  const station = await editableStation(actor, stationId);
  const { data, content: file } = await valuesOf(given, station);
  const fileName = await uniqueName(kind, station.id, sanitizeFileName(file.name));
  const storedName = await storeContent(file);
  try {
    const common = { stationId: station.id, fileName, storedName, date: data.date ?? null, descr: data.descr ?? "", remarks: data.remarks ?? "", lastModified: new Date() };
    return await db().write(async (tx) => {
      const row = kind === "files"
        ? await tx.gentityFile.create({ data: common })
        : await tx.gentityImage.create({ data: { ...common, featured: data.featured ?? false } });
      await recordActivity(tx, actor, { action: "create", objectType: NOUN[kind], objectId: row.id, stationId: station.id, summary: `Added ${describe(kind, row)}` });
      return row.id;
    });
  } catch (e) {
    await discard(storedName);
    throw e;
  }
}

/** Changes the fields given; new content replaces the stored bytes. */
export async function updateAttachment(actor: Actor, kind: AttachmentKind, stationId: number, id: number, given: Given<AttachmentValues, StationAccess>,
  options?: ChangeOptions): Promise<void> {
  const { station, child: before } = await editableChild(actor, stationId, (s) => findAttachment(kind, s.id, id));
  const { data, content: file } = await valuesOf(given, station);
  const content = file ? { fileName: await uniqueName(kind, station.id, sanitizeFileName(file.name), id), storedName: await storeContent(file) } : {};
  const { featured, ...common } = data;
  const changes = { ...common, ...content, lastModified: new Date() };
  try {
    await db().write(async (tx) => {
      await ensureUnchanged(tx, kind === "files" ? "gentityFile" : "gentityImage", id, options, NOUN[kind]);
      const after = kind === "files"
        ? await tx.gentityFile.update({ where: { id }, data: changes })
        : await tx.gentityImage.update({ where: { id }, data: { ...changes, ...(featured !== undefined ? { featured } : {}) } });
      const fields = [...changedFields(before, data), ...(file ? ["content"] : [])];
      await recordActivity(tx, actor, { action: "change", objectType: NOUN[kind], objectId: id, stationId: station.id, summary: changeSummary(describe(kind, after), fields) });
    });
  } catch (e) {
    await discard(content.storedName);
    throw e;
  }
  if (file) await discard(before.storedName);
}

export async function deleteAttachment(actor: Actor, kind: AttachmentKind, stationId: number, id: number): Promise<void> {
  const { station } = await editableChild(actor, stationId, (s) => findAttachment(kind, s.id, id));
  const row = await db().write(async (tx) => {
    const deleted = kind === "files" ? await tx.gentityFile.delete({ where: { id } }) : await tx.gentityImage.delete({ where: { id } });
    await recordActivity(tx, actor, { action: "delete", objectType: NOUN[kind], objectId: id, stationId: station.id, summary: `Deleted ${describe(kind, deleted)}` });
    return deleted;
  });
  await discard(row.storedName);
}
