/**
 * The other instance of a replication (replication.md): its API read over HTTP through the
 * outbound guard of telemetry.md §3 (lib/outbound), with its credentials, a time limit on every
 * request, and a clear message for everything that can go wrong there (an error status, no
 * answer, a body that is not what the API specifies, an address that may not be reached).
 */
import { inflateRawSync } from "node:zlib";
import { MalformedRecords, RecordLineReader } from "@/lib/formats/record-stream";
import { resolveTimeZone } from "@/lib/formats/timezone";
import { settings } from "@/lib/config";
import { openOutbound, OutboundError, type OutboundAllowList } from "@/lib/outbound";
import { concatBatches, type RecordBatch } from "@/lib/records";

/** A failure at the source, with the message a run reports. */
export class SourceError extends Error {}

export interface Credentials {
  username?: string;
  password?: string;
  token?: string;
}

export type Json = Record<string, unknown>;

const UTC = resolveTimeZone("UTC")!;
const PAGE_SIZE = 1000;
/** Redirects followed within the source (fetch follows 20). */
const MAX_REDIRECTS = 10;
/** The longest time a timer can wait (2^31 − 1 ms, about 24.8 days): a stream's whole-request limit, in effect none. */
const LONGEST_TIMER_MS = 2 ** 31 - 1;

/** An answer of the source: its status and headers, its body as it arrives (within the request's limits). */
interface SourceAnswer {
  readonly status: number;
  readonly ok: boolean;
  header(name: string): string | null;
  readonly chunks: AsyncIterable<Buffer>;
  cancel(): void;
}
/**
 * The most bytes of one answer of the source's API that is read whole (a page of a list, a legacy
 * model list, the station export, and the table inside it): a source that sends more, or never
 * stops, fails the run instead of filling this instance's memory.
 */
export const MAX_ANSWER_BYTES = 256 * 1024 * 1024;

