/**
 * The interface of telemetry types (telemetry.md §2): one module per vendor in
 * lib/telemetry/types/, each a TelemetryType. The reference's TelemetryAPIClient became:
 *
 * - static metadata (id, name, the wizard's fields with their labels, whether it lists
 *   stations, whether its timestamps are in `data_timezone`);
 * - `validate(config)`: the type's own rules on the connection fields and `additional_config`;
 * - `open(config, context)`: a session with connect, list stations, list sensors, readings
 *   after a moment, disconnect. All network goes through lib/outbound with the context's
 *   allow list and limits; every failure is a TelemetryError with the vendor's words, never a
 *   secret (the session is wrapped by `guardSession`).
 *
 * Readings are returned as the vendor gave them; lib/telemetry/readings.ts turns them into
 * records (zone conversion, one per minute, only after the series' last record).
 */
import type { OutboundAllowList } from "@/lib/outbound";
import type { RequestBudget } from "@/lib/telemetry/budget";
import { redact, TelemetryError } from "@/lib/telemetry/errors";

/** The connection fields of a telemetry that a type may show (telemetry.md §1). */
export type ConnectionField = "device_locator" | "username" | "password" | "remote_station_id" | "data_timezone";

/** How the wizard shows a field. */
export interface FieldMeta {
  readonly label: string;
  readonly help: string;
  readonly required: boolean;
}

/** The stored configuration of a telemetry, as a driver needs it (the password decrypted). */
export interface TelemetryConfig {
  readonly deviceLocator: string;
  readonly username: string;
  readonly password: string;
  readonly remoteStationId: string;
  readonly additionalConfig: Readonly<Record<string, unknown>>;
  /** IANA name; the zone of the vendor's timestamps for types with `usesDataTimezone`. */
  readonly dataTimezone: string;
  /** False only by an explicit choice, for loggers with self-signed certificates. */
  readonly verifyTls: boolean;
}

/** What the caller decides for every request of a session (settings, cancellation, tests). */
export interface DriverContext {
  /** ENHYDRIS_OUTBOUND_ALLOW, parsed. */
  readonly allow: OutboundAllowList;
  /** ENHYDRIS_TELEMETRY_TIMEOUT, in milliseconds: each request, whole. */
  readonly timeoutMs: number;
  /** The longest silence of a connection (default: timeoutMs). */
  readonly idleTimeoutMs?: number;
  /** The largest answer, in bytes (ENHYDRIS_MAX_UPLOAD_SIZE). */
  readonly maxBytes: number;
  readonly signal?: AbortSignal;
  /** The current time in milliseconds (default Date.now): paging windows stop at "now". */
  readonly now?: () => number;
  /** Host name resolution (default: the system's); for tests. */
  readonly resolve?: (host: string) => Promise<string[]>;
  /** What all the requests of the session may use together (time, bytes); none: each request's limits only. */
  readonly budget?: RequestBudget;
}

/**
 * The most stations (or sensors) a list may have: a vendor that lists more is refused by
 * `discover/` (the remote station's id is then given by hand), and a driver that reads a list in
 * pages may stop reading once it has more.
 */
export const MAX_LISTED = 10_000;

/** A station or a sensor as the vendor lists it. `name` may be "" (the vendor has none). */
export interface RemoteItem {
  readonly id: string;
  readonly name: string;
}

/**
 * One reading as the vendor gave it. `time` is in whole seconds: UTC epoch seconds when the
 * batch's clock is "utc"; when it is "local", naive wall-clock seconds since
 * 1970-01-01T00:00 in `data_timezone` (converted by readings.ts, DST included).
 */
export interface Reading {
  readonly time: number;
  /** null for a missing value. */
  readonly value: number | null;
  /** Words separated by single spaces, "" for none. */
  readonly flags: string;
}

/** The readings of one sensor, in the vendor's order. */
export interface ReadingBatch {
  readonly clock: "utc" | "local";
  readonly readings: readonly Reading[];
}

/** A connection to a vendor for one telemetry; use through `withSession`. */
export interface TelemetrySession {
  /** Logs on when the vendor needs it (addUPI's session, MeteoView2's token). */
  connect(): Promise<void>;
  /**
   * The vendor's stations (for types with `listsStations`; others answer []); a list read in
   * pages may end once it has more than MAX_LISTED (the caller refuses such a list).
   */
  listStations(): Promise<RemoteItem[]>;
  /** The sensors of `remote_station_id` (or of the single station); as listStations, beyond MAX_LISTED. */
  listSensors(): Promise<RemoteItem[]>;
  /**
   * The sensor's readings after `lastStored` (UTC epoch seconds of the series' last record, or
   * null for none), at most what the vendor gives in one go (a window, a page); the next fetch
   * continues from the new last record.
   */
  readingsAfter(sensorId: string, lastStored: number | null): Promise<ReadingBatch>;
  /** Logs off; never fails (a failed logout is no reason to lose fetched data). */
  disconnect(): Promise<void>;
}

/** Field errors, DRF style: field name → messages. */
export type FieldErrors = Record<string, string[]>;

