/**
 * Outbound HTTP(S) requests of the service (telemetry, replication) under the guard of
 * telemetry.md §3:
 *
 * - The host name is resolved once; every address it resolves to is checked (special ranges
 *   such as loopback, link-local, cloud metadata and unspecified are refused unless allowed,
 *   ip.ts), and the connection is made to exactly those addresses (a pinned `lookup`), so a
 *   second resolution cannot point it elsewhere (DNS rebinding). SNI and Host stay the name.
 * - Redirects are followed by hand, each hop checked again, at most `maxRedirects`.
 * - One deadline covers the whole request (connection, every hop, the whole answer); the
 *   connection may also stay silent at most `idleTimeoutMs`.
 * - An answer larger than `maxBytes` is refused as soon as its Content-Length or the bytes
 *   read say so; nothing beyond the limit is kept.
 *
 * Every failure is one OutboundError whose message names the host (never the path or query:
 * some vendors put passwords there) and says what happened in words fit to show a user.
 */
import { promises as dns, type LookupAddress } from "node:dns";
import type { IncomingHttpHeaders, IncomingMessage } from "node:http";
import { request as httpRequest } from "node:http";
import { request as httpsRequest } from "node:https";
import { isIP, type LookupFunction } from "node:net";
import { createBrotliDecompress, createGunzip, createInflate } from "node:zlib";
import type { Transform } from "node:stream";
import { allowsAddress, allowsHost, OUTBOUND_ALLOW_SETTING, type OutboundAllowList } from "@/lib/outbound/allow";
import { formatIp, parseIp, specialAddress } from "@/lib/outbound/ip";

export type OutboundErrorCode =
  | "invalid_url"
  | "refused_address"
  | "not_found"
  | "unreachable"
  | "timeout"
  | "too_large"
  | "tls"
  | "redirect"
  | "protocol"
  | "aborted";

/** Any failure of an outbound request; the message is fit to show a user. */
export class OutboundError extends Error {
  override readonly name = "OutboundError";
  constructor(readonly code: OutboundErrorCode, message: string) {
    super(message);
  }
}

export interface OutboundOptions {
  /** What may be reached although special (parseOutboundAllow). */
  allow: OutboundAllowList;
  /** The whole request: connection, redirects and the whole answer (milliseconds). */
  timeoutMs: number;
  /** The longest silence of the connection (milliseconds); default: timeoutMs. */
  idleTimeoutMs?: number;
  /** The largest answer body, in bytes (after decompression). */
  maxBytes: number;
  /** Check the server's TLS certificate (default true). */
  verifyTls?: boolean;
  /** Redirects followed at most (default 5). */
  maxRedirects?: number;
  /**
   * Follow redirects (default true); false answers a redirect as it is, for a caller that
   * follows them by its own rules (each hop a request of its own, checked again).
   */
  followRedirects?: boolean;
  /** Cancels the request. */
  signal?: AbortSignal;
  /** Resolves a host name to its addresses (default: the system resolver); for tests. */
  resolve?: (host: string) => Promise<string[]>;
}

export interface OutboundRequest {
  method?: string;
  headers?: Record<string, string>;
  body?: string | Uint8Array;
  /**
   * Names of headers of `headers` that carry credentials of the caller's own (an API key in
   * X-API-Key, a token in a vendor's header; any case): on a redirect to another host, or from
   * https to http, they are dropped with Authorization, Cookie and Proxy-Authorization.
   */
  credentialHeaders?: readonly string[];
}

/** An answer whose body has not been read yet. */
export interface OutboundStream {
  readonly status: number;
  readonly headers: IncomingHttpHeaders;
  /** The URL that answered (after redirects). */
  readonly url: string;
  /** The body, in pieces, within the request's limits (a failure is an OutboundError). */
  readonly body: AsyncIterable<Buffer>;
  /** Stops reading and closes the connection. */
  cancel(): void;
}

/** A whole answer. */
export interface OutboundResponse {
  readonly status: number;
  readonly headers: IncomingHttpHeaders;
  readonly url: string;
  readonly body: Buffer;
  /** The body as UTF-8 text. */
  text(): string;
}

const REDIRECTS = new Set([301, 302, 303, 307, 308]);
/**
 * Headers that carry credentials: not sent to another host, nor from https to http (with those
 * a request names in `credentialHeaders`).
 */
