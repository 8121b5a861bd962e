// Request bodies that stop arriving. The server sets no overall request timeout (Node's
// requestTimeout is 0), so that a large upload over a slow link can take as long as it needs; but
// a client that sends its headers, part of a body and then nothing would hold its connection, and
// the handler waiting for the rest, for ever. This watch ends such a request once the server is
// waiting to read (someone consumes the body, nothing is buffered) and no byte has come for the
// idle timeout: 408 and the connection closed, as Node answers its own request timeout.
// A body the server itself is slow to read (a paused stream while it writes to the database, or
// a handler that has not started reading) is never counted against the client.
import type { IncomingMessage, ServerResponse } from "node:http";

export interface BodyIdleOptions {
  readonly idleMs: number;
  readonly onStall?: (req: IncomingMessage) => void;
  readonly answer: (req: IncomingMessage) => { contentType: string; body: string };
}

export function bodyIdleWatch({ idleMs, onStall = () => {}, answer }: BodyIdleOptions): { watch(req: IncomingMessage, res: ServerResponse): void; size(): number } {
  const watched = new Map<IncomingMessage, { res: ServerResponse; bytes: number; since: number }>();
  let timer: NodeJS.Timeout | null = null;
  const sweepMs = Math.max(50, Math.min(5_000, Math.floor(idleMs / 4)));

  const sweep = () => {
    const now = Date.now();
    for (const [req, entry] of watched) {
      const { res } = entry;
      const socket = req.socket;
      if (req.complete || res.writableEnded || res.destroyed || !socket || socket.destroyed) {
        watched.delete(req);
        continue;
      }
      if (socket.bytesRead !== entry.bytes || !waitingForClient(req)) {
        entry.bytes = socket.bytesRead;
        entry.since = now;
        continue;
      }
      if (now - entry.since < idleMs) continue;
      watched.delete(req);
      onStall(req);
      if (res.headersSent) {
        socket.destroy();
      } else {
        const { contentType, body } = answer(req);
        socket.end(
          `HTTP/1.1 408 Request Timeout\r\nContent-Type: ${contentType}\r\nContent-Length: ${Buffer.byteLength(body)}\r\n` +
          `Cache-Control: no-store\r\nConnection: close\r\n\r\n${body}`,
        );
        // A client that reads nothing back does not hold the socket either.
        setTimeout(() => socket.destroy(), 1_000).unref();
      }
    }
    if (watched.size === 0) {
      if (timer) clearInterval(timer);
      timer = null;
    }
  };

  return {
    watch(req, res) {
      if (idleMs <= 0 || req.complete || !hasBody(req)) return;
      watched.set(req, { res, bytes: req.socket?.bytesRead ?? 0, since: Date.now() });
      // Not held until the next sweep once answered.
      res.once("close", () => watched.delete(req));
      timer ??= setInterval(sweep, sweepMs).unref();
    },
    size: () => watched.size,
  };
}

function hasBody(req: IncomingMessage): boolean {
  const length = req.headers["content-length"];
  return req.headers["transfer-encoding"] !== undefined || (length !== undefined && length !== "0");
}

/**
 * Someone reads the body (a flowing stream, or a 'readable' listener as `for await` uses) and
 * nothing waits unread on the server's side: the next byte is the client's to send.
 */
function waitingForClient(req: IncomingMessage): boolean {
  const reading = req.readableFlowing === true || req.listenerCount("readable") > 0;
  return reading && req.readableLength === 0 && (req.socket?.readableLength ?? 0) === 0;
}
