/**
 * Adcon addUPI (a gateway, or an addVANTAGE server): `GET <url>/addUPI?function=…` answering
 * XML, as the reference's `types/addupi.py`.
 *
 * - `login` (user, passwd) gives a session id that every later request carries as
 *   `session-id`; `logout` ends it (disconnect).
 * - `getconfig` lists the devices (`node[@class='DEVICE']`, "name [subclass]") and, below the
 *   station's node, its sensors (`nodes/node`).
 * - `getdata` (`df=time_t`, `date` = the last record's epoch seconds or 1990-01-01, `slots=10000`)
 *   answers `node/v` elements: `t` is epoch seconds (UTC), or `+N` seconds after the reading
 *   before; the status `s` must be an integer from -99 to 2: 1 or 2 → flag INVALID, negative →
 *   flag MISSING.
 * - An answer with an `error` element is the gateway's error message.
 *
 * The timestamps are UTC: the type hides `data_timezone`. Differs from the reference: the user
 * name and password are URL-encoded (a password with "&" works), a trailing "/" of the URL is
 * dropped, TLS is verified unless `verify_tls` is off (the reference never verified), and an
 * empty value (as with a missing reading) is a null instead of a crash.
 */
import { shownInstant } from "@/lib/domain/serialize";
import { formatUtcSeconds } from "@/lib/formats/timestamp";
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
import { checkedUrl, hostOf, quote, VendorHttp } from "@/lib/telemetry/http";
import { parseReadingValue } from "@/lib/telemetry/readings";
import { checkUrlField, requireFields } from "@/lib/telemetry/types/common";
import { childrenNamed, decodeXml, descendants, parseXml, XmlError, type XmlElement } from "@/lib/telemetry/xml";

/** getdata's start when the series is empty: 1990-01-01T00:00Z. */
const EPOCH_1990 = 631152000;
const SLOTS = 10000;

class AddupiSession implements TelemetrySession {
  private readonly http: VendorHttp;
  private readonly base: string;
  private readonly host: string;
  sessionId: string | null = null;

  constructor(private readonly config: TelemetryConfig, context: DriverContext) {
    this.http = new VendorHttp(context, config.verifyTls);
    this.base = checkedUrl(config.deviceLocator).toString().replace(/\/+$/, "");
    this.host = hostOf(this.base);
  }

  /** Sends `function=…` (with the session id once logged in) and returns the XML's root. */
  private async call(query: string): Promise<XmlElement> {
    const session = this.sessionId === null ? "" : `&session-id=${encodeURIComponent(this.sessionId)}`;
    const response = await this.http.ok(`${this.base}/addUPI?${query}${session}`);
    let root: XmlElement;
    try {
      root = parseXml(decodeXml(response.body));
    } catch (error) {
      if (error instanceof XmlError) throw new TelemetryError(`the answer of ${this.host} is not XML (${error.message})`);
      throw error;
    }
    const failure = childrenNamed(root, "error")[0];
    if (failure !== undefined) {
      const message = failure.attributes.msg ?? failure.text;
      throw new TelemetryError(`${this.host} says: ${quote(message) || `error ${failure.attributes.code ?? ""}`.trim()}`);
    }
    return root;
  }

  async connect(): Promise<void> {
    const root = await this.call(`function=login&user=${encodeURIComponent(this.config.username)}&passwd=${encodeURIComponent(this.config.password)}`);
    const id = childrenNamed(root, "result").flatMap((r) => childrenNamed(r, "string"))[0]?.text.trim();
    if (!id) throw new TelemetryError(`${this.host} answered the login without a session id`);
    this.sessionId = id;
  }

  async disconnect(): Promise<void> {
    if (this.sessionId === null) return;
    try {
      await this.call("function=logout");
    } finally {
      this.sessionId = null;
    }
  }

  async listStations(): Promise<RemoteItem[]> {
    const root = await this.call("function=getconfig");
    return descendants(root, (e) => e.name === "node" && e.attributes.class === "DEVICE").map((node) => {
      const name = node.attributes.name ?? "";
      const subclass = node.attributes.subclass ?? "";
      return { id: node.attributes.id ?? "", name: subclass ? `${name} [${subclass}]` : name };
    });
  }