const CREDENTIAL_HEADERS = new Set(["authorization", "cookie", "proxy-authorization"]);

/** "60 s", "1.5 s". */
function seconds(ms: number): string {
  return `${Number((ms / 1000).toFixed(3))} s`;
}

/** "10 MB", "512 KB", "300 bytes". */
export function formatBytes(n: number): string {
  if (n >= 1024 * 1024 && n % (1024 * 1024) === 0) return `${n / (1024 * 1024)} MB`;
  if (n >= 1024 * 1024) return `${(n / (1024 * 1024)).toFixed(1)} MB`;
  if (n >= 1024 && n % 1024 === 0) return `${n / 1024} KB`;
  if (n >= 1024) return `${(n / 1024).toFixed(1)} KB`;
  return `${n} bytes`;
}

async function systemResolve(host: string): Promise<string[]> {
  const found: LookupAddress[] = await dns.lookup(host, { all: true, verbatim: true });
  return found.map((a) => a.address);
}

interface Target {
  url: URL;
  /** The host as URLs write it, with a port when it is not the default: for messages. */
  label: string;
  /** The host name or address without brackets. */
  hostname: string;
  /** The addresses that passed the check, in the resolver's order. */
  addresses: string[];
}

/** Parses one URL (the first, or a redirect's when `from` names the host that redirects). */
function parseTarget(text: string, base: URL | null, from: string | null): URL {
  let url: URL;
  try {
    url = base === null ? new URL(text) : new URL(text, base);
  } catch {
    throw new OutboundError(from === null ? "invalid_url" : "redirect",
      from === null ? "the URL is not valid" : `${from} redirects to an address that is not a valid URL`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new OutboundError(from === null ? "invalid_url" : "redirect",
      from === null ? "the URL is not an http or https URL" : `${from} redirects to an address that is not an http or https URL`);
  }
  if (url.username || url.password) {
    throw new OutboundError(from === null ? "invalid_url" : "redirect",
      from === null ? `the URL of ${url.host} must not contain a user name or password` : `${from} redirects to a URL with a user name or password`);
  }
  return url;
}

/**
 * Resolves the URL's host and keeps the addresses it may connect to; refuses when none is left.
 * `prefix` starts the refusal's message ("x redirects to y; ").
 */
async function checkTarget(url: URL, options: OutboundOptions, deadline: Deadline, prefix = ""): Promise<Target> {
  const hostname = url.hostname.startsWith("[") ? url.hostname.slice(1, -1) : url.hostname;
  const label = url.host;
  let addresses: string[];
  if (isIP(hostname)) {
    addresses = [hostname];
  } else {
    try {
      addresses = await deadline.race((options.resolve ?? systemResolve)(hostname), () => `the connection to ${label}`);
    } catch (error) {
      if (error instanceof OutboundError) throw error;
      throw new OutboundError("not_found", `${label} could not be found (the name does not resolve)`);
    }
    if (addresses.length === 0) throw new OutboundError("not_found", `${label} could not be found (the name does not resolve)`);
  }
  if (allowsHost(options.allow, hostname)) return { url, label, hostname, addresses };
  const permitted: string[] = [];
  let refusal: string | null = null;
  for (const address of addresses) {
    const bytes = parseIp(address);
    const what = bytes === null ? "not an IP address" : specialAddress(bytes);
    if (what === null || (bytes !== null && allowsAddress(options.allow, bytes))) {
      permitted.push(address);
    } else if (refusal === null) {
      const shown = bytes === null ? address : formatIp(bytes);
      const subject = isIP(hostname) ? `${shown} is` : `${label} resolves to ${shown},`;
      refusal = `${prefix}${subject} ${what}, which is not allowed (see ${OUTBOUND_ALLOW_SETTING})`;
    }
  }
  if (permitted.length === 0) throw new OutboundError("refused_address", refusal!);
  return { url, label, hostname, addresses: permitted };
}

/** A lookup that answers the checked addresses, whatever it is asked. */
function pinnedLookup(addresses: string[]): LookupFunction {
  const entries = addresses.map((address) => ({ address, family: isIP(address) }));
  return ((_hostname: string, opts: unknown, callback: (...args: unknown[]) => void) => {
    const o = (typeof opts === "object" && opts !== null ? opts : { family: opts }) as { all?: boolean; family?: number | string };
    const family = o.family === "IPv4" ? 4 : o.family === "IPv6" ? 6 : Number(o.family ?? 0);
    const usable = family === 4 || family === 6 ? entries.filter((e) => e.family === family) : entries;
    if (usable.length === 0) {
      const error = Object.assign(new Error("no address of the requested family"), { code: "ENOTFOUND" });
      process.nextTick(() => callback(error));
      return;
    }
    if (o.all) process.nextTick(() => callback(null, usable));
    else process.nextTick(() => callback(null, usable[0].address, usable[0].family));
  }) as unknown as LookupFunction;
}

/** The request's one deadline, and what the request is doing when it passes. */
class Deadline {
  private timer: NodeJS.Timeout | null = null;
  private listeners = new Set<(error: OutboundError) => void>();
  private fired: OutboundError | null = null;
  /** Describes the current phase for the timeout's message. */
  phase: () => string = () => "the request";

  constructor(private readonly timeoutMs: number, private readonly signal: AbortSignal | undefined) {
    this.timer = setTimeout(() => this.fire(new OutboundError("timeout", `${this.phase()} timed out after ${seconds(timeoutMs)}`)), timeoutMs);
    this.timer.unref?.();
    signal?.addEventListener("abort", this.onAbort, { once: true });
    if (signal?.aborted) this.onAbort();
  }

  private onAbort = () => this.fire(new OutboundError("aborted", "the request was cancelled"));

  private fire(error: OutboundError): void {
    if (this.fired) return;
    this.fired = error;
    for (const listener of this.listeners) listener(error);
  }

  /** Calls `listener` once when the deadline passes or the request is cancelled. */
  onFire(listener: (error: OutboundError) => void): () => void {
    if (this.fired) {
      listener(this.fired);
      return () => undefined;
    }
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Waits for a promise, failing when the deadline passes first. */
  race<T>(promise: Promise<T>, phase: () => string): Promise<T> {
    this.phase = phase;
    return new Promise<T>((resolve, reject) => {
      const off = this.onFire(reject);
      promise.then(
        (value) => {
          off();
          resolve(value);
        },
        (error: unknown) => {
          off();
          reject(error);
        },
      );
    });
  }

  clear(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.signal?.removeEventListener("abort", this.onAbort);
    this.listeners.clear();
  }
}

const TLS_CODES = /^(CERT_|DEPTH_ZERO_SELF_SIGNED_CERT|SELF_SIGNED_CERT_IN_CHAIN|UNABLE_TO_|ERR_TLS_CERT_ALTNAME_INVALID|ERR_SSL_|EPROTO$)/;

/** The words for a socket or HTTP error while talking to `label`. */
function networkError(error: unknown, label: string, connected: boolean): OutboundError {
  if (error instanceof OutboundError) return error;
  const e = error as { code?: string; message?: string; reason?: string };
  const code = e.code ?? "";
  if (code === "ECONNREFUSED") return new OutboundError("unreachable", `${label} refused the connection`);
  if (code === "EHOSTUNREACH" || code === "ENETUNREACH" || code === "EADDRNOTAVAIL") {
    return new OutboundError("unreachable", `${label} cannot be reached (no route to it)`);
  }
  if (code === "ETIMEDOUT") return new OutboundError("timeout", `the connection to ${label} timed out`);
  if (code === "ENOTFOUND" || code === "EAI_AGAIN") return new OutboundError("not_found", `${label} could not be found (the name does not resolve)`);
  if (TLS_CODES.test(code)) {
    const detail = e.reason ?? e.message ?? code;
    return new OutboundError("tls", `the TLS certificate of ${label} could not be verified (${detail})`);
  }
  if (code.startsWith("HPE_")) return new OutboundError("protocol", `${label} answered something that is not HTTP`);
  if (code === "ECONNRESET" || code === "EPIPE" || e.message === "socket hang up" || code === "ERR_STREAM_PREMATURE_CLOSE") {
    return new OutboundError("unreachable", connected
      ? `${label} closed the connection before its answer was complete`
      : `the connection to ${label} was closed before it answered`);
  }
  if (code.startsWith("Z_") || code === "ERR__ERROR_FORMAT") return new OutboundError("protocol", `${label} sent a compressed answer that cannot be read`);
  return new OutboundError("unreachable", `the request to ${label} failed (${code || e.message || "unknown error"})`);
}

/**
 * Sends a request and returns the answer's status and headers; its body is read from
 * `stream.body` within the same limits. Redirects (301, 302, 303, 307, 308) are followed.
 */
export async function openOutbound(url: string, request: OutboundRequest, options: OutboundOptions): Promise<OutboundStream> {
  const deadline = new Deadline(options.timeoutMs, options.signal);
  try {
    return await openWithin(url, request, options, deadline);
  } catch (error) {
    deadline.clear();
    throw error;
  }
}

async function openWithin(url: string, request: OutboundRequest, options: OutboundOptions, deadline: Deadline): Promise<OutboundStream> {
  const maxRedirects = options.maxRedirects ?? 5;
  let method = (request.method ?? "GET").toUpperCase();
  let body: Buffer | undefined = request.body === undefined ? undefined : Buffer.from(request.body);
  let headers: Record<string, string> = { ...(request.headers ?? {}) };
  const credentials = new Set([...CREDENTIAL_HEADERS, ...(request.credentialHeaders ?? []).map((name) => name.trim().toLowerCase())]);
  let target = await checkTarget(parseTarget(url, null, null), options, deadline);
  for (let hop = 0; ; hop++) {
    const response = await send(target, method, headers, body, options, deadline);
    const location = REDIRECTS.has(response.statusCode ?? 0) && options.followRedirects !== false ? response.headers.location : undefined;
    if (location === undefined) return answer(response, target, options, deadline);
    response.destroy();
    const from = target.label;
    if (hop >= maxRedirects) throw new OutboundError("redirect", `${from} redirected more than ${maxRedirects} times`);
    const next = parseTarget(location, target.url, from);
    const sameHost = next.hostname === target.url.hostname;
    if (response.statusCode === 303 || ((response.statusCode === 301 || response.statusCode === 302) && method === "POST")) {
      if (method !== "HEAD") method = "GET";
      body = undefined;
      headers = Object.fromEntries(Object.entries(headers).filter(([k]) => !/^content-(type|length|encoding)$/i.test(k)));
    } else if (body !== undefined && !sameHost) {
      throw new OutboundError("redirect", `${from} redirects to ${next.host}, which would receive the request's body again; use ${next.host} directly`);
    }
    if (!sameHost || (target.url.protocol === "https:" && next.protocol === "http:")) {
      headers = Object.fromEntries(Object.entries(headers).filter(([k]) => !credentials.has(k.trim().toLowerCase())));
    }
    target = await checkTarget(next, options, deadline, `${from} redirects to ${next.host}; `);
  }
}

/** The client the service's own requests (telemetry, replication) name, unless the caller names one. */
export const OUTBOUND_USER_AGENT = "enhydris-ts";

/** Sends one request to a checked target and waits for the answer's head. */
function send(target: Target, method: string, headers: Record<string, string>, body: Buffer | undefined,
  options: OutboundOptions, deadline: Deadline): Promise<IncomingMessage> {
  const { url, label } = target;
  const idleMs = options.idleTimeoutMs ?? options.timeoutMs;
  const outgoing: Record<string, string> = { ...headers };
  // Some hosted APIs and firewalls refuse a request that names no client.
  if (!Object.keys(outgoing).some((k) => k.toLowerCase() === "user-agent")) outgoing["User-Agent"] = OUTBOUND_USER_AGENT;
  if (body !== undefined && !Object.keys(outgoing).some((k) => k.toLowerCase() === "content-length")) {
    outgoing["Content-Length"] = String(body.length);
  }
  const requestOptions = {
    method,
    hostname: target.hostname,
    port: url.port || (url.protocol === "https:" ? 443 : 80),
    path: `${url.pathname}${url.search}`,
    headers: outgoing,
    agent: false as const,
    lookup: pinnedLookup(target.addresses),
    rejectUnauthorized: options.verifyTls ?? true,
    ...(url.protocol === "https:" && !isIP(target.hostname) ? { servername: target.hostname } : {}),
  };
  return new Promise<IncomingMessage>((resolve, reject) => {
    let connected = false;
    let settled = false;
    const req = (url.protocol === "https:" ? httpsRequest : httpRequest)(requestOptions);
    const fail = (error: OutboundError) => {
      if (settled) return;
      settled = true;
      off();
      req.destroy();
      reject(error);
    };
    deadline.phase = () => (connected ? `the answer of ${label}` : `the connection to ${label}`);
    const off = deadline.onFire(fail);
    req.on("socket", (socket) => {
      const onConnect = () => {
        connected = true;
      };
      socket.once(url.protocol === "https:" ? "secureConnect" : "connect", onConnect);
      if (!socket.connecting && !(socket as { pending?: boolean }).pending) connected = true;
    });
    req.setTimeout(idleMs, () => {
      fail(new OutboundError("timeout", connected
        ? `${label} sent nothing for ${seconds(idleMs)}`
        : `the connection to ${label} timed out after ${seconds(idleMs)}`));
    });
    req.on("error", (error) => fail(networkError(error, label, false)));
    req.on("response", (response) => {
      if (settled) {
        response.destroy();
        return;
      }
      settled = true;
      off();
      resolve(response);
    });
    req.end(body);
  });
}

function decoderFor(encoding: string | undefined): Transform | null {
  switch ((encoding ?? "").trim().toLowerCase()) {
    case "gzip":
    case "x-gzip":
      return createGunzip();
    case "deflate":
      return createInflate();
    case "br":
      return createBrotliDecompress();
    default:
      return null;
  }
}

/** The answer of the last hop, with its body read within the limits. */
function answer(response: IncomingMessage, target: Target, options: OutboundOptions, deadline: Deadline): OutboundStream {
  const { label } = target;
  const max = options.maxBytes;
  const idleMs = options.idleTimeoutMs ?? options.timeoutMs;
  const tooLarge = () => new OutboundError("too_large", `the answer of ${label} is larger than ${formatBytes(max)}, the limit`);
  const declared = Number(response.headers["content-length"]);
  const decoder = decoderFor(response.headers["content-encoding"]);
  if (decoder === null && Number.isFinite(declared) && declared > max) {
    response.destroy();
    deadline.clear();
    throw tooLarge();
  }
  deadline.phase = () => `the answer of ${label}`;
  let done = false;
  const finish = () => {
    if (done) return;
    done = true;
    deadline.clear();
    response.destroy();
    decoder?.destroy();
  };
  async function* read(): AsyncGenerator<Buffer> {
    let failure: OutboundError | null = null;
    const source = decoder === null ? response : response.pipe(decoder);
    const stop = (error: OutboundError) => {
      failure ??= error;
      source.destroy(error);
      response.destroy();
    };
    const off = deadline.onFire(stop);
    response.setTimeout(idleMs, () => stop(new OutboundError("timeout", `${label} sent nothing for ${seconds(idleMs)}`)));
    response.on("aborted", () => stop(new OutboundError("unreachable", `${label} closed the connection before its answer was complete`)));
    response.on("error", (error) => stop(networkError(error, label, true)));
    let size = 0;
    try {
      for await (const chunk of source as AsyncIterable<Buffer>) {
        if (failure) throw failure;
        size += chunk.length;
        if (size > max) throw tooLarge();
        yield chunk;
      }
      if (failure) throw failure;
      if (!response.complete) throw new OutboundError("unreachable", `${label} closed the connection before its answer was complete`);
    } catch (error) {
      throw failure ?? networkError(error, label, true);
    } finally {
      off();
      finish();
    }
  }
  return {
    status: response.statusCode ?? 0,
    headers: response.headers,
    url: target.url.toString(),
    body: read(),
    cancel: finish,
  };
}

/** Sends a request and reads its whole answer (see openOutbound). */
export async function outboundRequest(url: string, request: OutboundRequest, options: OutboundOptions): Promise<OutboundResponse> {
  const stream = await openOutbound(url, request, options);
  const chunks: Buffer[] = [];
  for await (const chunk of stream.body) chunks.push(chunk);
  const body = Buffer.concat(chunks);
  return {
    status: stream.status,
    headers: stream.headers,
    url: stream.url,
    body,
    text: () => body.toString("utf8"),
  };
}
