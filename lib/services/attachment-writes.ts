import { randomBytes } from "node:crypto";
import { mkdir, rename, rm, writeFile } from "node:fs/promises";
import { db } from "@/lib/db";
import type { UploadedFile } from "@/lib/http/body";
import type { AttachmentKind } from "@/lib/services/attachments";
import { mediaDirectory, mediaPath } from "@/lib/services/media";

/**
 * Writes of station files and images (api.md §9): bytes are stored under generated names in
 * the media directory, never under a name the client chose; the name the client sent is kept
 * (sanitized) only for Content-Disposition.
 */
export interface AttachmentData {
  date?: string | null;
  descr?: string;
  remarks?: string;
  featured?: boolean;
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

/** Writes the bytes atomically under a new generated name. */
async function store(file: UploadedFile): Promise<string> {
  await mkdir(mediaDirectory(), { recursive: true });
  const storedName = `${randomBytes(16).toString("hex")}${extension(file.name)}`;
  const temp = mediaPath(`${storedName.replace(/\..*$/, "")}-tmp`);
  await writeFile(temp, await file.bytes());
  await rename(temp, mediaPath(storedName));
  return storedName;
}

async function discard(storedName: string | null | undefined): Promise<void> {
  if (storedName) await rm(mediaPath(storedName), { force: true });
}

export async function createAttachment(kind: AttachmentKind, stationId: number, data: AttachmentData, file: UploadedFile): Promise<number> {
  const fileName = await uniqueName(kind, stationId, sanitizeFileName(file.name));
  const storedName = await store(file);
  try {
    const common = { stationId, fileName, storedName, date: data.date ?? null, descr: data.descr ?? "", remarks: data.remarks ?? "", lastModified: new Date() };
    return await db().write(async (tx) => (kind === "files"
      ? await tx.gentityFile.create({ data: common })
      : await tx.gentityImage.create({ data: { ...common, featured: data.featured ?? false } })).id);
  } catch (e) {
    await discard(storedName);
    throw e;
  }
}

export async function updateAttachment(kind: AttachmentKind, stationId: number, id: number, data: AttachmentData, file: UploadedFile | null): Promise<void> {
  const p = db().prisma;
  const before = kind === "files" ? await p.gentityFile.findUnique({ where: { id } }) : await p.gentityImage.findUnique({ where: { id } });
  const content = file ? { fileName: await uniqueName(kind, stationId, sanitizeFileName(file.name), id), storedName: await store(file) } : {};
  const { featured, ...common } = data;
  const changes = { ...common, ...content, lastModified: new Date() };
  try {
    await db().write(async (tx) => {
      if (kind === "files") await tx.gentityFile.update({ where: { id }, data: changes });
      else await tx.gentityImage.update({ where: { id }, data: { ...changes, ...(featured !== undefined ? { featured } : {}) } });
    });
  } catch (e) {
    await discard(content.storedName);
    throw e;
  }
  if (file) await discard(before?.storedName);
}

export async function deleteAttachment(kind: AttachmentKind, id: number): Promise<void> {
  const row = await db().write(async (tx) => (kind === "files"
    ? await tx.gentityFile.delete({ where: { id } })
    : await tx.gentityImage.delete({ where: { id } })));
  await discard(row.storedName);
}