/** The site root of a source URL: http(s), no query, no trailing slash (nor a trailing /api). */
export function normalizeSourceUrl(text: string): string | null {
  let url: URL;
  try {
    url = new URL(text.trim());
  } catch {
    return null;
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") return null;
  if (url.username || url.password) return null;
  const path = url.pathname.replace(/\/+$/, "").replace(/\/api$/, "");
  return `${url.origin}${path}`;
}

function describe(error: unknown): string {
  const e = error as { name?: string; message?: string; cause?: { code?: string; message?: string } };
  return e.cause?.code ?? e.cause?.message ?? e.message ?? String(error);
}

export class Remote {
  private authorization: string | null = null;
  private loggedIn = false;

  constructor(readonly site: string, private readonly credentials: Credentials, private readonly timeoutMs: number,
    private readonly maxAnswerBytes = MAX_ANSWER_BYTES, private readonly allow: OutboundAllowList = settings().outboundAllow) {}

  /** Logs in with a user name and password (a token is used as it is). */
  async open(): Promise<void> {
    const { username, password, token } = this.credentials;
    if (token) {
      this.authorization = `Token ${token}`;
      return;
    }
    if (!username) return;
    const body = await this.request("POST", "auth/login/", JSON.stringify({ username, password: password ?? "" }));
    const key = (body as Json | null)?.key;
    if (typeof key !== "string" || key === "") throw new SourceError(`${this.url("auth/login/")}: the login answered no token`);
    this.authorization = `Token ${key}`;
    this.loggedIn = true;
  }

  /** Ends the token that open() obtained (a login's token is not left behind at the source). */
  async close(): Promise<void> {
    if (!this.loggedIn) return;
    this.loggedIn = false;
    await this.request("POST", "auth/logout/", "{}").catch(() => undefined);
  }

  /** The absolute URL of an API path (or the URL itself when it is absolute). */
  url(path: string): string {
    return /^https?:\/\//.test(path) ? path : `${this.site}/api/${path}`;
  }

  private headers(extra: Record<string, string> = {}): Record<string, string> {
    return { Accept: "application/json", ...(this.authorization ? { Authorization: this.authorization } : {}), ...extra };
  }

  /** Sends a request; any error status or an answer that is not JSON is a SourceError. */
  private async request(method: "GET" | "POST", path: string, body?: string): Promise<unknown> {
    const url = this.url(path);
    const response = await this.send(method, url, body);
    const text = await this.text(response, url);
    if (!response.ok) throw new SourceError(`${method} ${url}: HTTP ${response.status}${detailOf(text)}`);
    try {
      return JSON.parse(text);
    } catch {
      throw new SourceError(`${method} ${url}: the answer is not JSON`);
    }
  }

  /**
   * One request through the outbound guard (lib/outbound, telemetry.md §3: the address checked
   * and pinned, special addresses refused unless ENHYDRIS_OUTBOUND_ALLOW lists them), its
   * redirects answered as they are. A stream (records) may take as long as it needs, as long as
   * the source is never silent for timeoutMs; any other answer must be whole within timeoutMs.
   */
  private async hop(method: string, url: string, body: string | undefined, stream: boolean): Promise<SourceAnswer> {
    try {
      const answer = await openOutbound(url, {
        method, body, headers: this.headers(body !== undefined ? { "Content-Type": "application/json" } : {}),
      }, {
        allow: this.allow, timeoutMs: stream ? LONGEST_TIMER_MS : this.timeoutMs, idleTimeoutMs: this.timeoutMs,
        maxBytes: Number.MAX_SAFE_INTEGER, followRedirects: false,
      });
      return {
        status: answer.status,
        ok: answer.status >= 200 && answer.status < 300,
        header(name) {
          const value = answer.headers[name.toLowerCase()];
          return value === undefined ? null : Array.isArray(value) ? value.join(", ") : String(value);
        },
        chunks: answer.body,
        cancel: () => answer.cancel(),
      };
    } catch (error) {
      throw this.failure(method, url, error);
    }
  }

  /**
   * Sends a request, following redirects only within the source's origin: the login's password
   * and the token go nowhere else (a 307 or 308 to another host would re-send the body there).
   * A redirect elsewhere (another host, or http to https) fails, naming where it points.
   */
  private async send(method: string, url: string, body?: string, stream = false): Promise<SourceAnswer> {
    let target = url;
    for (let hop = 0; ; hop++) {
      const response = await this.hop(method, target, body, stream);
      const location = response.status >= 300 && response.status < 400 ? response.header("location") : null;
      if (location === null) return response;
      response.cancel();
      let next: URL;
      try {
        next = new URL(location, target);
      } catch {
        throw new SourceError(`${method} ${url}: the source redirects to an invalid address`);
      }
      if (next.origin !== new URL(target).origin) {
        throw new SourceError(`${method} ${url}: the source redirects to ${next.origin}; set the source's URL to the site it redirects to`);
      }
      if (hop >= MAX_REDIRECTS) throw new SourceError(`${method} ${url}: too many redirects`);
      // As fetch does: a 303, or a 301/302 of a POST, continues as a GET without the body.
      if (response.status === 303 || (method === "POST" && (response.status === 301 || response.status === 302))) {
        method = "GET";
        body = undefined;
      }
      target = next.toString();
    }
  }

  private async text(response: SourceAnswer, url: string): Promise<string> {
    return new TextDecoder().decode(await this.body(response, url, this.maxAnswerBytes, `the answer is larger than ${this.maxAnswerBytes} bytes`));
  }

  /** A response's body, read as it arrives up to `maxBytes` (a source may send no Content-Length, or more than it says). */
  private async body(response: SourceAnswer, url: string, maxBytes: number, tooLarge: string): Promise<Buffer> {
    const refuse = () => {
      response.cancel();
      return new SourceError(`GET ${url}: ${tooLarge}`);
    };
    if (Number(response.header("content-length") ?? 0) > maxBytes) throw refuse();
    const chunks: Buffer[] = [];
    let size = 0;
    try {
      for await (const chunk of response.chunks) {
        size += chunk.byteLength;
        if (size > maxBytes) throw refuse();
        chunks.push(chunk);
      }
    } catch (error) {
      if (error instanceof SourceError) throw error;
      throw this.failure("GET", url, error);
    }
    return Buffer.concat(chunks, size);
  }

  private failure(method: string, url: string, error: unknown): SourceError {
    if (error instanceof SourceError) return error;
    if (error instanceof OutboundError) {
      if (error.code === "timeout") return new SourceError(`${method} ${url}: no answer within ${this.timeoutMs / 1000} s`);
      if (error.code === "refused_address" || error.code === "invalid_url") return new SourceError(`${method} ${url}: ${error.message}`);
      return new SourceError(`${method} ${url}: the source could not be reached (${error.message})`);
    }
    return new SourceError(`${method} ${url}: the source could not be reached (${describe(error)})`);
  }

  /** A JSON object of the API. */
  async object(path: string): Promise<Json> {
    const body = await this.request("GET", path);
    if (!isObject(body)) throw new SourceError(`GET ${this.url(path)}: the answer is not a JSON object`);
    return body;
  }

  /**
   * Every item of a paginated list (api.md §1.5), page after page. A page that is not a page,
   * a `next` link that leaves the source or comes back, or a total that differs from `count`
   * fails: the list is either read whole or not at all.
   */
  async list(path: string): Promise<Json[]> {
    const first = new URL(this.url(path));
    first.searchParams.set("page_size", String(PAGE_SIZE));
    const items: Json[] = [];
    const seen = new Set<string>();
    let next: string | null = first.toString();
    let count: number | null = null;
    while (next !== null) {
      if (seen.has(next)) throw new SourceError(`GET ${this.url(path)}: the pages of the list come round again (${next})`);
      seen.add(next);
      const page = await this.request("GET", next);
      if (!isObject(page) || !Array.isArray(page.results) || typeof page.count !== "number" || !(page.next === null || typeof page.next === "string")) {
        throw new SourceError(`GET ${next}: the answer is not a page of a list`);
      }
      if (count !== null && page.count !== count) throw new SourceError(`GET ${this.url(path)}: the list changed while it was read`);
      count = page.count;
      for (const item of page.results) {
        if (!isObject(item) || !Number.isSafeInteger(item.id)) throw new SourceError(`GET ${next}: an item of the list has no id`);
        items.push(item);
      }
      if (items.length > count) throw new SourceError(`GET ${this.url(path)}: the pages hold more items than the list's count`);
      next = typeof page.next === "string" ? this.onSource(page.next, path) : null;
    }
    if (items.length !== count) throw new SourceError(`GET ${this.url(path)}: the pages hold ${items.length} items, the list's count is ${count}`);
    return items;
  }

  /**
   * Every object of a legacy model list (legacy.md §2.1: `/api/<Model>/`, all objects as one
   * array, in the current interface's shapes), where the source serves it; null otherwise.
   */
  async modelList(model: string): Promise<Json[] | null> {
    const url = this.url(`${model}/`);
    const response = await this.send("GET", url);
    if (response.status === 404 || response.status === 406) {
      response.cancel();
      return null;
    }
    const text = await this.text(response, url);
    if (!response.ok) throw new SourceError(`GET ${url}: HTTP ${response.status}${detailOf(text)}`);
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      return null;
    }
    if (!Array.isArray(body)) return null;
    for (const item of body) if (!isObject(item) || !Number.isSafeInteger(item.id)) throw new SourceError(`GET ${url}: an item of the list has no id`);
    return body as Json[];
  }

  /**
   * A link of the source's (a file's `content`) on the source's own origin: the source may name
   * itself differently (behind a proxy), but its links must not send this instance's requests,
   * and the source's credentials with them, to another host.
   */
  private onSourceOrigin(link: string, base = this.url("")): URL {
    let url: URL;
    try {
      url = new URL(link, base);
    } catch {
      throw new SourceError(`GET ${base}: a link of the source is not a URL (${link})`);
    }
    if (url.protocol !== "http:" && url.protocol !== "https:") throw new SourceError(`GET ${base}: a link of the source is not an http(s) URL (${link})`);
    return new URL(`${url.pathname}${url.search}`, new URL(this.site).origin);
  }

  /** A page link of a list (`next`), on the source's origin and within its API. */
  private onSource(link: string, path: string): string {
    const url = this.onSourceOrigin(link, this.url(path));
    if (!url.pathname.startsWith(new URL(this.url("")).pathname)) throw new SourceError(`GET ${this.url(path)}: a page link leaves the source's API (${link})`);
    return url.toString();
  }

  /**
   * The records of a series' data/ (CSV, UTC) from `start` (epoch seconds, inclusive) or
   * `end`, read whole. Null when the credentials may not read them (401/403).
   */
  async records(dataPath: string, range: { start?: number; end?: number }, onRecords?: (n: number) => void): Promise<RecordBatch | null> {
    const chunks = await this.recordChunks(dataPath, range);
    if (chunks === null) return null;
    const all: RecordBatch[] = [];
    let n = 0;
    for await (const chunk of chunks) {
      all.push(chunk);
      n += chunk.timestamps.length;
      onRecords?.(n);
    }
    return concatBatches(all);
  }

  /**
   * The records of a series' data/ as `records` reads them, in chunks as they arrive (about a
   * megabyte of text each), for a consumer that writes them on while the rest comes. Null when
   * the credentials may not read them. A source silent for timeoutMs (the outbound guard's idle
   * limit), an error status or a line that is not a record line fail; the whole may take as
   * long as it needs.
   */
  async recordChunks(dataPath: string, range: { start?: number; end?: number }): Promise<AsyncGenerator<RecordBatch> | null> {
    const url = new URL(this.url(dataPath));
    url.searchParams.set("fmt", "csv");
    url.searchParams.set("timezone", "UTC");
    if (range.start !== undefined) url.searchParams.set("start_date", isoOffset(range.start));
    if (range.end !== undefined) url.searchParams.set("end_date", isoOffset(range.end));
    const response = await this.send("GET", url.toString(), undefined, true);
    if (response.status === 401 || response.status === 403) {
      response.cancel();
      return null;
    }
    if (!response.ok) throw new SourceError(`GET ${url}: HTTP ${response.status}${detailOf(await this.text(response, url.toString()))}`);
    const failure = (error: unknown) => {
      if (error instanceof MalformedRecords) return new SourceError(`GET ${url}: malformed records: ${error.problems.slice(0, 3).join("; ")}`);
      return this.failure("GET", url.toString(), error);
    };
    return (async function* () {
      const reader = new RecordLineReader(UTC);
      let ended = false;
      try {
        for await (const chunk of response.chunks) {
          reader.pushBytes(chunk);
          if (reader.pendingRecords > 0) yield reader.take();
        }
        ended = true;
        const rest = reader.end();
        if (rest.timestamps.length > 0) yield rest;
      } catch (error) {
        throw failure(error);
      } finally {
        if (!ended) response.cancel();
      }
    })();
  }

  /** The bytes of a file or image (its `content` link) and the name the source gives it. */
  async content(link: string, maxBytes: number): Promise<{ name: string; bytes: Uint8Array }> {
    const url = this.onSourceOrigin(link);
    const response = await this.send("GET", url.toString());
    if (!response.ok) {
      response.cancel();
      throw new SourceError(`GET ${url}: HTTP ${response.status}`);
    }
    const bytes = new Uint8Array(await this.body(response, url.toString(), maxBytes, "the file is larger than ENHYDRIS_MAX_UPLOAD_SIZE"));
    const disposition = response.header("content-disposition") ?? "";
    const star = /filename\*=UTF-8''([^;]+)/i.exec(disposition)?.[1];
    const plain = /filename="([^"]*)"/i.exec(disposition)?.[1];
    let name = plain ?? decodeURIComponent(url.pathname.split("/").filter(Boolean).pop() ?? "file");
    if (star) {
      try {
        name = decodeURIComponent(star);
      } catch { /* keep the plain name */ }
    }
    return { name, bytes };
  }

  /**
   * The number of records of every series of the stations matching `query`, from the station
   * export (api.md §4.7, timeseries.csv), where the source has it; null otherwise.
   */
  async recordCounts(query: string): Promise<Map<number, number> | null> {
    const url = new URL(this.url("stations/csv/"));
    if (query) url.searchParams.set("q", query);
    const response = await this.send("GET", url.toString());
    if (!response.ok) {
      response.cancel();
      return null;
    }
    const zip = await this.body(response, url.toString(), this.maxAnswerBytes, `the answer is larger than ${this.maxAnswerBytes} bytes`);
    const csv = zipMember(zip, "timeseries.csv", this.maxAnswerBytes);
    if (csv === null) return null;
    const rows = parseCsv(csv);
    const header = rows.shift() ?? [];
    const idColumn = header.indexOf("id");
    const countColumn = header.indexOf("Number of records");
    if (idColumn < 0 || countColumn < 0) return null;
    const counts = new Map<number, number>();
    for (const row of rows) {
      const id = Number(row[idColumn]);
      const count = Number(row[countColumn]);
      if (Number.isSafeInteger(id) && Number.isSafeInteger(count)) counts.set(id, count);
    }
    return counts;
  }
}