  async listSensors(): Promise<RemoteItem[]> {
    const root = await this.call("function=getconfig");
    const id = this.config.remoteStationId;
    const station = descendants(root, (e) => e.name === "node" && e.attributes.id === id)[0];
    if (station === undefined) throw new TelemetryError(`the configuration of ${this.host} has no station with id "${id}"`);
    return childrenNamed(station, "nodes")
      .flatMap((nodes) => childrenNamed(nodes, "node"))
      .map((node) => ({ id: node.attributes.id ?? "", name: node.attributes.name ?? "" }));
  }

  async readingsAfter(sensorId: string, lastStored: number | null): Promise<ReadingBatch> {
    const date = lastStored === null ? EPOCH_1990 : Math.floor(lastStored);
    const root = await this.call(`function=getdata&id=${encodeURIComponent(sensorId)}&df=time_t&date=${date}&slots=${SLOTS}`);
    const readings: Reading[] = [];
    let previous: number | null = null;
    for (const v of childrenNamed(root, "node").flatMap((node) => childrenNamed(node, "v"))) {
      const t = v.attributes.t ?? "";
      let time: number;
      if (/^\+\d+$/.test(t)) {
        if (previous === null) throw new TelemetryError(`the first reading of ${this.host} has a relative timestamp (t="${quote(t)}")`);
        time = previous + Number(t.slice(1));
      } else if (/^-?\d+$/.test(t)) {
        time = Number(t);
      } else {
        throw new TelemetryError(`a reading of ${this.host} has an invalid timestamp (t="${quote(t)}")`);
      }
      // The reference's datetime fails beyond years 1–9999; stored, such a reading would end the
      // series there, and every later reading would be dropped as not after it.
      if (shownInstant(time) === null) {
        throw new TelemetryError(`a reading of ${this.host} has a timestamp outside the years 1–9999 (t="${quote(t)}")`);
      }
      const shown = formatUtcSeconds(time).slice(0, -1);
      const value = parseReadingValue(v.text);
      if (value === undefined) throw new TelemetryError(`the reading with timestamp ${shown} has an invalid value ("${quote(v.text)}")`);
      readings.push({ time, value, flags: flagsOf(v.attributes.s, shown) });
      previous = time;
    }
    return { clock: "utc", readings };
  }
}

/** The flags of a status: 1, 2 → INVALID; negative → MISSING; 0 → none. */
function flagsOf(s: string | undefined, shown: string): string {
  if (s === undefined) throw new TelemetryError(`the reading with timestamp ${shown} has an invalid status value (no s attribute)`);
  // An integer as the reference's int() reads it: a sign ("+1", "-1") and spaces around allowed.
  const status = /^[+-]?\d+$/.test(s.trim()) ? Number(s.trim()) : NaN;
  if (!(status >= -99 && status <= 2)) throw new TelemetryError(`the reading with timestamp ${shown} has an invalid status value (s="${quote(s)}")`);
  if (status === 1 || status === 2) return "INVALID";
  if (status < 0) return "MISSING";
  return "";
}

export const addupi: TelemetryType = {
  id: "addupi",
  name: "Adcon addUPI",
  fields: {
    device_locator: {
      label: "Gateway or addVANTAGE server URL",
      help: 'Use "https://hostname:port" or "https://hostname". You can use http instead of https, but it is not recommended.',
      required: true,
    },
    username: { label: "Username", help: "", required: true },
    password: { label: "Password", help: "", required: true },
    remote_station_id: REMOTE_STATION_FIELD,
  },
  additionalConfig: {},
  listsStations: true,
  usesDataTimezone: false,
  sensorPrompt: DEFAULT_SENSOR_PROMPT,
  ignoreSensorPrompt: DEFAULT_IGNORE_SENSOR_PROMPT,
  validate(config: TelemetryConfig): FieldErrors {
    const errors: FieldErrors = {};
    requireFields(config, ["device_locator", "username", "password"], errors);
    checkUrlField(config, errors);
    return errors;
  },
  open(config: TelemetryConfig, context: DriverContext): TelemetrySession {
    return openGuarded(config, "the addUPI server", () => new AddupiSession(config, context), (s) => [s.sessionId]);
  },
};
