/**
 * The common part of the fake vendor servers: an HTTP server on 127.0.0.1 (port 0 unless told),
 * the requests it got, and faults a test can inject on the requests of a path (an error status,
 * a garbage or empty body, a redirect, an answer that never comes, trickles, is cut off, or is
 * a gigabyte long).
 */
import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo, Socket } from "node:net";

export interface RecordedRequest {
  readonly method: string;
  /** The path without the query. */
  readonly path: string;
  readonly query: URLSearchParams;
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
}

export interface FakeAnswer {
  status?: number;
  headers?: Record<string, string>;
  body: string | Buffer;
}

export type Fault =
  /** An error status with a body. */
  | { kind: "status"; status: number; body?: string; contentType?: string }
  /** A 200 (or `status`) with this body instead of the real answer: garbage, empty, malformed. */
  | { kind: "body"; body: string | Buffer; contentType?: string; status?: number }
  /** A redirect. */
  | { kind: "redirect"; location: string; status?: number }
  /** No answer at all; the connection stays open. */
  | { kind: "hang" }
  /** The real answer, after a delay. */
  | { kind: "slow"; ms: number }
  /** Headers, then one byte every `intervalMs`, never finishing. */
  | { kind: "drip"; intervalMs: number }
  /** Headers and a part of the body, then the connection is cut. */
  | { kind: "cut" }
  /** `bytes` of "x" (with or without a Content-Length), written as fast as the client reads. */
  | { kind: "huge"; bytes: number; declareLength: boolean }
  /** An error status whose body repeats the request (its URL, headers and body), as some servers' error pages do. */
  | { kind: "echo"; status: number };

export interface FakeVendor {
  /** http://127.0.0.1:<port> */
  readonly url: string;
  readonly port: number;
  readonly requests: RecordedRequest[];
  /** The bytes written by `huge` faults (a client that stops early leaves this small). */
  readonly hugeBytesWritten: number;
  /**
   * Applies `fault` to requests whose path and query ("/addUPI?function=login&…") contain `match`
   * (or match it), the next `times` ones (default: all).
   */
  fail(match: string | RegExp, fault: Fault, times?: number): void;
  clearFaults(): void;
  close(): Promise<void>;
}

export type Handler = (request: RecordedRequest) => FakeAnswer | Promise<FakeAnswer>;

export interface StartOptions {
  port?: number;
  host?: string;
}

export async function startFake(handler: Handler, options: StartOptions = {}): Promise<FakeVendor> {
  const requests: RecordedRequest[] = [];
  const faults: { match: string | RegExp; fault: Fault; left: number }[] = [];
  const sockets = new Set<Socket>();
  const timers = new Set<NodeJS.Timeout>();
  let hugeBytesWritten = 0;

  const takeFault = (path: string): Fault | null => {
    const k = faults.findIndex((f) => (typeof f.match === "string" ? path.includes(f.match) : f.match.test(path)));
    if (k < 0) return null;
    const f = faults[k];
    if (--f.left <= 0) faults.splice(k, 1);
    return f.fault;
  };

  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", async () => {
      const url = new URL(req.url ?? "/", "http://fake");
      const request: RecordedRequest = {
        method: req.method ?? "GET",
        path: url.pathname,
        query: url.searchParams,
        headers: req.headers,
        body: Buffer.concat(chunks).toString("utf8"),
      };
      requests.push(request);
      const fault = takeFault(req.url ?? "/");
      const later = (ms: number, f: () => void) => {
        const t = setTimeout(() => {
          timers.delete(t);
          f();
        }, ms);
        timers.add(t);
      };
      const send = async () => {
        try {
          const answer = await handler(request);
          res.writeHead(answer.status ?? 200, answer.headers ?? {});
          res.end(answer.body);
        } catch (error) {
          res.writeHead(500, { "Content-Type": "text/plain" });
          res.end(`fake vendor failed: ${(error as Error).message}`);
        }
      };
      switch (fault?.kind) {
        case undefined:
          return send();
        case "echo":
          res.writeHead(fault.status, { "Content-Type": "text/plain" });
          {
            const credentials = Object.entries(request.headers).filter(([k]) => k === "authorization" || k.startsWith("x-")).map(([k, v]) => `${k}: ${String(v)}`);
            return void res.end(`Bad request (${credentials.join(", ") || "no credentials"}): ${req.url} ${request.body}`);
          }
        case "status":
          res.writeHead(fault.status, { "Content-Type": fault.contentType ?? "text/plain" });
          return void res.end(fault.body ?? "");
        case "body":
          res.writeHead(fault.status ?? 200, fault.contentType ? { "Content-Type": fault.contentType } : {});
          return void res.end(fault.body);
        case "redirect":
          res.writeHead(fault.status ?? 302, { Location: fault.location });
          return void res.end();
        case "hang":
          return;
        case "slow":
          return later(fault.ms, () => void send());
        case "drip": {
          res.writeHead(200, { "Content-Type": "text/plain" });
          const drip = () => {
            if (res.destroyed) return;
            res.write("x");
            later(fault.intervalMs, drip);
          };
          return drip();
        }
        case "cut":
          res.writeHead(200, { "Content-Type": "text/plain", "Content-Length": "1000" });
          res.write("the beginning of an answer");
          return later(20, () => res.socket?.destroy());
        case "huge": {
          res.writeHead(200, fault.declareLength ? { "Content-Length": String(fault.bytes) } : {});
          const chunk = Buffer.alloc(64 * 1024, 120);
          let left = fault.bytes;
          const more = () => {
            while (left > 0 && !res.destroyed) {
              const piece = left >= chunk.length ? chunk : chunk.subarray(0, left);
              left -= piece.length;
              hugeBytesWritten += piece.length;
              if (!res.write(piece)) return void res.once("drain", more);
            }
            if (left <= 0) res.end();
          };
          return more();
        }
      }
    });
  });
  server.on("connection", (socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port ?? 0, options.host ?? "127.0.0.1", resolve);
  });
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://${options.host ?? "127.0.0.1"}:${port}`,
    port,
    requests,
    get hugeBytesWritten() {
      return hugeBytesWritten;
    },
    fail(match, fault, times = Infinity) {
      faults.push({ match, fault, left: times });
    },
    clearFaults() {
      faults.length = 0;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const t of timers) clearTimeout(t);
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

/** A JSON answer. */
export function json(body: unknown, status = 200): FakeAnswer {
  return { status, headers: { "Content-Type": "application/json" }, body: JSON.stringify(body) };
}

/** The JSON body of a request, or undefined. */
export function jsonBody(request: RecordedRequest): unknown {
  try {
    return JSON.parse(request.body);
  } catch {
    return undefined;
  }
}

/** Readings a fake holds: fixed, or computed at each request (a demo's grow with time). */
export type ReadingSource<R> = Record<string, R[]> | ((sensorId: string) => R[]);

export function readingsOf<R>(source: ReadingSource<R>, sensorId: string): R[] | undefined {
  return typeof source === "function" ? source(sensorId) : source[sensorId];
}
