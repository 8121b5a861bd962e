import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { connect, type AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bodyIdleWatch } from "@/lib/server/body-idle";

/**
 * A real HTTP server with the watch at 1 s: what a client that stops sending gets, and that
 * neither a slow but steady client nor the server's own slowness in reading is cut off.
 */
const IDLE_MS = 1_000;
const stalls: string[] = [];
let server: Server;
let port = 0;
let watch: ReturnType<typeof bodyIdleWatch>;

async function readAll(req: IncomingMessage): Promise<string> {
  let text = "";
  for await (const chunk of req) text += chunk;
  return text;
}

const handlers: Record<string, (req: IncomingMessage, res: ServerResponse) => Promise<void>> = {
  "/echo": async (req, res) => void res.end(`got ${(await readAll(req)).length}`),
  // Reads nothing for a while (waiting for a lock, say), then the whole body.
  "/late": async (req, res) => {
    await new Promise((r) => setTimeout(r, 2.5 * IDLE_MS));
    res.end(`got ${(await readAll(req)).length}`);
  },
  // Reads a first chunk, holds the stream paused (writing to a database, say), then the rest.
  "/paused": async (req, res) => {
    const first: Buffer = await new Promise((resolve) => req.once("data", resolve));
    req.pause();
    await new Promise((r) => setTimeout(r, 2.5 * IDLE_MS));
    res.end(`got ${first.length + (await readAll(req)).length}`);
  },
  // Starts its answer before the body is in.
  "/streaming": async (req, res) => {
    res.writeHead(200, { "Content-Type": "text/plain" });
    res.write("started\n");
    res.end(`got ${(await readAll(req)).length}`);
  },
};

beforeAll(async () => {
  watch = bodyIdleWatch({
    idleMs: IDLE_MS,
    onStall: (req) => void stalls.push(req.url ?? ""),
    answer: () => ({ contentType: "text/plain; charset=utf-8", body: "the body stopped" }),
  });
  server = createServer((req, res) => {
    watch.watch(req, res);
    handlers[req.url ?? ""](req, res).catch(() => res.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  port = (server.address() as AddressInfo).port;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

/**
 * Sends a POST of `length` bytes as `parts` (each after its delay in ms), and returns what came
 * back by the time the server closed the connection (or `waitMs` after the last part).
 */
function post(path: string, length: number, parts: [number, string][], waitMs = 5_000): Promise<{ text: string; closedBy: "server" | "client"; ms: number }> {
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const socket = connect(port, "127.0.0.1");
    let text = "";
    let done = false;
    const finish = (closedBy: "server" | "client") => {
      if (done) return;
      done = true;
      socket.destroy();
      resolve({ text, closedBy, ms: Date.now() - started });
    };
    socket.on("data", (chunk) => {
      text += chunk;
      // A complete answer to a kept-alive connection: no need to wait for a close.
      const length = /Content-Length: (\d+)\r\n/i.exec(text);
      const head = text.indexOf("\r\n\r\n");
      if (length && head >= 0 && text.length - head - 4 >= Number(length[1]) && !/Connection: close/i.test(text)) finish("client");
    });
    socket.on("end", () => finish("server"));
    socket.on("close", () => finish("server"));
    socket.on("error", reject);
    socket.on("connect", async () => {
      socket.write(`POST ${path} HTTP/1.1\r\nHost: localhost\r\nContent-Type: text/plain\r\nContent-Length: ${length}\r\n\r\n`);
      for (const [delay, part] of parts) {
        await new Promise((r) => setTimeout(r, delay));
        if (done) return;
        socket.write(part);
      }
      setTimeout(() => finish("client"), waitMs);
    });
  });
}

describe("a request body that stops arriving", () => {
  it("gets 408 and a closed connection once nothing has come for the idle time", async () => {
    const r = await post("/echo", 100, [[0, "x".repeat(10)]]);
    expect(r.closedBy).toBe("server");
    expect(r.text).toMatch(/^HTTP\/1\.1 408 Request Timeout\r\n/);
    expect(r.text).toContain("Connection: close\r\n");
    expect(r.text.endsWith("\r\n\r\nthe body stopped")).toBe(true);
    expect(r.ms).toBeGreaterThanOrEqual(IDLE_MS);
    expect(stalls).toContain("/echo");
  });

  it("has its connection closed when the answer had already started", async () => {
    const r = await post("/streaming", 100, [[0, "x".repeat(10)]]);
    expect(r.closedBy).toBe("server");
    expect(r.text).toMatch(/^HTTP\/1\.1 200 OK\r\n/);
    expect(r.text).not.toContain("got ");
  });
});

describe("what is not cut off", () => {
  it("a slow but steady body, however long it takes in all", async () => {
    const parts = Array.from({ length: 8 }, () => [IDLE_MS / 4, "xxxxx"] as [number, string]);
    const r = await post("/echo", 40, parts);
    expect(r.text).toMatch(/^HTTP\/1\.1 200 OK\r\n/);
    expect(r.text.endsWith("got 40")).toBe(true);
  });

  // Bodies larger than the stream's and the sockets' buffers, so that the client is held back
  // by the server's pace and no byte moves while the server is not reading.
  const LARGE = 16 << 20;

  it("a body the server has not started to read", async () => {
    const r = await post("/late", LARGE, [[0, "y".repeat(LARGE)]]);
    expect(r.text).toMatch(/^HTTP\/1\.1 200 OK\r\n/);
    expect(r.text.endsWith(`got ${LARGE}`)).toBe(true);
  });

  it("keeps nothing of a request once it is answered", async () => {
    const r = await post("/echo", 10, [[0, "x".repeat(10)]]);
    expect(r.text.endsWith("got 10")).toBe(true);
    expect(watch.size()).toBe(0);
  });

  it("a body whose reading the server has paused", async () => {
    const r = await post("/paused", LARGE, [[0, "z".repeat(LARGE / 2)], [50, "z".repeat(LARGE / 2)]]);
    expect(r.text).toMatch(/^HTTP\/1\.1 200 OK\r\n/);
    expect(r.text.endsWith(`got ${LARGE}`)).toBe(true);
  });
});
