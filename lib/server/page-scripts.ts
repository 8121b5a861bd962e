import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import type { IncomingMessage, ServerResponse } from "node:http";

/**
 * Browser scripts that scripts/build-server.mjs builds beside the server's bundle, for pages that
 * must name them before Next's scripts load (the workbench's records worker, RECORDS_WORKER_PATH).
 * Read once; revalidated by ETag, as their names carry no hash.
 */
const built = new Map<string, { body: Buffer; etag: string } | null>();

function builtScript(name: string): { body: Buffer; etag: string } | null {
  if (!built.has(name)) {
    try {
      const body = readFileSync(new URL(`./${name}`, import.meta.url));
      built.set(name, { body, etag: `"${createHash("sha256").update(body).digest("base64url").slice(0, 22)}"` });
    } catch {
      built.set(name, null);
    }
  }
  return built.get(name)!;
}

export function serveBuiltScript(req: IncomingMessage, res: ServerResponse, name: string): void {
  const text = { "Content-Type": "text/plain; charset=utf-8" };
  if (req.method !== "GET" && req.method !== "HEAD") {
    res.writeHead(405, { ...text, Allow: "GET, HEAD" });
    res.end(`Method "${req.method}" not allowed.`);
    return;
  }
  const script = builtScript(name);
  if (!script) {
    res.writeHead(404, text);
    res.end("Not found.");
    return;
  }
  const headers = { "Cache-Control": "public, no-cache", ETag: script.etag };
  if (req.headers["if-none-match"] === script.etag) {
    res.writeHead(304, headers);
    res.end();
    return;
  }
  res.writeHead(200, { ...headers, "Content-Type": "text/javascript; charset=utf-8", "Content-Length": String(script.body.length) });
  res.end(req.method === "HEAD" ? undefined : script.body);
}
