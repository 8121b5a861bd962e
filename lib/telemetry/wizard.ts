/**
 * The telemetry wizard of the management site (telemetry.md §5), as the reference's: the type,
 * zone and schedule → the connection data, with each type's labels, tested by connecting → the
 * remote station, when the type lists them → for each remote sensor, the group it feeds, "a new
 * group" or "ignore". What the earlier steps gave travels between the steps sealed
 * (lib/auth/secret-box.ts: encrypted and authenticated under ENHYDRIS_SECRET_KEY), so that a
 * typed password never comes back in a page, and a forged state cannot be sent in.
 * The steps read their fields with the API's readers and the last one saves with the API's
 * service, so the wizard and `stations/{sid}/telemetry/` accept and refuse the same values.
 */
import type { Actor } from "@/lib/auth/permissions";
import { SecretBoxError, seal, unseal } from "@/lib/auth/secret-box";
import { db } from "@/lib/db";
import { ErrorCollector, Throttled, ValidationFailed } from "@/lib/domain/errors";
import type { RequestInput } from "@/lib/http/body";
import { validateFields } from "@/lib/http/fields";
import { createGroup } from "@/lib/series";
import { normalizedValues, telemetryErrors, typeOf, type SensorMapping, type TelemetryValues } from "@/lib/telemetry/config";
import { discover } from "@/lib/telemetry/discover";
import type { RemoteItem } from "@/lib/telemetry/driver";
import { telemetryFields } from "@/lib/telemetry/fields";
import { saveTelemetry, type StoredTelemetry } from "@/lib/telemetry/telemetries";

const LABEL = "telemetry-wizard";
/** A wizard left this long is started again. */
const LIFETIME_MS = 3 * 3600_000;

export type WizardStep = "type" | "connection" | "station" | "sensors";

/** What the steps so far gave (no sensors: the last step saves them). */
export interface WizardState {
  station: number;
  at: number;
  type: string;
  data_timezone: string;
  fetch_interval_minutes: number;
  fetch_offset_minutes: number;
  device_locator: string;
  username: string;
  /** Typed in the connection step; null: the saved telemetry's (when there is one); "" none. */
  password: string | null;
  remote_station_id: string;
  additional_config: Record<string, unknown>;
  verify_tls: boolean;
}

/** The state as text for a hidden field or a cookie: sealed, the password with it. */
export function sealWizard(state: WizardState): string {
  return seal(LABEL, JSON.stringify({ ...state, at: Date.now() }));
}

/** The state of a sealed text, if it is this station's and recent; null otherwise. */
export function openWizard(text: string | null | undefined, stationId: number): WizardState | null {
  if (!text) return null;
  try {
    const state = JSON.parse(unseal(LABEL, text)) as WizardState;
    return state.station === stationId && Date.now() - state.at < LIFETIME_MS ? state : null;
  } catch (error) {
    if (error instanceof SecretBoxError || error instanceof SyntaxError) return null;
    throw error;
  }
}

/** The first state: the saved telemetry's values, or the defaults. */
export function startWizard(stationId: number, saved: StoredTelemetry | null): WizardState {
  return {
    station: stationId, at: Date.now(),
    type: saved?.type ?? "", data_timezone: saved?.dataTimezone ?? "UTC",
    fetch_interval_minutes: saved?.fetchIntervalMinutes ?? 10, fetch_offset_minutes: saved?.fetchOffsetMinutes ?? 0,
    device_locator: saved?.deviceLocator ?? "", username: saved?.username ?? "", password: null,
    remote_station_id: saved?.remoteStationId ?? "", additional_config: saved?.additionalConfig ?? {}, verify_tls: saved?.verifyTls ?? true,
  };
}

/**
 * discover() for the wizard: a discovery refused because too many run at once (Throttled, the
 * API's 429) is a refusal the page shows in words, not an error page.
 */
