import { spawn } from "node:child_process";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { api } from "@/tests/support/http";
import * as f from "@/tests/support/fixtures";
import { startFakeAddupi } from "@/tests/support/fake-vendors/addupi";
import { json, startFake, type FakeVendor } from "@/tests/support/fake-vendors/base";
import { startFakeEnhydris } from "@/tests/support/fake-vendors/enhydris";
import { startFakeHttpCsv } from "@/tests/support/fake-vendors/http_csv";
import { startFakeInflux } from "@/tests/support/fake-vendors/influxdb";
import { startFakeInsigh } from "@/tests/support/fake-vendors/insigh";
import { startFakeMeteoView2, type FakeMeteoView2 } from "@/tests/support/fake-vendors/meteoview2";
import { csv, seriesApi, seriesId } from "@/tests/support/processes";
import { ROOT, startServer, TEST_SECRET_KEY, type TestServer } from "@/tests/support/server";

/**
 * Fetching (telemetry.md §3) through a real server, from each type's fake vendor: configure,
 * discover the sensors, fetch now with wait, and the records in the groups' Initial series. Then
 * what vendors do wrong (garbage, HTTP 500, a redirect to a loopback address that is not
 * allowed, a gigabyte, no answer, an answer that repeats the request): the sensor's fetch fails
 * with the reason in the log, the service stays healthy, and no password appears in any answer,
 * log line or metric.
 *
 * The server may reach "localhost" only (ENHYDRIS_OUTBOUND_ALLOW=localhost): the fakes listen on
 * 127.0.0.1 and are addressed by that name, so that 127.0.0.1 itself stays refused.
 */
let server: TestServer;
let http: ReturnType<typeof api>;
const vendors: FakeVendor[] = [];
/** Every answer the tests got, to look for passwords in. */
const answers: string[] = [];
const SECRETS = ["addupi-pass-7731", "mv2-key-5519", "influx-token-2284", "insigh-token-6642", "enhydris-token-9917", "csv-key-4470"];

const T0 = Date.UTC(2025, 2, 1, 10) / 1000;
const iso = (t: number) => new Date(t * 1000).toISOString().slice(0, 19);
const viaName = (url: string) => url.replace("127.0.0.1", "localhost");

beforeAll(async () => {
  server = await startServer({ env: { ENHYDRIS_OUTBOUND_ALLOW: "localhost", ENHYDRIS_TELEMETRY_TIMEOUT: "3", ENHYDRIS_MAX_UPLOAD_SIZE: String(2 * 1024 * 1024) } });
  http = api(server.url);
});
afterAll(async () => {
  await server?.stop();
  for (const v of vendors) await v.close();
});

const world = f.telemetryStation;

type World = Awaited<ReturnType<typeof world>>;

async function call(method: "get" | "put" | "post" | "patch", path: string, token: string, json?: unknown) {
  const r = await http[method](path, { token, json });
  answers.push(r.text);
  return r;
}

/** Configures, finds the two sensors among those discovered (by id), fetches now and returns the fetch. */
async function configureAndFetch(w: World, body: Record<string, unknown>, sensors: [string, string]) {
  const put = await call("put", w.path, w.editor.token, { fetch_interval_minutes: 10, ...body, sensors: [] });
  expect(put.status, put.text).toBe(201);
  const discovered = await call("post", `${w.path}discover/`, w.editor.token, {});
  expect(discovered.status, discovered.text).toBe(200);
  expect(discovered.json.sensors.map((s: { id: string }) => s.id)).toEqual(expect.arrayContaining(sensors));
  const patched = await call("patch", w.path, w.editor.token, { sensors: [{ sensor_id: sensors[0], timeseries_group: w.a }, { sensor_id: sensors[1], timeseries_group: w.b }] });
  expect(patched.status, patched.text).toBe(200);
  const fetched = await call("post", `${w.path}fetch/`, w.editor.token, { wait: true });
  expect(fetched.status, fetched.text).toBe(200);
  return fetched.json;
}

async function initialCsv(w: World, group: number): Promise<string> {
  return csv(http, seriesApi(w.sid, group, await seriesId(http, w.sid, group, "Initial")), w.editor.token);
}

