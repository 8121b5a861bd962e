import { ApiError, payloadTooLarge, unsupportedMediaType } from "@/lib/http/errors";

/** A file part of a multipart body. */
export interface UploadedFile {
  readonly kind: "file";
  readonly name: string;
  readonly type: string;
  readonly size: number;
  bytes(): Promise<Uint8Array>;
}

export function isUploadedFile(value: unknown): value is UploadedFile {
  return typeof value === "object" && value !== null && (value as UploadedFile).kind === "file";
}

/** Python's name for the type of a JSON value, as DRF's messages show it. */
export function pythonTypeName(value: unknown, rawNumberText?: string): string {
  if (value === null || value === undefined) return "NoneType";
  if (Array.isArray(value)) return "list";
  switch (typeof value) {
    case "string": return "str";
    case "boolean": return "bool";
    case "number":
      if (rawNumberText !== undefined) return /[.eE]/.test(rawNumberText) ? "float" : "int";
      return Number.isInteger(value) ? "int" : "float";
    default: return "dict";
  }
}

/**
 * The parsed body of a request: a JSON object, or form fields (urlencoded or multipart, where a
 * key may repeat and values may be files). Field readers treat both alike.
 */
export class RequestInput {
  private constructor(
    readonly kind: "json" | "form",
    private readonly jsonObject: Record<string, unknown>,
    private readonly form: Map<string, (string | UploadedFile)[]>,
  ) {}

  static json(object: Record<string, unknown>): RequestInput {
    return new RequestInput("json", object, new Map());
  }

  static form(entries: Iterable<[string, string | UploadedFile]>): RequestInput {
    const form = new Map<string, (string | UploadedFile)[]>();
    for (const [key, value] of entries) {
      const list = form.get(key);
      if (list) list.push(value);
      else form.set(key, [value]);
    }
    return new RequestInput("form", {}, form);
  }

  /** A FormData's fields and files: a multipart body's, or a site form's (the same fields, the same messages). */
  static formData(data: FormData): RequestInput {
    const entries: [string, string | UploadedFile][] = [];
    for (const [key, value] of data.entries()) {
      if (typeof value === "string") {
        entries.push([key, value]);
      } else {
        const blob = value as File;
        entries.push([key, {
          kind: "file",
          name: blob.name ?? "",
          type: blob.type,
          size: blob.size,
          bytes: async () => new Uint8Array(await blob.arrayBuffer()),
        }]);
      }
    }
    return RequestInput.form(entries);
  }

  static empty(): RequestInput {
    return RequestInput.form([]);
  }

  has(name: string): boolean {
    return this.kind === "json" ? Object.prototype.hasOwnProperty.call(this.jsonObject, name) : this.form.has(name);
  }

  /** The value of a field: a JSON value, or the last form value (as Django's QueryDict gives). */
  get(name: string): unknown {
    if (this.kind === "json") return this.has(name) ? this.jsonObject[name] : undefined;
    const list = this.form.get(name);
    return list ? list[list.length - 1] : undefined;
  }

  /** Every form value of a repeated key; for JSON, the value itself. */
  getAll(name: string): unknown {
    if (this.kind === "json") return this.get(name);
    return this.form.get(name);
  }

  keys(): string[] {
    return this.kind === "json" ? Object.keys(this.jsonObject) : [...this.form.keys()];
  }
}

/** Reads the whole body, refusing (413) more than `limit` bytes. */
export async function readBodyBytes(request: Request, limit: number): Promise<Uint8Array> {
  const declared = Number(request.headers.get("content-length"));
  if (Number.isFinite(declared) && declared > limit) throw payloadTooLarge(limit);
  if (!request.body) return new Uint8Array(0);
  const chunks: Uint8Array[] = [];
  let total = 0;
  const reader = request.body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > limit) {
      await reader.cancel().catch(() => undefined);
      throw payloadTooLarge(limit);
    }
    chunks.push(value);
  }
  if (chunks.length === 1) return chunks[0];
  const bytes = new Uint8Array(total);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return bytes;
}

const decoder = new TextDecoder("utf-8");

const HEX = new Int8Array(256).fill(-1);
for (let i = 0; i < 10; i++) HEX[48 + i] = i;
for (let i = 0; i < 6; i++) HEX[65 + i] = HEX[97 + i] = 10 + i;

/** One form-urlencoded key or value: "+" is a space, %XX a byte, the bytes UTF-8. */
function decodeFormComponent(bytes: Uint8Array, start: number, end: number): string {
  let i = start;
  while (i < end && bytes[i] !== 37 && bytes[i] !== 43) i++;
  if (i === end) return decoder.decode(bytes.subarray(start, end));
  const out = new Uint8Array(end - start);
  out.set(bytes.subarray(start, i));
  let o = i - start;
  for (; i < end; i++) {
    const c = bytes[i];
    if (c === 43) out[o++] = 32;
    else if (c === 37 && i + 2 < end && HEX[bytes[i + 1]] >= 0 && HEX[bytes[i + 2]] >= 0) {
      out[o++] = (HEX[bytes[i + 1]] << 4) | HEX[bytes[i + 2]];
      i += 2;
    } else out[o++] = c;
  }
  return decoder.decode(out.subarray(0, o));
}

