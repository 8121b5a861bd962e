import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { db } from "@/lib/db";
import { api } from "@/tests/support/http";
import * as f from "@/tests/support/fixtures";
import { startFakeMeteoView2, type FakeMeteoView2 } from "@/tests/support/fake-vendors/meteoview2";
import { csv, processesApi, runsSettled, seriesApi, seriesId } from "@/tests/support/processes";
import { startServer, type TestServer } from "@/tests/support/server";

/**
 * The telemetry resource (telemetry.md §1) through a real server: the station's editors only,
 * DRF-style refusals naming the field, the write-only password (sealed at rest, answered as
 * password_set), discover/ against a fake MeteoView2, fetch now with wait, the log, delete.
 */
let server: TestServer;
let http: ReturnType<typeof api>;
let vendor: FakeMeteoView2;

const API_KEY = "sup3r-secret-api-key";

beforeAll(async () => {
  vendor = await startFakeMeteoView2({
    apiKey: API_KEY,
    readings: {
      "42a": [{ time: "2025-03-01T12:00", value: 10.5 }, { time: "2025-03-01T12:10", value: 11 }, { time: "2025-03-01T12:20", value: 99 }],
      "43b": [{ time: "2025-03-01T12:00", value: 60 }, { time: "2025-03-01T12:10", value: 61 }],
    },
  });
  server = await startServer({ env: { ENHYDRIS_OUTBOUND_ALLOW: "127.0.0.1" } });
  http = api(server.url);
});
afterAll(async () => {
  await server?.stop();
  await vendor?.close();
});

async function world() {
  const editor = await f.user();
  const other = await f.user();
  const superuser = await f.user({ superuser: true });
  const sid = await f.station({ maintainers: [editor.id] });
  const temperature = await f.group(sid, { name: "Temperature" });
  const humidity = await f.group(sid, { name: "Humidity" });
  const elsewhere = await f.group(await f.station());
  return { editor, other, superuser, sid, temperature, humidity, elsewhere, path: `/api/stations/${sid}/telemetry/` };
}

function body(w: Awaited<ReturnType<typeof world>>, extra: Record<string, unknown> = {}) {
  return {
    type: "meteoview2", data_timezone: "Europe/Athens", fetch_interval_minutes: 10, fetch_offset_minutes: 2,
    device_locator: vendor.apiUrl, username: "alice@example.org", password: API_KEY, remote_station_id: "1852",
    sensors: [{ sensor_id: "42a", timeseries_group: w.temperature }, { sensor_id: "43b", timeseries_group: w.humidity }],
    ...extra,
  };
}

describe("GET telemetry/types/", () => {
  it("lists every type with its fields' labels, for everyone", async () => {
    const r = await http.get("/api/telemetry/types/");
    expect(r.status).toBe(200);
    expect(r.json.map((t: { id: string }) => t.id).sort()).toEqual(["addupi", "enhydris", "http_csv", "influxdb", "insigh", "meteoview2"]);
    const mv = r.json.find((t: { id: string }) => t.id === "meteoview2");
    expect(mv).toMatchObject({ name: "Metrica MeteoView2", lists_stations: true, fields: { username: { label: "Email", required: true }, password: { label: "API key" } } });
  });
});

