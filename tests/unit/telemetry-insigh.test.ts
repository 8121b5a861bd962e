import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { NOTHING_ALLOWED } from "@/lib/outbound";
import { describeType, withSession, type TelemetrySession } from "@/lib/telemetry/driver";
import { formatNaive } from "@/lib/telemetry/readings";
import { insigh } from "@/lib/telemetry/types/insigh";
import { startFakeInsigh, type FakeInsigh, type InsighRow } from "@/tests/support/fake-vendors/insigh";
import { describeCommonFaults, driverContext, epoch, telemetryConfig, telemetryFailure } from "@/tests/support/telemetry-drivers";

/** The two rows of the reference's test (a part of their columns). */
const ROWS: InsighRow[] = [
  { ms: 1762834504000, values: { "R.Humidity_Raw": 1919.188, Precipitation_Raw: 0, Precipitation: 0, R_Humidity: 94.95, Temperature: 11.79, W_Speed: "" } },
  { ms: 1762835403000, values: { "R.Humidity_Raw": 1914.187, Precipitation_Raw: 0, Precipitation: 0, R_Humidity: 94.64, Temperature: 11.64, W_Speed: "" } },
];

function configFor(vendor: FakeInsigh, extra = {}) {
  return telemetryConfig({ deviceLocator: vendor.apiUrl, password: "top-secret-token", remoteStationId: "station-1-id/station-1-data-channel", ...extra });
}

describe("insigh: metadata", () => {
  it("describes itself, with an overridable API URL", () => {
    expect(describeType(insigh)).toEqual({
      id: "insigh",
      name: "insigh.io",
      lists_stations: true,
      fields: {
        device_locator: { label: "insigh.io API URL", help: "If this is left blank, https://console.insigh.io/mf-rproxy/ will be used.", required: false },
        password: { label: "API token", help: "", required: true },
        remote_station_id: { label: "Remote station", help: "The station as the vendor's system identifies it; the wizard lists them.", required: true },
      },
    });
  });

  it("validates its configuration", () => {
    expect(insigh.validate(telemetryConfig({ password: "t", remoteStationId: "a/b" }))).toEqual({});
    expect(insigh.validate(telemetryConfig({ remoteStationId: "a" }))).toEqual({
      password: ["This field is required."],
      remote_station_id: ['Enter "device id/data channel".'],
    });
  });
});

