import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { db, Prisma } from "@/lib/db";
import { api } from "@/tests/support/http";
import * as f from "@/tests/support/fixtures";
import { startServer, type TestServer } from "@/tests/support/server";

/**
 * A hostile source instance (replication.md): the links and bodies it sends must not make the
 * replica send requests, and the source's credentials with them, to other hosts, nor store more
 * than ENHYDRIS_MAX_UPLOAD_SIZE. A proxy in front of a real source (A) turns it hostile; another
 * host (`elsewhere`) records what reaches it.
 */
let A: TestServer;
let B: TestServer;
let proxy: Server;
let proxyUrl: string;
let elsewhere: Server;
let elsewhereUrl: string;
const reachedElsewhere: { url: string; headers: IncomingHttpHeaders }[] = [];
let mode: "content-elsewhere" | "endless-content" = "content-elsewhere";

const MAX_UPLOAD = 4096;
let aToken = "";
let bAdmin: f.TestUser;
let station = 0;

async function listen(server: Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return `http://127.0.0.1:${(server.address() as { port: number }).port}`;
}

beforeAll(async () => {
  A = await startServer();
  aToken = (await f.user({ superuser: true })).token;
  station = await f.station({ name: "Hostile", ownerId: await f.organization("Hostile Org") });
  await f.attachment("files", station, { fileName: "manual.pdf", bytes: "%PDF-1.4 manual", descr: "Manual" });

  elsewhere = createServer((req, res) => {
    reachedElsewhere.push({ url: req.url ?? "", headers: req.headers });
    res.writeHead(200, { "Content-Type": "text/plain" }).end("internal secret");
  });
  elsewhereUrl = await listen(elsewhere);

  proxy = createServer(async (req, res) => {
    const path = req.url ?? "/";
    if (mode === "endless-content" && /\/files\/\d+\/content\/$/.test(path)) {
      // No Content-Length: chunks that add up to more than the replica's limit.
      res.writeHead(200, { "Content-Type": "application/pdf", "Content-Disposition": 'attachment; filename="manual.pdf"' });
      for (let i = 0; i < 8; i++) res.write(Buffer.alloc(MAX_UPLOAD / 2, 0x41));
      res.end();
      return;
    }
    const upstream = await fetch(A.url + path, { method: req.method, headers: req.headers.authorization ? { Authorization: req.headers.authorization } : {} });
    let body = await upstream.text();
    // Every file's content link names another host (same path).
    if (mode === "content-elsewhere") body = body.replaceAll(`"content":"${A.url}`, `"content":"${elsewhereUrl}`);
    res.writeHead(upstream.status, { "Content-Type": upstream.headers.get("content-type") ?? "application/json" }).end(body);
  });
  proxyUrl = await listen(proxy);

  B = await startServer({ env: { ENHYDRIS_REPLICATION_TIMEOUT: "10", ENHYDRIS_MAX_UPLOAD_SIZE: String(MAX_UPLOAD), ENHYDRIS_OUTBOUND_ALLOW: "127.0.0.1" } });
  bAdmin = await f.user({ superuser: true });
}, 180_000);

afterAll(async () => {
  await B?.stop();
  await A?.stop();
  for (const server of [proxy, elsewhere]) {
    server?.closeAllConnections();
    await new Promise((resolve) => server?.close(resolve));
  }
});

async function sourceRun(name: string) {
  const b = api(B.url);
  const source = (await b.post("/api/replication/sources/", { token: bAdmin.token, json: { name, url: proxyUrl, token: aToken } })).json.id;
  const r = await b.post(`/api/replication/sources/${source}/run/`, { token: bAdmin.token, json: { wait: true } });
  expect(r.status).toBe(200);
  return { source, result: r.json };
}

describe("a hostile source", () => {
  it("cannot send the replica, nor the source's token, to another host through a file's content link", async () => {
    mode = "content-elsewhere";
    reachedElsewhere.length = 0;
    const { source, result } = await sourceRun("Links elsewhere");
    expect(result).toMatchObject({ status: "succeeded", error: null });
    expect(reachedElsewhere).toEqual([]);
    // The link's path was read from the source itself: the file's own bytes.
    const [row] = await db().query<{ local_id: number }>(Prisma.sql`
      SELECT local_id FROM replication_map WHERE source_id = ${source} AND kind = 'station' AND remote_id = ${station}`);
    const files = (await api(B.url).get(`/api/stations/${row.local_id}/files/`)).json.results;
    expect(files).toHaveLength(1);
    const content = await api(B.url).get(`/api/stations/${row.local_id}/files/${files[0].id}/content/`);
    expect(content.text).toBe("%PDF-1.4 manual");
  });

  it("cannot store a file larger than ENHYDRIS_MAX_UPLOAD_SIZE by sending no Content-Length", async () => {
    mode = "endless-content";
    const { result } = await sourceRun("Endless content");
    expect(result.status).toBe("failed");
    expect(result.error).toMatch(/^GET http:\/\/127\.0\.0\.1:\d+\/api\/stations\/\d+\/files\/\d+\/content\/: the file is larger than ENHYDRIS_MAX_UPLOAD_SIZE$/);
  });
});