describe("stations/{sid}/telemetry/", () => {
  it("is for the station's editors: 401 anonymous, 403 for another user, 404 while there is none", async () => {
    const w = await world();
    expect((await http.get(w.path)).status).toBe(401);
    expect((await http.get(w.path, { token: w.other.token })).status).toBe(403);
    const none = await http.get(w.path, { token: w.editor.token });
    expect(none.status).toBe(404);
    expect((await http.put(w.path, { json: body(w) })).status).toBe(401);
    expect((await http.put(w.path, { token: w.other.token, json: body(w) })).status).toBe(403);
    expect((await http.patch(w.path, { token: w.editor.token, json: { fetch_interval_minutes: 20 } })).status).toBe(404);
    expect((await http.get("/api/stations/99999999/telemetry/", { token: w.editor.token })).status).toBe(404);
    const created = await http.put(w.path, { token: w.editor.token, json: body(w) });
    expect(created.status, created.text).toBe(201);
    for (const who of [undefined, w.other.token]) {
      expect((await http.get(w.path, { token: who })).status).toBe(who ? 403 : 401);
      expect((await http.get(`${w.path}logs/`, { token: who })).status).toBe(who ? 403 : 401);
      expect((await http.post(`${w.path}fetch/`, { token: who, json: {} })).status).toBe(who ? 403 : 401);
      expect((await http.post(`${w.path}discover/`, { token: who, json: {} })).status).toBe(who ? 403 : 401);
      expect((await http.delete(w.path, { token: who })).status).toBe(who ? 403 : 401);
    }
    expect((await http.get(w.path, { token: w.superuser.token })).status).toBe(200);
  });

  it("refuses bad values with 400 naming the field", async () => {
    const w = await world();
    const put = (extra: Record<string, unknown>) => http.put(w.path, { token: w.editor.token, json: body(w, extra) });
    const cases: [Record<string, unknown>, Record<string, unknown>][] = [
      [{ type: "nope" }, { type: ['"nope" is not a valid choice.'] }],
      [{ data_timezone: "Mars/Olympus" }, { data_timezone: ['"Mars/Olympus" is not a valid choice.'] }],
      [{ fetch_interval_minutes: 5 }, { fetch_interval_minutes: ["Ensure this value is greater than or equal to 10."] }],
      [{ fetch_interval_minutes: 1441 }, { fetch_interval_minutes: ["Ensure this value is less than or equal to 1440."] }],
      [{ fetch_interval_minutes: "ten" }, { fetch_interval_minutes: ["A valid integer is required."] }],
      [{ fetch_offset_minutes: 10 }, { fetch_offset_minutes: ["Ensure this value is less than fetch_interval_minutes (10)."] }],
      [{ sensors: [{ sensor_id: "42a", timeseries_group: w.elsewhere }] }, { sensors: [`sensors[0].timeseries_group: Time series group ${w.elsewhere} does not belong to this station.`] }],
      [{ sensors: [{ sensor_id: "42a", timeseries_group: w.temperature }, { sensor_id: "42a", timeseries_group: w.humidity }] }, { sensors: ['sensors[1].sensor_id: Sensor "42a" is listed twice.'] }],
      [{ sensors: [{ sensor_id: "42a", timeseries_group: w.temperature }, { sensor_id: "43b", timeseries_group: w.temperature }] }, { sensors: [`sensors[1].timeseries_group: Time series group ${w.temperature} is mapped to another sensor already.`] }],
      [{ sensors: [{ sensor_id: "", timeseries_group: "x" }] }, { sensors: ["sensors[0].sensor_id: This field may not be blank.", "sensors[0].timeseries_group: Incorrect type. Expected pk value, received str."] }],
      [{ username: "" }, { username: ["This field is required."] }],
      [{ remote_station_id: "" }, { remote_station_id: ["This field is required."] }],
      [{ stale_after_minutes: 5 }, { stale_after_minutes: ["Ensure this value is greater than or equal to 10."] }],
      [{ stuck_after_values: 2 }, { stuck_after_values: ["Ensure this value is greater than or equal to 3."] }],
      [{ alert_emails: ["not an address"] }, { alert_emails: ["alert_emails[0]: Enter a valid email address."] }],
      [{ additional_config: [1] }, { additional_config: ["Invalid data. Expected a dictionary, but got list."] }],
    ];
    for (const [extra, errors] of cases) {
      const r = await put(extra);
      expect(r.status, JSON.stringify(extra)).toBe(400);
      expect(r.json, JSON.stringify(extra)).toEqual(errors);
    }
    const missing = await http.put(w.path, { token: w.editor.token, json: {} });
    expect(missing.json).toEqual({ type: ["This field is required."], fetch_interval_minutes: ["This field is required."] });
    expect(await db().prisma.telemetry.count({ where: { stationId: w.sid } })).toBe(0);
    // A form body, as a real client may send: the nested values as JSON text.
    const form = await http.put(w.path, { token: w.editor.token, form: { ...body(w), fetch_interval_minutes: "10", fetch_offset_minutes: "12", sensors: "[]" } as Record<string, string> });
    expect(form.status).toBe(400);
    expect(form.json).toEqual({ fetch_offset_minutes: ["Ensure this value is less than fetch_interval_minutes (10)."] });
  });

  it("keeps the password write-only: sealed at rest, never answered, kept by a PUT without it, cleared by an empty one", async () => {
    const w = await world();
    const created = await http.put(w.path, { token: w.editor.token, json: body(w, { alert_emails: ["duty@example.org"], stale_after_minutes: 60 }) });
    expect(created.status, created.text).toBe(201);
    expect(created.text).not.toContain(API_KEY);
    expect(created.json).not.toHaveProperty("password");
    expect(created.json).toMatchObject({
      station: w.sid, type: "meteoview2", data_timezone: "Europe/Athens", fetch_interval_minutes: 10, fetch_offset_minutes: 2, password_set: true,
      remote_station_id: "1852", verify_tls: true, stale_after_minutes: 60, stuck_after_values: null, alert_emails: ["duty@example.org"], status: "never", last_fetch: null,
      sensors: [{ sensor_id: "42a", timeseries_group: w.temperature }, { sensor_id: "43b", timeseries_group: w.humidity }],
    });
    // Due at the next :02, :12, :22… minute.
    const next = new Date(created.json.next_fetch);
    expect(next.getTime()).toBeGreaterThan(Date.now() - 1000);
    expect(next.getUTCMinutes() % 10).toBe(2);
    expect(next.getUTCSeconds()).toBe(0);
    const stored = await db().prisma.telemetry.findUniqueOrThrow({ where: { stationId: w.sid } });
    expect(stored.password).toMatch(/^v1:/);
    expect(stored.password).not.toContain(API_KEY);
    const replaced = await http.put(w.path, { token: w.editor.token, json: { ...body(w), password: undefined, fetch_interval_minutes: 30 } });
    expect(replaced.status).toBe(200);
    expect(replaced.json).toMatchObject({ password_set: true, fetch_interval_minutes: 30, alert_emails: ["duty@example.org"] });
    expect((await db().prisma.telemetry.findUniqueOrThrow({ where: { stationId: w.sid } })).password).toBe(stored.password);
    const patched = await http.patch(w.path, { token: w.editor.token, json: { password: "" } });
    expect(patched.status).toBe(400);
    expect(patched.json).toEqual({ password: ["This field is required."] });
    const changed = await http.patch(w.path, { token: w.editor.token, form: { password: "another-key-1234", alert_emails: "" } });
    expect(changed.status, changed.text).toBe(200);
    expect(changed.json).toMatchObject({ password_set: true, alert_emails: [] });
    const activity = await http.get(`/api/stations/${w.sid}/activity/`, { token: w.editor.token });
    expect(activity.text).not.toContain(API_KEY);
    expect(activity.text).not.toContain("another-key-1234");
    expect(activity.json.results[0].summary).toMatch(/^Changed the telemetry of station .*: alert_emails, password$/);
  });

  it("discovers the vendor's stations and a station's sensors; a refused login is a 400 under connection without the key", async () => {
    const w = await world();
    const stations = await http.post(`${w.path}discover/`, { token: w.editor.token, json: { type: "meteoview2", device_locator: vendor.apiUrl, username: "alice@example.org", password: API_KEY } });
    expect(stations.status, stations.text).toBe(200);
    expect(stations.json).toEqual({ stations: [{ id: "1852", name: "Hobbiton" }, { id: "2581", name: "Rivendell" }] });
    await http.put(w.path, { token: w.editor.token, json: body(w) });
    // The saved connection stands in for what is not sent, its password included.
    const sensors = await http.post(`${w.path}discover/`, { token: w.editor.token, json: {} });
    expect(sensors.json).toEqual({ sensors: [{ id: "43b", name: "humidity" }, { id: "42a", name: "temperature" }] });
    const wrong = await http.post(`${w.path}discover/`, { token: w.editor.token, json: { password: "wrong-key-987", remote_station_id: "" } });
    expect(wrong.status).toBe(400);
    expect(wrong.json).toEqual({ connection: [`127.0.0.1:${vendor.port} says: 401 Wrong email or API key`] });
    const bad = await http.post(`${w.path}discover/`, { token: w.editor.token, json: { type: "nope" } });
    expect(bad.json).toEqual({ type: ['"nope" is not a valid choice.'] });
  });

  it("fetches now: the records of each sensor in its group's Initial series, the Checked series its checks derive, the log", async () => {
    const w = await world();
    const checks = await http.post(processesApi(w.sid, w.temperature), { token: w.editor.token, json: { type: "checks", range_check: { lower_bound: -20, upper_bound: 50 } } });
    expect(checks.status, checks.text).toBe(201);
    await http.put(w.path, { token: w.editor.token, json: body(w) });
    const r = await http.post(`${w.path}fetch/`, { token: w.editor.token, json: { wait: true } });
    expect(r.status, r.text).toBe(200);
    expect(r.json).toMatchObject({
      status: "succeeded", sensors_done: 2, sensors_total: 2, error: null,
      fetch: { status: "ok", records: 5, message: "", sensors: [
        { sensor_id: "42a", timeseries_group: w.temperature, records: 3, status: "ok", message: "" },
        { sensor_id: "43b", timeseries_group: w.humidity, records: 2, status: "ok", message: "" },
      ] },
    });
    const initial = await seriesId(http, w.sid, w.temperature, "Initial");
    // Europe/Athens is UTC+2 in March.
    expect(await csv(http, seriesApi(w.sid, w.temperature, initial), w.editor.token)).toBe("2025-03-01 10:00,10.50,\r\n2025-03-01 10:10,11.00,\r\n2025-03-01 10:20,99.00,\r\n");
    await runsSettled();
    const checked = await seriesId(http, w.sid, w.temperature, "Checked");
    expect(await csv(http, seriesApi(w.sid, w.temperature, checked), w.editor.token)).toBe("2025-03-01 10:00,10.50,\r\n2025-03-01 10:10,11.00,\r\n2025-03-01 10:20,,RANGE\r\n");
    const state = (await http.get(w.path, { token: w.editor.token })).json;
    expect(state.status).toBe("ok");
    expect(state.last_fetch).not.toBeNull();
    // Nothing new: nothing stored twice.
    const again = await http.post(`${w.path}fetch/`, { token: w.editor.token, json: { wait: true } });
    expect(again.json.fetch).toMatchObject({ status: "ok", records: 0 });
    const logs = await http.get(`${w.path}logs/`, { token: w.editor.token });
    expect(logs.status).toBe(200);
    expect(logs.json.count).toBe(4);
    expect(logs.json.results.map((l: { sensor: string; records: number; status: string }) => [l.sensor, l.records, l.status]))
      .toEqual([["43b", 0, "ok"], ["42a", 0, "ok"], ["43b", 2, "ok"], ["42a", 3, "ok"]]);
    expect((await http.get(`${w.path}fetch/`, { token: w.editor.token })).json).toMatchObject({ status: "succeeded", fetch: { records: 0 } });
    const activity = await http.get(`/api/stations/${w.sid}/activity/`, { token: w.editor.token });
    expect(activity.json.results.some((a: { action: string; summary: string }) => a.action === "fetch" && /Telemetry fetched 3 records of sensor "42a"/.test(a.summary))).toBe(true);
  });

  it("deletes the telemetry, keeping the fetched records", async () => {
    const w = await world();
    await http.put(w.path, { token: w.editor.token, json: body(w) });
    await http.post(`${w.path}fetch/`, { token: w.editor.token, json: { wait: true } });
    const initial = await seriesId(http, w.sid, w.humidity, "Initial");
    expect((await http.delete(w.path, { token: w.editor.token })).status).toBe(204);
    expect((await http.get(w.path, { token: w.editor.token })).status).toBe(404);
    expect((await http.get(`${w.path}logs/`, { token: w.editor.token })).status).toBe(404);
    expect(await csv(http, seriesApi(w.sid, w.humidity, initial), w.editor.token)).toBe("2025-03-01 10:00,60.00,\r\n2025-03-01 10:10,61.00,\r\n");
  });
});
