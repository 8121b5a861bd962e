import http from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { records } from "@/lib/records";
import * as f from "@/tests/support/fixtures";
import { api } from "@/tests/support/http";
import { DIALECT, startServer, type TestServer } from "@/tests/support/server";
import { sleep, until } from "@/tests/support/wait";

/**
 * Issue 17, item 2: the multi-process server (lib/server/cluster.ts) with two workers. Writes
 * through both workers at once never fail (SQLite's lock across processes, waited for without
 * SQLITE_BUSY reaching a client); /metrics adds up every worker's counts; a worker killed under
 * load fails only the requests in flight on it and is replaced.
 */
let server: TestServer;

beforeAll(async () => {
  server = await startServer({ env: { ENHYDRIS_WORKERS: "2" } });
}, 120_000);
afterAll(async () => {
  await server?.stop();
});

/** The primary's web worker processes. */
const workers = () => server.webWorkers();

const lines = (from: number, n: number) =>
  Array.from({ length: n }, (_, i) => `${new Date((from + i * 600) * 1000).toISOString().slice(0, 16)}Z,${i},`).join("\n");

/**
 * GET on a connection of its own, the response read whole; its status, or 0 when the connection
 * failed. No keep-alive: a pooled idle socket to the killed worker would fail a request that
 * never reached any worker, and the test counts only the requests in flight on it.
 */
function getOnNewConnection(url: string): Promise<number> {
  return new Promise((resolve) => {
    const request = http.get(url, { agent: false }, (response) => {
      response.resume();
      response.on("error", () => resolve(0));
      response.on("close", () => resolve(response.complete ? (response.statusCode ?? 0) : 0));
    });
    request.on("error", () => resolve(0));
  });
}

/**
 * Requests `path` from `clients` loops until `enough` says so (it sees the statuses so far); the
 * statuses (0: a failed connection). Counted, not timed: a slow machine answers fewer requests in
 * a given time.
 */
async function load(path: string, clients: number, enough: (statuses: number[]) => boolean): Promise<number[]> {
  const statuses: number[] = [];
  await Promise.all(Array.from({ length: clients }, async () => {
    while (!enough(statuses)) statuses.push(await getOnNewConnection(`${server.url}${path}`));
  }));
  return statuses;
}

describe(`two worker processes (${DIALECT})`, () => {
  it("runs a primary with two workers", async () => {
    expect((await until(async () => workers(), (w) => w.length === 2, 30_000, 100)).length).toBe(2);
  });

  it("stores concurrent uploads through both workers, none failing", async () => {
    const u = await f.user({ superuser: true });
    const sid = await f.station();
    const series: number[] = [];
    for (let i = 0; i < 6; i++) series.push(await f.series(await f.group(sid)));
    const start = Date.UTC(2020, 0, 1) / 1000;
    for (let round = 0; round < 3; round++) {
      const responses = await Promise.all(series.map((tid) =>
        api(server.url).post(`/api/stations/${sid}/timeseries/${tid}/data/`, {
          token: u.token, form: { timeseries_records: lines(start + round * 1000 * 600, 1000) },
        })));
      expect(responses.map((r) => r.status)).toEqual(series.map(() => 204));
    }
    for (const tid of series) expect((await records().summary(tid))?.count).toBe(3000);
  });

  it("adds up every worker's request counts in /metrics", async () => {
    const before = await healthCount();
    await Promise.all(Array.from({ length: 40 }, () => fetch(`${server.url}/api/health/`).then((r) => r.arrayBuffer())));
    expect(await healthCount()).toBe(before + 40);
  });

  it("fails only the requests in flight on a worker killed under load, and starts another", async () => {
    const sid = await f.station();
    const tid = await f.series(await f.group(sid));
    await f.addRecords(tid, Array.from({ length: 2000 }, (_, i) => [new Date(Date.UTC(2021, 0, 1) + i * 600_000).toISOString().slice(0, 16).replace("T", " "), i] as [string, number]));
    const [victim] = workers();
    const clients = 6;
    // The worker is killed once the clients have had 3 answers each (on average), and the load
    // goes on for as many requests again after the kill.
    let killedAt = 0;
    const statuses = await load(`/api/stations/${sid}/timeseries/${tid}/data/`, clients, (done) => {
      if (!killedAt && done.length >= clients * 3) {
        process.kill(victim, "SIGKILL");
        killedAt = done.length;
      }
      return killedAt > 0 && done.length >= killedAt + clients * 3;
    });
    expect(statuses.slice(0, killedAt).filter((s) => s !== 200)).toEqual([]);
    // At most one request per client can have been in flight on the killed worker.
    expect(statuses.filter((s) => s !== 200).length).toBeLessThanOrEqual(clients);
    const replaced = await until(async () => workers(), (w) => w.length === 2 && !w.includes(victim), 30_000, 100);
    expect(replaced.length).toBe(2);
    expect(replaced).not.toContain(victim);
    // Once the replacement listens, everything succeeds again.
    await sleep(3000);
    const after = await load(`/api/stations/${sid}/timeseries/${tid}/data/`, clients, (done) => done.length >= clients * 4);
    expect(after.filter((s) => s !== 200)).toEqual([]);
  }, 60_000);
});

/** /metrics' count of successful health checks (all workers). */
async function healthCount(): Promise<number> {
  const text = await (await fetch(`${server.url}/metrics`)).text();
  let sum = 0;
  for (const line of text.split("\n")) {
    if (line.startsWith("enhydris_http_requests_total{") && line.includes('route="/api/health/"') && line.includes('status="200"')) sum += Number(line.split(" ").pop());
  }
  return sum;
}
