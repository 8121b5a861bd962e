/**
 * `http_csv`, our own type (telemetry.md §2): a GET of a URL template that answers CSV with a
 * header line; the sensors are its columns.
 *
 * - device_locator holds `{start}` (the first moment wanted: the minute after the last record,
 *   or 1990-01-01T00:00:00, naive ISO 8601 in `data_timezone`, URL-encoded) and optionally
 *   `{end}`. With `{end}` the readings are asked in windows of 180 days, an empty window moving
 *   on to the next one at once until the windows pass tomorrow, as MeteoView2's; without it one
 *   request asks everything after `{start}` (within the answer size limit).
 * - additional_config: `timestamp_column` (default: the first column), `timestamp_format` (ISO
 *   8601 by default, with or without an offset; or a Luxon format), `delimiter` (default ",";
 *   "\t" for a tab), `skip_lines` (lines before the header line, default 0), `header` (a header
 *   that carries the password, such as Authorization or X-API-Key).
 * - Authentication: `header` with the password as its value, or HTTP Basic with the user name
 *   and password when a user name is given, or none.
 * - Timestamps without an offset are local times in `data_timezone`; with an offset (or Luxon's
 *   X, x, Z, z tokens) they are instants. One answer may not mix both.
 */
import { DateTime } from "luxon";
import { scanDateTime, scanned } from "@/lib/formats/datetime-scan";
import { parseCsvRows } from "@/lib/telemetry/csv";
import {
  DATA_TIMEZONE_FIELD,
  openGuarded,
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
import { hostOf, quote, urlProblem, VendorHttp } from "@/lib/telemetry/http";
import { formatNaive, localSecondsOf, naiveSeconds, parseReadingValue } from "@/lib/telemetry/readings";
import { addError, checkConfigStrings, checkZoneField, configString, dataZone, requireFields } from "@/lib/telemetry/types/common";

const WINDOW_SECONDS = 180 * 86400;
const DAY = 86400;
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
/** Headers the request itself decides. */
const RESERVED_HEADERS = new Set(["host", "content-length", "transfer-encoding", "connection", "content-type", "accept-encoding"]);

/** The URL of the template for a window (naive local seconds; `end` used when the template has {end}). */
export function expandTemplate(template: string, start: number, end: number): string {
  return template.trim()
    .replaceAll("{start}", encodeURIComponent(formatNaive(start)))
    .replaceAll("{end}", encodeURIComponent(formatNaive(end)));
}

/** The delimiter of additional_config: "," by default, "\t" (or "tab") for a tab. */
function delimiterOf(config: TelemetryConfig): string {
  const d = configString(config, "delimiter");
  if (d === "") return ",";
  if (d === "\\t" || d.toLowerCase() === "tab") return "\t";
  return d;
}

function skipLinesOf(config: TelemetryConfig): number | null {
  const v = config.additionalConfig.skip_lines;
  if (v === undefined || v === null || v === "") return 0;
  const n = typeof v === "number" ? v : typeof v === "string" && /^\s*\d+\s*$/.test(v) ? Number(v) : NaN;
  return Number.isSafeInteger(n) && n >= 0 && n <= 1000 ? n : null;
}

/** Luxon tokens that make a timestamp an instant (an offset, a zone, or epoch seconds/ms). */
function formatHasOffset(format: string): boolean {
  return /[XxZz]/.test(format.replace(/'[^']*'/g, ""));
}

class HttpCsvSession implements TelemetrySession {
  private readonly http: VendorHttp;
  private readonly host: string;
  private readonly headers: Record<string, string> = {};
  /** The header that carries the password: dropped on a redirect to another host (lib/outbound). */
  private readonly credentialHeaders: string[] = [];

  constructor(private readonly config: TelemetryConfig, private readonly context: DriverContext) {
    this.http = new VendorHttp(context, config.verifyTls);
    const problem = urlProblem(expandTemplate(config.deviceLocator, 0, 0));
    if (problem !== null || !config.deviceLocator.includes("{start}")) {
      throw new TelemetryError(`the CSV URL "${config.deviceLocator}" is not a URL template with {start}`);
    }
    this.host = hostOf(expandTemplate(config.deviceLocator, 0, 0));
    const header = configString(config, "header").trim();
    if (header !== "") {
      this.headers[header] = config.password;
      this.credentialHeaders.push(header);
    }
    else if (config.username !== "") this.headers.Authorization = `Basic ${Buffer.from(`${config.username}:${config.password}`).toString("base64")}`;
    this.headers.Accept = "text/csv, text/plain, */*";
  }

  async connect(): Promise<void> {}

  async disconnect(): Promise<void> {}

  async listStations(): Promise<RemoteItem[]> {
    return [];
  }

  /** The header and the rows of the CSV of a window. */
  private async table(start: number, end: number): Promise<{ header: string[]; rows: string[][] }> {
    const response = await this.http.ok(expandTemplate(this.config.deviceLocator, start, end), { headers: this.headers, credentialHeaders: this.credentialHeaders });
    let text = response.text();
    const skip = skipLinesOf(this.config) ?? 0;
    for (let k = 0; k < skip; k++) {
      const at = text.indexOf("\n");
      text = at < 0 ? "" : text.slice(at + 1);
    }
    const parsed = parseCsvRows(text, delimiterOf(this.config));
    if (!parsed.ok) throw new TelemetryError(`the answer of ${this.host} is not CSV (${parsed.error})`);
    if (parsed.rows.length === 0) return { header: [], rows: [] };
    return { header: parsed.rows[0].map((h) => h.trim()), rows: parsed.rows.slice(1) };
  }

  private timestampColumn(header: string[]): number {
    const name = configString(this.config, "timestamp_column").trim();
    if (name === "") return 0;
    const k = header.indexOf(name);
    if (k < 0) throw new TelemetryError(`the CSV of ${this.host} has no column "${name}" (its columns: ${quote(header.join(", "))})`);
    return k;
  }

  private nowLocal(): number {
    return localSecondsOf(Math.floor((this.context.now ?? Date.now)() / 1000), dataZone(this.config));
  }

  async listSensors(): Promise<RemoteItem[]> {
    const now = this.nowLocal();
    const { header } = await this.table(now - DAY, now + DAY);
    if (header.length === 0) throw new TelemetryError(`the answer of ${this.host} has no header line`);
    const ts = this.timestampColumn(header);
    return header.filter((name, k) => k !== ts && name !== "").map((id) => ({ id, name: "" }));
  }

  async readingsAfter(sensorId: string, lastStored: number | null): Promise<ReadingBatch> {
    const zone = dataZone(this.config);
    let start = lastStored === null ? naiveSeconds(1990, 1, 1) : (Math.floor(localSecondsOf(Math.floor(lastStored), zone) / 60) + 1) * 60;
    const windows = this.config.deviceLocator.includes("{end}");
    const until = this.nowLocal() + DAY;
    for (;;) {
      const end = start + WINDOW_SECONDS;
      const { header, rows } = await this.table(start, end);
      if (rows.length > 0 || !windows || end + 60 >= until) return this.readings(header, rows, sensorId);
      start = end + 60;
    }
  }

  private readings(header: string[], rows: string[][], sensorId: string): ReadingBatch {
    if (rows.length === 0) return { clock: "local", readings: [] };
    const ts = this.timestampColumn(header);
    const column = header.indexOf(sensorId);
    if (column < 0) throw new TelemetryError(`the CSV of ${this.host} has no column "${sensorId}" (its columns: ${quote(header.join(", "))})`);
    const format = configString(this.config, "timestamp_format").trim();
    const parser = format === "" ? null : DateTime.buildFormatParser(format, { locale: "en-US" });
    const readings: Reading[] = [];
    let clock: "utc" | "local" | null = format === "" ? null : formatHasOffset(format) ? "utc" : "local";
    for (let k = 0; k < rows.length; k++) {
      const row = rows[k];
      const text = (row[ts] ?? "").trim();
      const bad = () => new TelemetryError(`row ${k + 1} of the CSV of ${this.host} has an invalid timestamp ("${quote(text)}")`);
      let time: number;
      if (parser === null) {
        if (!scanDateTime(text, 0, text.length, true)) throw bad();
        const rowClock = scanned.hasOffset ? "utc" : "local";
        clock ??= rowClock;
        if (rowClock !== clock) throw new TelemetryError(`the CSV of ${this.host} mixes timestamps with and without an offset (row ${k + 1})`);
        time = scanned.hasOffset ? scanned.local - scanned.offset : scanned.local;
      } else {
        const parsed = DateTime.fromFormatParser(text, parser, { zone: "UTC", setZone: true });
        if (!parsed.isValid) throw bad();
        time = clock === "utc" ? Math.floor(parsed.toSeconds()) : Math.floor(parsed.toSeconds()) + parsed.offset * 60;
      }
      const cell = row[column] ?? "";
      const value = parseReadingValue(cell);
      if (value === undefined) throw new TelemetryError(`row ${k + 1} of the CSV of ${this.host} has a value of "${sensorId}" that is not a number ("${quote(cell)}")`);
      readings.push({ time, value, flags: "" });
    }
    return { clock: clock ?? "local", readings };
  }
}

export const httpCsv: TelemetryType = {
  id: "http_csv",
  name: "CSV over HTTP",
  fields: {
    device_locator: {
      label: "CSV URL",
      help: "The address of the CSV, with {start} where the first moment wanted goes (in the time zone of the data, like " +
        "2024-05-01T10:00:00) and, optionally, {end}. For example, https://logger.example.org/data.csv?from={start}.",
      required: true,
    },
    username: { label: "Username", help: "For HTTP Basic authentication; leave blank if the server needs none (or uses a header).", required: false },
    password: { label: "Password or key", help: "The HTTP Basic password, or the value of the authentication header.", required: false },
    data_timezone: DATA_TIMEZONE_FIELD,
  },
  additionalConfig: {
    timestamp_column: { label: "Timestamp column", help: "The name of the column of the timestamps; blank: the first column.", required: false },
    timestamp_format: {
      label: "Timestamp format",
      help: "Blank for ISO 8601 (2024-05-01T10:00, 2024-05-01 10:00:00, with or without an offset such as +02:00 or Z); " +
        'otherwise a Luxon format such as "dd/MM/yyyy HH:mm". Timestamps without an offset are in the time zone of the data.',
      required: false,
    },
    delimiter: { label: "Delimiter", help: 'The character between columns: "," (the default), ";", or "\\t" for a tab.', required: false },
    skip_lines: { label: "Lines to skip", help: "The number of lines before the header line (0 by default).", required: false },
    header: {
      label: "Authentication header",
      help: "The name of an HTTP header (such as Authorization or X-API-Key) whose value is the password; blank: HTTP Basic when a user name is given.",
      required: false,
    },
  },
  listsStations: false,
  usesDataTimezone: true,
  sensorPrompt: "To which Enhydris time series does column {sensor_label} correspond?",
  ignoreSensorPrompt: "Ignore this column",
  validate(config: TelemetryConfig): FieldErrors {
    const errors: FieldErrors = {};
    requireFields(config, ["device_locator"], errors);
    const template = config.deviceLocator.trim();
    if (template !== "") {
      if (!template.includes("{start}")) addError(errors, "device_locator", "Put {start} where the first moment wanted goes.");
      const problem = urlProblem(expandTemplate(template, 0, 0));
      if (problem) addError(errors, "device_locator", problem);
    }
    checkZoneField(config, errors);
    checkConfigStrings(config, ["timestamp_column", "timestamp_format", "delimiter", "header"], [], errors);
    const delimiter = configString(config, "delimiter");
    if (delimiter !== "" && delimiterOf(config).length !== 1) addError(errors, "additional_config", '"delimiter" must be one character (or "\\t").');
    if (delimiterOf(config) === '"' || delimiterOf(config) === "\n" || delimiterOf(config) === "\r") addError(errors, "additional_config", '"delimiter" cannot be a quote or a line break.');
    if (skipLinesOf(config) === null) addError(errors, "additional_config", '"skip_lines" must be a whole number from 0 to 1000.');
    const format = configString(config, "timestamp_format").trim();
    if (format !== "") {
      try {
        DateTime.buildFormatParser(format, { locale: "en-US" });
      } catch {
        addError(errors, "additional_config", `"timestamp_format" is not a Luxon format.`);
      }
    }
    const header = configString(config, "header").trim();
    if (header !== "") {
      if (!HEADER_NAME.test(header) || RESERVED_HEADERS.has(header.toLowerCase())) addError(errors, "additional_config", `"header" is not a header name that can carry a key.`);
      if (config.username.trim() !== "") addError(errors, "username", "Leave the user name blank when a header carries the password.");
      if (config.password === "") addError(errors, "password", "This field is required when a header carries it.");
    }
    return errors;
  },
  open(config: TelemetryConfig, context: DriverContext): TelemetrySession {
    return openGuarded(config, "the CSV server", () => new HttpCsvSession(config, context));
  },
};