export function isObject(value: unknown): value is Json {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function detailOf(text: string): string {
  try {
    const body = JSON.parse(text) as unknown;
    if (isObject(body) && typeof body.detail === "string") return ` (${body.detail})`;
    return ` (${JSON.stringify(body).slice(0, 200)})`;
  } catch {
    return "";
  }
}

/** `YYYY-MM-DDTHH:MM:SS+00:00`: a date parameter that the reference system reads too. */
function isoOffset(epochSeconds: number): string {
  return new Date(epochSeconds * 1000).toISOString().slice(0, 19) + "+00:00";
}

/** The text of one member of a zip archive (stored or deflated), or null (also when it would be larger than `maxBytes`). */
export function zipMember(zip: Buffer, name: string, maxBytes = MAX_ANSWER_BYTES): string | null {
  const end = zip.lastIndexOf(Buffer.from([0x50, 0x4b, 0x05, 0x06]));
  if (end < 0 || end + 22 > zip.length) return null;
  const entries = zip.readUInt16LE(end + 10);
  let p = zip.readUInt32LE(end + 16);
  for (let i = 0; i < entries; i++) {
    if (p + 46 > zip.length || zip.readUInt32LE(p) !== 0x02014b50) return null;
    const method = zip.readUInt16LE(p + 10);
    const compressed = zip.readUInt32LE(p + 20);
    const nameLength = zip.readUInt16LE(p + 28);
    const extraLength = zip.readUInt16LE(p + 30);
    const commentLength = zip.readUInt16LE(p + 32);
    const local = zip.readUInt32LE(p + 42);
    const entryName = zip.toString("utf8", p + 46, p + 46 + nameLength);
    p += 46 + nameLength + extraLength + commentLength;
    if (entryName !== name) continue;
    if (local + 30 > zip.length || zip.readUInt32LE(local) !== 0x04034b50) return null;
    const start = local + 30 + zip.readUInt16LE(local + 26) + zip.readUInt16LE(local + 28);
    const data = zip.subarray(start, start + compressed);
    try {
      // A few kilobytes of deflated zeros can stand for gigabytes: inflated no further than maxBytes.
      return (method === 0 ? data : method === 8 ? inflateRawSync(data, { maxOutputLength: maxBytes }) : null)?.toString("utf8") ?? null;
    } catch {
      return null;
    }
  }
  return null;
}

/** RFC 4180 rows (quoted fields may hold commas, quotes and line breaks). */
export function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = "";
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (quoted) {
      if (c === '"') {
        if (text[i + 1] === '"') {
          field += '"';
          i++;
        } else {
          quoted = false;
        }
      } else {
        field += c;
      }
    } else if (c === '"') {
      quoted = true;
    } else if (c === ",") {
      row.push(field);
      field = "";
    } else if (c === "\n" || c === "\r") {
      if (c === "\r" && text[i + 1] === "\n") i++;
      row.push(field);
      rows.push(row);
      row = [];
      field = "";
    } else {
      field += c;
    }
  }
  if (field !== "" || row.length) {
    row.push(field);
    rows.push(row);
  }
  return rows;
}
