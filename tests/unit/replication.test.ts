import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { Readable } from "node:stream";
import { ZipArchive } from "archiver";
import { describe, expect, it } from "vitest";
import { MalformedRecords, RecordLineReader } from "@/lib/formats/record-stream";
import { resolveTimeZone } from "@/lib/formats/timezone";
import { NOTHING_ALLOWED, parseOutboundAllow } from "@/lib/outbound";
import { normalizeSourceUrl, parseCsv, Remote, SourceError, zipMember } from "@/lib/replication/remote";
import { variableDescr } from "@/lib/replication/run";

const UTC = resolveTimeZone("UTC")!;
const parsedAllow = parseOutboundAllow("127.0.0.1");
/** The test servers listen on loopback, which the outbound guard refuses unless allowed. */
const LOOPBACK = parsedAllow.ok ? parsedAllow.allow : undefined;
const line = (i: number) => `${new Date((1_600_000_020 + i * 600) * 1000).toISOString().slice(0, 16).replace("T", " ")},${(i / 10).toFixed(1)},${i % 3 === 0 ? "A B" : ""}\r\n`;

describe("RecordLineReader", () => {
  it("reads record lines cut anywhere, into typed arrays", () => {
    const text = Array.from({ length: 100_000 }, (_, i) => line(i)).join("");
    const bytes = new TextEncoder().encode(text);
    const reader = new RecordLineReader(UTC);
    for (let p = 0; p < bytes.length; p += 7_919) reader.pushBytes(bytes.subarray(p, p + 7_919));
    const batch = reader.end();
    expect(batch.timestamps.length).toBe(100_000);
    expect(batch.timestamps[99_999]).toBe(1_600_000_020 + 99_999 * 600);
    expect(batch.values[12]).toBe(1.2);
    expect(batch.flags[3]).toBe("A B");
    expect(batch.flags[4]).toBe("");
  });

  it("reads a multi-byte character cut between pieces", () => {
    const reader = new RecordLineReader(UTC);
    const bytes = new TextEncoder().encode("2020-01-01 00:00,1,Ü\r\n");
    reader.pushBytes(bytes.subarray(0, 20));
    reader.pushBytes(bytes.subarray(20));
    expect(reader.end().flags).toEqual(["Ü"]);
  });

  it("numbers lines across pieces in its messages", () => {
    const reader = new RecordLineReader(UTC);
    const text = Array.from({ length: 60_000 }, (_, i) => line(i)).join("") + "2030-01-01 00:00,x,\r\n";
    reader.pushText(text.slice(0, 1_500_000));
    reader.pushText(text.slice(1_500_000));
    expect(() => reader.end()).toThrow(new MalformedRecords(['line 60001: invalid value "x"']));
  });

  it("refuses records out of time order, within and across pieces", () => {
    const within = new RecordLineReader(UTC);
    within.pushText(line(2) + line(1));
    expect(() => within.end()).toThrow(/line 2: records out of time order/);
    const across = new RecordLineReader(UTC);
    across.pushText(Array.from({ length: 50_000 }, (_, i) => line(i + 10)).join(""));
    across.pushText(line(3));
    expect(() => across.end()).toThrow(/line 50001: records out of time order/);
  });

  it("refuses text that is not UTF-8", () => {
    const reader = new RecordLineReader(UTC);
    expect(() => reader.pushBytes(Uint8Array.from([0xff, 0xfe, 0x0a]))).toThrow(/not UTF-8/);
  });
});

