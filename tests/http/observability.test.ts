import { existsSync, readFileSync, statfsSync } from "node:fs";
import { dirname } from "node:path";
import { describe, expect, it } from "vitest";
import { db, Prisma } from "@/lib/db";
import { PRUNE_KEY } from "@/lib/jobs/maintenance";
import { enqueue, jobHistory } from "@/lib/jobs/queue";
import { api, rawRequest } from "@/tests/support/http";
import { siteLogin } from "@/tests/support/site-session";
import { suiteServer } from "@/tests/support/suite";
import * as f from "@/tests/support/fixtures";
import { DIALECT, freePort, scratchDatabase, startServer } from "@/tests/support/server";
import { sample } from "@/tests/support/metrics";
import { until } from "@/tests/support/wait";
import { relay } from "@/tests/support/relay";

/** Issue 18, items 2–4: health, metrics, logs. */
/** A healthy answer; the queue holds at most the runner's scheduled maintenance job. */
const QUEUE = { depth: expect.any(Number), running: expect.any(Number), failed_24h: 0, oldest_job_age_seconds: expect.toBeOneOf([null, expect.any(Number)]) };
const HEALTHY = { status: "ok", database: "ok", migrations: "ok", queue: QUEUE };

/** The CPU time the processes have used so far, in milliseconds (/proc: user and system clock ticks, 100 a second). */
function cpuMsOf(pids: number[]): number {
  let ticks = 0;
  for (const pid of pids) {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    ticks += Number(fields[11]) + Number(fields[12]); // utime and stime, the 14th and 15th fields
  }
  return ticks * 10;
}

describe("api/health/", () => {
  const suite = suiteServer({ env: { ENHYDRIS_AUTHENTICATION_REQUIRED: "true", ENHYDRIS_ALLOWED_HOSTS: "hydro.example.org" } });

  it("answers 200 with every part, without a login, to any host, uncached", async () => {
    const r = await suite.http.get("/api/health/");
    expect(r.status).toBe(200);
    expect(r.json).toEqual(HEALTHY);
    expect(Object.keys(r.json)).toEqual(["status", "database", "migrations", "queue"]);
    expect(Object.keys(r.json.queue)).toEqual(["depth", "running", "failed_24h", "oldest_job_age_seconds"]);
    expect(r.headers.get("cache-control")).toBe("no-store");
    expect((await rawRequest(suite.server.url, "GET", "/api/health/", { Host: "10.1.2.3:3000" })).json).toEqual(HEALTHY);
    expect((await rawRequest(suite.server.url, "GET", "/api/health", { Host: "hydro.example.org" })).status).toBe(308);
  });

  it("shows the job queue's depth and the age of its oldest job", async () => {
    // The runner schedules its maintenance as it starts (the server may answer before that) to run
    // a minute later: wait for it, and keep it from running while the depth is compared.
    await until(() => jobHistory(PRUNE_KEY, 1), ([j]) => j?.status === "queued");
    await db().write((tx) => tx.job.updateMany({ where: { key: PRUNE_KEY, status: "queued" }, data: { runAfter: new Date(Date.now() + 3_600_000) } }));
    const before = (await suite.http.get("/api/health/")).json.queue;
    // A kind no runner takes stays queued.
    await enqueue({ kind: "test.nobody-runs-this", key: `health:${Date.now()}` });
    await new Promise((r) => setTimeout(r, 1100));
    const after = (await suite.http.get("/api/health/")).json.queue;
    expect(after.depth).toBe(before.depth + 1);
    expect(after.oldest_job_age_seconds).toBeGreaterThanOrEqual(1);
    const metrics = (await suite.http.get("/metrics")).text;
    expect(sample(metrics, "enhydris_job_queue_depth")).toBe(after.depth);
    expect(sample(metrics, "enhydris_job_queue_lag_seconds")).toBeGreaterThanOrEqual(1);
  });

  it("is cheap enough to poll every second", async () => {
    // The server's CPU time, not the wall-clock time: on a busy machine (the test and busy loops on
    // one core) 50 checks took 60 ms each, of waiting for the CPU.
    const started = cpuMsOf(suite.server.processes());
    for (let i = 0; i < 50; i++) expect((await suite.http.get("/api/health/")).status).toBe(200);
    expect((cpuMsOf(suite.server.processes()) - started) / 50).toBeLessThan(50);
  });

  it("answers 503 naming the migrations when the database lacks one", async () => {
    const [last] = await db().query<{ name: string }>(Prisma.sql`SELECT "name" FROM "_migrations" ORDER BY "name" DESC LIMIT 1`);
    await db().prisma.$executeRaw`DELETE FROM "_migrations" WHERE "name" = ${last.name}`;
    try {
      const r = await suite.http.get("/api/health/");
      expect(r.status).toBe(503);
      expect(r.json).toEqual({ status: "error", database: "ok", migrations: "pending", queue: QUEUE });
    } finally {
      await db().prisma.$executeRaw`INSERT INTO "_migrations" ("name", "applied_at") VALUES (${last.name}, ${DIALECT === "postgres" ? new Date() : new Date().toISOString()})`;
    }
    expect((await suite.http.get("/api/health/")).status).toBe(200);
  });
});

