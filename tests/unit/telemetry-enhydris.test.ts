import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { describeType, withSession, type TelemetrySession } from "@/lib/telemetry/driver";
import { formatNaive } from "@/lib/telemetry/readings";
import { enhydris } from "@/lib/telemetry/types/enhydris";
import { startFakeEnhydris, type FakeEnhydris } from "@/tests/support/fake-vendors/enhydris";
import { describeCommonFaults, driverContext, epoch, telemetryConfig, telemetryFailure } from "@/tests/support/telemetry-drivers";

function configFor(vendor: FakeEnhydris, extra = {}) {
  return telemetryConfig({ deviceLocator: vendor.url, password: "topsecretpassword", remoteStationId: "42", ...extra });
}

describe("enhydris: metadata", () => {
  it("describes itself, with the reference's prompts", () => {
    expect(describeType(enhydris)).toEqual({
      id: "enhydris",
      name: "Enhydris",
      lists_stations: true,
      fields: {
        device_locator: { label: "Location of the other Enhydris instance", help: "For example, https://enhydris.example.com/.", required: true },
        password: { label: "API token", help: "Leave blank to read only the public data.", required: false },
        remote_station_id: { label: "Remote station", help: "The station as the vendor's system identifies it; the wizard lists them.", required: true },
      },
    });
    expect(enhydris.sensorPrompt).toBe("To which local time series does the remote time series {sensor_label} correspond?");
    expect(enhydris.ignoreSensorPrompt).toBe("Ignore this remote time series");
  });

  it("validates its configuration", () => {
    expect(enhydris.validate(telemetryConfig({ deviceLocator: "https://enhydris.example.com/", remoteStationId: "42" }))).toEqual({});
    expect(enhydris.validate(telemetryConfig({ remoteStationId: "hobbiton" }))).toEqual({
      device_locator: ["This field is required."],
      remote_station_id: ["A valid integer is required."],
    });
  });
});

