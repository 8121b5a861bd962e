import type { AttachmentContent } from "@/lib/stations/media";

/** The HTTP form of a station file or image's content (api.md §9). */

const CONTENT_TYPES: Record<string, string> = {
  pdf: "application/pdf", jpg: "image/jpeg", jpeg: "image/jpeg", png: "image/png", gif: "image/gif",
  webp: "image/webp", txt: "text/plain", csv: "text/csv", zip: "application/zip", json: "application/json",
  xml: "application/xml", doc: "application/msword", xls: "application/vnd.ms-excel", ods: "application/vnd.oasis.opendocument.spreadsheet",
  odt: "application/vnd.oasis.opendocument.text", docx: "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
  xlsx: "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet", hts: "text/vnd.openmeteo.timeseries",
  kml: "application/vnd.google-earth.kml+xml", gz: "application/gzip", tif: "image/tiff", tiff: "image/tiff",
};

/** The Content-Type of a stored file, from its name's extension; unknown ones are octet streams. */
export function contentTypeOf(fileName: string): string {
  const ext = /\.([^.]+)$/.exec(fileName)?.[1]?.toLowerCase() ?? "";
  return CONTENT_TYPES[ext] ?? "application/octet-stream";
}

/** `attachment; filename="…"` plus `filename*` for non-ASCII names (RFC 6266). */
export function contentDisposition(fileName: string): string {
  const ascii = fileName.replace(/[^\x20-\x7e]/g, "_").replace(/["\\]/g, "_");
  const header = `attachment; filename="${ascii}"`;
  return /^[\x20-\x7e]*$/.test(fileName) && !/["\\]/.test(fileName)
    ? header
    : `${header}; filename*=UTF-8''${encodeURIComponent(fileName)}`;
}

/** GET …/content/: the bytes, never interpreted by the browser as active content. */
export function attachmentResponse(content: AttachmentContent): Response {
  return new Response(content.stream, {
    headers: {
      "Content-Type": contentTypeOf(content.fileName),
      // server.mjs turns this into Content-Length, which Next would drop.
      "X-Enhydris-Content-Length": String(content.size),
      "Content-Disposition": contentDisposition(content.fileName),
      "X-Content-Type-Options": "nosniff",
      "Content-Security-Policy": "sandbox; default-src 'none'",
    },
  });
}