describe.runIf(DIALECT === "postgres")("api/health/ while PostgreSQL stops and starts", () => {
  it("turns 503 within a second, and 200 again without a restart of the service", async () => {
    const database = await scratchDatabase();
    const direct = new URL(database.url);
    const port = await freePort();
    const proxy = await relay({ host: direct.hostname, port: Number(direct.port || 5432) }, port);
    const through = new URL(database.url);
    through.hostname = "127.0.0.1";
    through.port = String(port);
    const server = await startServer({ databaseUrl: through.toString() });
    const http = api(server.url);
    try {
      expect((await http.get("/api/stations/")).status).toBe(200);
      expect((await http.get("/api/health/")).json).toEqual(HEALTHY);

      await proxy.stop();
      const stopped = performance.now();
      const r = await http.get("/api/health/");
      expect(performance.now() - stopped).toBeLessThan(1000);
      expect(r.status).toBe(503);
      expect(r.json).toEqual({ status: "error", database: "unavailable", migrations: "unknown", queue: null });
      expect((await http.get("/api/stations/")).status).toBe(503);

      await proxy.start();
      let status = 0;
      const deadline = performance.now() + 10_000;
      while (status !== 200 && performance.now() < deadline) {
        status = (await http.get("/api/health/")).status;
        if (status !== 200) await new Promise((resolve) => setTimeout(resolve, 100));
      }
      expect(status).toBe(200);
      expect((await http.get("/api/stations/")).status).toBe(200);
      expect(server.child.exitCode).toBeNull();
    } finally {
      await server.stop();
      await proxy.stop();
      await database.dispose();
    }
  });
});

