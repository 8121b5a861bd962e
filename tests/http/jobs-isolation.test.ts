import { createServer, type Server, type ServerResponse } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { getJob, lastStartedJob, type Job } from "@/lib/jobs/queue";
import { timedOut } from "@/lib/jobs/runner";
import { processKey } from "@/lib/processing/state";
import { records } from "@/lib/records";
import { sourceKey } from "@/lib/replication/sources";
import * as f from "@/tests/support/fixtures";
import { api } from "@/tests/support/http";
import { processesApi } from "@/tests/support/processes";
import { DIALECT, startServer, type TestServer } from "@/tests/support/server";
import { until } from "@/tests/support/wait";

/**
 * Issue 36, items 1 and 2: jobs never block the web. A CPU-heavy process run (checks over half a
 * million records) and a replication source that trickles its answer for ever run at once, each
 * in its pool of the job process; the process run finishes while the replication still runs, and
 * meanwhile /api/health/ and an API read answer within 100 ms. The replication (whose own limit,
 * ENHYDRIS_REPLICATION_TIMEOUT, is set out of the way) is stopped at ENHYDRIS_JOB_TIMEOUT and
 * its job failed, not retried.
 */
const TIMEOUT_SECONDS = 60;
const RECORDS = 500_000;

let server: TestServer;
let trickle: Server;
let trickleUrl = "";
const trickling = new Set<ServerResponse>();

beforeAll(async () => {
  // Answers every request with the start of a JSON body, then a space every 200 ms, for ever.
  trickle = createServer((_req, res) => {
    trickling.add(res);
    res.writeHead(200, { "Content-Type": "application/json" });
    res.write('{"count": 1, "results": [');
    const timer = setInterval(() => res.write(" "), 200);
    res.on("close", () => {
      clearInterval(timer);
      trickling.delete(res);
    });
  });
  await new Promise<void>((resolve) => trickle.listen(0, "127.0.0.1", resolve));
  trickleUrl = `http://127.0.0.1:${(trickle.address() as { port: number }).port}`;
  // The trickling source listens on 127.0.0.1, which outbound requests reach only when allowed.
  server = await startServer({ env: { ENHYDRIS_JOB_TIMEOUT: String(TIMEOUT_SECONDS), ENHYDRIS_REPLICATION_TIMEOUT: "3600", ENHYDRIS_OUTBOUND_ALLOW: "127.0.0.1" } });
}, 180_000);

afterAll(async () => {
  await server?.stop();
  trickle?.closeAllConnections();
  await new Promise((resolve) => trickle?.close(resolve));
});

/** Milliseconds a GET takes, its status checked. */
async function timed(url: string): Promise<number> {
  const t = performance.now();
  const r = await fetch(url);
  await r.arrayBuffer();
  expect(r.status, url).toBe(200);
  return performance.now() - t;
}

const median = (list: number[]) => [...list].sort((a, b) => a - b)[Math.floor(list.length / 2)];
const ms = (list: number[]) => `median ${median(list).toFixed(1)} ms, max ${Math.max(...list).toFixed(1)} ms over ${list.length}`;

describe(`jobs in the job process (${DIALECT})`, () => {
  it("run a CPU-heavy process run beside a trickling replication source, while /api/health/ and the API answer within 100 ms", async () => {
    const http = api(server.url);
    const admin = await f.user({ superuser: true });
    const sid = await f.station({}, admin.id);
    const gid = await f.group(sid);
    const tid = await f.series(gid, { type: "Initial", timeStep: "10min" });
    const t0 = Date.UTC(2000, 0, 1) / 1000;
    await records().write(tid, {
      timestamps: Float64Array.from({ length: RECORDS }, (_, i) => t0 + i * 600),
      values: Float64Array.from({ length: RECORDS }, (_, i) => 10 + 10 * Math.sin(i / 100)),
      flags: new Array<string>(RECORDS).fill(""),
    }, { mode: "append", validate: () => [] });
    const health = `${server.url}/api/health/`;
    const read = `${server.url}/api/stations/${sid}/`;

    // The same requests with no job running.
    const idle: number[] = [];
    for (let i = 0; i < 20; i++) idle.push(await timed(health), await timed(read));

    // The replication source trickles: its job runs until the timeout stops it.
    const created = await http.post("/api/replication/sources/", { token: admin.token, json: { url: trickleUrl, token: "t" } });
    expect(created.status, created.text).toBe(201);
    const source = created.json.id as number;
    expect((await http.post(`/api/replication/sources/${source}/run/`, { token: admin.token, json: {} })).status).toBeLessThan(300);
    const replication = await until(() => lastStartedJob([sourceKey(source)]), (j) => j?.status === "running", 60_000, 50);
    expect(replication?.status).toBe("running");
    await until(async () => trickling.size, (n) => n > 0, 30_000);

    // A CPU-heavy process run: checks over every record, from scratch.
    const checks = await http.post(processesApi(sid, gid), {
      token: admin.token,
      json: {
        type: "checks",
        range_check: { lower_bound: 0, upper_bound: 40, soft_lower_bound: 2, soft_upper_bound: 38 },
        rate_of_change_check: { symmetric: true, thresholds: [{ delta_t: "10min", allowed_diff: 5 }] },
      },
    });
    expect(checks.status, checks.text).toBe(201);
    const key = processKey(checks.json.id as number);
    const started = await until(() => lastStartedJob([key]), (j) => j?.status !== "queued", 60_000, 20);
    let run: Job | null = started;
    const busy: number[] = [];
    while (run?.status === "running") {
      busy.push(await timed(health), await timed(read));
      run = await getJob(run.id);
    }
    console.log(`health and a read (${DIALECT}): with no job ${ms(idle)}; during the process run and the replication ${ms(busy)}`);
    expect(run).toMatchObject({ status: "succeeded", attempts: 1 });
    expect(busy.length).toBeGreaterThanOrEqual(10);
    // The replication, in a pool of its own, neither held the run up nor stopped.
    expect(await getJob(replication!.id)).toMatchObject({ status: "running" });
    expect(median(busy)).toBeLessThan(100);
    // No request waited for a job (one in a web worker's event loop held it for seconds).
    expect(Math.max(...busy)).toBeLessThan(1_000);
    expect((await records().summary(checks.json.target_timeseries as number))?.count).toBe(RECORDS);

    // The timeout stops the replication (its thread terminated: the source's connection closes)
    // and fails its job, without a retry.
    const failed = await until(() => getJob(replication!.id), (j) => j?.status === "failed", (TIMEOUT_SECONDS + 60) * 1000, 200);
    expect(failed).toMatchObject({ status: "failed", attempts: 1, error: timedOut(TIMEOUT_SECONDS) });
    await until(async () => trickling.size, (n) => n === 0, 10_000);
    expect(trickling.size).toBe(0);
  }, 480_000);
});