export interface TelemetryType {
  /** The id stored in `type`, and the module's name. */
  readonly id: string;
  readonly name: string;
  /** The connection fields the wizard shows, with their labels; the others are hidden and ignored. */
  readonly fields: Readonly<Partial<Record<ConnectionField, FieldMeta>>>;
  /** The keys of `additional_config` the wizard asks for. */
  readonly additionalConfig: Readonly<Record<string, FieldMeta>>;
  /** Whether the vendor has several stations to choose from (the wizard's station step). */
  readonly listsStations: boolean;
  /** Whether the vendor's timestamps are in `data_timezone` (else UTC, and the zone is hidden). */
  readonly usesDataTimezone: boolean;
  /** The question of the sensor step; `{sensor_label}` stands for the sensor. */
  readonly sensorPrompt: string;
  /** The answer of the sensor step that leaves a sensor unmapped. */
  readonly ignoreSensorPrompt: string;
  /** The type's rules on a configuration (required fields, URLs, additional_config); {} when valid. */
  validate(config: TelemetryConfig): FieldErrors;
  /** A session (not yet connected); wrap it with guardSession, or use withSession. */
  open(config: TelemetryConfig, context: DriverContext): TelemetrySession;
}

export const DEFAULT_SENSOR_PROMPT = "To which Enhydris time series does sensor {sensor_label} correspond?";
export const DEFAULT_IGNORE_SENSOR_PROMPT = "Ignore this sensor";

/** The labels of the fields most types share (the reference's defaults). */
export const DATA_TIMEZONE_FIELD: FieldMeta = {
  label: "Time zone of the timestamps",
  help: 'The time zone of the data, like "Europe/Athens" or "Etc/GMT".',
  required: true,
};
export const REMOTE_STATION_FIELD: FieldMeta = {
  label: "Remote station",
  help: "The station as the vendor's system identifies it; the wizard lists them.",
  required: true,
};

/**
 * A session whose every failure is a TelemetryError without the secrets: the password, and
 * whatever `secrets()` adds (tokens and session ids obtained at login). An unexpected error of
 * a driver becomes a TelemetryError too (the vendor's answer had a shape the driver did not
 * foresee).
 */
export function guardSession(session: TelemetrySession, config: TelemetryConfig, typeName: string,
  secrets: () => readonly string[] = () => []): TelemetrySession {
  const clean = (error: unknown): TelemetryError => {
    // The password as HTTP Basic carries it, too.
    const basic = config.password ? Buffer.from(`${config.username}:${config.password}`).toString("base64") : null;
    const all = [config.password, basic, ...secrets()];
    if (error instanceof TelemetryError) return new TelemetryError(redact(error.message, all), error.stop);
    const message = error instanceof Error ? error.message : String(error);
    return new TelemetryError(redact(`the answer of ${typeName} could not be read (${message})`, all));
  };
  const guarded = <A extends unknown[], R>(f: (...args: A) => Promise<R>) => async (...args: A): Promise<R> => {
    try {
      return await f(...args);
    } catch (error) {
      throw clean(error);
    }
  };
  return {
    connect: guarded(() => session.connect()),
    listStations: guarded(() => session.listStations()),
    listSensors: guarded(() => session.listSensors()),
    readingsAfter: guarded((sensorId: string, lastStored: number | null) => session.readingsAfter(sensorId, lastStored)),
    disconnect: async () => {
      try {
        await session.disconnect();
      } catch {
        // Logging off is best effort.
      }
    },
  };
}

/**
 * The guarded session of a type's `open`: `create` builds the driver's session (it may throw,
 * e.g. for a device_locator that is not a URL: then every call fails with that error), and
 * `secrets` names what it obtained at login.
 */
export function openGuarded<S extends TelemetrySession>(config: TelemetryConfig, typeName: string, create: () => S,
  secrets: (session: S) => readonly (string | null)[] = () => []): TelemetrySession {
  let session: S;
  try {
    session = create();
  } catch (error) {
    const fail = async (): Promise<never> => {
      throw error;
    };
    return guardSession({ connect: fail, listStations: fail, listSensors: fail, readingsAfter: fail, disconnect: async () => undefined },
      config, typeName);
  }
  return guardSession(session, config, typeName, () => secrets(session).filter((s): s is string => !!s));
}

/** Opens a session, connects, runs `work`, and always disconnects (the reference's `with`). */
export async function withSession<T>(type: TelemetryType, config: TelemetryConfig, context: DriverContext,
  work: (session: TelemetrySession) => Promise<T>): Promise<T> {
  const session = type.open(config, context);
  try {
    await session.connect();
    return await work(session);
  } finally {
    await session.disconnect();
  }
}

/** A type as `GET telemetry/types/` shows it (telemetry.md §1). */
export interface TelemetryTypeDescription {
  id: string;
  name: string;
  fields: Record<string, FieldMeta & { fields?: Record<string, FieldMeta> }>;
  lists_stations: boolean;
}

/**
 * The description of a type for `GET telemetry/types/`: its visible fields, `additional_config`
 * (when the type has keys) with its keys under `fields`.
 */
export function describeType(type: TelemetryType): TelemetryTypeDescription {
  const fields: TelemetryTypeDescription["fields"] = {};
  for (const [name, meta] of Object.entries(type.fields)) fields[name] = { ...meta };
  const keys = Object.entries(type.additionalConfig);
  if (keys.length > 0) {
    fields.additional_config = {
      label: "Additional configuration",
      help: `Settings of the ${type.name} type: ${keys.map(([k]) => k).join(", ")}.`,
      required: keys.some(([, meta]) => meta.required),
      fields: Object.fromEntries(keys.map(([k, meta]) => [k, { ...meta }])),
    };
  }
  return { id: type.id, name: type.name, fields, lists_stations: type.listsStations };
}