describe("{site}/metrics", () => {
  const suite = suiteServer({ env: { ENHYDRIS_ALLOWED_HOSTS: "hydro.example.org,127.0.0.1" } });

  it("counts requests by route pattern and status, records written and read, and uploads", async () => {
    const u = await f.user({ superuser: true });
    const sid = await f.station();
    const tid = await f.series(await f.group(sid));
    const data = `/api/stations/${sid}/timeseries/${tid}/data/`;
    const before = (await suite.http.get("/metrics")).text;
    for (let i = 0; i < 3; i++) expect((await suite.http.get(`/api/stations/${sid}/`)).status).toBe(200);
    expect((await suite.http.get("/api/stations/999999/")).status).toBe(404);
    const lines = Array.from({ length: 25 }, (_, i) => `2020-01-01 ${String(i % 24).padStart(2, "0")}:${i < 24 ? "00" : "30"},${i},`).join("\n");
    expect((await suite.http.post(data, { token: u.token, form: { timeseries_records: lines, timezone: "UTC" } })).status).toBe(204);
    expect((await suite.http.post(data, { token: u.token, form: { timeseries_records: "bad", timezone: "UTC" } })).status).toBe(400);
    expect((await suite.http.post(data, { token: u.token, form: { timeseries_records: "2021-01-01 00:00,1,", timezone: "UTC", dry_run: "true" } })).status).toBe(200);
    const csv = await suite.http.get(data);
    expect(csv.text.trim().split("\n")).toHaveLength(25);
    expect((await suite.http.get("/accounts/login/")).status).toBe(200);

    const r = await suite.http.get("/metrics");
    expect(r.status).toBe(200);
    expect(r.headers.get("content-type")).toMatch(/^text\/plain; version=0\.0\.4/);
    const text = r.text;
    const delta = (name: string, labels: Record<string, string> = {}) => (sample(text, name, labels) ?? 0) - (sample(before, name, labels) ?? 0);
    expect(delta("enhydris_http_requests_total", { method: "GET", route: "/api/stations/:sid/", status: "200" })).toBe(3);
    expect(delta("enhydris_http_requests_total", { method: "GET", route: "/api/stations/:sid/", status: "404" })).toBe(1);
    expect(delta("enhydris_http_requests_total", { method: "POST", route: "/api/stations/:sid/timeseries/:tid/data/", status: "204" })).toBe(1);
    expect(delta("enhydris_http_requests_total", { method: "GET", route: "/accounts/login", status: "200" })).toBe(1);
    expect(delta("enhydris_http_request_duration_seconds_count", { method: "GET", route: "/api/stations/:sid/", status: "200" })).toBe(3);
    expect(sample(text, "enhydris_http_request_duration_seconds_bucket", { le: "+Inf", method: "GET", route: "/api/stations/:sid/", status: "200" })).toBeGreaterThanOrEqual(3);
    expect(delta("enhydris_records_written_total")).toBe(25);
    expect(delta("enhydris_records_read_total")).toBe(25);
    expect(delta("enhydris_uploads_total", { outcome: "stored" })).toBe(1);
    expect(delta("enhydris_uploads_total", { outcome: "rejected" })).toBe(1);
    expect(delta("enhydris_uploads_total", { outcome: "dry_run" })).toBe(1);
    // Raw paths never become labels.
    expect(text).not.toContain(`/api/stations/${sid}/`);
    for (const name of ["process_resident_memory_bytes", "nodejs_eventloop_lag_seconds", "nodejs_heap_size_used_bytes", "enhydris_job_queue_depth", "enhydris_job_queue_lag_seconds", "enhydris_job_failures_24h"]) {
      expect(sample(text, name), name).toBeGreaterThanOrEqual(0);
    }
    for (const state of ["in_use", "idle", "waiting"]) expect(sample(text, "enhydris_db_pool_connections", { state }), state).toBeGreaterThanOrEqual(0);
  });

  it("answers any host (scrapers use addresses) and counts itself", async () => {
    const r = await rawRequest(suite.server.url, "GET", "/metrics", { Host: "10.0.0.9:3000" });
    expect(r.status).toBe(200);
    expect(sample(r.text, "enhydris_http_requests_total", { method: "GET", route: "/metrics", status: "200" })).toBeGreaterThanOrEqual(1);
    expect((await suite.http.post("/metrics")).status).toBe(405);
  });

  it("report the storage: each volume's file system, and the database's size, which grows with an upload", async () => {
    const volumes = DIALECT === "sqlite" ? ["database", "media"] : ["media"];
    const u = await f.user({ superuser: true });
    const sid = await f.station();
    const tid = await f.series(await f.group(sid));
    await new Promise((done) => setTimeout(done, 1100)); // past the one-second reading shared by a scrape's gauges
    const before = (await suite.http.get("/metrics")).text;
    const paths = { media: suite.server.mediaDir, database: suite.server.databaseUrl.replace(/^file:/, "") };
    for (const volume of volumes) {
      // The media directory is made on first use: its nearest existing parent tells.
      let dir = paths[volume as keyof typeof paths];
      while (!existsSync(dir)) dir = dirname(dir);
      const fs = statfsSync(dir);
      expect(sample(before, "enhydris_storage_size_bytes", { volume }), volume).toBe(fs.blocks * fs.bsize);
      const available = sample(before, "enhydris_storage_available_bytes", { volume }) ?? -1;
      expect(available, volume).toBeGreaterThan(0);
      expect(Math.abs(available - fs.bavail * fs.bsize), volume).toBeLessThan(256 * 1024 * 1024);
    }
    if (DIALECT === "postgres") expect(before).not.toContain('volume="database"');
    // Values that do not compress (full-precision random numbers, ~8 bytes each in the day
    // blocks), enough that the growth (~1 MB) stands far above what autovacuum's truncations of
    // other tests' tables take away meanwhile (~100 kB seen).
    const records = Array.from({ length: 100_000 }, (_, i) => `${new Date(Date.UTC(2010, 0, 1) + i * 600_000).toISOString().slice(0, 16).replace("T", " ")},${Math.random()},`).join("\n");
    expect((await suite.http.post(`/api/stations/${sid}/timeseries/${tid}/data/`, { token: u.token, form: { timeseries_records: records } })).status).toBe(204);
    await new Promise((done) => setTimeout(done, 1100));
    const after = (await suite.http.get("/metrics")).text;
    const size = (text: string) => sample(text, "enhydris_database_size_bytes") ?? -1;
    expect(size(before)).toBeGreaterThan(0);
    expect(size(after)).toBeGreaterThan(size(before));
  });

  it("requires the bearer token when ENHYDRIS_METRICS_TOKEN is set", async () => {
    const secured = await startServer({ env: { ENHYDRIS_METRICS_TOKEN: "s3cret-metrics" } });
    try {
      const h = api(secured.url);
      const none = await h.get("/metrics");
      expect(none.status).toBe(401);
      expect(none.headers.get("www-authenticate")).toBe('Bearer realm="metrics"');
      expect((await h.get("/metrics", { headers: { Authorization: "Bearer wrong" } })).status).toBe(401);
      expect((await h.get("/metrics", { headers: { Authorization: "Token s3cret-metrics" } })).status).toBe(401);
      const ok = await h.get("/metrics", { headers: { Authorization: "Bearer s3cret-metrics" } });
      expect(ok.status).toBe(200);
      expect(ok.text).toContain("enhydris_http_requests_total");
    } finally {
      await secured.stop();
    }
  });
});

