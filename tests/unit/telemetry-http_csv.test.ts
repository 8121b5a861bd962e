import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { resolveTimeZone } from "@/lib/formats/timezone";
import { describeType, withSession, type TelemetrySession } from "@/lib/telemetry/driver";
import { formatNaive, readingsToRecords } from "@/lib/telemetry/readings";
import { httpCsv } from "@/lib/telemetry/types/http_csv";
import { startFakeHttpCsv, type CsvRow, type FakeHttpCsv } from "@/tests/support/fake-vendors/http_csv";
import { describeCommonFaults, driverContext, epoch, telemetryConfig, telemetryFailure } from "@/tests/support/telemetry-drivers";

const NOW = () => Date.parse("2022-06-14T08:35:00Z");

function configFor(vendor: FakeHttpCsv, extra = {}) {
  return telemetryConfig({ deviceLocator: vendor.template, dataTimezone: "Europe/Athens", ...extra });
}

const iso = (t: number) => `${formatNaive(t)}Z`;

describe("http_csv: metadata", () => {
  it("describes itself", () => {
    const d = describeType(httpCsv);
    expect([d.id, d.name, d.lists_stations]).toEqual(["http_csv", "CSV over HTTP", false]);
    expect(Object.keys(d.fields)).toEqual(["device_locator", "username", "password", "data_timezone", "additional_config"]);
    expect(d.fields.device_locator.required).toBe(true);
    expect(Object.keys(d.fields.additional_config.fields!)).toEqual(["timestamp_column", "timestamp_format", "delimiter", "skip_lines", "header"]);
    expect(d.fields.additional_config.required).toBe(false);
  });

  it("validates its configuration", () => {
    const ok = telemetryConfig({ deviceLocator: "https://logger.example.org/data.csv?from={start}" });
    expect(httpCsv.validate(ok)).toEqual({});
    expect(httpCsv.validate({ ...ok, additionalConfig: { delimiter: "\\t", skip_lines: "4", timestamp_format: "dd/MM/yyyy HH:mm" } })).toEqual({});
    expect(httpCsv.validate(telemetryConfig({ deviceLocator: "logger/data.csv", dataTimezone: "Mars/Olympus" }))).toEqual({
      device_locator: ["Put {start} where the first moment wanted goes.", "Enter a valid URL."],
      data_timezone: ['"Mars/Olympus" is not a valid choice.'],
    });
    expect(httpCsv.validate({ ...ok, username: "u", additionalConfig: { delimiter: ";;", skip_lines: -1, header: "X-API-Key", timestamp_column: 3 } })).toEqual({
      additional_config: ['"timestamp_column" must be a string.', '"delimiter" must be one character (or "\\t").', '"skip_lines" must be a whole number from 0 to 1000.'],
      username: ["Leave the user name blank when a header carries the password."],
      password: ["This field is required when a header carries it."],
    });
    expect(httpCsv.validate({ ...ok, password: "k", additionalConfig: { header: "Host" } })).toEqual({
      additional_config: ['"header" is not a header name that can carry a key.'],
    });
  });
});