describe("insigh: against its fake", () => {
  let vendor: FakeInsigh;
  let rows: Record<string, InsighRow[]>;
  let host: string;
  beforeEach(async () => {
    rows = { "station-1-id": ROWS };
    vendor = await startFakeInsigh({ rows });
    host = vendor.url.slice(7);
  });
  afterEach(() => vendor.close());

  it("uses https://console.insigh.io/mf-rproxy/ when the URL is blank", async () => {
    const context = driverContext({ allow: NOTHING_ALLOWED, resolve: async () => ["127.0.0.1"] });
    const error = await telemetryFailure(withSession(insigh, configFor(vendor, { deviceLocator: "" }), context, (s) => s.listStations()));
    expect(error.message).toBe("console.insigh.io resolves to 127.0.0.1, a loopback address, which is not allowed (see ENHYDRIS_OUTBOUND_ALLOW)");
  });

  it("lists the devices as device/channel, with the token as the Authorization header", async () => {
    const stations = await withSession(insigh, configFor(vendor), driverContext(), (s) => s.listStations());
    expect(stations).toEqual([
      { id: "station-1-id/station-1-data-channel", name: "Station 1" },
      { id: "station-2-id/station-2-data-channel", name: "Station 2" },
    ]);
    expect([vendor.requests[0].path, vendor.requests[0].headers.authorization]).toEqual(["/mf-rproxy/device/list", "top-secret-token"]);
  });

  it("lists the sensors by the part of their names after the first dash", async () => {
    const sensors = await withSession(insigh, configFor(vendor), driverContext(), (s) => s.listSensors());
    expect(sensors.map((s) => s.id)).toEqual(["Precipitation", "Precipitation_Raw", "R_Humidity", "R_Humidity_Raw", "Temperature", "Temperature_Raw"]);
    expect(Object.fromEntries(vendor.requests[0].query)).toEqual({ channel: "station-1-data-channel", id: "station-1-id" });
  });

  it("asks queryPack from one minute after the last record, and reads the sensor's column (the reference's answers)", async () => {
    const batch = await withSession(insigh, configFor(vendor), driverContext(), (s) => s.readingsAfter("Precipitation", null));
    expect(vendor.requests[0].path).toBe("/mf-rproxy/measurement/queryPack");
    expect(vendor.requests[0].query.toString()).toBe("channel=station-1-data-channel&publisher=station-1-id&startRange=1970-01-01T00%3A01%3A00Z&limit=25000&format=csv");
    expect(batch.clock).toBe("utc");
    expect(batch.readings.map((r) => [formatNaive(r.time), r.value])).toEqual([["2025-11-11T04:15:04", 0], ["2025-11-11T04:30:03", 0]]);
    await withSession(insigh, configFor(vendor), driverContext(), (s) => s.readingsAfter("Precipitation", epoch("2024-01-01T12:00:00Z")));
    expect(vendor.packRequests().at(-1)!.startRange).toBe("2024-01-01T12:01:00Z");
  });

  it("serves every sensor with the same last record from one answer", async () => {
    await withSession(insigh, configFor(vendor), driverContext(), async (s) => {
      const humidity = await s.readingsAfter("R_Humidity", null);
      expect(humidity.readings.map((r) => r.value)).toEqual([94.95, 94.64]);
      const temperature = await s.readingsAfter("Temperature", null);
      expect(temperature.readings.map((r) => r.value)).toEqual([11.79, 11.64]);
      expect(vendor.packRequests()).toHaveLength(1);
      // Another last record: its own request, so that nothing is missed.
      const later = await s.readingsAfter("Temperature", epoch("2025-11-11T04:15:04Z"));
      expect(later.readings.map((r) => r.value)).toEqual([11.64]);
      expect(vendor.packRequests()).toHaveLength(2);
    });
  });

  it("reads empty cells as missing values, and an empty answer as no readings", async () => {
    const batch = await withSession(insigh, configFor(vendor), driverContext(), (s) => s.readingsAfter("W_Speed", null));
    expect(batch.readings.map((r) => r.value)).toEqual([null, null]);
    const none = await withSession(insigh, configFor(vendor), driverContext(), (s) => s.readingsAfter("W_Speed", epoch("2026-01-01T00:00:00Z")));
    expect(none.readings).toEqual([]);
  });

  it("refuses an answer without the sensor's column, a bad time or a bad value", async () => {
    const missing = await telemetryFailure(withSession(insigh, configFor(vendor), driverContext(), (s) => s.readingsAfter("NoSuch", null)));
    expect(missing.message).toBe(`the answer of ${host} has no column for sensor "NoSuch"`);
    rows["station-1-id"] = [{ ms: 1762834504000, values: { Temperature: "hot" } }];
    const bad = await telemetryFailure(withSession(insigh, configFor(vendor), driverContext(), (s) => s.readingsAfter("Temperature", null)));
    expect(bad.message).toBe(`the value of sensor "Temperature" on line 2 of the answer of ${host} is not a number ("hot")`);
    vendor.fail("queryPack", { kind: "body", body: '"time","Temperature"\n"yesterday",1\n' });
    const time = await telemetryFailure(withSession(insigh, configFor(vendor), driverContext(), (s) => s.readingsAfter("Temperature", null)));
    expect(time.message).toBe(`the answer of ${host} has an invalid time ("yesterday") on line 2`);
  });

  it("refuses a time outside the years 1–9999 (the reference's datetime fails), and reads the edges", async () => {
    // Microseconds instead of milliseconds: the year 57827.
    vendor.fail("queryPack", { kind: "body", body: '"time","Temperature"\n"1762834504000",1\n"1762834504000000",2\n' }, 1);
    const late = await telemetryFailure(withSession(insigh, configFor(vendor), driverContext(), (s) => s.readingsAfter("Temperature", null)));
    expect(late.message).toBe(`the answer of ${host} has a time outside the years 1–9999 ("1762834504000000") on line 3`);
    vendor.fail("queryPack", { kind: "body", body: '"time","Temperature"\n"-62135596801000",1\n' }, 1);
    const early = await telemetryFailure(withSession(insigh, configFor(vendor), driverContext(), (s) => s.readingsAfter("Temperature", null)));
    expect(early.message).toBe(`the answer of ${host} has a time outside the years 1–9999 ("-62135596801000") on line 2`);
    vendor.fail("queryPack", { kind: "body", body: '"time","Temperature"\n"-62135596800000",1\n"253402300799999",2\n' }, 1);
    const edges = await withSession(insigh, configFor(vendor), driverContext(), (s) => s.readingsAfter("Temperature", null));
    expect(edges.readings.map((r) => r.time)).toEqual([-62135596800, 253402300799]);
  });

  it("refuses a remote station that is not device/channel, and says what the console says", async () => {
    const form = await telemetryFailure(withSession(insigh, configFor(vendor, { remoteStationId: "nochannel" }), driverContext(), (s) => s.listSensors()));
    expect(form.message).toBe('the remote station "nochannel" is not of the form "device id/data channel"');
    const token = await telemetryFailure(withSession(insigh, configFor(vendor, { password: "wrong-token" }), driverContext(), (s) => s.listStations()));
    expect(token.message).toBe(`${host} answered HTTP 401: missing or invalid credentials provided`);
    vendor.fail("device/list", { kind: "body", body: JSON.stringify({ devices: [] }) });
    const notList = await telemetryFailure(withSession(insigh, configFor(vendor), driverContext(), (s) => s.listStations()));
    expect(notList.message).toBe(`the answer of ${host} is not a list`);
  });
});

describeCommonFaults("insigh", async () => {
  const vendor = await startFakeInsigh({ rows: { "station-1-id": ROWS } });
  return {
    vendor,
    type: insigh,
    config: configFor(vendor),
    match: "/queryPack",
    run: (s: TelemetrySession) => s.readingsAfter("Temperature", null),
  };
});