const lines = (...rows: [number, string][]) => rows.map(([t, v]) => `${iso(t).slice(0, 16).replace("T", " ")},${v}\r\n`).join("");

describe("each type, from its fake vendor to the Initial series", () => {
  it("addupi: UTC readings, statuses as flags", async () => {
    const vendor = await startFakeAddupi({
      password: SECRETS[0],
      readings: {
        "42a": [{ t: T0, value: "1.5", s: 0 }, { t: T0 + 600, value: "2.5", s: 0 }, { t: T0 + 1200, value: "3.5", s: 0 }],
        "43b": [{ t: T0, value: "60", s: 0 }, { t: T0 + 600, value: "61", s: 0 }],
      },
    });
    vendors.push(vendor);
    const w = await world();
    const fetched = await configureAndFetch(w, { type: "addupi", device_locator: viaName(vendor.url), username: "alice", password: SECRETS[0], remote_station_id: "1852" }, ["42a", "43b"]);
    expect(fetched.fetch).toMatchObject({ status: "ok", records: 5 });
    expect(await initialCsv(w, w.a)).toBe(lines([T0, "1.5,"], [T0 + 600, "2.5,"], [T0 + 1200, "3.5,"]));
    expect(await initialCsv(w, w.b)).toBe(lines([T0, "60.0,"], [T0 + 600, "61.0,"]));
  });

  it("meteoview2: local times in data_timezone", async () => {
    const vendor = await startFakeMeteoView2({ apiKey: SECRETS[1], readings: { "42a": [{ time: "2025-03-01T12:00", value: 1 }, { time: "2025-03-01T12:10", value: 2 }], "43b": [{ time: "2025-03-01T12:00", value: 3 }] } });
    vendors.push(vendor);
    const w = await world();
    const fetched = await configureAndFetch(w, {
      type: "meteoview2", data_timezone: "Europe/Athens", device_locator: viaName(vendor.apiUrl), username: "alice@example.org", password: SECRETS[1], remote_station_id: "1852",
    }, ["42a", "43b"]);
    expect(fetched.fetch).toMatchObject({ status: "ok", records: 3 });
    expect(await initialCsv(w, w.a)).toBe(lines([T0, "1.0,"], [T0 + 600, "2.0,"]));
  });

  it("influxdb: a station tag's fields", async () => {
    const vendor = await startFakeInflux({
      token: SECRETS[2],
      points: [
        { station: "hobbiton", field: "temperature", time: `${iso(T0)}Z`, value: 7.5 }, { station: "hobbiton", field: "temperature", time: `${iso(T0 + 600)}Z`, value: 8 },
        { station: "hobbiton", field: "humidity", time: `${iso(T0)}Z`, value: 80 }, { station: "rivendell", field: "humidity", time: `${iso(T0)}Z`, value: 10 },
      ],
    });
    vendors.push(vendor);
    const w = await world();
    const fetched = await configureAndFetch(w, {
      type: "influxdb", device_locator: viaName(vendor.apiUrl), username: "alice", password: SECRETS[2], remote_station_id: "hobbiton",
      additional_config: { bucket: "thebucket", measurement: "themeasurement", station_tag: "thestationtag" },
    }, ["temperature", "humidity"]);
    expect(fetched.fetch).toMatchObject({ status: "ok", records: 3 });
    expect(await initialCsv(w, w.a)).toBe(lines([T0, "7.5,"], [T0 + 600, "8.0,"]));
    expect(await initialCsv(w, w.b)).toBe(lines([T0, "80.0,"]));
  });

  it("insigh: one query pack for the sensors of a device", async () => {
    const vendor = await startFakeInsigh({
      token: SECRETS[3],
      rows: { "station-1-id": [{ ms: T0 * 1000, values: { Temperature: 4, R_Humidity: 40, Precipitation: 0 } }, { ms: (T0 + 600) * 1000, values: { Temperature: 5, R_Humidity: 41, Precipitation: 0 } }] },
    });
    vendors.push(vendor);
    const w = await world();
    const fetched = await configureAndFetch(w, {
      type: "insigh", device_locator: viaName(vendor.apiUrl), password: SECRETS[3], remote_station_id: "station-1-id/station-1-data-channel",
    }, ["Temperature", "R_Humidity"]);
    expect(fetched.fetch).toMatchObject({ status: "ok", records: 4 });
    expect(await initialCsv(w, w.a)).toBe(lines([T0, "4.0,"], [T0 + 600, "5.0,"]));
  });

  it("enhydris: another instance's time series, flags kept", async () => {
    const vendor = await startFakeEnhydris({ token: SECRETS[4] });
    vendors.push(vendor);
    const w = await world();
    const fetched = await configureAndFetch(w, { type: "enhydris", device_locator: viaName(vendor.url), password: SECRETS[4], remote_station_id: "42" }, ["421 4211", "422 4221"]);
    expect(fetched.fetch).toMatchObject({ status: "ok", records: 3 });
    const t = Date.UTC(2025, 8, 10, 12, 51) / 1000;
    expect(await initialCsv(w, w.a)).toBe(lines([t, "2.1,"], [t + 600, "2.2,SUSPECT HIGH"], [t + 1200, ",MISSING"]));
  });

  it("http_csv: the CSV's columns, local times", async () => {
    const vendor = await startFakeHttpCsv({
      header: { name: "X-API-Key", value: SECRETS[5] },
      rows: { all: [{ time: "2025-03-01T12:00:00", values: { temperature: 1, humidity: 2 } }, { time: "2025-03-01T12:10:00", values: { temperature: 3, humidity: 4 } }] },
    });
    vendors.push(vendor);
    const w = await world();
    const fetched = await configureAndFetch(w, {
      type: "http_csv", data_timezone: "Europe/Athens", device_locator: viaName(vendor.template), password: SECRETS[5], additional_config: { header: "X-API-Key" },
    }, ["temperature", "humidity"]);
    expect(fetched.fetch).toMatchObject({ status: "ok", records: 4 });
    expect(await initialCsv(w, w.b)).toBe(lines([T0, "2.0,"], [T0 + 600, "4.0,"]));
  });
});

