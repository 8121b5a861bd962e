/**
 * Metrica MeteoView2, as the reference's `types/meteoview2.py`: JSON POSTs to the API URL
 * (https://meteoview2.gr/api/ when device_locator is blank; a "/" is added when missing).
 *
 * - `token` with {"email", "key"} gives a token sent as `Authorization: Bearer …`.
 * - `stations` answers {"stations": {…: {"code", "title"}}}: the station id is `code`.
 * - `sensors` with {"station_code"} answers {"sensors": [{"id", "title"}]}.
 * - `measurements` with {"sensor": [id], "datefrom", "timefrom" (HH:MM), "dateto"} asks one
 *   window of 180 days, starting one minute after the last record in `data_timezone` (or at
 *   1990-01-01 00:00); an empty window (`total_values` 0) moves on to the next one at once,
 *   until a window has values or the windows pass tomorrow. Values carry `year`, `month`
 *   (0-based: 0 is January), `day`, `hour`, `minute` (seconds are ignored) and `mvalue`.
 * - Every answer carries a `code`; anything but 200 is an error with its `message`.
 *
 * Timestamps are local times in `data_timezone`.
 */
import {
  DATA_TIMEZONE_FIELD,
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
import { formatNaive, localSecondsOf, naiveSeconds, parseReadingValue } from "@/lib/telemetry/readings";
import { checkUrlField, checkZoneField, dataZone, requireFields } from "@/lib/telemetry/types/common";

export const METEOVIEW2_DEFAULT_URL = "https://meteoview2.gr/api/";
const WINDOW_SECONDS = 180 * 86400;
const DAY = 86400;

type Json = Record<string, unknown>;

const isObject = (v: unknown): v is Json => typeof v === "object" && v !== null && !Array.isArray(v);

class MeteoView2Session implements TelemetrySession {
  private readonly http: VendorHttp;
  private readonly apiUrl: string;
  private readonly host: string;
  token: string | null = null;

  constructor(private readonly config: TelemetryConfig, private readonly context: DriverContext) {
    this.http = new VendorHttp(context, config.verifyTls);
    const locator = config.deviceLocator.trim();
    this.apiUrl = withTrailingSlash(locator === "" ? METEOVIEW2_DEFAULT_URL : checkedUrl(locator).toString());
    this.host = hostOf(this.apiUrl);
  }

  /** POSTs to an endpoint (JSON body when given) and returns the answer once its `code` is 200. */
  private async call(endpoint: string, data?: Json): Promise<Json> {
    const headers: Record<string, string> = {};
    if (data !== undefined) headers["content-type"] = "application/json";
    if (this.token !== null) headers.Authorization = `Bearer ${this.token}`;
    const response = await this.http.ok(`${this.apiUrl}${endpoint}`, {
      method: "POST",
      headers,
      body: data === undefined ? undefined : JSON.stringify(data),
    });
    const body = parseJson(response.text(), this.host);
    if (!isObject(body) || !("code" in body)) throw new TelemetryError(`the answer of ${this.host} has no "code"`);
    if (Number(body.code) !== 200) {
      const message = typeof body.message === "string" ? ` ${quote(body.message)}` : "";
      throw new TelemetryError(`${this.host} says: ${quote(String(body.code))}${message}`);
    }
    return body;
  }

  async connect(): Promise<void> {
    const data = await this.call("token", { email: this.config.username, key: this.config.password });
    if (typeof data.token !== "string" || data.token === "") throw new TelemetryError(`${this.host} answered the login without a token`);
    this.token = data.token;
  }

  async disconnect(): Promise<void> {
    this.token = null;
  }

  async listStations(): Promise<RemoteItem[]> {
    const data = await this.call("stations");
    const stations = isObject(data.stations) ? Object.values(data.stations) : Array.isArray(data.stations) ? data.stations : null;
    if (stations === null) throw new TelemetryError(`the answer of ${this.host} has no list of stations`);
    return stations.filter(isObject).map((s) => ({ id: String(s.code ?? ""), name: String(s.title ?? "") }));
  }

  async listSensors(): Promise<RemoteItem[]> {
    const data = await this.call("sensors", { station_code: this.config.remoteStationId });
    if (!Array.isArray(data.sensors)) throw new TelemetryError(`the answer of ${this.host} has no list of sensors`);
    return data.sensors.filter(isObject).map((s) => ({ id: String(s.id ?? ""), name: String(s.title ?? "") }));
  }

  async readingsAfter(sensorId: string, lastStored: number | null): Promise<ReadingBatch> {
    const zone = dataZone(this.config);
    // Naive local times in data_timezone, as the reference's naive datetimes.
    let start = lastStored === null ? naiveSeconds(1990, 1, 1) : localSecondsOf(Math.floor(lastStored), zone) + 60;
    let end = start + WINDOW_SECONDS;
    const nowMs = (this.context.now ?? Date.now)();
    const until = localSecondsOf(Math.floor(nowMs / 1000), zone) + DAY;
    let values: unknown[] = [];
    while (start < until) {
      const from = formatNaive(start);
      const data = await this.call("measurements", {
        sensor: [sensorId],
        datefrom: from.slice(0, 10),
        timefrom: from.slice(11, 16),
        dateto: formatNaive(end).slice(0, 10),
      });
      const first = Array.isArray(data.measurements) ? data.measurements[0] : undefined;
      if (!isObject(first)) throw new TelemetryError(`the answer of ${this.host} has no measurements`);
      if (Number(first.total_values ?? 0)) {
        if (!Array.isArray(first.values)) throw new TelemetryError(`the answer of ${this.host} has no values`);
        values = first.values;
        break;
      }
      start = end + 60;
      end = start + WINDOW_SECONDS;
    }
    return { clock: "local", readings: values.map((v) => this.reading(v)) };
  }

  private reading(v: unknown): Reading {
    const r = isObject(v) ? v : {};
    const part = (key: string, min: number, max: number): number => {
      const text = String(r[key] ?? "").trim();
      const n = /^\d+$/.test(text) ? Number(text) : NaN;
      if (!(n >= min && n <= max)) throw new TelemetryError(`a value of ${this.host} has an invalid ${key} ("${quote(String(r[key] ?? ""))}")`);
      return n;
    };
    const year = part("year", 1, 9999);
    const month = part("month", 0, 11) + 1;
    const day = part("day", 1, 31);
    const time = naiveSeconds(year, month, day, part("hour", 0, 23), part("minute", 0, 59));
    if (formatNaive(time).slice(0, 10) !== `${String(year).padStart(4, "0")}-${String(month).padStart(2, "0")}-${String(day).padStart(2, "0")}`) {
      throw new TelemetryError(`a value of ${this.host} has an invalid date (${year}-${month}-${day})`);
    }
    const value = parseReadingValue(r.mvalue as string | number | null | undefined);
    if (value === undefined) throw new TelemetryError(`the value of ${this.host} at ${formatNaive(time)} is not a number ("${quote(String(r.mvalue))}")`);
    return { time, value, flags: "" };
  }
}

export const meteoview2: TelemetryType = {
  id: "meteoview2",
  name: "Metrica MeteoView2",
  fields: {
    device_locator: {
      label: "Meteoview API URL",
      help: `If this is left blank, ${METEOVIEW2_DEFAULT_URL} will be used.`,
      required: false,
    },
    username: { label: "Email", help: "", required: true },
    password: { label: "API key", help: "", required: true },
    remote_station_id: REMOTE_STATION_FIELD,
    data_timezone: DATA_TIMEZONE_FIELD,
  },
  additionalConfig: {},
  listsStations: true,
  usesDataTimezone: true,
  sensorPrompt: DEFAULT_SENSOR_PROMPT,
  ignoreSensorPrompt: DEFAULT_IGNORE_SENSOR_PROMPT,
  validate(config: TelemetryConfig): FieldErrors {
    const errors: FieldErrors = {};
    requireFields(config, ["username", "password"], errors);
    checkUrlField(config, errors);
    checkZoneField(config, errors);
    return errors;
  },
  open(config: TelemetryConfig, context: DriverContext): TelemetrySession {
    return openGuarded(config, "MeteoView2", () => new MeteoView2Session(config, context), (s) => [s.token]);
  },
};
