import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { NOTHING_ALLOWED } from "@/lib/outbound";
import { resolveTimeZone } from "@/lib/formats/timezone";
import { describeType, withSession } from "@/lib/telemetry/driver";
import { formatNaive, readingsToRecords } from "@/lib/telemetry/readings";
import { meteoview2 } from "@/lib/telemetry/types/meteoview2";
import { startFakeMeteoView2, type FakeMeteoView2, type MeteoView2Reading } from "@/tests/support/fake-vendors/meteoview2";
import { describeCommonFaults, driverContext, epoch, telemetryConfig, telemetryFailure } from "@/tests/support/telemetry-drivers";

const NOW = () => Date.parse("2022-06-14T08:35:00Z");

function configFor(vendor: FakeMeteoView2, extra = {}) {
  return telemetryConfig({
    deviceLocator: vendor.apiUrl,
    username: "alice@example.org",
    password: "topsecretapikey",
    remoteStationId: "1852",
    dataTimezone: "UTC",
    ...extra,
  });
}

const iso = (t: number) => `${formatNaive(t)}Z`;

describe("meteoview2: metadata", () => {
  it("describes itself as the reference's wizard does", () => {
    expect(describeType(meteoview2)).toEqual({
      id: "meteoview2",
      name: "Metrica MeteoView2",
      lists_stations: true,
      fields: {
        device_locator: { label: "Meteoview API URL", help: "If this is left blank, https://meteoview2.gr/api/ will be used.", required: false },
        username: { label: "Email", help: "", required: true },
        password: { label: "API key", help: "", required: true },
        remote_station_id: { label: "Remote station", help: "The station as the vendor's system identifies it; the wizard lists them.", required: true },
        data_timezone: { label: "Time zone of the timestamps", help: 'The time zone of the data, like "Europe/Athens" or "Etc/GMT".', required: true },
      },
    });
    expect(meteoview2.usesDataTimezone).toBe(true);
  });

  it("validates its configuration", () => {
    expect(meteoview2.validate(telemetryConfig({ username: "a@b.c", password: "k" }))).toEqual({});
    expect(meteoview2.validate(telemetryConfig({ deviceLocator: "ftp://x/", dataTimezone: "Nowhere/Zone" }))).toEqual({
      username: ["This field is required."],
      password: ["This field is required."],
      device_locator: ["Enter an http or https URL."],
      data_timezone: ['"Nowhere/Zone" is not a valid choice.'],
    });
  });
});