describe("what vendors do wrong", () => {
  let vendor: FakeMeteoView2;
  let w: World;
  beforeAll(async () => {
    vendor = await startFakeMeteoView2({ apiKey: SECRETS[1], readings: { "42a": [{ time: "2025-03-01T12:00", value: 1 }], "43b": [{ time: "2025-03-01T12:00", value: 2 }] } });
    vendors.push(vendor);
    w = await world();
    const put = await call("put", w.path, w.editor.token, {
      type: "meteoview2", data_timezone: "Europe/Athens", fetch_interval_minutes: 10, device_locator: viaName(vendor.apiUrl), username: "alice@example.org",
      password: SECRETS[1], remote_station_id: "1852", sensors: [{ sensor_id: "42a", timeseries_group: w.a }],
    });
    expect(put.status, put.text).toBe(201);
  });

  const host = () => `localhost:${vendor.port}`;
  const cases: [string, () => Parameters<FakeVendor["fail"]>, RegExp][] = [
    ["garbage", () => ["/api/measurements", { kind: "body", body: "<html><body>Oops" }], /the answer of localhost:\d+ is not JSON/],
    ["HTTP 500", () => ["/api/measurements", { kind: "status", status: 500, body: "Internal Server Error: database locked" }], /answered HTTP 500: Internal Server Error: database locked/],
    ["a redirect to 127.0.0.1", () => ["/api/measurements", { kind: "redirect", location: `http://127.0.0.1:${vendor.port}/api/measurements`, status: 302 }],
      /redirects to 127\.0\.0\.1:\d+; 127\.0\.0\.1 is a loopback address, which is not allowed \(see ENHYDRIS_OUTBOUND_ALLOW\)/],
    ["a gigabyte", () => ["/api/measurements", { kind: "huge", bytes: 1024 ** 3, declareLength: false }], /larger than 2 MB/],
    ["no answer", () => ["/api/measurements", { kind: "hang" }], /3 s/],
  ];

  for (const [name, fault, message] of cases) {
    it(`${name}: the sensor's fetch fails with the reason in the log, and the service stays healthy`, async () => {
      vendor.clearFaults();
      vendor.fail(...fault());
      const started = Date.now();
      const queued = await call("post", `${w.path}fetch/`, w.editor.token, {});
      expect(queued.status).toBe(202);
      // While the fetch waits on the vendor, the API answers at once.
      const health = Date.now();
      const h = await http.get("/api/health/");
      expect(h.status).toBe(200);
      expect(Date.now() - health).toBeLessThan(2000);
      const fetched = await call("post", `${w.path}fetch/`, w.editor.token, { wait: true });
      expect(fetched.status, fetched.text).toBe(200);
      expect(fetched.json.fetch.status).toBe("error");
      expect(fetched.json.fetch.sensors[0]).toMatchObject({ sensor_id: "42a", status: "error", records: 0 });
      expect(fetched.json.fetch.sensors[0].message).toMatch(message);
      expect(Date.now() - started).toBeLessThan(30_000);
      const log = await call("get", `${w.path}logs/`, w.editor.token);
      expect(log.json.results[0]).toMatchObject({ sensor: "42a", status: "error", error_name: "TelemetryError" });
      expect(log.json.results[0].message).toMatch(message);
      expect((await call("get", w.path, w.editor.token)).json.status).toBe("error");
      if (name === "a gigabyte") expect(vendor.hugeBytesWritten).toBeLessThan(64 * 1024 * 1024);
      expect(host()).toMatch(/^localhost:/);
    });
  }

  it("a vendor that repeats the request (the key with it) in its error: the key is not in the log", async () => {
    vendor.clearFaults();
    vendor.fail("/api/token", { kind: "echo", status: 400 });
    const fetched = await call("post", `${w.path}fetch/`, w.editor.token, { wait: true });
    expect(fetched.json.fetch).toMatchObject({ status: "error", sensors: [] });
    expect(fetched.json.fetch.message).toMatch(/answered HTTP 400/);
    expect(fetched.json.fetch.message).toContain("***");
    const log = await call("get", `${w.path}logs/`, w.editor.token);
    expect(log.json.results[0]).toMatchObject({ sensor: null, status: "error" });
  });

  it("recovers once the vendor does", async () => {
    vendor.clearFaults();
    const fetched = await call("post", `${w.path}fetch/`, w.editor.token, { wait: true });
    expect(fetched.json.fetch).toMatchObject({ status: "ok", records: 1 });
    expect((await call("get", w.path, w.editor.token)).json.status).toBe("ok");
  });
});

