import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { READ_AFTER_COOKIE } from "@/lib/db/read-after.mjs";
import { api, type TestResponse } from "@/tests/support/http";
import * as f from "@/tests/support/fixtures";
import { sample } from "@/tests/support/metrics";
import { relay } from "@/tests/support/relay";
import { DIALECT, freePort, startServer, type ScratchDatabase, type TestServer } from "@/tests/support/server";
import { replicatedDatabase, STANDBY_URL, standbyUrlOf, waitForReplay, withReplayPaused } from "@/tests/support/standby";
import { sleep, until } from "@/tests/support/wait";

/**
 * Issue 18, item 6: read replicas on PostgreSQL, with a real streaming standby of the test
 * cluster (TEST_PG_REPLICA_URL). Reads of safe requests are served by the standby (metrics, and
 * a write the standby has not replayed is not seen there), a client always reads its own writes
 * (the same process, another instance, the read-after cookie), authentication reads the primary,
 * and reads fall back to the primary while the standby is stopped or lags beyond the limit, and
 * return when it recovers.
 */
const RUN = DIALECT === "postgres" && STANDBY_URL !== "";
if (DIALECT === "postgres" && !STANDBY_URL) {
  console.warn("tests/http/replicas.test.ts: skipped, no standby (set TEST_PG_REPLICA_URL; scripts/pg-cluster.sh standby makes one)");
}

describe.runIf(DIALECT === "postgres" && process.env.REQUIRE_POSTGRES)("read replicas in CI", () => {
  it("have a standby to test with (TEST_PG_REPLICA_URL)", () => {
    expect(STANDBY_URL).not.toBe("");
  });
});

interface Metrics {
  text: string;
  replicaQueries: number;
  primaryReads(reason: string): number;
  state(replica: string): string | undefined;
  lag(replica: string): number | undefined;
}

async function metricsOf(server: TestServer): Promise<Metrics> {
  const text = (await api(server.url).get("/metrics")).text;
  return {
    text,
    replicaQueries: sample(text, "enhydris_db_queries_total", { target: "replica" }) ?? 0,
    primaryReads: (reason) => sample(text, "enhydris_db_primary_reads_total", { reason }) ?? 0,
    // Each worker of the server checks the replica on its own and /metrics shows every state that
    // some worker is in (ADR 16: the largest of each gauge): the state is the one they all agree on.
    state: (replica) => {
      const states = ["starting", "ok", "lagging", "down"].filter((state) => sample(text, "enhydris_db_replica_state", { replica, state }) === 1);
      return states.length === 1 ? states[0] : undefined;
    },
    lag: (replica) => sample(text, "enhydris_db_replica_lag_seconds", { replica }),
  };
}

/** The replica label of a connection string (host:port/database). */
const replicaName = (url: string) => {
  const u = new URL(url);
  return `${u.hostname}:${u.port}${u.pathname}`;
};

async function waitForState(server: TestServer, replica: string, state: string, timeoutMs = 15_000): Promise<void> {
  const seen = await until(() => metricsOf(server), (m) => m.state(replica) === state, timeoutMs, 100);
  expect(seen.state(replica), `replica ${replica}`).toBe(state);
}

const CSV = (day: number, value: number) => `2020-01-${String(day).padStart(2, "0")} 00:00,${value},\n`;
const lines = (r: TestResponse) => r.text.trim().split("\n").filter(Boolean);