async function wizardDiscover(...args: Parameters<typeof discover>): ReturnType<typeof discover> {
  try {
    return await discover(...args);
  } catch (error) {
    if (error instanceof Throttled) {
      throw ValidationFailed.nonField(`The server is busy connecting to other vendors; try again in ${error.retryAfter} seconds.`);
    }
    throw error;
  }
}

/** The values the API's service takes, of a state (the password only when typed in the wizard). */
function valuesOfState(state: WizardState): Partial<TelemetryValues> {
  const { station: _station, at: _at, password, ...rest } = state;
  return password === null ? rest : { ...rest, password };
}

/** The first step's fields (type, zone, schedule), read as the API reads them, with the schedule's rule. */
export async function readTypeStep(input: RequestInput, state: WizardState): Promise<WizardState> {
  const all = telemetryFields();
  const errors = new ErrorCollector();
  const spec = { type: all.type, data_timezone: all.data_timezone, fetch_interval_minutes: all.fetch_interval_minutes, fetch_offset_minutes: all.fetch_offset_minutes };
  const v = await validateFields(input, spec, "create", errors);
  if (v.fetch_interval_minutes != null && v.fetch_offset_minutes != null && v.fetch_offset_minutes >= v.fetch_interval_minutes) {
    errors.add("fetch_offset_minutes", `Ensure this value is less than fetch_interval_minutes (${v.fetch_interval_minutes}).`);
  }
  errors.throwIfAny();
  const typeChanged = v.type !== state.type;
  return {
    ...state,
    type: v.type!, data_timezone: v.data_timezone!, fetch_interval_minutes: v.fetch_interval_minutes!, fetch_offset_minutes: v.fetch_offset_minutes!,
    // Another type: its connection is another (and the saved password is not its).
    ...(typeChanged ? { device_locator: "", username: "", password: "", remote_station_id: "", additional_config: {} } : {}),
  };
}

/** What the connection step gave, and whether it named the remote station (the station step is then skipped). */
export interface ConnectionStep {
  state: WizardState;
  stationTyped: boolean;
}

/**
 * The connection step's fields (the type's: device_locator, username, password, its
 * additional_config keys as `additional_config.<key>`, verify_tls; for a type that lists
 * stations, optionally the remote station's id), checked by the type's rules and then by
 * connecting (the connection test): a refusal is a ValidationFailed under `connection`. An empty
 * password keeps the saved one. A remote station's id typed here is tested by listing its
 * sensors, and stands for the station step: it is how a vendor that lists more stations than
 * can be offered to choose from (MAX_LISTED) is set up.
 */
export async function readConnectionStep(actor: Actor, stationId: number, input: RequestInput, state: WizardState): Promise<ConnectionStep> {
  const all = telemetryFields();
  const type = typeOf(state);
  const errors = new ErrorCollector();
  const v = await validateFields(input, {
    device_locator: all.device_locator, username: all.username, password: all.password, verify_tls: all.verify_tls, remote_station_id: all.remote_station_id,
  }, "create", errors);
  const additional: Record<string, unknown> = {};
  for (const key of Object.keys(type.additionalConfig)) {
    const raw = input.get(`additional_config.${key}`);
    const text = typeof raw === "string" ? raw.trim() : "";
    if (text !== "") additional[key] = text;
  }
  errors.throwIfAny();
  const typed = v.password ?? "";
  const typedStation = type.listsStations ? (v.remote_station_id ?? "").trim() : "";
  const next: WizardState = {
    ...state, device_locator: v.device_locator ?? "", username: v.username ?? "", additional_config: additional, verify_tls: v.verify_tls ?? true,
    password: typed !== "" ? typed : state.password, remote_station_id: typedStation || (type.listsStations ? state.remote_station_id : ""),
  };
  // Lists the vendor's stations, or the sensors of the station typed (or of the single station): the connection works.
  await wizardDiscover(actor, stationId, { ...valuesOfState(next), remote_station_id: typedStation });
  return { state: next, stationTyped: typedStation !== "" };
}

