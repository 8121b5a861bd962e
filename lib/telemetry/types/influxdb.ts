/**
 * InfluxDB v2, queried in Flux, as the reference's `types/influxdb.py`: POST
 * `<url>/query?org=<organization>` with `Content-Type: application/vnd.flux`,
 * `Authorization: Token <API token>` and `Accept: application/csv`; the answer is CSV.
 *
 * - `additional_config`: `bucket`, `measurement` and `station_tag` (the tag whose values are
 *   the stations).
 * - Stations: the distinct values of the station tag since 1990; sensors: the field keys of
 *   the measurement (`schema.fieldKeys`, which looks at the last 30 days); readings: the
 *   field's `_time`/`_value` for the station from one minute after the last record (or
 *   1990-01-01), at most 20,000.
 * - Timestamps are UTC: the type hides `data_timezone`.
 *
 * Differs from the reference: the names put into Flux strings are escaped (a quote in a bucket
 * name cannot change the query), the organization is URL-encoded, the CSV of several tables
 * (repeated header lines, blank lines) and Flux's in-band errors are read, and a field with
 * text values is an error naming the value.
 */
import { scanDateTime, scanned } from "@/lib/formats/datetime-scan";
import { formatUtcSeconds } from "@/lib/formats/timestamp";
import { parseCsvRows } from "@/lib/telemetry/csv";
import {
  DEFAULT_IGNORE_SENSOR_PROMPT,
  DEFAULT_SENSOR_PROMPT,
  openGuarded,
  REMOTE_STATION_FIELD,
  type DriverContext,
  type FieldErrors,
  type Reading,
  type ReadingBatch,
  type RemoteItem,
  type TelemetryConfig,
  type TelemetrySession,
  type TelemetryType,
} from "@/lib/telemetry/driver";
import { TelemetryError } from "@/lib/telemetry/errors";
import { checkedUrl, hostOf, quote, VendorHttp, withTrailingSlash } from "@/lib/telemetry/http";
import { parseReadingValue } from "@/lib/telemetry/readings";
import { checkConfigStrings, checkUrlField, configString, requireFields } from "@/lib/telemetry/types/common";

const LIMIT = 20000;

/** A Flux string literal of a text (backslash, quote and interpolation escaped). */
export function fluxString(text: string): string {
  return `"${text.replace(/\\/g, "\\\\").replace(/"/g, '\\"').replace(/\$\{/g, "\\${")}"`;
}

/**
 * The header of the table by which InfluxDB reports an error that happens after it has sent
 * results (HTTP 200, then a blank line and ",error,reference").
 */
const isErrorHeader = (row: readonly string[]) => row.length === 3 && row[0] === "" && row[1] === "error" && row[2] === "reference";

/** The rows of Flux's annotated CSV as objects, over every table of the answer. */
function fluxRows(text: string, host: string, needed: readonly string[]): Record<string, string>[] {
  const parsed = parseCsvRows(text);
  if (!parsed.ok) throw new TelemetryError(`the answer of ${host} is not CSV (${parsed.error})`);
  const out: Record<string, string>[] = [];
  let header: string[] | null = null;
  for (const row of parsed.rows) {
    if (row[0]?.startsWith("#")) continue; // annotations
    if (header === null || isErrorHeader(row) || (row.length === header.length && row.every((cell, k) => cell === header![k]))) {
      header = row;
      if (header[0] === "error" || (header.includes("error") && header.includes("reference"))) continue;
      for (const name of needed) {
        if (!header.includes(name)) throw new TelemetryError(`the answer of ${host} is not what InfluxDB sends (it has no ${name} column)`);
      }
      continue;
    }
    if (header.includes("error")) {
      throw new TelemetryError(`${host} says: ${quote(row[header.indexOf("error")] ?? "")}`);
    }
    out.push(Object.fromEntries(header.map((name, k) => [name, row[k] ?? ""])));
  }
  return out;
}

class InfluxSession implements TelemetrySession {
  private readonly http: VendorHttp;
  private readonly queryUrl: string;
  private readonly host: string;
  private readonly bucket: string;
  private readonly measurement: string;
  private readonly stationTag: string;

  constructor(private readonly config: TelemetryConfig, context: DriverContext) {
    this.http = new VendorHttp(context, config.verifyTls);
    const base = withTrailingSlash(checkedUrl(config.deviceLocator).toString());
    this.queryUrl = `${base}query?org=${encodeURIComponent(config.username)}`;
    this.host = hostOf(base);
    this.bucket = configString(config, "bucket");
    this.measurement = configString(config, "measurement");
    this.stationTag = configString(config, "station_tag");
  }

