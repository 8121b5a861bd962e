"use server";

import { forbidden, notFound, redirect } from "next/navigation";
import { getTranslations } from "next-intl/server";
import {
  createSynopticGroup, deleteSynopticGroup, findSynopticGroup, readSynopticGroup, resendWarning, type StationChoice, stationChoices, synopticGroupJson, type SynopticGroupJson, updateSynopticGroup,
} from "@/lib/synoptic";
import { RequestInput } from "@/lib/http/body";
import { Conflict, NotFound, PermissionDenied } from "@/lib/domain/errors";
import { currentUser, type SiteUser } from "@/lib/site/current-user";
import { fieldErrorsIn } from "@/lib/site/field-errors";
import { requestLocale } from "@/lib/site/locale";
import { TOKEN_FIELD, validFormToken } from "@/lib/site/form-token";
import { FORM_EXPIRED, formErrors, SESSION_ENDED } from "@/lib/site/forms";
import type { SynopticGroupValues } from "@/lib/synoptic";

/**
 * The forms of `{site}/manage/synoptic/…`: read with the fields and rules of synopticgroups/
 * (lib/synoptic/fields.ts) and saved by the same services, so a form shows the API's
 * messages.
 */
export interface SynopticFormState {
  errors: Record<string, string[]>;
  /** The synoptic group as saved now, when someone else changed it since the form was opened. */
  conflict?: SynopticGroupJson | null;
}

const NOT_LOGGED_IN: SynopticFormState = { errors: { form: [SESSION_ENDED] } };

const text = (form: FormData, name: string) => {
  const v = form.get(name);
  return typeof v === "string" ? v : "";
};

/** The addresses typed one per line (or separated by commas) in the form. */
function typedEmails(form: FormData): string[] {
  return text(form, "early_warning_emails").split(/[\n,;]+/).map((e) => e.trim()).filter(Boolean);
}

/** The form's fields as the API reads them: the typed addresses become a list. */
function apiInput(form: FormData): RequestInput {
  const data = new FormData();
  for (const name of ["name", "slug", "display_timezone", "fresh_time_limit", "stations"]) data.set(name, text(form, name));
  const emails = typedEmails(form);
  if (emails.length) for (const e of emails) data.append("early_warning_emails", e);
  else data.set("early_warning_emails", "");
  return RequestInput.formData(data);
}

/**
 * The API names a bad address by its place in the list ("early_warning_emails[0]: Enter a valid
 * email address."); the form's user typed text, not a list, so the message names the address.
 */
function emailMessages(errors: Record<string, string[]>, form: FormData): Record<string, string[]> {
  const messages = errors.early_warning_emails;
  if (!messages) return errors;
  const emails = typedEmails(form);
  return {
    ...errors,
    early_warning_emails: messages.map((m) => {
      const match = /^early_warning_emails\[(\d+)\]: (.*)$/.exec(m);
      const address = match ? emails[Number(match[1])] : undefined;
      return address === undefined ? m : `“${address}”: ${match![2]}`;
    }),
  };
}

export async function saveSynopticGroup(_prev: SynopticFormState, form: FormData): Promise<SynopticFormState> {
  const user = await currentUser();
  if (!user) return NOT_LOGGED_IN;
  if (!validFormToken(user.sessionId, form.get(TOKEN_FIELD))) return { errors: { form: [FORM_EXPIRED] } };
  const input = apiInput(form);
  const existing = Number(text(form, "id")) || null;
  let id: number;
  try {
    if (existing) {
      await updateSynopticGroup(user, existing, () => readSynopticGroup(input, "replace"), { basedOn: text(form, "based_on") || null });
      id = existing;
    } else {
      id = await createSynopticGroup(user, async () => (await readSynopticGroup(input, "create")) as SynopticGroupValues);
    }
  } catch (error) {
    if (error instanceof Conflict) return { errors: { form: [error.detail] }, conflict: await synopticGroupJson(existing!) };
    if (error instanceof NotFound) return { errors: { form: [(await getTranslations("manageOpsSynoptic"))("gone")] } };
    const errors = formErrors(error);
    if (!errors) throw error;
    return { errors: fieldErrorsIn(await requestLocale(), emailMessages(errors, form)) };
  }
  redirect(`/manage/synoptic/${id}/?saved=1`);
}

/**
 * Runs a plain form's action for the logged-in user; a refusal shows the 404 or 403 page, the
 * login page when the session has ended, or the form's page again saying it has expired when its
 * token is not this session's.
 */
async function asPage(back: string, form: FormData, action: (user: SiteUser | null) => Promise<void>): Promise<void> {
  const user = await currentUser();
  if (user && !validFormToken(user.sessionId, form.get(TOKEN_FIELD))) redirect(`${back}?expired=1`);
  try {
    await action(user);
  } catch (error) {
    if (error instanceof NotFound) notFound();
    if (error instanceof PermissionDenied) {
      if (error.anonymous) redirect(`/accounts/login/?next=${encodeURIComponent(back)}`);
      forbidden();
    }
    throw error;
  }
}

export async function deleteSynopticGroupAction(form: FormData): Promise<void> {
  const id = Number(text(form, "id"));
  const group = await findSynopticGroup(id);
  await asPage(`/manage/synoptic/${id}/delete/`, form, (user) => deleteSynopticGroup(user, id));
  redirect(`/manage/synoptic/?deleted=${encodeURIComponent(group?.name ?? "")}`);
}

export async function resendWarningAction(form: FormData): Promise<void> {
  const id = Number(text(form, "id"));
  await asPage(`/manage/synoptic/${id}/`, form, (user) => resendWarning(user, id, Number(text(form, "warning"))));
  redirect(`/manage/synoptic/${id}/?resent=1#warnings`);
}

/** The most stations one call names: the form asks for the one just picked. */
const MAX_CHOICES = 100;

/**
 * The stations picked in the form, with their groups: for logged-in users, as the form's page
 * is. A server action answers a POST to any management path, which the proxy's login redirect
 * (ENHYDRIS_AUTHENTICATION_REQUIRED) does not see.
 */
export async function stationChoicesAction(ids: number[]): Promise<StationChoice[]> {
  if (!(await currentUser()) || !Array.isArray(ids)) return [];
  return stationChoices(ids.slice(0, MAX_CHOICES).map(Number));
}
