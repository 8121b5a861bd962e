/**
 * insigh.io, as the reference's `types/insigh.py`: GETs to https://console.insigh.io/mf-rproxy/
 * (or to device_locator when given: our extension, for a test or a self-hosted console) with
 * the API token as the whole `Authorization` header.
 *
 * - Stations: `device/list` → "<id>/<metadata.dataChannel>" named by `name`.
 * - Sensors: `device/lastMeasurement?channel=…&id=…` → the part of each `name` after its first
 *   "-" (names have no labels).
 * - Readings: `measurement/queryPack?channel&publisher&startRange&limit=25000&format=csv`, one
 *   CSV with a column per sensor and `time` in epoch milliseconds; `startRange` is one minute
 *   after the last record (or 1970-01-01T00:01:00Z). The reference asks once per fetch and
 *   serves every sensor from that answer; here one answer serves every sensor with the same
 *   `startRange` (those with other last records get their own request, so none misses data).
 * - Timestamps are UTC: the type hides `data_timezone`.
 */
import { shownInstant } from "@/lib/domain/serialize";
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
import { checkedUrl, hostOf, parseJson, quote, VendorHttp, withTrailingSlash } from "@/lib/telemetry/http";
import { parseReadingValue } from "@/lib/telemetry/readings";
import { addError, checkUrlField, requireFields } from "@/lib/telemetry/types/common";

export const INSIGH_DEFAULT_URL = "https://console.insigh.io/mf-rproxy/";
const LIMIT = 25000;

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === "object" && v !== null && !Array.isArray(v);

/** "device/channel" → [device, channel], or null. */
function splitStation(id: string): [string, string] | null {
  const parts = id.split("/");
  return parts.length === 2 && parts[0] !== "" && parts[1] !== "" ? [parts[0], parts[1]] : null;
}

class InsighSession implements TelemetrySession {
  private readonly http: VendorHttp;
  private readonly base: string;
  private readonly host: string;
  /** The CSV rows of queryPack answers, by startRange. */
  private readonly packs = new Map<string, string[][]>();

  constructor(private readonly config: TelemetryConfig, context: DriverContext) {
    this.http = new VendorHttp(context, config.verifyTls);
    const locator = config.deviceLocator.trim();
    this.base = withTrailingSlash(locator === "" ? INSIGH_DEFAULT_URL : checkedUrl(locator).toString());
    this.host = hostOf(this.base);
  }

  private get(path: string, params?: Record<string, string>) {
    const query = params === undefined ? "" : `?${new URLSearchParams(params).toString()}`;
    return this.http.ok(`${this.base}${path}${query}`, { headers: { Authorization: this.config.password } });
  }

  private async list(path: string, params?: Record<string, string>): Promise<Json[]> {
    const response = await this.get(path, params);
    const body = parseJson(response.text(), this.host);
    if (!Array.isArray(body)) throw new TelemetryError(`the answer of ${this.host} is not a list`);
    return body.filter(isObject);
  }

  private station(): [string, string] {
    const parts = splitStation(this.config.remoteStationId);
    if (parts === null) throw new TelemetryError(`the remote station "${this.config.remoteStationId}" is not of the form "device id/data channel"`);
    return parts;
  }

  async connect(): Promise<void> {}

  async disconnect(): Promise<void> {}

  async listStations(): Promise<RemoteItem[]> {
    const devices = await this.list("device/list");
    return devices
      .filter((d) => d.id !== undefined && isObject(d.metadata) && d.metadata.dataChannel !== undefined)
      .map((d) => ({ id: `${String(d.id)}/${String((d.metadata as Json).dataChannel)}`, name: String(d.name ?? "") }));
  }

  async listSensors(): Promise<RemoteItem[]> {
    const [device, channel] = this.station();
    const measurements = await this.list("device/lastMeasurement", { channel, id: device });
    const names = measurements.map((m) => {
      const name = String(m.name ?? "");
      const dash = name.indexOf("-");
      return dash < 0 ? "" : name.slice(dash + 1);
    });
    return [...new Set(names)].filter((n) => n !== "").map((id) => ({ id, name: "" }));
  }

  async readingsAfter(sensorId: string, lastStored: number | null): Promise<ReadingBatch> {
    const startRange = formatUtcSeconds((lastStored === null ? 0 : Math.floor(lastStored)) + 60);
    let rows = this.packs.get(startRange);
    if (rows === undefined) {
      const [device, channel] = this.station();
      const response = await this.get("measurement/queryPack", {
        channel,
        publisher: device,
        startRange,
        limit: String(LIMIT),
        format: "csv",
      });
      const parsed = parseCsvRows(response.text());
      if (!parsed.ok) throw new TelemetryError(`the answer of ${this.host} is not CSV (${parsed.error})`);
      rows = parsed.rows;
      this.packs.set(startRange, rows);
    }
    if (rows.length <= 1) return { clock: "utc", readings: [] };
    const header = rows[0];
    const column = header.indexOf(sensorId);
    if (column < 0) throw new TelemetryError(`the answer of ${this.host} has no column for sensor "${sensorId}"`);
    const readings: Reading[] = [];
    for (let k = 1; k < rows.length; k++) {
      const row = rows[k];
      const ms = (row[0] ?? "").trim();
      if (!/^-?\d+$/.test(ms)) throw new TelemetryError(`the answer of ${this.host} has an invalid time ("${quote(ms)}") on line ${k + 1}`);
      const time = Math.floor(Number(ms) / 1000);
      // The reference's datetime fails beyond years 1–9999; stored, such a reading would end the
      // series there, and every later reading would be dropped as not after it.
      if (shownInstant(time) === null) {
        throw new TelemetryError(`the answer of ${this.host} has a time outside the years 1–9999 ("${quote(ms)}") on line ${k + 1}`);
      }
      const value = parseReadingValue(row[column] ?? "");
      if (value === undefined) throw new TelemetryError(`the value of sensor "${sensorId}" on line ${k + 1} of the answer of ${this.host} is not a number ("${quote(row[column])}")`);
      readings.push({ time, value, flags: "" });
    }
    return { clock: "utc", readings };
  }
}

export const insigh: TelemetryType = {
  id: "insigh",
  name: "insigh.io",
  fields: {
    device_locator: {
      label: "insigh.io API URL",
      help: `If this is left blank, ${INSIGH_DEFAULT_URL} will be used.`,
      required: false,
    },
    password: { label: "API token", help: "", required: true },
    remote_station_id: REMOTE_STATION_FIELD,
  },
  additionalConfig: {},
  listsStations: true,
  usesDataTimezone: false,
  sensorPrompt: DEFAULT_SENSOR_PROMPT,
  ignoreSensorPrompt: DEFAULT_IGNORE_SENSOR_PROMPT,
  validate(config: TelemetryConfig): FieldErrors {
    const errors: FieldErrors = {};
    requireFields(config, ["password"], errors);
    checkUrlField(config, errors);
    if (config.remoteStationId.trim() !== "" && splitStation(config.remoteStationId) === null) {
      addError(errors, "remote_station_id", 'Enter "device id/data channel".');
    }
    return errors;
  },
  open(config: TelemetryConfig, context: DriverContext): TelemetrySession {
    return openGuarded(config, "insigh.io", () => new InsighSession(config, context));
  },
};
