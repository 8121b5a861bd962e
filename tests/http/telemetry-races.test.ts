import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { db } from "@/lib/db";
import { api, type TestResponse } from "@/tests/support/http";
import * as f from "@/tests/support/fixtures";
import { startFake, type FakeAnswer, type FakeVendor, type RecordedRequest } from "@/tests/support/fake-vendors/base";
import { csv, seriesApi, seriesId } from "@/tests/support/processes";
import { startServer, type TestServer } from "@/tests/support/server";
import { until } from "@/tests/support/wait";

/**
 * Telemetry at its edges (telemetry.md §1, §3; api.md §1.6): a telemetry or a mapped group
 * deleted while a fetch waits on its vendor (a fake that holds its answer until the test has
 * deleted, so that the race is the same every time), a vendor's redirect to another host (the
 * key in a header of the type's own stays behind), `wait` in the query string, the 404 of a
 * station without telemetry, and an Enhydris whose ids are not scalars.
 */
let server: TestServer;
let http: ReturnType<typeof api>;
const vendors: FakeVendor[] = [];

beforeAll(async () => {
  server = await startServer({ env: { ENHYDRIS_OUTBOUND_ALLOW: "127.0.0.1", ENHYDRIS_TELEMETRY_TIMEOUT: "20" } });
  http = api(server.url);
});
afterAll(async () => {
  await server?.stop();
  for (const v of vendors) await v.close();
});

const world = f.telemetryStation;

const CSV = "timestamp,s1,s2\r\n2025-03-01T12:00:00,1,10\r\n2025-03-01T12:10:00,2,20\r\n";

/** A CSV vendor whose first answer waits until the test releases it; `arrived` once that request came. */
async function heldVendor() {
  let arrive!: () => void;
  const arrived = new Promise<void>((resolve) => (arrive = resolve));
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  let first = true;
  const vendor = await startFake(async (): Promise<FakeAnswer> => {
    if (first) {
      first = false;
      arrive();
      await released;
    }
    return { headers: { "Content-Type": "text/csv" }, body: CSV };
  });
  vendors.push(vendor);
  return { vendor, arrived, release };
}

