import { redirect } from "next/navigation";
import { RequestInput } from "@/lib/http/body";
import { StaleObject, type FieldErrors } from "@/lib/domain/errors";
import { fieldErrorsIn } from "@/lib/site/field-errors";
import { requestLocale } from "@/lib/site/locale";
import { validFormToken, TOKEN_FIELD } from "@/lib/site/form-token";
import type { FormState, FormValues } from "@/lib/site/form-state";
import { currentUser, type SiteUser } from "@/lib/site/current-user";
import { FORM_EXPIRED, formErrors, SESSION_ENDED } from "@/lib/site/forms";
import { TIME_STEP_FIELDS, typedTimeStep } from "@/lib/site/form-words";

/*
 * The server side of the management forms (management.md §1): every change is a POST (a server
 * action), checked against the session's form token, parsed by the API's own field readers
 * (`RequestInput.formData`) and done by the same service as the API; a refusal comes back with
 * the API's messages and the input kept, a success redirects to the object's page.
 */

/** The text values of a form, as typed: for showing them again. */
export function formValues(form: FormData): FormValues {
  const values: FormValues = {};
  for (const [key, value] of form.entries()) {
    if (typeof value !== "string" || key.startsWith("$ACTION") || key === TOKEN_FIELD) continue;
    const had = values[key];
    values[key] = had === undefined ? value : Array.isArray(had) ? [...had, value] : [had, value];
  }
  return values;
}

/**
 * The form as the API's field readers take it. Two conventions of the site's forms: a file input
 * left empty sends nothing (as with the API, "no new content"), and a list field starts with an
 * empty value so that choosing nothing still sends the (empty) list (api.md §1.2).
 */
export function formInput(form: FormData, extra: Record<string, string> = {}): RequestInput {
  const data = new FormData();
  const seen = new Map<string, number>();
  for (const key of form.keys()) seen.set(key, (seen.get(key) ?? 0) + 1);
  const skipped = new Set<string>();
  for (const [key, value] of form.entries()) {
    if (typeof value !== "string" && value.size === 0 && value.name === "") continue;
    if (value === "" && seen.get(key)! > 1 && !skipped.has(key)) {
      skipped.add(key);
      continue;
    }
    data.append(key, value);
  }
  for (const [key, value] of Object.entries(extra)) data.set(key, value);
  // A time step typed as people write one ("10 minutes") is read as the API's ("10min").
  for (const key of TIME_STEP_FIELDS) {
    const value = data.get(key);
    if (typeof value === "string") data.set(key, typedTimeStep(value));
  }
  return RequestInput.formData(data);
}

/** An id a page binds to a form's action: browser input like any other, so anything but a database id names nothing (the service then says "not found"). */
export function boundId(value: unknown): number {
  return typeof value === "number" && Number.isSafeInteger(value) && value > 0 ? value : 0;
}

/** The `last_modified` a form was opened with: undefined when it carries none. */
export function openedAt(form: FormData): Date | null | undefined {
  const v = form.get("last_modified");
  if (typeof v !== "string") return undefined;
  if (v === "") return null;
  const t = Date.parse(v);
  return Number.isFinite(t) ? new Date(t) : undefined;
}

export interface FormWork {
  /** Does the change; returns where to go afterwards (the object's page with a confirmation), or null to stay. */
  (user: SiteUser, form: FormData): Promise<string | { message: string } | null>;
}

/**
 * Runs a form's change for the logged-in user. `current` gives the object's stored values when
 * the change was refused as stale.
 */
export async function submitForm(prev: FormState, form: FormData, work: FormWork, current?: () => Promise<FormValues | null>): Promise<FormState> {
  const values = formValues(form);
  const seq = prev.seq + 1;
  const user = await currentUser();
  // The checks' messages in the page's language (lib/site/field-errors.ts); the API keeps English.
  const locale = await requestLocale();
  const shown = (errors: FieldErrors) => fieldErrorsIn(locale, errors);
  if (!user) return { values, errors: shown({ form: [SESSION_ENDED] }), seq };
  if (!validFormToken(user.sessionId, form.get(TOKEN_FIELD))) return { values, errors: shown({ form: [FORM_EXPIRED] }), seq };
  let outcome: Awaited<ReturnType<FormWork>>;
  try {
    outcome = await work(user, form);
  } catch (error) {
    if (error instanceof StaleObject && current) {
      const stored = await current();
      // The form now carries the stored version: saving again overwrites it knowingly.
      return { values: { ...values, last_modified: stored?.last_modified ?? "" }, errors: shown({ form: [error.detail] }), current: stored ?? undefined, seq };
    }
    const errors = formErrors(error);
    if (!errors) throw error;
    return { values, errors: shown(errors), seq };
  }
  if (typeof outcome === "string") redirect(outcome);
  return { values: outcome ? {} : values, errors: {}, message: outcome?.message, seq };
}