describe("request logs", () => {
  const suite = suiteServer();

  /** The complete lines of the output so far (a line still being written is left for later). */
  const lines = () => suite.server.output().split("\n").slice(0, -1).filter(Boolean).map((l) => JSON.parse(l) as Record<string, unknown>);
  /**
   * A request is logged when its response has gone, so its line may come after the client has the
   * answer: waits for the request's line (a fixed wait was too short on a busy machine).
   */
  const logged = async (reqId: string | null) => {
    const line = await until(async () => lines().find((l) => l.req_id === reqId && l.msg === "request"), (l) => l !== undefined);
    expect(line, `the log line of request ${reqId}`).toBeDefined();
    return line!;
  };

  it("are JSON lines with the request id, method, path, route, status, duration and user", async () => {
    const u = await f.user();
    const r = await suite.http.get("/api/auth/user/?x=1", { token: u.token, headers: { "X-Request-Id": "trace-42.a" } });
    expect(r.status).toBe(200);
    expect(r.headers.get("x-request-id")).toBe("trace-42.a");
    const line = await logged("trace-42.a");
    expect(line).toMatchObject({ level: "info", method: "GET", path: "/api/auth/user/", route: "/api/auth/user/", status: 200, user_id: u.id });
    expect(typeof line.duration_ms).toBe("number");
    expect(typeof line.time).toBe("string");
  });

  it("name the user of a site page too", async () => {
    const u = await f.user();
    const { jar } = await siteLogin(suite.server.url, u.username, u.password);
    expect((await suite.http.get("/accounts/profile/", { headers: { Cookie: jar.header(), "X-Request-Id": "page-1" } })).status).toBe(200);
    expect(await logged("page-1")).toMatchObject({ route: "/accounts/profile", status: 200, user_id: u.id });
  });

  it("make up a request id when the client sends none or a strange one", async () => {
    const plain = await suite.http.get("/api/stations/");
    const odd = await suite.http.get("/api/stations/", { headers: { "X-Request-Id": "a b\"c" } });
    for (const r of [plain, odd]) expect(r.headers.get("x-request-id")).toMatch(/^[0-9a-f-]{36}$/);
    expect(await logged(plain.headers.get("x-request-id"))).toMatchObject({ user_id: null });
    expect(await logged(odd.headers.get("x-request-id"))).toMatchObject({ user_id: null });
  });

  it("every line of the server's output is a JSON object, errors included", async () => {
    await suite.http.get("/nope/", { headers: { "X-Request-Id": "json-1" } });
    await suite.http.post("/accounts/profile/", { headers: { Origin: "https://evil.example", "X-Request-Id": "json-2" }, body: "x" });
    await logged("json-1");
    await logged("json-2");
    for (const line of suite.server.output().split("\n").filter(Boolean)) expect(() => JSON.parse(line), line).not.toThrow();
  });

  it("leave out successful probes (health, metrics) at the default level, but not failed ones", async () => {
    await suite.http.get("/api/health/", { headers: { "X-Request-Id": "probe-1" } });
    await suite.http.get("/metrics", { headers: { "X-Request-Id": "probe-2" } });
    await suite.http.post("/metrics", { headers: { "X-Request-Id": "probe-3" } });
    // The probes' lines, were they written, would come before the line of the request after them.
    await logged("probe-3");
    const ids = lines().map((l) => l.req_id);
    expect(ids).not.toContain("probe-1");
    expect(ids).not.toContain("probe-2");
    expect(ids).toContain("probe-3");
  });

  it("never hold passwords, tokens or reset links", async () => {
    const password = "Logged-Never-123";
    const u = await f.user({ password });
    const { key } = (await suite.http.post("/api/auth/login/", { form: { username: u.username, password } })).json;
    await suite.http.get("/api/auth/user/", { headers: { Authorization: `Token ${key}` } });
    await suite.http.get("/api/auth/password/reset/confirm/MTI/abcdefg-0123456789abcdefghijklmnopqrstuv/", { headers: { "X-Request-Id": "reset-link" } });
    await logged("reset-link");
    const out = suite.server.output();
    for (const secret of [password, key, "abcdefg-0123456789abcdefghijklmnopqrstuv"]) expect(out).not.toContain(secret);
    expect(out).toContain("/api/auth/password/reset/confirm/MTI/[redacted]/");
  });
});