describe("http_csv: against its fake", () => {
  let vendor: FakeHttpCsv;
  let rows: CsvRow[];
  let host: string;
  beforeEach(async () => {
    rows = [];
    vendor = await startFakeHttpCsv({ rows: () => rows });
    host = vendor.url.slice(7);
  });
  afterEach(() => vendor.close());

  it("lists no stations and the columns as sensors", async () => {
    expect(await withSession(httpCsv, configFor(vendor), driverContext({ now: NOW }), (s) => s.listStations())).toEqual([]);
    expect(vendor.requests).toHaveLength(0);
    const sensors = await withSession(httpCsv, configFor(vendor), driverContext({ now: NOW }), (s) => s.listSensors());
    expect(sensors).toEqual([{ id: "temperature", name: "" }, { id: "humidity", name: "" }]);
    expect(vendor.windows()).toEqual([{ from: "2022-06-13T11:35:00", to: "2022-06-15T11:35:00" }]);
  });

  it("asks from the minute after the last record, in data_timezone, a window of 180 days", async () => {
    rows.push({ time: "2022-06-14T11:10:00", values: { temperature: 21.5, humidity: 40 } }, { time: "2022-06-14T11:20:00", values: { temperature: "", humidity: 41 } });
    const batch = await withSession(httpCsv, configFor(vendor), driverContext({ now: NOW }), (s) => s.readingsAfter("temperature", epoch("2022-06-14T08:00:30Z")));
    expect(vendor.windows()).toEqual([{ from: "2022-06-14T11:01:00", to: "2022-12-11T11:01:00" }]);
    expect(vendor.requests[0].query.toString()).toBe("from=2022-06-14T11%3A01%3A00&to=2022-12-11T11%3A01%3A00");
    expect(batch.clock).toBe("local");
    expect(batch.readings.map((r) => [formatNaive(r.time), r.value])).toEqual([["2022-06-14T11:10:00", 21.5], ["2022-06-14T11:20:00", null]]);
    const { records } = readingsToRecords(batch, resolveTimeZone("Europe/Athens")!, epoch("2022-06-14T08:00:30Z"));
    expect([...records.timestamps].map(iso)).toEqual(["2022-06-14T08:10:00Z", "2022-06-14T08:20:00Z"]);
  });

  it("moves on to the next window when one is empty, up to tomorrow", async () => {
    rows.push({ time: "2021-12-14T08:10", values: { temperature: 1 } });
    const config = configFor(vendor, { dataTimezone: "UTC" });
    const batch = await withSession(httpCsv, config, driverContext({ now: NOW }), (s) => s.readingsAfter("temperature", epoch("2021-06-14T08:00:00Z")));
    expect(vendor.windows()).toEqual([
      { from: "2021-06-14T08:01:00", to: "2021-12-11T08:01:00" },
      { from: "2021-12-11T08:02:00", to: "2022-06-09T08:02:00" },
    ]);
    expect(batch.readings).toHaveLength(1);
    vendor.requests.length = 0;
    const none = await withSession(httpCsv, config, driverContext({ now: NOW }), (s) => s.readingsAfter("temperature", epoch("2022-01-01T00:00:00Z")));
    expect(none.readings).toEqual([]);
    expect(vendor.windows()).toEqual([
      { from: "2022-01-01T00:01:00", to: "2022-06-30T00:01:00" },
    ]);
  });

  it("asks everything after {start} in one request when the template has no {end}", async () => {
    rows.push({ time: "1990-01-01T00:00:00", values: { temperature: 5 } });
    const config = configFor(vendor, { deviceLocator: `${vendor.url}/data.csv?from={start}` });
    const batch = await withSession(httpCsv, config, driverContext({ now: NOW }), (s) => s.readingsAfter("temperature", null));
    expect(vendor.windows()).toEqual([{ from: "1990-01-01T00:00:00", to: null }]);
    expect(batch.readings.map((r) => r.value)).toEqual([5]);
  });

  it("reads the repeated hour of the autumn change, and refuses the hour skipped in spring", async () => {
    rows.push(...["02:50", "03:30", "03:50", "03:10", "04:00"].map((t, i) => ({ time: `2023-10-29T${t}`, values: { temperature: i } })));
    const lastStored = epoch("2023-10-28T23:00:00Z");
    const batch = await withSession(httpCsv, configFor(vendor), driverContext({ now: () => Date.parse("2023-10-30T00:00:00Z") }), (s) => s.readingsAfter("temperature", lastStored));
    const { records } = readingsToRecords(batch, resolveTimeZone("Europe/Athens")!, lastStored);
    expect([...records.timestamps].map(iso)).toEqual(["2023-10-28T23:50:00Z", "2023-10-29T00:30:00Z", "2023-10-29T00:50:00Z", "2023-10-29T01:10:00Z", "2023-10-29T02:00:00Z"]);
    rows.length = 0;
    rows.push({ time: "2024-03-31T03:30", values: { temperature: 1 } });
    const spring = await withSession(httpCsv, configFor(vendor), driverContext({ now: () => Date.parse("2024-04-01T00:00:00Z") }), (s) => s.readingsAfter("temperature", epoch("2024-03-31T00:00:00Z")));
    expect(() => readingsToRecords(spring, resolveTimeZone("Europe/Athens")!, epoch("2024-03-31T00:00:00Z"))).toThrow(/2024-03-31 03:30:00 does not exist in Europe\/Athens/);
  });

  it("reads timestamps with an offset as instants, and refuses a mix", async () => {
    rows.push({ time: "2022-06-14T10:00:00+02:00", values: { temperature: 1 } }, { time: "2022-06-14T08:10:00Z", values: { temperature: 2 } });
    const config = configFor(vendor, { deviceLocator: `${vendor.url}/data.csv?from={start}` });
    const batch = await withSession(httpCsv, config, driverContext({ now: NOW }), (s) => s.readingsAfter("temperature", null));
    expect(batch.clock).toBe("utc");
    expect(batch.readings.map((r) => iso(r.time))).toEqual(["2022-06-14T08:00:00Z", "2022-06-14T08:10:00Z"]);
    rows.push({ time: "2022-06-14T08:20:00", values: { temperature: 3 } });
    const error = await telemetryFailure(withSession(httpCsv, config, driverContext({ now: NOW }), (s) => s.readingsAfter("temperature", null)));
    expect(error.message).toBe(`the CSV of ${host} mixes timestamps with and without an offset (row 3)`);
  });

  it("reads a logger's CSV: preamble lines, another delimiter, a Luxon format, a timestamp column elsewhere", async () => {
    await vendor.close();
    vendor = await startFakeHttpCsv({
      rows: () => rows,
      columns: ["Rain mm", "time"],
      timestampHeader: "record",
      delimiter: ";",
      preamble: ['"TOA5","CR1000","logger"', "Station Hobbiton"],
      formatTime: (t) => `${t.slice(8, 10)}/${t.slice(5, 7)}/${t.slice(0, 4)} ${t.slice(11, 16)}`,
    });
    rows.push({ time: "2022-06-14T11:10", values: { "Rain mm": "0.2", time: "14/06/2022 11:10" } });
    const config = configFor(vendor, { additionalConfig: { delimiter: ";", skip_lines: 2, timestamp_column: "time", timestamp_format: "dd/MM/yyyy HH:mm" } });
    const sensors = await withSession(httpCsv, config, driverContext({ now: NOW }), (s) => s.listSensors());
    expect(sensors.map((s) => s.id)).toEqual(["record", "Rain mm"]);
    const batch = await withSession(httpCsv, config, driverContext({ now: NOW }), (s) => s.readingsAfter("Rain mm", epoch("2022-06-14T08:00:00Z")));
    expect(batch.readings.map((r) => [formatNaive(r.time), r.value])).toEqual([["2022-06-14T11:10:00", 0.2]]);
  });

  it("reads a Luxon format with an offset as instants", async () => {
    rows.push({ time: "2022-06-14 10:00 +02:00", values: { temperature: 1 } });
    const config = configFor(vendor, { deviceLocator: `${vendor.url}/data.csv?from={start}`, additionalConfig: { timestamp_format: "yyyy-MM-dd HH:mm ZZ" } });
    const batch = await withSession(httpCsv, config, driverContext({ now: NOW }), (s) => s.readingsAfter("temperature", null));
    expect([batch.clock, iso(batch.readings[0].time)]).toEqual(["utc", "2022-06-14T08:00:00Z"]);
  });

  it("sends HTTP Basic or a header with the password", async () => {
    await vendor.close();
    vendor = await startFakeHttpCsv({ basic: { user: "alice", password: "opensesame" } });
    expect(await withSession(httpCsv, configFor(vendor, { username: "alice", password: "opensesame" }), driverContext({ now: NOW }), (s) => s.listSensors())).toHaveLength(2);
    const wrong = await telemetryFailure(withSession(httpCsv, configFor(vendor, { username: "alice", password: "wrong" }), driverContext({ now: NOW }), (s) => s.listSensors()));
    expect(wrong.message).toBe(`${vendor.url.slice(7)} answered HTTP 401: Unauthorized`);
    await vendor.close();
    vendor = await startFakeHttpCsv({ header: { name: "X-API-Key", value: "k3y-k3y-k3y" } });
    const config = configFor(vendor, { password: "k3y-k3y-k3y", additionalConfig: { header: "X-API-Key" } });
    expect(await withSession(httpCsv, config, driverContext({ now: NOW }), (s) => s.listSensors())).toHaveLength(2);
    expect(vendor.requests[0].headers["x-api-key"]).toBe("k3y-k3y-k3y");
    expect(vendor.requests[0].headers.authorization).toBeUndefined();
  });

  it("names what is wrong in a CSV", async () => {
    const config = configFor(vendor, { deviceLocator: `${vendor.url}/data.csv?from={start}` });
    const run = (sensor: string) => telemetryFailure(withSession(httpCsv, config, driverContext({ now: NOW }), (s) => s.readingsAfter(sensor, null)));
    rows.push({ time: "2022-06-14T11:10", values: { temperature: "warm" } });
    expect((await run("temperature")).message).toBe(`row 1 of the CSV of ${host} has a value of "temperature" that is not a number ("warm")`);
    expect((await run("pressure")).message).toBe(`the CSV of ${host} has no column "pressure" (its columns: timestamp, temperature, humidity)`);
    rows[0] = { time: "2022/06/14 11:10", values: { temperature: 1 } };
    expect((await run("temperature")).message).toBe(`row 1 of the CSV of ${host} has an invalid timestamp ("2022/06/14 11:10")`);
    vendor.fail("/data.csv", { kind: "body", body: 'timestamp,temperature\n2022-06-14T11:10,"1\n' });
    expect((await run("temperature")).message).toBe(`the answer of ${host} is not CSV (line 2: a quote is not closed)`);
  });

  it("says when the URL is not a template", async () => {
    const error = await telemetryFailure(withSession(httpCsv, configFor(vendor, { deviceLocator: `${vendor.url}/data.csv`, password: "pw-secret" }), driverContext(), async () => undefined));
    expect(error.message).toBe(`the CSV URL "${vendor.url}/data.csv" is not a URL template with {start}`);
  });
});

describeCommonFaults("http_csv", async () => {
  const vendor = await startFakeHttpCsv({ header: { name: "X-API-Key", value: "k3y-k3y-k3y" }, rows: { all: [{ time: "2022-06-14T11:10", values: { temperature: 1 } }] } });
  return {
    vendor,
    type: httpCsv,
    config: configFor(vendor, { password: "k3y-k3y-k3y", additionalConfig: { header: "X-API-Key" } }),
    match: "/data.csv",
    run: (s: TelemetrySession) => s.readingsAfter("temperature", epoch("2022-06-14T08:00:00Z")),
  };
});
