import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { describeType, withSession, type TelemetrySession } from "@/lib/telemetry/driver";
import { formatNaive } from "@/lib/telemetry/readings";
import { fluxString, influxdb } from "@/lib/telemetry/types/influxdb";
import { startFakeInflux, type FakeInflux, type InfluxPoint } from "@/tests/support/fake-vendors/influxdb";
import { describeCommonFaults, driverContext, epoch, telemetryConfig, telemetryFailure } from "@/tests/support/telemetry-drivers";

const ADDITIONAL = { bucket: "thebucket", measurement: "themeasurement", station_tag: "thestationtag" };

function configFor(vendor: FakeInflux, extra = {}) {
  return telemetryConfig({
    deviceLocator: vendor.apiUrl,
    username: "alice",
    password: "topsecretpassword",
    remoteStationId: "hobbiton",
    additionalConfig: ADDITIONAL,
    ...extra,
  });
}

const POINTS: InfluxPoint[] = [
  ...["14:51", "15:01", "15:11", "15:21", "15:31"].map((t, i) => ({ station: "hobbiton", field: "temperature", time: `2025-09-10T${t}:00Z`, value: [2.1, 2.2, 2.6, 2.2, 1.5][i] })),
  { station: "rivendell", field: "air temperature (degC)", time: "2025-09-10T14:51:00Z", value: 7 },
  { station: "bree", field: "barometric pressure (hPa)", time: "2025-09-10T14:51:00Z", value: 1013 },
];

describe("influxdb: metadata", () => {
  it("describes itself, with its additional configuration", () => {
    expect(describeType(influxdb)).toEqual({
      id: "influxdb",
      name: "InfluxDB v2",
      lists_stations: true,
      fields: {
        device_locator: { label: "InfluxDB API URL", help: "For example, https://influxdb.example.com/api/v2/.", required: true },
        username: { label: "Organization", help: "", required: true },
        password: { label: "API token", help: "", required: true },
        remote_station_id: { label: "Remote station", help: "The station as the vendor's system identifies it; the wizard lists them.", required: true },
        additional_config: {
          label: "Additional configuration",
          help: "Settings of the InfluxDB v2 type: bucket, measurement, station_tag.",
          required: true,
          fields: {
            bucket: { label: "Bucket", help: 'The InfluxDB "bucket".', required: true },
            measurement: { label: "Measurement", help: 'The InfluxDB "measurement"; i.e. the group of relevant data.', required: true },
            station_tag: { label: "Station tag", help: "The InfluxDB tag that can be used to identify stations.", required: true },
          },
        },
      },
    });
  });

  it("requires the bucket, the measurement and the station tag", () => {
    const base = telemetryConfig({ deviceLocator: "http://1.2.3.4", username: "alice", password: "t" });
    expect(influxdb.validate({ ...base, additionalConfig: ADDITIONAL })).toEqual({});
    expect(influxdb.validate({ ...base, additionalConfig: { bucket: "b", measurement: 3 } })).toEqual({
      additional_config: ['"measurement" must be a string.', '"station_tag" is required.'],
    });
  });

  it("escapes the names it puts into Flux strings", () => {
    expect(fluxString('a"b\\c${d}')).toBe('"a\\"b\\\\c\\${d}"');
  });
});

