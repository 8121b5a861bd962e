/**
 * The connection test of the wizard and of `discover/` (telemetry.md §1): connects with the
 * connection fields given (the saved telemetry's stand in for those not given, its password
 * included) and lists the vendor's stations, or, with a remote station (or for a type that has
 * a single station), its sensors. What the vendor said on failure is a ValidationFailed under
 * `connection`.
 *
 * A discovery runs in the web process, so what it may hold is bounded: its answers together at
 * most the upload limit and its requests together SESSION_TIMEOUTS request timeouts (the
 * discovery's RequestBudget), a list of at most MAX_LISTED items (more is refused: the remote
 * station's id is then given by hand), and at most MAX_DISCOVERIES of them at once in a process
 * (beyond, Throttled: 429 with Retry-After).
 */
import type { Actor } from "@/lib/auth/permissions";
import { SecretBoxError, unseal } from "@/lib/auth/secret-box";
import { Throttled, ValidationFailed } from "@/lib/domain/errors";
import { valuesOf, type Given } from "@/lib/domain/given";
import { driverConfig, normalizedValues, telemetryErrors, TELEMETRY_RULES, typeOf, type TelemetryValues } from "@/lib/telemetry/config";
import { MAX_LISTED, withSession, type DriverContext, type RemoteItem } from "@/lib/telemetry/driver";
import { TelemetryError } from "@/lib/telemetry/errors";
import { driverContext } from "@/lib/telemetry/fetch";
import { loadTelemetry, PASSWORD_LABEL, storedValues, writableStation, type TelemetryFound } from "@/lib/telemetry/telemetries";

export type Discovered = { stations: RemoteItem[] } | { sensors: RemoteItem[] };

const DEFAULTS: Omit<TelemetryValues, "type"> = {
  data_timezone: "UTC", fetch_interval_minutes: 10, fetch_offset_minutes: 0, device_locator: "", username: "", password: "",
  remote_station_id: "", additional_config: {}, verify_tls: true, stale_after_minutes: null, stuck_after_values: null, alert_emails: [], sensors: [],
};

/**
 * Discoveries running at once in a process, at most: each may hold up to the upload limit of
 * answers (and their parsed lists) for up to SESSION_TIMEOUTS request timeouts.
 */
export const MAX_DISCOVERIES = 4;
/** The Retry-After of a discovery refused because MAX_DISCOVERIES run: most take a second or two. */
export const DISCOVERY_RETRY_SECONDS = 5;

/** The discoveries running in this process (on globalThis: Next may load this module once per bundle). */
const RUNNING = Symbol.for("enhydris.telemetry.discoveries");
type Holder = { [RUNNING]?: { n: number } };
const running = () => ((globalThis as Holder)[RUNNING] ??= { n: 0 });

/** Runs `work` as one of the MAX_DISCOVERIES of the process, or refuses with Throttled. */
async function asDiscovery<T>(work: () => Promise<T>): Promise<T> {
  const count = running();
  if (count.n >= MAX_DISCOVERIES) throw new Throttled(DISCOVERY_RETRY_SECONDS);
  count.n++;
  try {
    return await work();
  } finally {
    count.n--;
  }
}

/** A list longer than MAX_LISTED, refused in words saying what to do instead. */
function tooMany(typeName: string, what: "stations" | "sensors"): ValidationFailed {
  const limit = MAX_LISTED.toLocaleString("en");
  return ValidationFailed.field("connection", what === "stations"
    ? `${typeName} lists more than ${limit} stations, more than can be offered to choose from: enter the remote station's id (remote_station_id) by hand`
    : `${typeName} lists more than ${limit} sensors for this station, more than can be offered to choose from: enter the sensors' ids (sensors) by hand`);
}

/** Items sorted by name (then id), as the wizard lists them. */
const sorted = (items: RemoteItem[]) => [...items].sort((a, b) => a.name.localeCompare(b.name, "en") || a.id.localeCompare(b.id, "en"));

/**
 * Lists what the vendor has for these connection values (for the station's editors): its
 * stations, or the sensors of `remote_station_id`. `context` is for tests (default: the settings').
 */
export async function discover(actor: Actor, stationId: number, given: Given<Partial<TelemetryValues>, TelemetryFound>, context?: DriverContext): Promise<Discovered> {
  const station = await writableStation(actor, stationId);
  const existing = await loadTelemetry(stationId);
  const sent = await valuesOf(given, { station, existing });
  const stored = existing ? storedValues(existing, { openPassword: false }) : null;
  const merged = { ...DEFAULTS, ...(stored ?? {}), ...sent } as TelemetryValues;
  if (!merged.type) throw ValidationFailed.field("type", "This field is required.");
  if (sent.password === undefined && existing?.password) {
    try {
      merged.password = unseal(PASSWORD_LABEL, existing.password);
    } catch (error) {
      if (error instanceof SecretBoxError) throw ValidationFailed.field("password", `${error.message} Type the password again.`);
      throw error;
    }
  }
  const values = normalizedValues(merged);
  const errors = telemetryErrors(values, new Set(), { connectionOnly: true });
  if (Object.keys(errors).length) throw new ValidationFailed(errors);
  const type = typeOf(values);
  const wantSensors = values.remote_station_id.trim() !== "" || !type.listsStations;
  return asDiscovery(async () => {
    try {
      return await withSession(type, driverConfig(values), context ?? driverContext(undefined, "discovery"), async (session): Promise<Discovered> => {
        if (wantSensors) {
          const sensors = await session.listSensors();
          if (sensors.length > MAX_LISTED) throw tooMany(type.name, "sensors");
          return { sensors: sorted(sensors) };
        }
        const stations = await session.listStations();
        if (stations.length === 0) throw new TelemetryError(TELEMETRY_RULES.noStations);
        if (stations.length > MAX_LISTED) throw tooMany(type.name, "stations");
        return { stations: sorted(stations) };
      });
    } catch (error) {
      if (error instanceof TelemetryError) throw ValidationFailed.field("connection", error.message);
      throw error;
    }
  });
}