describe("the source's answers", () => {
  it("normalizes a source URL to its site root", () => {
    expect(normalizeSourceUrl("https://example.org/")).toBe("https://example.org");
    expect(normalizeSourceUrl(" http://example.org/enhydris/api/ ")).toBe("http://example.org/enhydris");
    expect(normalizeSourceUrl("ftp://example.org/")).toBeNull();
    expect(normalizeSourceUrl("https://user:pw@example.org/")).toBeNull();
    expect(normalizeSourceUrl("example.org")).toBeNull();
  });

  it("reads a variable's descr here and its translations at the reference system", () => {
    expect(variableDescr({ id: 1, descr: "Temperature" })).toBe("Temperature");
    expect(variableDescr({ id: 1, translations: { el: { descr: "Θερμοκρασία" }, en: { descr: "Temperature" } } })).toBe("Temperature");
    expect(variableDescr({ id: 1, translations: { el: { descr: "Θερμοκρασία" } } })).toBe("Θερμοκρασία");
    expect(variableDescr({ id: 1 })).toBe("");
  });

  it("reads the record counts of a station export", async () => {
    const zip = new ZipArchive({ zlib: { level: 6 } });
    zip.append("id,Name\r\n1,x\r\n", { name: "stations.csv" });
    zip.append('id,Remarks,Number of records\r\n7,"two\r\nlines, and ""quotes""",1051200\r\n8,,0\r\n', { name: "timeseries.csv" });
    void zip.finalize();
    const chunks: Buffer[] = [];
    for await (const chunk of Readable.from(zip)) chunks.push(Buffer.from(chunk));
    const csv = zipMember(Buffer.concat(chunks), "timeseries.csv")!;
    expect(parseCsv(csv)).toEqual([["id", "Remarks", "Number of records"], ["7", 'two\r\nlines, and "quotes"', "1051200"], ["8", "", "0"]]);
    expect(zipMember(Buffer.concat(chunks), "missing.csv")).toBeNull();
    expect(zipMember(Buffer.from("not a zip"), "timeseries.csv")).toBeNull();
  });

  it("inflates a zip member no further than its limit (a zip bomb is no table)", async () => {
    const zip = new ZipArchive({ zlib: { level: 9 } });
    zip.append(Buffer.alloc(4_000_000, 0x30), { name: "timeseries.csv" });
    void zip.finalize();
    const chunks: Buffer[] = [];
    for await (const chunk of Readable.from(zip)) chunks.push(Buffer.from(chunk));
    const bomb = Buffer.concat(chunks);
    expect(bomb.length).toBeLessThan(50_000);
    expect(zipMember(bomb, "timeseries.csv", 1_000_000)).toBeNull();
    expect(zipMember(bomb, "timeseries.csv")).toHaveLength(4_000_000);
  });

  it("reads an answer no further than its limit, with or without a Content-Length", async () => {
    const server: Server = createServer((req, res) => {
      if (req.url!.startsWith("/api/said/")) {
        res.writeHead(200, { "Content-Type": "application/json", "Content-Length": "5000" }).end(`{"a":"${"x".repeat(4992)}"}`);
        return;
      }
      // Never ends: a chunk after another until the client goes away.
      res.writeHead(200, { "Content-Type": "application/json" });
      res.write('{"a":"');
      const more = () => res.write("x".repeat(1000), () => setImmediate(more));
      more();
      res.on("close", () => res.destroy());
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      const remote = new Remote(url, {}, 5_000, 4_096, LOOPBACK);
      await expect(remote.object("endless/")).rejects.toThrow(new SourceError(`GET ${url}/api/endless/: the answer is larger than 4096 bytes`));
      await expect(remote.object("said/")).rejects.toThrow(new SourceError(`GET ${url}/api/said/: the answer is larger than 4096 bytes`));
      expect(await new Remote(url, {}, 5_000, 5_000, LOOPBACK).object("said/")).toEqual({ a: "x".repeat(4992) });
    } finally {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    }
  });
});

describe("Remote's redirects", () => {
  /** A server answering with `answer`, recording each request's method, path and body. */
  async function serve(answer: (method: string, path: string) => { status: number; headers?: Record<string, string>; body?: string }) {
    const seen: { method: string; path: string; body: string }[] = [];
    const server: Server = createServer((req, res) => {
      let body = "";
      req.on("data", (c) => (body += c));
      req.on("end", () => {
        seen.push({ method: req.method!, path: req.url!, body });
        const a = answer(req.method!, req.url!);
        res.writeHead(a.status, { "Content-Type": "application/json", ...a.headers });
        res.end(a.body ?? "");
      });
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, seen, close: () => new Promise((r) => server.close(r)) };
  }

  it("never sends the login's password to another origin (a 307 elsewhere fails, naming it)", async () => {
    const elsewhere = await serve(() => ({ status: 200, body: '{"key":"stolen"}' }));
    const source = await serve(() => ({ status: 307, headers: { Location: `${elsewhere.url}/api/auth/login/` } }));
    try {
      const remote = new Remote(source.url, { username: "alice", password: "secret" }, 5_000, undefined, LOOPBACK);
      const failure = await remote.open().catch((e: unknown) => e);
      expect(failure).toBeInstanceOf(SourceError);
      expect((failure as Error).message).toContain(`redirects to ${elsewhere.url}`);
      expect(elsewhere.seen).toEqual([]);
    } finally {
      await source.close();
      await elsewhere.close();
    }
  });

  it("follows redirects within the source, keeping a 307's body", async () => {
    const source = await serve((method, path) => (path === "/api/auth/login/"
      ? { status: 307, headers: { Location: "/api/v2/auth/login/" } }
      : { status: 200, body: '{"key":"abc"}' }));
    try {
      const remote = new Remote(source.url, { username: "alice", password: "secret" }, 5_000, undefined, LOOPBACK);
      await remote.open();
      expect(source.seen.map((r) => [r.method, r.path])).toEqual([["POST", "/api/auth/login/"], ["POST", "/api/v2/auth/login/"]]);
      expect(JSON.parse(source.seen[1].body)).toEqual({ username: "alice", password: "secret" });
    } finally {
      await source.close();
    }
  });
});

describe("Remote's outbound guard (telemetry.md §3)", () => {
  it("refuses a source on an address that ENHYDRIS_OUTBOUND_ALLOW does not list, before sending anything", async () => {
    let requests = 0;
    const server: Server = createServer((_req, res) => {
      requests++;
      res.writeHead(200, { "Content-Type": "application/json" }).end("{}");
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      const failure = await new Remote(url, { token: "t0ken-value" }, 5_000, undefined, NOTHING_ALLOWED)
        .object("stations/").catch((e: unknown) => e);
      expect(failure).toEqual(new SourceError(`GET ${url}/api/stations/: 127.0.0.1 is a loopback address, which is not allowed (see ENHYDRIS_OUTBOUND_ALLOW)`));
      expect(requests).toBe(0);
      expect(await new Remote(url, {}, 5_000, undefined, LOOPBACK).object("stations/")).toEqual({});
    } finally {
      await new Promise((r) => server.close(r));
    }
  });
});

