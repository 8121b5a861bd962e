import { createHash } from "node:crypto";

/**
 * ETag, Last-Modified and Cache-Control of data responses, and If-None-Match (formats.md §9).
 * The ETag is computed before the body, from the series version and everything that shapes it.
 */
export interface Validators {
  etag: string;
  lastModified: Date;
  cacheControl: string;
}

export function makeEtag(seriesId: number, version: number, inputs: unknown[]): string {
  const digest = createHash("sha256").update(JSON.stringify(inputs)).digest("hex").slice(0, 16);
  return `"${seriesId}-${version}-${digest}"`;
}

export function validatorHeaders(v: Validators): Record<string, string> {
  return { ETag: v.etag, "Last-Modified": v.lastModified.toUTCString(), "Cache-Control": v.cacheControl };
}

/** If-None-Match with `*` or a tag equal under weak comparison (a `W/` prefix is ignored). */
export function matchesIfNoneMatch(request: Request, etag: string): boolean {
  const header = request.headers.get("if-none-match");
  if (!header) return false;
  if (header.trim() === "*") return true;
  const bare = (tag: string) => tag.trim().replace(/^W\//, "");
  return header.split(",").some((tag) => bare(tag) === bare(etag));
}

export function notModified(v: Validators): Response {
  return new Response(null, { status: 304, headers: validatorHeaders(v) });
}
