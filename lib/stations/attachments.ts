import { db, Prisma } from "@/lib/db";
import { isoMillis } from "@/lib/domain/serialize";

/** Station files and images (api.md §9); the bytes live under the media directory. */
export type AttachmentKind = "files" | "images";
export type FileRow = Prisma.GentityFileGetPayload<object>;
export type ImageRow = Prisma.GentityImageGetPayload<object>;
export type AttachmentRow = FileRow | ImageRow;

export function contentUrl(origin: string, kind: AttachmentKind, stationId: number, id: number): string {
  return `${origin}/api/stations/${stationId}/${kind}/${id}/content/`;
}

export function attachmentJson(kind: AttachmentKind, row: AttachmentRow, origin: string) {
  const base = {
    id: row.id,
    last_modified: isoMillis(row.lastModified),
    date: row.date,
    content: contentUrl(origin, kind, row.stationId, row.id),
    descr: row.descr,
    remarks: row.remarks,
  };
  return kind === "images"
    ? { ...base, featured: (row as ImageRow).featured, gentity: row.stationId }
    : { ...base, gentity: row.stationId };
}

export async function countAttachments(kind: AttachmentKind, stationId: number): Promise<number> {
  const p = db().prisma;
  return kind === "files" ? p.gentityFile.count({ where: { stationId } }) : p.gentityImage.count({ where: { stationId } });
}

export async function attachmentsPage(kind: AttachmentKind, stationId: number, skip: number, take: number): Promise<AttachmentRow[]> {
  const p = db().prisma;
  return kind === "files"
    ? p.gentityFile.findMany({ where: { stationId }, orderBy: [{ descr: "asc" }, { id: "asc" }], skip, take })
    : p.gentityImage.findMany({ where: { stationId }, orderBy: [{ date: { sort: "asc", nulls: "last" } }, { id: "asc" }], skip, take });
}

export async function findAttachment(kind: AttachmentKind, stationId: number, id: number): Promise<AttachmentRow | null> {
  const p = db().prisma;
  return kind === "files"
    ? p.gentityFile.findFirst({ where: { id, stationId } })
    : p.gentityImage.findFirst({ where: { id, stationId } });
}