/** What no answer and no server log line may show after a fetch raced a delete. */
const INTERNAL = /FOREIGN KEY|foreign key|does not exist|SqliteError|PrismaClient|violates|\bat [\w.<>]+ \(/;

/** The server's log lines at the error level written since `from`. */
function errorLines(from: number): string[] {
  return server.output().slice(from).split("\n").filter((line) => /"level":"(error|fatal)"/.test(line) || INTERNAL.test(line));
}

async function configure(w: Awaited<ReturnType<typeof world>>, vendor: FakeVendor) {
  const put = await http.put(w.path, {
    token: w.editor.token,
    json: {
      type: "http_csv", data_timezone: "Etc/GMT", fetch_interval_minutes: 1440, fetch_offset_minutes: (Math.floor(Date.now() / 60_000) + 720) % 1440,
      device_locator: `${vendor.url}/data.csv?from={start}`,
      sensors: [{ sensor_id: "s1", timeseries_group: w.a }, { sensor_id: "s2", timeseries_group: w.b }],
    },
  });
  expect(put.status, put.text).toBe(201);
  return put.json.id as number;
}

async function jobsOf(telemetryId: number) {
  return db().prisma.job.findMany({ where: { key: `telemetry:${telemetryId}` }, select: { status: true, attempts: true, error: true } });
}

/** Fetches now (with wait) while the vendor holds its answer, runs `meanwhile`, then lets the vendor answer. */
async function fetchDuring(meanwhile: (w: Awaited<ReturnType<typeof world>>) => Promise<void>) {
  const w = await world();
  const { vendor, arrived, release } = await heldVendor();
  const telemetryId = await configure(w, vendor);
  const from = server.output().length;
  const fetching = http.post(`${w.path}fetch/`, { token: w.editor.token, json: { wait: true } });
  await arrived;
  await meanwhile(w);
  release();
  const fetched: TestResponse = await fetching;
  expect(fetched.status, fetched.text).toBe(200);
  expect(fetched.text).not.toMatch(INTERNAL);
  return { w, telemetryId, from, fetched };
}

describe("a delete while a fetch runs", () => {
  it("the telemetry deleted: the fetch ends quietly, without internal text, stack traces or a retry", async () => {
    const { w, telemetryId, from, fetched } = await fetchDuring(async (w) => {
      expect((await http.delete(w.path, { token: w.editor.token })).status).toBe(204);
    });
    expect(fetched.json).toMatchObject({ status: "succeeded", error: null });
    // Not tried again.
    const jobs = await until(() => jobsOf(telemetryId), (j) => j.every((job) => job.status !== "queued" && job.status !== "running"), 5000);
    expect(jobs).toEqual([{ status: "succeeded", attempts: 1, error: null }]);
    expect(errorLines(from)).toEqual([]);
    expect((await http.get(w.path, { token: w.editor.token })).status).toBe(404);
  });

  it("a mapped group deleted: that sensor's log says so in words, the other sensor is fetched", async () => {
    const { w, telemetryId, from, fetched } = await fetchDuring(async (w) => {
      const deleted = await http.delete(`/api/stations/${w.sid}/timeseriesgroups/${w.a}/`, { token: w.editor.token });
      expect(deleted.status, deleted.text).toBe(204);
    });
    expect(fetched.json).toMatchObject({ status: "succeeded", error: null, fetch: { status: "error", records: 2 } });
    const [s1, s2] = fetched.json.fetch.sensors;
    expect(s1).toMatchObject({ sensor_id: "s1", timeseries_group: w.a, records: 0, status: "error" });
    expect(s1.message).toBe(`time series group ${w.a} no longer exists (it was deleted during the fetch): nothing was stored for this sensor`);
    expect(s2).toMatchObject({ sensor_id: "s2", timeseries_group: w.b, records: 2, status: "ok" });
    expect(await csv(http, seriesApi(w.sid, w.b, await seriesId(http, w.sid, w.b, "Initial")), w.editor.token))
      .toBe("2025-03-01 12:00,10.0,\r\n2025-03-01 12:10,20.0,\r\n");
    const logs = await http.get(`${w.path}logs/`, { token: w.editor.token });
    expect(logs.text).not.toMatch(INTERNAL);
    expect(logs.json.results.map((r: { sensor: string; status: string; records: number; error_name: string }) => [r.sensor, r.status, r.records, r.error_name]))
      .toEqual([["s2", "ok", 2, ""], ["s1", "error", 0, "GroupDeleted"]]);
    expect(logs.json.results[1].message).toBe(s1.message);
    expect(await jobsOf(telemetryId)).toEqual([{ status: "succeeded", attempts: 1, error: null }]);
    expect(errorLines(from)).toEqual([]);
    // The mapping went with the group; the next fetch is of s2 alone.
    expect((await http.get(w.path, { token: w.editor.token })).json.sensors).toEqual([{ sensor_id: "s2", timeseries_group: w.b }]);
  });
});

describe("a redirect to another host", () => {
  it("does not carry the key of additional_config.header (http_csv) there", async () => {
    const w = await world();
    let port = 0;
    const vendor = await startFake((request: RecordedRequest): FakeAnswer => {
      if (request.path === "/redir") return { status: 302, headers: { Location: `http://localhost:${port}/data.csv` }, body: "" };
      return { headers: { "Content-Type": "text/csv" }, body: CSV };
    });
    vendors.push(vendor);
    port = vendor.port;
    const discovered = await http.post(`${w.path}discover/`, {
      token: w.editor.token,
      json: { type: "http_csv", device_locator: `${vendor.url}/redir?start={start}`, data_timezone: "Etc/GMT", additional_config: { header: "X-API-Key" }, password: "secret-key-3391" },
    });
    expect(discovered.status, discovered.text).toBe(200);
    expect(vendor.requests.map((r) => [r.path, r.headers.host, r.headers["x-api-key"]])).toEqual([
      ["/redir", `127.0.0.1:${port}`, "secret-key-3391"],
      ["/data.csv", `localhost:${port}`, undefined],
    ]);
  });
});

describe("fetch/ with wait in the query string", () => {
  it("waits as with wait in the body; a wrong value is refused", async () => {
    const w = await world();
    const vendor = await startFake((): FakeAnswer => ({ headers: { "Content-Type": "text/csv" }, body: CSV }));
    vendors.push(vendor);
    await configure(w, vendor);
    const fetched = await http.post(`${w.path}fetch/?wait=true`, { token: w.editor.token });
    expect(fetched.status, fetched.text).toBe(200);
    expect(fetched.json).toMatchObject({ status: "succeeded", fetch: { status: "ok", records: 4 } });
    const bad = await http.post(`${w.path}fetch/?wait=maybe`, { token: w.editor.token });
    expect(bad.status).toBe(400);
    expect(bad.json).toEqual({ wait: ["Must be a valid boolean."] });
    // The body's value comes first.
    const body = await http.post(`${w.path}fetch/?wait=maybe`, { token: w.editor.token, json: { wait: false } });
    expect(body.status, body.text).toBe(202);
  });
});

describe("a station without telemetry", () => {
  it("answers 404 {\"detail\":\"Not found.\"}", async () => {
    const w = await world();
    const token = w.editor.token;
    for (const r of [
      await http.get(w.path, { token }),
      await http.delete(w.path, { token }),
      await http.patch(w.path, { token, json: { fetch_interval_minutes: 20 } }),
      await http.get(`${w.path}logs/`, { token }),
      await http.post(`${w.path}fetch/`, { token, json: {} }),
      await http.get(`${w.path}fetch/`, { token }),
    ]) {
      expect(r.status).toBe(404);
      expect(r.text).toBe('{"detail":"Not found."}');
    }
  });
});

describe("enhydris: a remote whose ids are not scalars", () => {
  it("leaves those entries out instead of naming them [object Object]", async () => {
    const w = await world();
    const page = (results: unknown[]): FakeAnswer => ({ headers: { "Content-Type": "application/json" }, body: JSON.stringify({ count: results.length, next: null, previous: null, results }) });
    const vendor = await startFake((request: RecordedRequest): FakeAnswer => {
      if (request.path === "/api/stations/") return page([{ id: { a: 1 }, name: "object" }, { id: [7], name: "list" }, { id: 42, name: { x: 1 } }, { id: "43", name: "bree" }, { id: true, name: "yes" }]);
      if (request.path === "/api/stations/42/timeseriesgroups/") return page([{ id: { x: 1 }, name: "g" }, { id: 5, name: "temperature" }]);
      if (request.path === "/api/stations/42/timeseriesgroups/5/timeseries/") return page([{ id: { y: 2 }, type: "Initial" }, { id: 6, type: "Initial", name: "", time_step: "10min" }]);
      return { status: 404, body: "{\"detail\":\"Not found.\"}" };
    });
    vendors.push(vendor);
    const config = { type: "enhydris", device_locator: `${vendor.url}/` };
    const stations = await http.post(`${w.path}discover/`, { token: w.editor.token, json: config });
    expect(stations.status, stations.text).toBe(200);
    expect(stations.text).not.toContain("[object Object]");
    expect([...stations.json.stations].sort((x: { id: string }, y: { id: string }) => x.id.localeCompare(y.id))).toEqual([{ id: "42", name: "" }, { id: "43", name: "bree" }]);
    const sensors = await http.post(`${w.path}discover/`, { token: w.editor.token, json: { ...config, remote_station_id: "42" } });
    expect(sensors.status, sensors.text).toBe(200);
    expect(sensors.json).toEqual({ sensors: [{ id: "5 6", name: "temperature - Initial  10min" }] });
    expect(vendor.requests.some((r) => r.path.includes("object"))).toBe(false);
  });
});
