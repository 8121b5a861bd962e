/**
 * The connection test of the wizard and of `discover/` (telemetry.md §1): connects with the
 * connection fields given (the saved telemetry's stand in for those not given, its password
 * included) and lists the vendor's stations, or, with a remote station (or for a type that has
 * a single station), its sensors. What the vendor said on failure is a ValidationFailed under
 * `connection`.
 */
import type { Actor } from "@/lib/auth/permissions";
import { SecretBoxError, unseal } from "@/lib/auth/secret-box";
import { ValidationFailed } from "@/lib/domain/errors";
import { valuesOf, type Given } from "@/lib/domain/given";
import { driverConfig, normalizedValues, telemetryErrors, TELEMETRY_RULES, typeOf, type TelemetryValues } from "@/lib/telemetry/config";
import { withSession, type DriverContext, type RemoteItem } from "@/lib/telemetry/driver";
import { TelemetryError } from "@/lib/telemetry/errors";
import { driverContext } from "@/lib/telemetry/fetch";
import { loadTelemetry, PASSWORD_LABEL, storedValues, writableStation, type TelemetryFound } from "@/lib/telemetry/telemetries";

export type Discovered = { stations: RemoteItem[] } | { sensors: RemoteItem[] };

const DEFAULTS: Omit<TelemetryValues, "type"> = {
  data_timezone: "UTC", fetch_interval_minutes: 10, fetch_offset_minutes: 0, device_locator: "", username: "", password: "",
  remote_station_id: "", additional_config: {}, verify_tls: true, stale_after_minutes: null, stuck_after_values: null, alert_emails: [], sensors: [],
};

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
  try {
    return await withSession(type, driverConfig(values), context ?? driverContext(), async (session) => {
      if (wantSensors) return { sensors: sorted(await session.listSensors()) };
      const stations = await session.listStations();
      if (stations.length === 0) throw new TelemetryError(TELEMETRY_RULES.noStations);
      return { stations: sorted(stations) };
    });
  } catch (error) {
    if (error instanceof TelemetryError) throw ValidationFailed.field("connection", error.message);
    throw error;
  }
}
