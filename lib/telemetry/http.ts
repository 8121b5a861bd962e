/**
 * Requests of telemetry drivers: lib/outbound with the context's allow list and limits, every
 * failure a TelemetryError whose message names the vendor's host and carries what the vendor
 * said (never a URL's path or query: some vendors put passwords there).
 */
import { OutboundError, outboundRequest, type OutboundErrorCode, type OutboundResponse } from "@/lib/outbound";
import type { DriverContext } from "@/lib/telemetry/driver";
import { TelemetryError } from "@/lib/telemetry/errors";

export interface VendorRequest {
  method?: string;
  headers?: Record<string, string>;
  body?: string;
  /**
   * Headers that carry the password or a token (any case). They, and every header of `headers`
   * that is not one of BENIGN_HEADERS, are dropped on a redirect to another host or from https
   * to http, as Authorization is (lib/outbound).
   */
  credentialHeaders?: readonly string[];
}

/** Headers of a driver's request that carry nothing secret: kept on a redirect to another host. */
const BENIGN_HEADERS = new Set(["accept", "accept-language", "content-type", "user-agent"]);

/**
 * The headers of a request that are credentials: those the driver names, and any other it sends
 * but the benign ones (a driver that forgets to name its key's header does not leak it).
 */
export function credentialHeadersOf(request: VendorRequest): string[] {
  const named = new Set((request.credentialHeaders ?? []).map((h) => h.trim().toLowerCase()));
  for (const name of Object.keys(request.headers ?? {})) {
    const lower = name.trim().toLowerCase();
    if (!BENIGN_HEADERS.has(lower)) named.add(lower);
  }
  return [...named];
}

/** The most characters of a vendor's error text quoted in a message. */
const MAX_QUOTED = 300;

/** A vendor's text made fit for a one-line message: whitespace collapsed, control characters dropped, cut. */
export function quote(text: string): string {
  const flat = text.replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f\ufffd]/g, "").replace(/\s+/g, " ").trim();
  return flat.length > MAX_QUOTED ? `${flat.slice(0, MAX_QUOTED)}…` : flat;
}

/** What an error answer says: a JSON message/detail/error, or its text (not an HTML page). */
export function vendorMessage(response: OutboundResponse): string {
  const text = response.text();
  const type = String(response.headers["content-type"] ?? "");
  try {
    const body = JSON.parse(text) as unknown;
    if (typeof body === "object" && body !== null) {
      const b = body as Record<string, unknown>;
      for (const key of ["message", "detail", "error", "error_description", "msg"]) {
        if (typeof b[key] === "string" && b[key] !== "") return quote(b[key] as string);
      }
      return quote(JSON.stringify(body));
    }
  } catch {
    // not JSON
  }
  if (/html/i.test(type) || /^\s*<(!doctype|html)/i.test(text)) {
    const title = /<title[^>]*>([^<]*)<\/title>/i.exec(text);
    return title ? quote(title[1]) : "";
  }
  return quote(text);
}

/** The host of a URL for messages ("meteoview2.gr", "10.0.0.5:8080"), or the text itself. */
export function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return "the vendor";
  }
}

/** A URL that a driver builds from device_locator: http(s), or a TelemetryError. */
export function checkedUrl(text: string, field = "device_locator"): URL {
  let url: URL;
  try {
    url = new URL(text.trim());
  } catch {
    throw new TelemetryError(`the ${field} "${text}" is not a valid URL`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") throw new TelemetryError(`the ${field} "${text}" is not an http or https URL`);
  return url;
}

/** An error for a field of a configuration when `text` is not an http(s) URL; null when it is. */
export function urlProblem(text: string): string | null {
  try {
    const url = new URL(text.trim());
    if (url.protocol !== "http:" && url.protocol !== "https:") return "Enter an http or https URL.";
    if (url.username || url.password) return "Enter the URL without a user name or password.";
    return null;
  } catch {
    return "Enter a valid URL.";
  }
}

/**
 * The failures of a request where the vendor did not answer at all: its other requests would wait
 * the same way (a fetch skips its remaining sensors). Not an answer that was refused (too large,
 * a redirect, not HTTP), nor an address that is not allowed (refused at once, costing nothing).
 */
const NO_ANSWER: ReadonlySet<OutboundErrorCode> = new Set(["timeout", "unreachable", "not_found", "tls"]);

/** A request cut by the session's time rather than its own ended this close to the session's end. */
const BUDGET_SLACK_MS = 100;

export class VendorHttp {
  constructor(private readonly context: DriverContext, private readonly verifyTls: boolean) {}

  /**
   * Sends a request, within the request's limits and what is left of the session's budget (its
   * time, its bytes); any network failure or refusal is a TelemetryError (one whose `stop` says
   * the vendor did not answer, or that the session's time is up).
   */
  async send(url: string, request: VendorRequest = {}): Promise<OutboundResponse> {
    const budget = this.context.budget;
    let timeoutMs = this.context.timeoutMs;
    let maxBytes = this.context.maxBytes;
    let cutByTime = false;
    let cutByBytes = false;
    if (budget) {
      const ms = budget.remainingMs();
      if (ms <= 0) throw budget.timeUp(hostOf(url));
      if (ms < timeoutMs) [timeoutMs, cutByTime] = [Math.ceil(ms), true];
      const bytes = budget.remainingBytes();
      if (bytes <= 0) throw budget.bytesUp(hostOf(url));
      if (bytes < maxBytes) [maxBytes, cutByBytes] = [bytes, true];
    }
    try {
      const response = await outboundRequest(url, { ...request, credentialHeaders: credentialHeadersOf(request) }, {
        allow: this.context.allow,
        timeoutMs,
        idleTimeoutMs: this.context.idleTimeoutMs === undefined ? undefined : Math.min(this.context.idleTimeoutMs, timeoutMs),
        maxBytes,
        verifyTls: this.verifyTls,
        signal: this.context.signal,
        resolve: this.context.resolve,
      });
      budget?.spend(response.body.length);
      return response;
    } catch (error) {
      if (!(error instanceof OutboundError)) throw error;
      if (budget && cutByTime && error.code === "timeout" && budget.remainingMs() <= BUDGET_SLACK_MS) throw budget.timeUp(hostOf(url));
      if (budget && cutByBytes && error.code === "too_large") throw budget.bytesUp(hostOf(url));
      throw new TelemetryError(error.message, NO_ANSWER.has(error.code) ? "no-answer" : null);
    }
  }

  /** Sends a request and fails unless the answer is 2xx, quoting what the vendor said. */
  async ok(url: string, request: VendorRequest = {}): Promise<OutboundResponse> {
    const response = await this.send(url, request);
    if (response.status < 200 || response.status > 299) {
      const said = vendorMessage(response);
      throw new TelemetryError(`${hostOf(url)} answered HTTP ${response.status}${said ? `: ${said}` : ""}`);
    }
    return response;
  }

  /** A 2xx answer's body as JSON. */
  async json(url: string, request: VendorRequest = {}): Promise<unknown> {
    const response = await this.ok(url, request);
    return parseJson(response.text(), hostOf(url));
  }
}

/** JSON text, or a TelemetryError saying the answer is not JSON. */
export function parseJson(text: string, host: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw new TelemetryError(`the answer of ${host} is not JSON${text.trim() === "" ? " (it is empty)" : `: ${quote(text).slice(0, 80)}`}`);
  }
}

/** A URL that ends in "/" (the reference's drivers append paths to it). */
export function withTrailingSlash(url: string): string {
  return url.endsWith("/") ? url : `${url}/`;
}
