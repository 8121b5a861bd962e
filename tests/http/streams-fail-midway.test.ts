import { randomBytes } from "node:crypto";
import { request, type IncomingMessage } from "node:http";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { db } from "@/lib/db";
import { records } from "@/lib/records";
import * as f from "@/tests/support/fixtures";
import { DIALECT, startServer, type TestServer } from "@/tests/support/server";

/**
 * Issue 36, item 3: a streamed response whose source fails after its head has been sent (a data
 * download, the stations' zip export) ends its connection, so that the client sees the transfer
 * fail instead of waiting for the rest for ever. The source fails for real: a table the stream
 * reads from is renamed away while the client holds the transfer back (the database taken away
 * mid-stream), and given back afterwards. Through the API router of server.mjs (`dispatch`) and
 * through Next's route handlers (a server that hands every request to Next).
 */

interface Transfer {
  status: number;
  headers: IncomingMessage["headers"];
  /** Bytes that arrived. */
  received: number;
  /** The body arrived whole (its chunked encoding's end): false when the connection ended first. */
  complete: boolean;
  /** How the transfer ended. */
  outcome: "end" | "error" | "timeout";
}

/**
 * GETs `path`, reads until `pauseAfter` bytes have arrived, holds the transfer back while
 * `meanwhile` runs, then reads on: the outcome within `timeoutMs`.
 */
function heldTransfer(base: string, path: string, pauseAfter: number, meanwhile: () => Promise<void>, timeoutMs = 30_000): Promise<Transfer> {
  const url = new URL(base + path);
  return new Promise((resolve, reject) => {
    const req = request({ host: url.hostname, port: url.port, path: url.pathname + url.search }, (res) => {
      let received = 0;
      let paused = false;
      let settled = false;
      const settle = (outcome: Transfer["outcome"]) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        resolve({ status: res.statusCode ?? 0, headers: res.headers, received, complete: res.complete, outcome });
      };
      const timer = setTimeout(() => {
        settle("timeout");
        req.destroy();
      }, timeoutMs);
      res.on("data", (chunk: Buffer) => {
        received += chunk.length;
        if (!paused && received >= pauseAfter) {
          paused = true;
          res.pause();
          // The server has filled the connection's buffers and waits on them by then.
          setTimeout(() => meanwhile().then(() => res.resume(), reject), 1_000);
        }
      });
      res.on("end", () => settle(res.complete ? "end" : "error"));
      res.on("aborted", () => settle("error"));
      res.on("error", () => settle("error"));
      res.on("close", () => settle(res.complete ? "end" : "error"));
    });
    req.on("error", reject);
    req.end();
  });
}

/** Renames a table away (or back): the server's next query of it fails. */
async function renameTable(from: string, to: string): Promise<void> {
  // On the native connections: the service's own writes begin by touching `timeseries`.
  const statement = `ALTER TABLE ${from} RENAME TO ${to}`;
  const { sqlite, pool } = db();
  if (sqlite) sqlite.exec(statement);
  else await pool!.query(statement);
}

const RECORDS = 1_000_000;

async function seriesWithManyRecords(): Promise<{ path: string }> {
  const e = await f.workedExample();
  const n = RECORDS;
  const start = Date.UTC(2000, 0, 1) / 1000;
  const timestamps = new Float64Array(n);
  const values = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    timestamps[i] = start + i * 600;
    values[i] = (i % 1000) / 7;
  }
  const flags = new Array<string>(n).fill("");
  const r = await records().replace(e.seriesId, -1e12, { timestamps, values, flags });
  expect(r).toBeGreaterThan(0);
  return { path: `${e.path}/data/` };
}

/** Stations whose remarks are random text (a zip that does not shrink), for an export larger than the connection's buffers. */
async function stationsWithLongRemarks(count: number): Promise<void> {
  const owner = await f.organization();
  for (let i = 0; i < count; i++) await f.station({ name: `Remote ${i}`, remarks: randomBytes(225_000).toString("base64"), ownerId: owner });
}

function midwayFailures(label: string, start: () => Promise<TestServer>) {
  describe(`${label} (${DIALECT})`, () => {
    let server: TestServer;
    let data: { path: string };
    beforeAll(async () => {
      server = await start();
      data = await seriesWithManyRecords();
      await stationsWithLongRemarks(160);
    }, 300_000);
    afterAll(() => server?.stop());

    it("a data download whose records can no longer be read ends its connection", async () => {
      const whole = await fetch(server.url + data.path);
      expect(whole.status).toBe(200);
      const size = (await whole.arrayBuffer()).byteLength;
      expect(size).toBeGreaterThan(20_000_000);

      const transfer = await heldTransfer(server.url, data.path, 100_000, () => renameTable("timeseries_record", "timeseries_record_away"));
      try {
        expect(transfer.status).toBe(200);
        expect(transfer.headers["transfer-encoding"]).toBe("chunked");
        expect(transfer.outcome).toBe("error");
        expect(transfer.complete).toBe(false);
        expect(transfer.received).toBeLessThan(size);
      } finally {
        await renameTable("timeseries_record_away", "timeseries_record");
      }
      // The server goes on serving the whole download.
      const again = await fetch(server.url + data.path);
      expect(again.status).toBe(200);
      expect((await again.arrayBuffer()).byteLength).toBe(size);
    }, 120_000);

    it("the stations' zip export whose second file can no longer be read ends its connection", async () => {
      const whole = await fetch(`${server.url}/api/stations/csv/`);
      expect(whole.status).toBe(200);
      const size = (await whole.arrayBuffer()).byteLength;
      expect(size).toBeGreaterThan(35_000_000);

      const transfer = await heldTransfer(server.url, "/api/stations/csv/", 100_000, () => renameTable("timeseries", "timeseries_away"));
      try {
        expect(transfer.status).toBe(200);
        expect(transfer.headers["content-type"]).toBe("application/zip");
        expect(transfer.outcome).toBe("error");
        expect(transfer.complete).toBe(false);
        expect(transfer.received).toBeLessThan(size);
      } finally {
        await renameTable("timeseries_away", "timeseries");
      }
      // The server's log is read through a pipe: the line may come a moment after the connection ends.
      await vi.waitFor(() => expect(server.output()).toMatch(/station export failed.*timeseries/), { timeout: 15_000 });
      const again = await fetch(`${server.url}/api/stations/csv/`);
      expect(again.status).toBe(200);
      expect((await again.arrayBuffer()).byteLength).toBe(size);
    }, 120_000);
  });
}

midwayFailures("Through the API router of server.mjs", () => startServer());
midwayFailures("Through Next's route handlers", () => startServer({ script: "tests/support/next-only-server.mjs" }));
