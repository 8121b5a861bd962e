"use server";

import { getTranslations } from "next-intl/server";
import { NotFound, ValidationFailed } from "@/lib/domain/errors";
import type { FormState } from "@/lib/site/form-state";
import { namingAddresses, putEmails, typedEmails } from "@/lib/site/email-lists";
import { queueing } from "@/lib/site/forms";
import { boundId, formInput, submitForm } from "@/lib/site/manage-form";
import { managePaths } from "@/lib/site/manage-paths";
import {
  deleteTelemetry, finishWizard, loadTelemetry, readConnectionStep, readStationStep, readTelemetry, readTypeStep, requestFetch, saveTelemetry, sealWizard,
  type SensorChoice, startWizard, telemetryType, wizardChoices, type WizardState,
} from "@/lib/telemetry";
import { forgetWizard, keepWizard, wizardFromCookie } from "./wizard-cookie";

/**
 * The forms of `{site}/manage/stations/{sid}/telemetry/` (telemetry.md §5): the wizard's steps,
 * "Fetch now", the feed alerts, and the delete. Each reads its fields with the API's readers and
 * calls the API's services (lib/telemetry), so that a form shows the API's messages; the
 * wizard's state goes from step to step in a cookie, sealed.
 */
const base = (sid: number) => `${managePaths.station(sid)}telemetry/`;

/** The wizard's state so far: the cookie's, or (first step) the saved telemetry's. */
async function stateOf(sid: number, first: boolean): Promise<WizardState> {
  const state = await wizardFromCookie(sid);
  if (state) return state;
  if (first) return startWizard(sid, await loadTelemetry(sid));
  throw ValidationFailed.nonField((await getTranslations("manageOpsTelemetry"))("wizardExpired"));
}

/** Step 1: the type, the zone of its timestamps and the schedule. */
export async function wizardType(sidValue: unknown, prev: FormState, form: FormData): Promise<FormState> {
  const sid = boundId(sidValue);
  return submitForm(prev, form, async () => {
    const next = await readTypeStep(formInput(form), await stateOf(sid, true));
    await keepWizard(sid, sealWizard(next));
    return `${base(sid)}?step=connection`;
  });
}

/** Step 2: the connection data, tested by connecting before the wizard goes on (past step 3 when it named the remote station). */
export async function wizardConnection(sidValue: unknown, prev: FormState, form: FormData): Promise<FormState> {
  const sid = boundId(sidValue);
  return withoutPassword(await submitForm(prev, form, async (user) => {
    const { state: next, stationTyped } = await readConnectionStep(user, sid, formInput(form), await stateOf(sid, false));
    await keepWizard(sid, sealWizard(next));
    return `${base(sid)}?step=${telemetryType(next.type)?.listsStations && !stationTyped ? "station" : "sensors"}`;
  }));
}

/** A refused connection step keeps what was typed, but never the password. */
function withoutPassword(state: FormState): FormState {
  const { password: _password, ...values } = state.values;
  return { ...state, values };
}

/** Step 3: the remote station, among those the vendor lists. */
export async function wizardStation(sidValue: unknown, prev: FormState, form: FormData): Promise<FormState> {
  const sid = boundId(sidValue);
  return submitForm(prev, form, async (user) => {
    const state = await stateOf(sid, false);
    const next = readStationStep(formInput(form), state, await wizardChoices(user, sid, state, "stations"));
    await keepWizard(sid, sealWizard(next));
    return `${base(sid)}?step=sensors`;
  });
}

const text = (form: FormData, name: string) => {
  const v = form.get(name);
  return typeof v === "string" ? v.trim() : "";
};

/** Step 4: for each remote sensor, a group of the station, a new group, or nothing; then the telemetry is saved. */
export async function wizardSensors(sidValue: unknown, prev: FormState, form: FormData): Promise<FormState> {
  const sid = boundId(sidValue);
  return submitForm(prev, form, async (user) => {
    const state = await stateOf(sid, false);
    const sensors = await wizardChoices(user, sid, state, "sensors");
    const choices = sensors.map((sensor) => {
      const value = text(form, `sensor.${sensor.id}`);
      const choice: SensorChoice = value === "" ? null
        : value === "new" ? { newGroup: { name: text(form, `new_name.${sensor.id}`) || sensor.name || sensor.id, variable: Number(text(form, `new_variable.${sensor.id}`)) || 0, unit: Number(text(form, `new_unit.${sensor.id}`)) || 0 } }
          : { group: Number(value) || 0 };
      return { sensor, choice };
    });
    await finishWizard(user, sid, state, choices);
    await forgetWizard(sid);
    return `${base(sid)}?done=telemetry-saved`;
  });
}

/** Leaves the wizard: what it held is forgotten. */
export async function wizardCancel(sidValue: unknown, prev: FormState, form: FormData): Promise<FormState> {
  const sid = boundId(sidValue);
  return submitForm(prev, form, async () => {
    await forgetWizard(sid);
    return base(sid);
  });
}

/** "Fetch now": queues a fetch (the page then shows its progress and result). */
export async function fetchNow(sidValue: unknown, prev: FormState, form: FormData): Promise<FormState> {
  const sid = boundId(sidValue);
  return submitForm(prev, form, async (user) => {
    try {
      await queueing("a telemetry fetch", () => requestFetch(user, sid, { wait: false }));
    } catch (error) {
      if (error instanceof NotFound) return base(sid);
      throw error;
    }
    return `${base(sid)}?done=fetch-queued#fetch`;
  });
}

/** The feed alerts: stale and stuck thresholds and their addresses (a PATCH of those fields). */
export async function saveAlerts(sidValue: unknown, prev: FormState, form: FormData): Promise<FormState> {
  const sid = boundId(sidValue);
  return submitForm(prev, form, async (user) => {
    const data = new FormData();
    data.set("stale_after_minutes", text(form, "stale_after_minutes"));
    data.set("stuck_after_values", text(form, "stuck_after_values"));
    const emails = typedEmails(form, "alert_emails");
    putEmails(data, "alert_emails", emails);
    const input = formInput(data);
    try {
      await saveTelemetry(user, sid, () => readTelemetry(input, "update"), { partial: true });
    } catch (error) {
      throw namingAddresses(error, "alert_emails", emails);
    }
    return `${base(sid)}?done=alerts-saved#alerts`;
  });
}

export async function removeTelemetry(sidValue: unknown, prev: FormState, form: FormData): Promise<FormState> {
  const sid = boundId(sidValue);
  return submitForm(prev, form, async (user) => {
    await deleteTelemetry(user, sid);
    await forgetWizard(sid);
    return `${managePaths.station(sid)}?done=telemetry-deleted#telemetry`;
  });
}
