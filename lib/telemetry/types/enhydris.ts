/**
 * Another Enhydris (or another instance of this service), through its API, as the reference's
 * `types/enhydris.py` with enhydris-api-client: `Authorization: token <API token>`.
 *
 * - Stations: `api/stations/` → id and name (every page: the reference read the first only;
 *   at most until there are more than MAX_LISTED, which discover/ refuses).
 * - Sensors: the time series of every group of the remote station, as "<group id> <series id>",
 *   named "<group name> - <type> <name> <time step>".
 * - Readings: `…/timeseriesgroups/<g>/timeseries/<t>/data/?fmt=hts&start_date=<ISO>`, from one
 *   minute after the last record (or 1990-01-01T00:00:00+00:00); the HTS file's `Timezone`
 *   header says the zone of its timestamps, so they become UTC whatever the remote station's
 *   display zone is.
 * - The type hides `data_timezone`. The token may be blank (a remote's public data needs none;
 *   the reference required one).
 */
import { resolveTimeZone } from "@/lib/formats/timezone";
import { parseUpload } from "@/lib/formats/upload";
import {
  MAX_LISTED,
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
import { formatNaive } from "@/lib/telemetry/readings";
import { addError, checkUrlField, requireFields } from "@/lib/telemetry/types/common";

const UTC = resolveTimeZone("UTC")!;
/** Pages of a list read at most (a `next` that never ends is an error, not a loop). */
const MAX_PAGES = 1000;

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === "object" && v !== null && !Array.isArray(v);

/**
 * An id of the remote (a station, group or time series: an integer, written as a number or as
 * digits) as text, or null for anything else (an object, a list, a fraction, words): such an
 * entry cannot be asked for, so it is left out of the lists rather than shown as "[object Object]".
 */
function remoteId(v: unknown): string | null {
  if (typeof v === "number") return Number.isSafeInteger(v) && v >= 0 ? String(v) : null;
  if (typeof v === "string") return /^\s*\d{1,18}\s*$/.test(v) ? v.trim() : null;
  return null;
}

/** A name of the remote as text: "" for a missing or non-scalar one. */
function remoteText(v: unknown): string {
  return typeof v === "string" || typeof v === "number" || typeof v === "boolean" ? String(v) : "";
}

class EnhydrisSession implements TelemetrySession {
  private readonly http: VendorHttp;
  private readonly base: URL;
  private readonly host: string;

  constructor(private readonly config: TelemetryConfig, context: DriverContext) {
    this.http = new VendorHttp(context, config.verifyTls);
    this.base = new URL(withTrailingSlash(checkedUrl(config.deviceLocator).toString()));
    this.host = hostOf(this.base.toString());
  }

  private headers(accept: string): Record<string, string> {
    const token = this.config.password.trim();
    return { Accept: accept, ...(token === "" ? {} : { Authorization: `token ${token}` }) };
  }

  /**
   * The items of a paginated list (following `next` within the remote's origin), a page at a
   * time: the caller stops reading when it has enough (MAX_LISTED), and only the page being read
   * is held.
   */
  private async *list(path: string, what: string): AsyncGenerator<Json> {
    let next: string | null = new URL(path, this.base).toString();
    for (let page = 0; next !== null; page++) {
      if (page >= MAX_PAGES) throw new TelemetryError(`the list of ${what} of ${this.host} has more than ${MAX_PAGES} pages`);
      const response = await this.http.ok(next, { headers: this.headers("application/json") });
      const body = parseJson(response.text(), this.host);
      if (!isObject(body) || !Array.isArray(body.results) || !body.results.every(isObject)) {
        throw new TelemetryError(`the answer of ${this.host} is not a list of ${what}`);
      }
      next = typeof body.next === "string" && body.next !== "" ? this.sameSite(body.next, what) : null;
      yield* body.results as Json[];
    }
  }

  /**
   * A `next` link on the remote's site, with the scheme and port of device_locator (a remote
   * behind a proxy may write its links with http).
   */
  private sameSite(link: string, what: string): string {
    let url: URL;
    try {
      url = new URL(link, this.base);
    } catch {
      throw new TelemetryError(`the answer of ${this.host} is not a list of ${what}`);
    }
    if (url.hostname !== this.base.hostname) throw new TelemetryError(`the list of ${what} of ${this.host} continues on another site (${url.hostname})`);
    return new URL(`${url.pathname}${url.search}`, this.base.origin).toString();
  }

  private stationId(): string {
    const id = this.config.remoteStationId.trim();
    if (!/^\d+$/.test(id)) throw new TelemetryError(`the remote station id "${id}" is not a number`);
    return id;
  }

  async connect(): Promise<void> {}

  async disconnect(): Promise<void> {}

  /** The stations; once there are more than MAX_LISTED, no further page is read. */
  async listStations(): Promise<RemoteItem[]> {
    const out: RemoteItem[] = [];
    for await (const s of this.list("api/stations/", "stations")) {
      if (s.id === undefined || s.id === null) throw new TelemetryError(`the answer of ${this.host} is not a list of stations`);
      const id = remoteId(s.id);
      if (id !== null) out.push({ id, name: remoteText(s.name) });
      if (out.length > MAX_LISTED) break;
    }
    return out;
  }

  /** The time series of the station's groups; once there are more than MAX_LISTED, no further page is read. */
  async listSensors(): Promise<RemoteItem[]> {
    const station = this.stationId();
    const out: RemoteItem[] = [];
    for await (const group of this.list(`api/stations/${station}/timeseriesgroups/`, "time series groups")) {
      if (group.id === undefined) throw new TelemetryError(`the answer of ${this.host} is not a list of time series groups`);
      const groupId = remoteId(group.id);
      if (groupId === null) continue;
      for await (const ts of this.list(`api/stations/${station}/timeseriesgroups/${groupId}/timeseries/`, "time series")) {
        if (ts.id === undefined) throw new TelemetryError(`the answer of ${this.host} is not a list of time series`);
        const seriesId = remoteId(ts.id);
        if (seriesId === null) continue;
        out.push({
          id: `${groupId} ${seriesId}`,
          name: `${remoteText(group.name)} - ${remoteText(ts.type)} ${remoteText(ts.name)} ${remoteText(ts.time_step)}`,
        });
        if (out.length > MAX_LISTED) return out;
      }
    }
    return out;
  }

  async readingsAfter(sensorId: string, lastStored: number | null): Promise<ReadingBatch> {
    const station = this.stationId();
    const m = /^\s*(\d+)\s+(\d+)\s*$/.exec(sensorId);
    if (m === null) throw new TelemetryError(`the sensor "${sensorId}" is not of the form "<group id> <time series id>"`);
    const start = lastStored === null ? "1990-01-01T00:00:00+00:00" : `${formatNaive(Math.floor(lastStored) + 60)}+00:00`;
    const url = new URL(`api/stations/${station}/timeseriesgroups/${m[1]}/timeseries/${m[2]}/data/`, this.base);
    url.searchParams.set("fmt", "hts");
    url.searchParams.set("start_date", start);
    const response = await this.http.ok(url.toString(), { headers: this.headers("text/vnd.openmeteo.timeseries, text/plain, */*") });
    const text = response.text();
    if (text.trim() === "") return { clock: "utc", readings: [] };
    const parsed = parseUpload(text, UTC);
    if (!parsed.ok) throw new TelemetryError(`the answer of ${this.host} is not a time series (${quote(parsed.errors[0])})`);
    const readings: Reading[] = [];
    for (let i = 0; i < parsed.timestamps.length; i++) {
      const v = parsed.values[i];
      readings.push({ time: parsed.timestamps[i], value: Number.isNaN(v) ? null : v, flags: parsed.flags[i] });
    }
    return { clock: "utc", readings };
  }
}

export const enhydris: TelemetryType = {
  id: "enhydris",
  name: "Enhydris",
  fields: {
    device_locator: { label: "Location of the other Enhydris instance", help: "For example, https://enhydris.example.com/.", required: true },
    password: { label: "API token", help: "Leave blank to read only the public data.", required: false },
    remote_station_id: REMOTE_STATION_FIELD,
  },
  additionalConfig: {},
  listsStations: true,
  usesDataTimezone: false,
  sensorPrompt: "To which local time series does the remote time series {sensor_label} correspond?",
  ignoreSensorPrompt: "Ignore this remote time series",
  validate(config: TelemetryConfig): FieldErrors {
    const errors: FieldErrors = {};
    requireFields(config, ["device_locator"], errors);
    checkUrlField(config, errors);
    if (config.remoteStationId.trim() !== "" && !/^\d+$/.test(config.remoteStationId.trim())) {
      addError(errors, "remote_station_id", "A valid integer is required.");
    }
    return errors;
  },
  open(config: TelemetryConfig, context: DriverContext): TelemetrySession {
    return openGuarded(config, "the Enhydris", () => new EnhydrisSession(config, context));
  },
};