describe("enhydris: against its fake", () => {
  let vendor: FakeEnhydris;
  let host: string;
  beforeEach(async () => {
    vendor = await startFakeEnhydris();
    host = vendor.url.slice(7);
  });
  afterEach(() => vendor.close());

  it("lists the stations with the token", async () => {
    const stations = await withSession(enhydris, configFor(vendor), driverContext(), (s) => s.listStations());
    expect(stations).toEqual([{ id: "42", name: "hobbiton" }, { id: "43", name: "rivendell" }, { id: "44", name: "bree" }]);
    expect([vendor.requests[0].path, vendor.requests[0].headers.authorization]).toEqual(["/api/stations/", "token topsecretpassword"]);
  });

  it("reads every page of a list", async () => {
    await vendor.close();
    vendor = await startFakeEnhydris({ pageSize: 2, moreStations: 3 });
    const stations = await withSession(enhydris, configFor(vendor), driverContext(), (s) => s.listStations());
    expect(stations.map((s) => s.id)).toEqual(["42", "43", "44", "1000", "1001", "1002"]);
    expect(vendor.requests.map((r) => `${r.path}?${r.query}`)).toEqual(["/api/stations/?", "/api/stations/?page=2", "/api/stations/?page=3"]);
  });

  it("refuses a list that continues on another site, or is not a list", async () => {
    vendor.fail("/api/stations/", { kind: "body", body: JSON.stringify({ count: 4, next: "http://elsewhere.example/api/stations/?page=2", results: [{ id: 1, name: "a" }] }) }, 1);
    const away = await telemetryFailure(withSession(enhydris, configFor(vendor), driverContext(), (s) => s.listStations()));
    expect(away.message).toBe(`the list of stations of ${host} continues on another site (elsewhere.example)`);
    vendor.fail("/api/stations/", { kind: "body", body: JSON.stringify(["this,is,not,valid,stuff"]) }, 1);
    const garbage = await telemetryFailure(withSession(enhydris, configFor(vendor), driverContext(), (s) => s.listStations()));
    expect(garbage.message).toBe(`the answer of ${host} is not a list of stations`);
  });

  it("lists the time series of the station's groups as sensors (the reference's ids and names)", async () => {
    const sensors = await withSession(enhydris, configFor(vendor), driverContext(), (s) => s.listSensors());
    expect(sensors).toEqual([
      { id: "421 4211", name: "temperature - Initial Raw 5min" },
      { id: "421 4212", name: "temperature - Aggregated Hi 1h" },
      { id: "422 4221", name: "humidity - Initial Raw 5min" },
    ]);
    expect(vendor.requests.map((r) => r.path)).toEqual([
      "/api/stations/42/timeseriesgroups/",
      "/api/stations/42/timeseriesgroups/421/timeseries/",
      "/api/stations/42/timeseriesgroups/422/timeseries/",
    ]);
  });

  it("asks the data after the last record in HTS, and reads it in the file's zone", async () => {
    const batch = await withSession(enhydris, configFor(vendor), driverContext(), (s) => s.readingsAfter("421 4211", epoch("2022-06-14T08:00:00Z")));
    expect(vendor.requests[0].path).toBe("/api/stations/42/timeseriesgroups/421/timeseries/4211/data/");
    expect(vendor.dataRequests()).toEqual([{ fmt: "hts", start_date: "2022-06-14T08:01:00+00:00" }]);
    expect(batch.clock).toBe("utc");
    // The fake writes the records in Etc/GMT-2 (14:51 local is 12:51Z).
    expect(batch.readings.map((r) => [formatNaive(r.time), r.value, r.flags])).toEqual([
      ["2025-09-10T12:51:00", 2.1, ""], ["2025-09-10T13:01:00", 2.2, "SUSPECT HIGH"], ["2025-09-10T13:11:00", null, "MISSING"],
    ]);
    const later = await withSession(enhydris, configFor(vendor), driverContext(), (s) => s.readingsAfter("421 4211", epoch("2025-09-10T12:51:00Z")));
    expect(vendor.dataRequests().at(-1)!.start_date).toBe("2025-09-10T12:52:00+00:00");
    expect(later.readings).toHaveLength(2);
  });

  it("starts at 1990-01-01T00:00:00+00:00, and reads an empty series", async () => {
    const batch = await withSession(enhydris, configFor(vendor), driverContext(), (s) => s.readingsAfter("422 4221", null));
    expect(vendor.dataRequests()).toEqual([{ fmt: "hts", start_date: "1990-01-01T00:00:00+00:00" }]);
    expect(batch.readings).toEqual([]);
  });

  it("refuses an answer that is not a time series (the reference's garbage)", async () => {
    vendor.fail("/data/", { kind: "body", body: "this,is,not,valid,stuff" }, 1);
    const error = await telemetryFailure(withSession(enhydris, configFor(vendor), driverContext(), (s) => s.readingsAfter("421 4211", null)));
    expect(error.message).toMatch(new RegExp(`^the answer of ${host} is not a time series \\(line 1: .+\\)$`));
    vendor.fail("/data/", { kind: "body", body: "\x00\x01\x02\x03\x04" }, 1);
    expect((await telemetryFailure(withSession(enhydris, configFor(vendor), driverContext(), (s) => s.readingsAfter("421 4211", null)))).message)
      .toMatch(/is not a time series/);
  });

  it("reads public data without a token, and says when the token is wrong", async () => {
    await vendor.close();
    vendor = await startFakeEnhydris({ publicData: true });
    await withSession(enhydris, configFor(vendor, { password: "" }), driverContext(), (s) => s.listStations());
    expect(vendor.requests[0].headers.authorization).toBeUndefined();
    const error = await telemetryFailure(withSession(enhydris, configFor(vendor, { password: "wrongtoken" }), driverContext(), (s) => s.listStations()));
    expect(error.message).toBe(`${vendor.url.slice(7)} answered HTTP 401: Invalid token.`);
  });

  it("refuses sensor and station ids that are not the remote's", async () => {
    const sensor = await telemetryFailure(withSession(enhydris, configFor(vendor), driverContext(), (s) => s.readingsAfter("4211", null)));
    expect(sensor.message).toBe('the sensor "4211" is not of the form "<group id> <time series id>"');
    const station = await telemetryFailure(withSession(enhydris, configFor(vendor, { remoteStationId: "hobbiton" }), driverContext(), (s) => s.listSensors()));
    expect(station.message).toBe('the remote station id "hobbiton" is not a number');
    const missing = await telemetryFailure(withSession(enhydris, configFor(vendor), driverContext(), (s) => s.readingsAfter("421 9999", null)));
    expect(missing.message).toBe(`${host} answered HTTP 404: Not found.`);
  });
});

describeCommonFaults("enhydris", async () => {
  const vendor = await startFakeEnhydris();
  return {
    vendor,
    type: enhydris,
    config: configFor(vendor),
    match: "/data/",
    run: (s: TelemetrySession) => s.readingsAfter("421 4211", null),
  };
});