describe.runIf(RUN)("read replicas (PostgreSQL with a streaming standby)", () => {
  let database: ScratchDatabase;
  let standby: Awaited<ReturnType<typeof relay>>;
  let replicaUrl: string;
  let replica: string;
  let server: TestServer;
  let other: TestServer;
  let http: ReturnType<typeof api>;
  let writer: f.TestUser;
  let sid: number;
  let data: string;

  beforeAll(async () => {
    database = await replicatedDatabase();
    // The standby is reached through a relay, which a test stops to take it away.
    const port = await freePort();
    const direct = new URL(STANDBY_URL);
    standby = await relay({ host: direct.hostname, port: Number(direct.port || 5432) }, port);
    replicaUrl = standbyUrlOf(database.url, port);
    replica = replicaName(replicaUrl);
    // Two workers each: a write is announced to every process of the instance.
    const env = { DATABASE_REPLICA_URLS: replicaUrl, ENHYDRIS_REPLICA_MAX_LAG: "60", ENHYDRIS_WORKERS: "2" };
    server = await startServer({ databaseUrl: database.url, migrate: false, env });
    other = await startServer({ databaseUrl: database.url, migrate: false, env });
    http = api(server.url);
    writer = await f.user({ superuser: true });
    sid = await f.station();
    const gid = await f.group(sid);
    const tid = await f.series(gid);
    await f.addRecords(tid, [["2020-01-01T00:00:00Z", 1]]);
    data = `/api/stations/${sid}/timeseriesgroups/${gid}/timeseries/${tid}/data/`;
    await waitForState(server, replica, "ok");
    await waitForState(other, replica, "ok");
    // The fixtures have reached the standby. (Asking the standby itself first: polling the server
    // through the in-process relay before the replay made this wait flaky.)
    await waitForReplay(database.url);
    expect((await until(() => http.get(data), (r) => lines(r).length === 1)).status).toBe(200);
  });

  afterAll(async () => {
    await other?.stop();
    await server?.stop();
    await standby?.stop();
    await database?.dispose();
  });

  it("serve the reads of safe requests from the standby, as the metrics show", async () => {
    const before = await metricsOf(server);
    for (let i = 0; i < 5; i++) {
      expect((await http.get(`/api/stations/${sid}/`)).status).toBe(200);
      expect(lines(await http.get(data))).toEqual(["2020-01-01 02:00,1.00,"]);
      expect((await http.get("/api/stations/")).json.count).toBe(1);
      expect((await http.get(`/stations/${sid}/`)).status).toBe(200);
    }
    const after = await metricsOf(server);
    // Each of the 20 requests read something on the standby; none of their reads went to the primary.
    expect(after.replicaQueries - before.replicaQueries).toBeGreaterThanOrEqual(20);
    for (const reason of ["unsafe_method", "own_write", "replica_down", "replica_lagging", "replica_failed"]) {
      expect(after.primaryReads(reason) - before.primaryReads(reason), reason).toBe(0);
    }
    expect(after.state(replica)).toBe("ok");
    expect(after.lag(replica)).toBeGreaterThanOrEqual(0);
    expect(after.lag(replica)).toBeLessThan(60);
    expect(after.text).not.toContain("enhydris:enhydris");
  });

  it("show another client a write the standby has not replayed yet only once it has (the lag)", async () => {
    let added = 0;
    await withReplayPaused(async () => {
      added = await f.station({ name: "Added while paused" });
      await sleep(300);
      expect((await http.get(`/api/stations/${added}/`)).status).toBe(404);
      expect((await http.get("/api/stations/")).json.count).toBe(1);
    });
    expect((await until(() => http.get(`/api/stations/${added}/`), (r) => r.status === 200)).status).toBe(200);
    expect((await http.get("/api/stations/")).json.count).toBe(2);
  });

  it("let the writer read its own writes at once, through the primary, while another client sees the standby", async () => {
    await withReplayPaused(async () => {
      const before = await metricsOf(server);
      const upload = await http.post(data, { token: writer.token, form: { timeseries_records: CSV(2, 2), timezone: "UTC" } });
      expect(upload.status).toBe(204);
      const cookie = upload.headers.get("set-cookie") ?? "";
      expect(cookie).toMatch(new RegExp(`^${READ_AFTER_COOKIE}=[0-9A-F]+/[0-9A-F]+; Path=/; Max-Age=65; HttpOnly; SameSite=Lax$`));
      // The writer, by its token: its write at once, again and again.
      for (let i = 0; i < 3; i++) expect(lines(await http.get(data, { token: writer.token }))).toHaveLength(2);
      // Another client: the standby's state.
      expect(lines(await http.get(data))).toHaveLength(1);
      // A client that sends the cookie back (a browser, a session of the Python client) reads after the write.
      const pair = cookie.split(";")[0];
      expect(lines(await http.get(data, { headers: { Cookie: pair } }))).toHaveLength(2);
      // The same client through another instance: the cookie, or the user's write announced to every process.
      expect(lines(await api(other.url).get(data, { headers: { Cookie: pair } }))).toHaveLength(2);
      expect(lines(await api(other.url).get(data, { token: writer.token }))).toHaveLength(2);
      expect(lines(await api(other.url).get(data))).toHaveLength(1);
      const after = await metricsOf(server);
      expect(after.primaryReads("own_write") - before.primaryReads("own_write")).toBeGreaterThanOrEqual(4);
      expect(after.primaryReads("unsafe_method") - before.primaryReads("unsafe_method")).toBeGreaterThanOrEqual(1);
    });
    // Once the standby has replayed the write, everyone sees it, and the writer reads from the standby again.
    expect(lines(await until(() => http.get(data), (r) => lines(r).length === 2))).toHaveLength(2);
    const settled = await until(async () => {
      const before = await metricsOf(server);
      expect(lines(await http.get(data, { token: writer.token }))).toHaveLength(2);
      const after = await metricsOf(server);
      return { replica: after.replicaQueries - before.replicaQueries, own: after.primaryReads("own_write") - before.primaryReads("own_write") };
    }, (d) => d.replica > 0 && d.own === 0, 10_000, 100);
    expect(settled.own).toBe(0);
    expect(settled.replica).toBeGreaterThan(0);
  });

  it("authenticate on the primary: a new token works and a revoked one stops at once, whatever the standby has replayed", async () => {
    const password = "Replica-Pass-123";
    const u = await f.user({ password });
    await withReplayPaused(async () => {
      const login = await http.post("/api/auth/login/", { form: { username: u.username, password } });
      expect(login.status).toBe(200);
      const key = login.json.key as string;
      expect((await http.get("/api/auth/user/", { token: key })).json.username).toBe(u.username);
      expect((await http.post("/api/auth/logout/", { token: key })).status).toBe(200);
      expect((await http.get("/api/auth/user/", { token: key })).status).toBe(401);
    });
  });

  it("fall back to the primary while the standby is stopped, without an error, and return when it is back", async () => {
    const station = `/api/stations/${sid}/`;
    await standby.stop();
    try {
      // Native queries, the records store's COPY, and Prisma (the site's page): retried on the primary, then sent there.
      for (let i = 0; i < 10; i++) {
        expect((await http.get(station)).status).toBe(200);
        expect(lines(await http.get(data))).toHaveLength(2);
        expect((await http.get(`/stations/${sid}/`)).status).toBe(200);
        await sleep(50);
      }
      await waitForState(server, replica, "down");
      const before = await metricsOf(server);
      expect(lines(await http.get(data))).toHaveLength(2);
      const after = await metricsOf(server);
      expect(after.replicaQueries - before.replicaQueries).toBe(0);
      expect(after.primaryReads("replica_down") - before.primaryReads("replica_down")).toBeGreaterThan(0);
      expect((await http.get("/api/health/")).json.status).toBe("ok");
    } finally {
      await standby.start();
    }
    await waitForState(server, replica, "ok");
    const before = await metricsOf(server);
    expect((await http.get(station)).status).toBe(200);
    expect((await metricsOf(server)).replicaQueries - before.replicaQueries).toBeGreaterThan(0);
  });
});