  private async query(flux: string, needed: readonly string[]): Promise<Record<string, string>[]> {
    const response = await this.http.ok(this.queryUrl, {
      method: "POST",
      headers: {
        "Content-Type": "application/vnd.flux",
        Authorization: `Token ${this.config.password}`,
        Accept: "application/csv",
      },
      body: flux,
    });
    return fluxRows(response.text(), this.host, needed);
  }

  async connect(): Promise<void> {}

  async disconnect(): Promise<void> {}

  async listStations(): Promise<RemoteItem[]> {
    const tag = fluxString(this.stationTag);
    const rows = await this.query(
      `from(bucket: ${fluxString(this.bucket)})\n` +
        `|> range(start: 1990-01-01)\n` +
        `|> filter(fn: (r) => r._measurement == ${fluxString(this.measurement)})\n` +
        `|> keep(columns: [${tag}])\n` +
        `|> group()\n` +
        `|> distinct(column: ${tag})\n`,
      ["_value"],
    );
    return unique(rows.map((r) => r._value));
  }

  async listSensors(): Promise<RemoteItem[]> {
    const rows = await this.query(
      `import "influxdata/influxdb/schema"\n\n` +
        `schema.fieldKeys(\n` +
        `    bucket: ${fluxString(this.bucket)},\n` +
        `    predicate: (r) => r._measurement == ${fluxString(this.measurement)},\n` +
        `)\n`,
      ["_value"],
    );
    return unique(rows.map((r) => r._value));
  }

  async readingsAfter(sensorId: string, lastStored: number | null): Promise<ReadingBatch> {
    const start = lastStored === null ? "1990-01-01T00:00:00+00:00" : `${formatUtcSeconds(Math.floor(lastStored) + 60).slice(0, -1)}+00:00`;
    const rows = await this.query(
      `from(bucket: ${fluxString(this.bucket)})\n` +
        `|> range(start: ${start})\n` +
        `|> filter(fn: (r) => r._measurement == ${fluxString(this.measurement)})\n` +
        `|> filter(fn: (r) => r[${fluxString(this.stationTag)}] == ${fluxString(this.config.remoteStationId)})\n` +
        `|> filter(fn: (r) => r._field == ${fluxString(sensorId)})\n` +
        `|> keep(columns: ["_time", "_value"])\n` +
        `|> limit(n: ${LIMIT})\n`,
      ["_time", "_value"],
    );
    const readings: Reading[] = rows.map((row) => {
      const t = row._time;
      if (!scanDateTime(t, 0, t.length, true) || !scanned.hasOffset) throw new TelemetryError(`the answer of ${this.host} has an invalid _time ("${quote(t)}")`);
      const time = scanned.local - scanned.offset;
      const value = parseReadingValue(row._value);
      if (value === undefined) throw new TelemetryError(`the value of field "${sensorId}" at ${t} is not a number ("${quote(row._value)}")`);
      return { time, value, flags: "" };
    });
    return { clock: "utc", readings };
  }
}

function unique(ids: string[]): RemoteItem[] {
  return [...new Set(ids)].filter((id) => id !== "").map((id) => ({ id, name: "" }));
}

export const influxdb: TelemetryType = {
  id: "influxdb",
  name: "InfluxDB v2",
  fields: {
    device_locator: { label: "InfluxDB API URL", help: "For example, https://influxdb.example.com/api/v2/.", required: true },
    username: { label: "Organization", help: "", required: true },
    password: { label: "API token", help: "", required: true },
    remote_station_id: REMOTE_STATION_FIELD,
  },
  additionalConfig: {
    bucket: { label: "Bucket", help: 'The InfluxDB "bucket".', required: true },
    measurement: { label: "Measurement", help: 'The InfluxDB "measurement"; i.e. the group of relevant data.', required: true },
    station_tag: { label: "Station tag", help: "The InfluxDB tag that can be used to identify stations.", required: true },
  },
  listsStations: true,
  usesDataTimezone: false,
  sensorPrompt: DEFAULT_SENSOR_PROMPT,
  ignoreSensorPrompt: DEFAULT_IGNORE_SENSOR_PROMPT,
  validate(config: TelemetryConfig): FieldErrors {
    const errors: FieldErrors = {};
    requireFields(config, ["device_locator", "username", "password"], errors);
    checkUrlField(config, errors);
    checkConfigStrings(config, ["bucket", "measurement", "station_tag"], ["bucket", "measurement", "station_tag"], errors);
    return errors;
  },
  open(config: TelemetryConfig, context: DriverContext): TelemetrySession {
    return openGuarded(config, "InfluxDB", () => new InfluxSession(config, context));
  },
};