/** What the vendor lists for the wizard's station step, or its sensors step. */
export async function wizardChoices(actor: Actor, stationId: number, state: WizardState, what: "stations" | "sensors"): Promise<RemoteItem[]> {
  const found = await wizardDiscover(actor, stationId, { ...valuesOfState(state), remote_station_id: what === "stations" ? "" : state.remote_station_id });
  return "stations" in found ? found.stations : found.sensors;
}

/** The station step: one of the stations the vendor lists. */
export function readStationStep(input: RequestInput, state: WizardState, stations: RemoteItem[]): WizardState {
  const chosen = input.get("remote_station_id");
  const id = typeof chosen === "string" ? chosen : "";
  if (!stations.some((s) => s.id === id)) throw ValidationFailed.field("remote_station_id", id === "" ? "This field is required." : `"${id}" is not a valid choice.`);
  return { ...state, remote_station_id: id };
}

/** A sensor's answer in the last step: a group's id, a new group, or nothing (ignored). */
export type SensorChoice = { group: number } | { newGroup: { name: string; variable: number; unit: number } } | null;

/**
 * The last step: creates the groups asked for, then saves the telemetry with the API's service
 * (its rules, its activity entry). A refusal names the sensor's field (`sensor.<id>`).
 */
export async function finishWizard(actor: Actor, stationId: number, state: WizardState, choices: { sensor: RemoteItem; choice: SensorChoice }[]): Promise<void> {
  const sensors: SensorMapping[] = [];
  const errors = new ErrorCollector();
  for (const { sensor, choice } of choices) {
    if (choice && "newGroup" in choice && (!choice.newGroup.variable || !choice.newGroup.unit)) {
      errors.add(`sensor.${sensor.id}`, "Choose the variable and the unit of the new group.");
    }
  }
  const wanted = choices.flatMap(({ choice }) => (choice && "newGroup" in choice ? [choice.newGroup] : []));
  if (wanted.length) {
    const [variables, units] = await Promise.all([
      db().prisma.variable.findMany({ where: { id: { in: wanted.map((g) => g.variable) } }, select: { id: true } }),
      db().prisma.unitOfMeasurement.findMany({ where: { id: { in: wanted.map((g) => g.unit) } }, select: { id: true } }),
    ]);
    for (const { sensor, choice } of choices) {
      if (!choice || !("newGroup" in choice) || !choice.newGroup.variable || !choice.newGroup.unit) continue;
      if (!variables.some((v) => v.id === choice.newGroup.variable) || !units.some((u) => u.id === choice.newGroup.unit)) {
        errors.add(`sensor.${sensor.id}`, "The variable or the unit chosen no longer exists.");
      }
    }
  }
  errors.throwIfAny();
  // The whole configuration is checked before any group is created.
  const values = normalizedValues({ ...(valuesOfState(state) as TelemetryValues), password: state.password ?? "(saved)", stale_after_minutes: null, stuck_after_values: null, alert_emails: [], sensors: [] });
  const problems = telemetryErrors(values, new Set(), { connectionOnly: true });
  if (Object.keys(problems).length) throw new ValidationFailed(problems);
  const groups = new Set<number>();
  for (const { sensor, choice } of choices) {
    if (!choice) continue;
    if ("group" in choice) {
      if (groups.has(choice.group)) errors.add(`sensor.${sensor.id}`, "This time series group is chosen for another sensor already.");
      groups.add(choice.group);
    }
  }
  errors.throwIfAny();
  for (const { sensor, choice } of choices) {
    if (!choice) continue;
    const group = "group" in choice ? choice.group
      : await createGroup(actor, stationId, { name: choice.newGroup.name, hidden: false, precision: 2, remarks: "", variableId: choice.newGroup.variable, unitId: choice.newGroup.unit });
    sensors.push({ sensor_id: sensor.id, timeseries_group: group });
  }
  await saveTelemetry(actor, stationId, async ({ existing }) => ({
    ...valuesOfState(state),
    ...(existing ? {} : { stale_after_minutes: null, stuck_after_values: null, alert_emails: [] }),
    sensors,
  }));
}