describe("influxdb: against its fake", () => {
  let vendor: FakeInflux;
  let host: string;
  beforeEach(async () => {
    vendor = await startFakeInflux({ points: POINTS });
    host = vendor.url.slice(7);
  });
  afterEach(() => vendor.close());

  it("lists the stations with the reference's query", async () => {
    const stations = await withSession(influxdb, configFor(vendor), driverContext(), (s) => s.listStations());
    expect(stations).toEqual([{ id: "hobbiton", name: "" }, { id: "rivendell", name: "" }, { id: "bree", name: "" }]);
    const [request] = vendor.requests;
    expect(`${request.path}?${request.query}`).toBe("/api/v2/query?org=alice");
    expect([request.headers.authorization, request.headers["content-type"], request.headers.accept])
      .toEqual(["Token topsecretpassword", "application/vnd.flux", "application/csv"]);
    expect(request.body).toBe(
      'from(bucket: "thebucket")\n' +
        "|> range(start: 1990-01-01)\n" +
        '|> filter(fn: (r) => r._measurement == "themeasurement")\n' +
        '|> keep(columns: ["thestationtag"])\n' +
        "|> group()\n" +
        '|> distinct(column: "thestationtag")\n',
    );
  });

  it("lists the sensors (field keys) with the reference's query", async () => {
    const sensors = await withSession(influxdb, configFor(vendor), driverContext(), (s) => s.listSensors());
    expect(sensors.map((s) => s.id)).toEqual(["temperature", "air temperature (degC)", "barometric pressure (hPa)"]);
    expect(vendor.queries()[0]).toBe(
      'import "influxdata/influxdb/schema"\n\n' +
        "schema.fieldKeys(\n" +
        '    bucket: "thebucket",\n' +
        '    predicate: (r) => r._measurement == "themeasurement",\n' +
        ")\n",
    );
  });

  it("asks the points after the last record with the reference's query, in UTC", async () => {
    const batch = await withSession(influxdb, configFor(vendor), driverContext(), (s) => s.readingsAfter("temperature", epoch("2022-06-14T08:00:00Z")));
    expect(vendor.queries()[0]).toBe(
      'from(bucket: "thebucket")\n' +
        "|> range(start: 2022-06-14T08:01:00+00:00)\n" +
        '|> filter(fn: (r) => r._measurement == "themeasurement")\n' +
        '|> filter(fn: (r) => r["thestationtag"] == "hobbiton")\n' +
        '|> filter(fn: (r) => r._field == "temperature")\n' +
        '|> keep(columns: ["_time", "_value"])\n' +
        "|> limit(n: 20000)\n",
    );
    expect(batch.clock).toBe("utc");
    expect(batch.readings.map((r) => [formatNaive(r.time), r.value])).toEqual([
      ["2025-09-10T14:51:00", 2.1], ["2025-09-10T15:01:00", 2.2], ["2025-09-10T15:11:00", 2.6], ["2025-09-10T15:21:00", 2.2], ["2025-09-10T15:31:00", 1.5],
    ]);
  });

  it("starts at 1990-01-01T00:00:00+00:00 for an empty series, and reads only after the start", async () => {
    await withSession(influxdb, configFor(vendor), driverContext(), (s) => s.readingsAfter("temperature", null));
    expect(vendor.queries()[0]).toContain("|> range(start: 1990-01-01T00:00:00+00:00)\n");
    const later = await withSession(influxdb, configFor(vendor), driverContext(), (s) => s.readingsAfter("temperature", epoch("2025-09-10T15:11:00Z")));
    expect(later.readings.map((r) => formatNaive(r.time))).toEqual(["2025-09-10T15:21:00", "2025-09-10T15:31:00"]);
  });

  it("reads an answer of several tables, and fractional seconds", async () => {
    await vendor.close();
    vendor = await startFakeInflux({ splitTables: true, points: [...POINTS.slice(0, 4), { station: "hobbiton", field: "temperature", time: "2025-09-10T15:31:00.123456789Z", value: 1.5 }] });
    const batch = await withSession(influxdb, configFor(vendor), driverContext(), (s) => s.readingsAfter("temperature", null));
    expect(batch.readings.map((r) => formatNaive(r.time))).toEqual(["2025-09-10T14:51:00", "2025-09-10T15:01:00", "2025-09-10T15:11:00", "2025-09-10T15:21:00", "2025-09-10T15:31:00"]);
  });

  it("gives no stations when the measurement or the tag matches nothing", async () => {
    const config = configFor(vendor, { additionalConfig: { ...ADDITIONAL, station_tag: "nosuchtag" } });
    expect(await withSession(influxdb, config, driverContext(), (s) => s.listStations())).toEqual([]);
  });

  it("refuses CSV that is not InfluxDB's (the reference's garbage)", async () => {
    vendor.fail("/query", { kind: "body", body: "this,is,not,csv\r\nat,all\r\n" });
    const error = await telemetryFailure(withSession(influxdb, configFor(vendor), driverContext(), (s) => s.listStations()));
    expect(error.message).toBe(`the answer of ${host} is not what InfluxDB sends (it has no _value column)`);
  });

  it("says what InfluxDB says: a wrong token, a bucket that does not exist, an error in the answer", async () => {
    const wrongToken = await telemetryFailure(withSession(influxdb, configFor(vendor, { password: "wrongtoken" }), driverContext(), (s) => s.listStations()));
    expect(wrongToken.message).toBe(`${host} answered HTTP 401: unauthorized access`);
    const config = configFor(vendor, { additionalConfig: { ...ADDITIONAL, bucket: 'no"bucket' } });
    const noBucket = await telemetryFailure(withSession(influxdb, config, driverContext(), (s) => s.listStations()));
    expect(noBucket.message).toBe(`${host} answered HTTP 404: failed to initialize execute state: could not find bucket "no"bucket"`);
    expect(vendor.queries().at(-1)).toContain('from(bucket: "no\\"bucket")');
    vendor.fail("/query", { kind: "body", body: 'error,reference\r\n"panic: runtime error, index out of range",897\r\n' });
    const inBand = await telemetryFailure(withSession(influxdb, configFor(vendor), driverContext(), (s) => s.readingsAfter("temperature", null)));
    expect(inBand.message).toBe(`${host} says: panic: runtime error, index out of range`);
    // An error after some results: a blank line, then the error table (annotated or not).
    vendor.clearFaults();
    for (const annotations of ["", "#datatype,string,string\r\n#group,true,true\r\n#default,,\r\n"]) {
      vendor.fail("/query", {
        kind: "body",
        body: `,result,table,_time,_value\r\n,_result,0,2025-09-10T14:51:00Z,2.1\r\n\r\n${annotations},error,reference\r\n,"query terminated: memory allocation limit reached",\r\n`,
      }, 1);
      const late = await telemetryFailure(withSession(influxdb, configFor(vendor), driverContext(), (s) => s.readingsAfter("temperature", null)));
      expect(late.message).toBe(`${host} says: query terminated: memory allocation limit reached`);
    }
  });

  it("refuses a field whose values are not numbers", async () => {
    await vendor.close();
    vendor = await startFakeInflux({ points: [{ station: "hobbiton", field: "status", time: "2025-09-10T14:51:00Z", value: "ok" }] });
    const error = await telemetryFailure(withSession(influxdb, configFor(vendor), driverContext(), (s) => s.readingsAfter("status", null)));
    expect(error.message).toBe('the value of field "status" at 2025-09-10T14:51:00Z is not a number ("ok")');
  });
});

describeCommonFaults("influxdb", async () => {
  const vendor = await startFakeInflux({ points: POINTS });
  return {
    vendor,
    type: influxdb,
    config: configFor(vendor),
    match: "/api/v2/query",
    run: async (s: TelemetrySession) => {
      await s.connect();
      return s.readingsAfter("temperature", null);
    },
  };
});
