/**
 * What all the requests of one session with a vendor (a fetch, a discovery) may use together;
 * every request of lib/telemetry/http.ts draws on it:
 *
 * - time: each request has ENHYDRIS_TELEMETRY_TIMEOUT, and no more than what is left of the
 *   session's time, so that a vendor answering every request just within the timeout cannot hold
 *   a fetch slot (or a discovery) for hundreds of requests;
 * - bytes (a discovery's): every answer has the upload limit, and the answers together no more
 *   than the session's bytes, so that a list whose `next` never ends cannot fill the memory of
 *   the web process.
 */
import { formatBytes } from "@/lib/outbound";
import { TelemetryError } from "@/lib/telemetry/errors";

/** "180 s", "1.5 s". */
export function secondsText(ms: number): string {
  return `${Number((ms / 1000).toFixed(3))} s`;
}

export class RequestBudget {
  private readonly deadline: number;
  private bytesLeft: number;

  /**
   * @param what the session, as messages name it ("fetch", "discovery")
   * @param ms the time of all its requests together, from now
   * @param bytes the bytes of all its answers together (Infinity: no limit but each answer's)
   */
  constructor(readonly what: string, readonly ms: number, readonly bytes = Infinity) {
    this.deadline = performance.now() + ms;
    this.bytesLeft = bytes;
  }

  /** Milliseconds left (≤ 0 once the time is up). */
  remainingMs(): number {
    return this.deadline - performance.now();
  }

  /** Bytes left for answers. */
  remainingBytes(): number {
    return this.bytesLeft;
  }

  /** Counts an answer's bytes. */
  spend(bytes: number): void {
    this.bytesLeft -= bytes;
  }

  /** The error of a session whose time is up; `host` when a request to it was waiting. */
  timeUp(host?: string): TelemetryError {
    return new TelemetryError(`the ${this.what} reached its time limit of ${secondsText(this.ms)}${host ? ` while waiting for ${host}` : ""}`, "time");
  }

  /** The error of a session whose answers add up to more than its bytes. */
  bytesUp(host: string): TelemetryError {
    return new TelemetryError(`the answers of ${host} add up to more than ${formatBytes(this.bytes)}, the limit of one ${this.what}`);
  }
}