describe("meteoview2: against its fake", () => {
  let vendor: FakeMeteoView2;
  let readings: Record<string, MeteoView2Reading[]>;
  beforeEach(async () => {
    readings = {};
    vendor = await startFakeMeteoView2({ readings });
  });
  afterEach(() => vendor.close());

  it("logs on with the email and API key, then sends the token", async () => {
    const stations = await withSession(meteoview2, configFor(vendor), driverContext(), (s) => s.listStations());
    expect(stations).toEqual([{ id: "1852", name: "Hobbiton" }, { id: "2581", name: "Rivendell" }]);
    const [token, list] = vendor.requests;
    expect([token.method, token.path, token.headers["content-type"]]).toEqual(["POST", "/api/token", "application/json"]);
    expect(JSON.parse(token.body)).toEqual({ email: "alice@example.org", key: "topsecretapikey" });
    expect([list.path, list.headers.authorization, list.body]).toEqual(["/api/stations", "Bearer topsecretapitoken", ""]);
  });

  it("says what the vendor says when the key is wrong", async () => {
    const error = await telemetryFailure(withSession(meteoview2, configFor(vendor, { password: "wrongkey" }), driverContext(), async () => undefined));
    expect(error.message).toBe(`${vendor.url.slice(7)} says: 401 Wrong email or API key`);
  });

  it("lists the sensors of the remote station", async () => {
    const sensors = await withSession(meteoview2, configFor(vendor), driverContext(), (s) => s.listSensors());
    expect(sensors).toEqual([{ id: "42a", name: "temperature" }, { id: "43b", name: "humidity" }]);
    expect(JSON.parse(vendor.requests[1].body)).toEqual({ station_code: "1852" });
    const error = await telemetryFailure(withSession(meteoview2, configFor(vendor, { remoteStationId: "999" }), driverContext(), (s) => s.listSensors()));
    expect(error.message).toBe(`${vendor.url.slice(7)} says: 404 Station not found`);
  });

  it("adds the trailing slash of the API URL", async () => {
    const stations = await withSession(meteoview2, configFor(vendor, { deviceLocator: vendor.apiUrl.slice(0, -1) }), driverContext(), (s) => s.listStations());
    expect(stations).toHaveLength(2);
    expect(vendor.requests[0].path).toBe("/api/token");
  });

  it("uses https://meteoview2.gr/api/ when the URL is blank", async () => {
    const context = driverContext({ allow: NOTHING_ALLOWED, resolve: async () => ["127.0.0.1"] });
    const error = await telemetryFailure(withSession(meteoview2, configFor(vendor, { deviceLocator: " " }), context, async () => undefined));
    expect(error.message).toBe("meteoview2.gr resolves to 127.0.0.1, a loopback address, which is not allowed (see ENHYDRIS_OUTBOUND_ALLOW)");
  });

  it("asks the window after the last record in data_timezone (the reference's request)", async () => {
    readings["8231"] = [{ time: "2022-06-14T11:10", value: "1.42" }, { time: "2022-06-14T11:20", value: 1.43 }];
    const config = configFor(vendor, { dataTimezone: "Europe/Athens" });
    const batch = await withSession(meteoview2, config, driverContext({ now: NOW }), (s) => s.readingsAfter("8231", epoch("2022-06-14T08:00:00Z")));
    expect(vendor.windows()).toEqual([{ sensor: ["8231"], datefrom: "2022-06-14", timefrom: "11:01", dateto: "2022-12-11" }]);
    expect(batch.clock).toBe("local");
    expect(batch.readings.map((r) => [formatNaive(r.time), r.value, r.flags])).toEqual([["2022-06-14T11:10:00", 1.42, ""], ["2022-06-14T11:20:00", 1.43, ""]]);
    const { records } = readingsToRecords(batch, resolveTimeZone("Europe/Athens")!, epoch("2022-06-14T08:00:00Z"));
    expect([...records.timestamps].map(iso)).toEqual(["2022-06-14T08:10:00Z", "2022-06-14T08:20:00Z"]);
  });

  it("starts at 1990-01-01 00:00 for an empty series, and reads 0-based months", async () => {
    readings["257"] = [{ time: "1990-01-01T00:00", value: 42 }, { time: "1990-02-28T23:50", value: null }];
    const batch = await withSession(meteoview2, configFor(vendor), driverContext({ now: NOW }), (s) => s.readingsAfter("257", null));
    expect(vendor.windows()).toEqual([{ sensor: ["257"], datefrom: "1990-01-01", timefrom: "00:00", dateto: "1990-06-30" }]);
    const measurements = vendor.requests.at(-1)!;
    expect(measurements.headers.authorization).toBe("Bearer topsecretapitoken");
    expect(batch.readings.map((r) => [formatNaive(r.time), r.value])).toEqual([["1990-01-01T00:00:00", 42], ["1990-02-28T23:50:00", null]]);
  });

  it("moves on to the next window when one is empty (two requests)", async () => {
    readings["8231"] = [{ time: "2021-12-14T08:10", value: 1.42 }, { time: "2021-12-14T08:20", value: 1.43 }];
    const batch = await withSession(meteoview2, configFor(vendor), driverContext({ now: NOW }), (s) => s.readingsAfter("8231", epoch("2021-06-14T08:00:00Z")));
    expect(vendor.windows()).toEqual([
      { sensor: ["8231"], datefrom: "2021-06-14", timefrom: "08:01", dateto: "2021-12-11" },
      { sensor: ["8231"], datefrom: "2021-12-11", timefrom: "08:02", dateto: "2022-06-09" },
    ]);
    expect(batch.readings.map((r) => formatNaive(r.time))).toEqual(["2021-12-14T08:10:00", "2021-12-14T08:20:00"]);
  });

  it("asks 66 windows from 1990 to tomorrow when there is nothing, then gives nothing", async () => {
    const batch = await withSession(meteoview2, configFor(vendor), driverContext({ now: NOW }), (s) => s.readingsAfter("8231", null));
    expect(batch.readings).toEqual([]);
    const windows = vendor.windows();
    expect(windows).toHaveLength(66);
    // As the reference's loop computes it (in Python: 66 windows, the last from 2022-01-13 01:05 to 2022-07-12).
    expect(windows.at(-1)).toEqual({ sensor: ["8231"], datefrom: "2022-01-13", timefrom: "01:05", dateto: "2022-07-12" });
  });

  it("asks nothing when the last record is already past tomorrow", async () => {
    const batch = await withSession(meteoview2, configFor(vendor), driverContext({ now: NOW }), (s) => s.readingsAfter("8231", epoch("2022-06-16T00:00:00Z")));
    expect(batch.readings).toEqual([]);
    expect(vendor.windows()).toEqual([]);
  });

  it("reads the repeated hour of the autumn change (Europe/Athens) into the right instants", async () => {
    readings["42a"] = ["02:50", "03:30", "03:40", "03:50", "03:00", "03:10", "04:00"].map((t, i) => ({ time: `2023-10-29T${t}`, value: i }));
    const config = configFor(vendor, { dataTimezone: "Europe/Athens" });
    const lastStored = epoch("2023-10-28T23:40:00Z"); // 02:40 local, before the change
    const batch = await withSession(meteoview2, config, driverContext({ now: () => Date.parse("2023-10-29T03:00:00Z") }), (s) => s.readingsAfter("42a", lastStored));
    expect(vendor.windows()[0]).toMatchObject({ datefrom: "2023-10-29", timefrom: "02:41" });
    const { records } = readingsToRecords(batch, resolveTimeZone("Europe/Athens")!, lastStored);
    expect([...records.timestamps].map(iso)).toEqual([
      "2023-10-28T23:50:00Z", "2023-10-29T00:30:00Z", "2023-10-29T00:40:00Z", "2023-10-29T00:50:00Z", "2023-10-29T01:00:00Z",
      "2023-10-29T01:10:00Z", "2023-10-29T02:00:00Z",
    ]);
  });

  it("refuses values that are not numbers and dates that are not dates", async () => {
    const host = vendor.url.slice(7);
    readings.a = [{ time: "2022-01-01T00:00", value: "abc" }];
    const config = configFor(vendor);
    const run = (id: string) => telemetryFailure(withSession(meteoview2, config, driverContext({ now: NOW }), (s) => s.readingsAfter(id, epoch("2021-12-01T00:00:00Z"))));
    expect((await run("a")).message).toBe(`the value of ${host} at 2022-01-01T00:00:00 is not a number ("abc")`);
    vendor.fail("measurements", { kind: "body", body: JSON.stringify({ code: "200", measurements: [{ total_values: 1, values: [{ year: "2022", month: "12", day: "1", hour: "0", minute: "0", mvalue: "1" }] }] }) });
    expect((await run("a")).message).toBe(`a value of ${host} has an invalid month ("12")`);
    vendor.clearFaults();
    vendor.fail("measurements", { kind: "body", body: JSON.stringify({ code: "200", measurements: [{ total_values: 1, values: [{ year: "2022", month: "1", day: "30", hour: "0", minute: "0", mvalue: "1" }] }] }) });
    expect((await run("a")).message).toBe(`a value of ${host} has an invalid date (2022-2-30)`);
  });

  it("refuses answers without a code, or with another code than 200", async () => {
    const host = vendor.url.slice(7);
    vendor.fail("measurements", { kind: "body", body: JSON.stringify({ measurements: [] }) }, 1);
    vendor.fail("measurements", { kind: "body", body: JSON.stringify({ code: "500", message: "Internal error" }) }, 1);
    vendor.fail("measurements", { kind: "body", body: JSON.stringify({ code: "200" }) }, 1);
    const run = () => telemetryFailure(withSession(meteoview2, configFor(vendor), driverContext({ now: NOW }), (s) => s.readingsAfter("42a", null)));
    expect((await run()).message).toBe(`the answer of ${host} has no "code"`);
    expect((await run()).message).toBe(`${host} says: 500 Internal error`);
    expect((await run()).message).toBe(`the answer of ${host} has no measurements`);
  });

  it("reads the values of a slow vendor within the time limit", async () => {
    readings.a = [{ time: "2022-06-14T08:10", value: 1 }];
    vendor.fail("measurements", { kind: "slow", ms: 300 });
    const batch = await withSession(meteoview2, configFor(vendor), driverContext({ now: NOW, timeoutMs: 3000 }), (s) => s.readingsAfter("a", epoch("2022-06-14T08:00:00Z")));
    expect(batch.readings).toHaveLength(1);
  });
});

async function faultCase(match: string) {
  const vendor = await startFakeMeteoView2({ readings: { a: [{ time: "2022-06-14T08:10", value: 1 }] } });
  return {
    vendor,
    type: meteoview2,
    config: configFor(vendor),
    match,
    run: async (s: import("@/lib/telemetry/driver").TelemetrySession) => {
      await s.connect();
      return s.readingsAfter("a", epoch("2022-06-14T08:00:00Z"));
    },
  };
}

describeCommonFaults("meteoview2 (measurements)", () => faultCase("/api/measurements"));
describeCommonFaults("meteoview2 (token)", () => faultCase("/api/token"));