describe("npm run telemetry", () => {
  /** The command on the server's database, as an operator runs it (the fakes answer in this process: not spawnSync). */
  const cli = (...args: string[]) => new Promise<{ code: number | null; out: string; err: string }>((resolve) => {
    const child = spawn(process.execPath, ["--import", "tsx", "scripts/telemetry.ts", ...args], {
      cwd: ROOT, stdio: ["ignore", "pipe", "pipe"],
      env: { ...process.env, TSX_TSCONFIG_PATH: "tsconfig.json", DATABASE_URL: server.databaseUrl, ENHYDRIS_MEDIA_DIR: server.mediaDir, ENHYDRIS_SECRET_KEY: TEST_SECRET_KEY, ENHYDRIS_OUTBOUND_ALLOW: "localhost" },
    });
    let out = "";
    let err = "";
    child.stdout.on("data", (d) => (out += d));
    child.stderr.on("data", (d) => (err += d));
    child.on("exit", (code) => resolve({ code, out, err }));
  });

  it("fetches a station's telemetry in the foreground and says what each sensor stored", async () => {
    const vendor = await startFakeMeteoView2({ apiKey: SECRETS[1], readings: { "42a": [{ time: "2025-03-01T12:00", value: 1 }, { time: "2025-03-01T12:10", value: 2 }], "43b": [{ time: "2025-03-01T12:00", value: 3 }] } });
    vendors.push(vendor);
    const w = await world();
    // Once a day, twelve hours from now: no scheduled fetch of the server's comes in between.
    const offset = (Math.floor(Date.now() / 60_000) + 720) % 1440;
    const put = await call("put", w.path, w.editor.token, {
      type: "meteoview2", data_timezone: "Europe/Athens", device_locator: viaName(vendor.apiUrl), username: "alice@example.org", password: SECRETS[1],
      remote_station_id: "1852", fetch_interval_minutes: 1440, fetch_offset_minutes: offset,
      sensors: [{ sensor_id: "42a", timeseries_group: w.a }, { sensor_id: "43b", timeseries_group: w.b }],
    });
    expect(put.status, put.text).toBe(201);
    const run = await cli("--station", String(w.sid));
    expect(run.code, run.err).toBe(0);
    expect(run.out).toContain(`Fetching Metrica MeteoView2 of station ${w.sid}: 2 sensors.`);
    expect(run.out).toContain("ok      sensor 42a: 2 new records\nok      sensor 43b: 1 new record\n3 new records in all.\n");
    expect(run.out + run.err).not.toContain(SECRETS[1]);
    expect(await initialCsv(w, w.a)).toBe(lines([T0, "1.0,"], [T0 + 600, "2.0,"]));
    const again = await cli("--station", String(w.sid));
    expect(again.code, again.err).toBe(0);
    expect(again.out).toContain("0 new records in all.");
  }, 120_000);

  it("names a station without telemetry, one that does not exist, and bad arguments", async () => {
    const sid = await f.station();
    expect(await cli("--station", String(sid))).toMatchObject({ code: 1, err: `Station ${sid} has no telemetry.\n` });
    // Beyond the 32-bit id columns too (PostgreSQL would refuse the query).
    for (const id of ["99999999", "99999999999"]) expect(await cli("--station", id)).toMatchObject({ code: 1, err: `There is no station ${id}.\n` });
    const bad = await cli("--station", "x");
    expect(bad.code).toBe(2);
    expect(bad.err).toContain("usage: npm run telemetry -- --station <station id>");
  }, 120_000);
});