describe.runIf(RUN)("a read replica lagging beyond ENHYDRIS_REPLICA_MAX_LAG", () => {
  let database: ScratchDatabase;
  let server: TestServer;
  let replica: string;

  beforeAll(async () => {
    database = await replicatedDatabase();
    const replicaUrl = standbyUrlOf(database.url);
    replica = replicaName(replicaUrl);
    server = await startServer({ databaseUrl: database.url, migrate: false, env: { DATABASE_REPLICA_URLS: replicaUrl, ENHYDRIS_REPLICA_MAX_LAG: "1", ENHYDRIS_WORKERS: "2" } });
    await waitForState(server, replica, "ok");
  });

  afterAll(async () => {
    await server?.stop();
    await database?.dispose();
  });

  it("is not read from until it catches up again", async () => {
    const http = api(server.url);
    await withReplayPaused(async () => {
      const added = await f.station({ name: "Written while the standby lags" });
      await waitForState(server, replica, "lagging");
      const m = await metricsOf(server);
      expect(m.lag(replica)).toBeGreaterThan(1);
      const before = m.primaryReads("replica_lagging");
      // Every client reads the primary's current state.
      expect((await http.get(`/api/stations/${added}/`)).status).toBe(200);
      expect((await http.get("/api/stations/")).json.count).toBe(1);
      const after = await metricsOf(server);
      expect(after.primaryReads("replica_lagging") - before).toBeGreaterThanOrEqual(2);
      expect(after.replicaQueries - m.replicaQueries).toBe(0);
    });
    await waitForState(server, replica, "ok");
    const before = await metricsOf(server);
    expect((await http.get("/api/stations/")).json.count).toBe(1);
    const after = await metricsOf(server);
    expect(after.replicaQueries - before.replicaQueries).toBeGreaterThan(0);
    expect(after.lag(replica)).toBeLessThanOrEqual(1);
  });
});

describe.runIf(DIALECT === "sqlite")("DATABASE_REPLICA_URLS on SQLite", () => {
  it("is ignored, and start-up says so", async () => {
    const server = await startServer({ env: { DATABASE_REPLICA_URLS: "postgres://nobody:none@127.0.0.1:1/none" } });
    try {
      expect((await api(server.url).get("/api/stations/")).status).toBe(200);
      expect(server.output()).toContain("DATABASE_REPLICA_URLS is ignored: read replicas need PostgreSQL, and DATABASE_URL is SQLite.");
      expect((await api(server.url).get("/metrics")).text).not.toMatch(/^enhydris_db_replica_state\{/m);
    } finally {
      await server.stop();
    }
  });
});