/**
 * Parses application/x-www-form-urlencoded bytes like URLSearchParams does, but several times
 * faster on the 35–60 MB bodies of data uploads.
 */
export function parseFormBytes(bytes: Uint8Array): [string, string][] {
  const pairs: [string, string][] = [];
  const n = bytes.length;
  for (let start = 0; start < n;) {
    let amp = bytes.indexOf(38, start);
    if (amp < 0) amp = n;
    if (amp > start) {
      let eq = bytes.indexOf(61, start);
      if (eq < 0 || eq > amp) eq = amp;
      pairs.push([decodeFormComponent(bytes, start, eq), eq < amp ? decodeFormComponent(bytes, eq + 1, amp) : ""]);
    }
    start = amp + 1;
  }
  return pairs;
}

function mediaType(contentType: string): string {
  return contentType.split(";")[0].trim().toLowerCase();
}

/**
 * Parses a request body (api.md §1.2): JSON, form-urlencoded or multipart; a non-empty body
 * without Content-Type is form-encoded; anything else is 415. A JSON body must be an object.
 */
export async function parseBody(request: Request, limit: number): Promise<RequestInput> {
  const contentType = request.headers.get("content-type") ?? "";
  const type = mediaType(contentType);
  if (type && type !== "application/json" && type !== "application/x-www-form-urlencoded" && type !== "multipart/form-data") {
    throw unsupportedMediaType(contentType);
  }
  const bytes = await readBodyBytes(request, limit);
  if (type === "multipart/form-data") return parseMultipart(bytes, contentType);
  // No body at all is no fields, as in DRF (a client that sets the type on every request).
  if (type === "application/json") return bytes.length === 0 ? RequestInput.json({}) : parseJsonObject(decoder.decode(bytes));
  return RequestInput.form(parseFormBytes(bytes));
}

/**
 * The deepest nesting of arrays and objects accepted in JSON from a client (a body, or JSON text
 * in a field). Every structure of the API nests a few levels; the limit is there because the
 * parser builds whatever nesting it is given, on the main thread: a 100 MB body of brackets held
 * up every other request for half a minute before its 400.
 */
export const MAX_JSON_DEPTH = 64;

/**
 * Where JSON text first nests arrays and objects deeper than `max`: the index of the bracket that
 * opens level max + 1, or -1. One linear pass that skips the contents of strings (escaped quotes
 * included), and stops at that bracket; text that is not JSON is left to the parser, which fails
 * on it no deeper than this scan has counted.
 */
export function jsonTooDeepAt(text: string, max = MAX_JSON_DEPTH): number {
  let depth = 0;
  const n = text.length;
  for (let i = 0; i < n; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22) {
      // A string: on to its closing quote, the first one not escaped by an odd run of backslashes.
      for (;;) {
        const close = text.indexOf('"', i + 1);
        if (close < 0) return -1;
        let backslashes = 0;
        for (let j = close - 1; text.charCodeAt(j) === 0x5c; j--) backslashes++;
        i = close;
        if (backslashes % 2 === 0) break;
      }
    } else if (c === 0x5b || c === 0x7b) {
      if (++depth > max) return i;
    } else if (c === 0x5d || c === 0x7d) {
      depth--;
    }
  }
  return -1;
}

/** The parser message of JSON text nested deeper than MAX_JSON_DEPTH, at `position`. */
export function tooDeepMessage(position: number): string {
  return `Arrays and objects nested too deeply (more than ${MAX_JSON_DEPTH} levels) at position ${position}`;
}

function parseJsonObject(text: string): RequestInput {
  const deep = jsonTooDeepAt(text);
  if (deep >= 0) throw new ApiError(400, { detail: `JSON parse error - ${tooDeepMessage(deep)}` });
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    throw new ApiError(400, { detail: `JSON parse error - ${(e as Error).message}` });
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    const type = pythonTypeName(value, typeof value === "number" ? text.trim() : undefined);
    throw new ApiError(400, { non_field_errors: [`Invalid data. Expected a dictionary, but got ${type}.`] });
  }
  return RequestInput.json(value as Record<string, unknown>);
}

async function parseMultipart(bytes: Uint8Array, contentType: string): Promise<RequestInput> {
  let data: FormData;
  try {
    data = await new Response(bytes as BodyInit, { headers: { "Content-Type": contentType } }).formData();
  } catch {
    throw new ApiError(400, { detail: "Multipart form parse error - Invalid multipart body." });
  }
  return RequestInput.formData(data);
}