describe("the passwords", () => {
  it("appear in no answer, no log line and no metric", async () => {
    const metrics = await http.get("/metrics");
    expect(metrics.status).toBe(200);
    for (const secret of SECRETS) {
      expect(answers.filter((a) => a.includes(secret)).length, secret).toBe(0);
      expect(server.output().includes(secret), `${secret} in the server's log`).toBe(false);
      expect(metrics.text.includes(secret)).toBe(false);
    }
    expect(answers.length).toBeGreaterThan(40);
  });
});

describe("a vendor that does not answer holds a fetch slot for one request timeout, not one per sensor", () => {
  /**
   * A telemetry of `n` sensors (the time series of one remote group, each with a reading ten
   * minutes old) into `n` groups, fetched once a day twelve hours from now: no scheduled fetch
   * comes in between.
   */
  async function enhydrisTelemetry(n: number) {
    const recent = (): [string, string, string][] => [[new Date(Math.floor(Date.now() / 60_000) * 60_000 - 600_000).toISOString().slice(0, 19) + "Z", "1.5", ""]];
    const series = Array.from({ length: n }, (_, k) => ({ id: 100 + k, type: "Initial", name: `s${k}`, time_step: "10min", records: recent }));
    const vendor = await startFakeEnhydris({ token: SECRETS[4], stations: [{ id: 42, name: "hobbiton", displayTimezone: "UTC", groups: [{ id: 7, name: "all", series }] }] });
    vendors.push(vendor);
    const w = await world();
    const groups = [w.a, w.b];
    while (groups.length < n) groups.push(await f.group(w.sid, { name: `G${groups.length}` }));
    const sensors = series.map((s, k) => ({ sensor_id: `7 ${s.id}`, timeseries_group: groups[k] }));
    const offset = (Math.floor(Date.now() / 60_000) + 720) % 1440;
    const put = await call("put", w.path, w.editor.token, {
      type: "enhydris", device_locator: viaName(vendor.url), password: SECRETS[4], remote_station_id: "42", fetch_interval_minutes: 1440, fetch_offset_minutes: offset, sensors,
    });
    expect(put.status, put.text).toBe(201);
    return { vendor, w, ids: sensors.map((s) => s.sensor_id) };
  }

  async function fetchNow(w: World) {
    const started = Date.now();
    const fetched = await call("post", `${w.path}fetch/`, w.editor.token, { wait: true });
    expect(fetched.status, fetched.text).toBe(200);
    return { fetch: fetched.json.fetch as { status: string; sensors: { sensor_id: string; status: string; records: number; message: string }[] }, ms: Date.now() - started };
  }

  const NOT_ANSWERED = /^not fetched: the vendor did not answer earlier in this fetch \(the answer of localhost:\d+ timed out after 3 s\), so it was not asked again; the next fetch tries this sensor first$/;

  it("after a request without an answer, the remaining sensors are not tried: their log lines say so, and the next fetch tries them first", async () => {
    const { vendor, w, ids } = await enhydrisTelemetry(3);
    vendor.fail("/data/", { kind: "hang" });
    const first = await fetchNow(w);
    // One request timeout (3 s), not one per sensor.
    expect(vendor.dataRequests()).toHaveLength(1);
    expect(first.ms).toBeLessThan(7000);
    expect(first.fetch.status).toBe("error");
    expect(first.fetch.sensors.map((s) => s.sensor_id)).toEqual(ids);
    expect(first.fetch.sensors[0].message).toMatch(/^the answer of localhost:\d+ timed out after 3 s$/);
    for (const s of first.fetch.sensors.slice(1)) expect(s).toMatchObject({ status: "error", records: 0, message: expect.stringMatching(NOT_ANSWERED) });
    const log = await call("get", `${w.path}logs/`, w.editor.token);
    expect(log.json.results.map((r: { sensor: string; error_name: string }) => [r.sensor, r.error_name]))
      .toEqual([[ids[2], "NotFetched"], [ids[1], "NotFetched"], [ids[0], "TelemetryError"]]);
    expect(log.json.results[0].message).toMatch(NOT_ANSWERED);
    // The sensors not tried go first: a sensor whose requests always time out does not starve the others.
    const second = await fetchNow(w);
    expect(second.fetch.sensors.map((s) => s.sensor_id)).toEqual([ids[1], ids[2], ids[0]]);
    expect(second.fetch.sensors.map((s) => s.status)).toEqual(["error", "error", "error"]);
    expect(vendor.dataRequests()).toHaveLength(2);
    vendor.clearFaults();
    const third = await fetchNow(w);
    expect(third.fetch).toMatchObject({ status: "ok", records: 3 });
    expect(third.fetch.sensors.map((s) => s.sensor_id)).toEqual([ids[2], ids[0], ids[1]]);
  });

  it("a vendor answering each request within the timeout: the fetch's requests together have three request timeouts", async () => {
    const { vendor, w, ids } = await enhydrisTelemetry(8);
    // 2 s a request, within the 3 s timeout: 16 s for the eight sensors; the fetch has 9 s.
    vendor.fail("/data/", { kind: "slow", ms: 2000 });
    const first = await fetchNow(w);
    expect(first.ms).toBeLessThan(13_000);
    const ok = first.fetch.sensors.filter((s) => s.status === "ok");
    const skipped = first.fetch.sensors.filter((s) => s.message.startsWith("not fetched"));
    expect(ok.length).toBeGreaterThanOrEqual(2);
    expect(skipped.length).toBeGreaterThanOrEqual(2);
    for (const s of skipped) expect(s.message).toBe("not fetched: the fetch reached its time limit of 9 s before this sensor; the next fetch tries it first");
    for (const s of first.fetch.sensors) {
      if (s.status === "error" && !skipped.includes(s)) expect(s.message).toMatch(/^the fetch reached its time limit of 9 s while waiting for localhost:\d+$/);
    }
    expect(first.fetch.sensors.map((s) => s.sensor_id)).toEqual(ids);
    // The next fetch starts with the sensors this one did not reach.
    const second = await fetchNow(w);
    expect(second.fetch.sensors.slice(0, 2)).toMatchObject(skipped.slice(0, 2).map((s) => ({ sensor_id: s.sensor_id, status: "ok", records: 1 })));
  }, 60_000);
});

