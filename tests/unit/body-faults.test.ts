import { createServer, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { answerBodyFaultsAsClientErrors, markBodyFaults } from "@/lib/server/next-internals";
import { withRequestContext } from "@/lib/observability/logger.mjs";

/**
 * A server that answers as Next does when a site post fails: it reports the error with
 * console.error, then answers 500 (by writeHead, or by write/end with the status set).
 */
const failures: Record<string, { error: Error; respond: (res: ServerResponse) => void }> = {
  "/json": { error: new SyntaxError('Unexpected token \'g\', "garbage" is not valid JSON'), respond: (res) => { res.statusCode = 500; res.setHeader("Content-Type", "text/x-component"); res.write("0:{}\n"); res.end("1:E{}\n"); } },
  "/multipart": { error: new TypeError("Failed to parse body as FormData."), respond: (res) => { res.writeHead(500, { "Content-Type": "text/plain" }); res.end("Internal Server Error"); } },
  "/references": { error: new Error("Connection closed."), respond: (res) => { res.statusCode = 500; res.end("1:E{}\n"); } },
  "/size": { error: Object.assign(new Error("Body exceeded 100mb limit.\nTo configure the body size limit for Server Actions, see: …"), { statusCode: 413 }), respond: (res) => { res.statusCode = 500; res.end("1:E{}\n"); } },
  "/ours": { error: new Error("the database is down"), respond: (res) => { res.statusCode = 500; res.end("Internal Server Error"); } },
};

let server: Server;
let base = "";
let unwrap: () => void;
const warnings = vi.fn();
const errors = vi.fn();

beforeAll(async () => {
  const originalWarn = console.warn;
  const originalError = console.error;
  console.warn = warnings;
  console.error = errors;
  unwrap = markBodyFaults();
  afterAll(() => {
    unwrap();
    console.warn = originalWarn;
    console.error = originalError;
  });
  server = createServer((req, res) => {
    const context = { id: "r", route: null, userId: null };
    withRequestContext(context, () => {
      res.setHeader("X-Content-Type-Options", "nosniff");
      if (req.method === "POST") answerBodyFaultsAsClientErrors(res, context);
      const failure = failures[req.url ?? ""];
      console.error(failure.error);
      failure.respond(res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

describe("a site post whose body Next could not take", () => {
  it("gets a plain 400 instead of Next's 500, however the response starts, with this server's headers kept", async () => {
    for (const path of ["/json", "/multipart", "/references"]) {
      const r = await fetch(`${base}${path}`, { method: "POST", body: "x" });
      expect(r.status, path).toBe(400);
      expect(r.headers.get("content-type"), path).toBe("text/plain; charset=utf-8");
      expect(r.headers.get("x-content-type-options"), path).toBe("nosniff");
      expect(await r.text(), path).toBe("Bad request: the form's data could not be read.\n");
    }
    const size = await fetch(`${base}/size`, { method: "POST", body: "x" });
    expect(size.status).toBe(413);
    expect(await size.text()).toBe("Too large: a form may send at most 100mb.\n");
    // Reported as warnings, not errors.
    expect(warnings).toHaveBeenCalledTimes(4);
    expect(errors).not.toHaveBeenCalled();
  });

  it("keeps the 500 of any other error, and of a request that is not a post", async () => {
    const ours = await fetch(`${base}/ours`, { method: "POST", body: "x" });
    expect(ours.status).toBe(500);
    expect(await ours.text()).toBe("Internal Server Error");
    const get = await fetch(`${base}/multipart`);
    expect(get.status).toBe(500);
    expect(await get.text()).toBe("Internal Server Error");
    expect(errors).toHaveBeenCalledTimes(2);
  });
});