describe("what one discovery may hold (discover/ in the web process)", () => {
  /**
   * An Enhydris whose list of stations has `pages` pages of `perPage` stations (names of
   * `nameLength` characters), each after `delayMs`; every station has one group with one time series.
   */
  async function longList(options: { pages: number; perPage: number; nameLength?: number; delayMs?: number }): Promise<FakeVendor> {
    const vendor = await startFake(async (request) => {
      if (options.delayMs) await new Promise((resolve) => setTimeout(resolve, options.delayMs));
      if (/^\/api\/stations\/\d+\/timeseriesgroups\/$/.test(request.path)) return json({ next: null, results: [{ id: 1, name: "rain" }] });
      if (/^\/api\/stations\/\d+\/timeseriesgroups\/1\/timeseries\/$/.test(request.path)) return json({ next: null, results: [{ id: 11, type: "Initial", name: "raw", time_step: "10min" }] });
      if (request.path !== "/api/stations/") return json({ detail: "Not found." }, 404);
      const n = Number(request.query.get("page") ?? 1);
      const name = "x".repeat(options.nameLength ?? 10);
      const results = Array.from({ length: options.perPage }, (_, k) => ({ id: n * options.perPage + k, name }));
      // A relative next link: the fake is reached as localhost.
      return json({ next: n < options.pages ? `/api/stations/?page=${n + 1}` : null, results });
    });
    vendors.push(vendor);
    return vendor;
  }

  const discover = (w: World, vendor: FakeVendor, extra: Record<string, unknown> = {}) =>
    call("post", `${w.path}discover/`, w.editor.token, { type: "enhydris", device_locator: viaName(vendor.url), ...extra });

  it("reads at most the upload limit in all, over every page of a list", async () => {
    // 40 pages of some 200 KB, each within the limit of one answer (2 MB), 8 MB in all.
    const vendor = await longList({ pages: 40, perPage: 20, nameLength: 10_000 });
    const w = await world();
    const r = await discover(w, vendor);
    expect(r.status, r.text.slice(0, 200)).toBe(400);
    expect(r.json).toEqual({ connection: [`the answers of localhost:${vendor.port} add up to more than 2 MB, the limit of one discovery`] });
    expect(vendor.requests.length).toBeLessThanOrEqual(12);
  });

  it("lists at most 10,000 stations: beyond, a 400 saying to enter the remote station's id by hand, which works", async () => {
    const vendor = await longList({ pages: 30, perPage: 4000 });
    const w = await world();
    const r = await discover(w, vendor);
    expect(r.status, r.text.slice(0, 200)).toBe(400);
    expect(r.json).toEqual({ connection: ["Enhydris lists more than 10,000 stations, more than can be offered to choose from: enter the remote station's id (remote_station_id) by hand"] });
    // The pages beyond the 10,000th station are not read.
    expect(vendor.requests).toHaveLength(3);
    const byHand = await discover(w, vendor, { remote_station_id: "12345" });
    expect(byHand.status, byHand.text).toBe(200);
    expect(byHand.json).toEqual({ sensors: [{ id: "1 11", name: "rain - Initial raw 10min" }] });
  });

  it("runs at most four at once in a process: a fifth is refused with 429 and Retry-After, and a slot freed serves again", async () => {
    const vendor = await longList({ pages: 1, perPage: 3, delayMs: 1500 });
    const w = await world();
    const answers = await Promise.all(Array.from({ length: 5 }, () => discover(w, vendor)));
    expect(answers.map((a) => a.status).sort()).toEqual([200, 200, 200, 200, 429]);
    const refused = answers.find((a) => a.status === 429)!;
    expect(refused.json).toEqual({ detail: "Request was throttled. Expected available in 5 seconds." });
    expect(refused.headers.get("retry-after")).toBe("5");
    expect(vendor.requests).toHaveLength(4);
    const again = await discover(w, vendor);
    expect(again.status, again.text).toBe(200);
    expect(again.json.stations).toHaveLength(3);
  });
});
