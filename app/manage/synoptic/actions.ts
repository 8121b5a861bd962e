"use server";

import {
  createSynopticGroup, deleteSynopticGroup, findSynopticGroup, readSynopticGroup, resendWarning, type StationChoice, stationChoices, synopticGroupJson, type SynopticGroupValues, updateSynopticGroup,
} from "@/lib/synoptic";
import { RequestInput } from "@/lib/http/body";
import { currentUser } from "@/lib/site/current-user";
import type { FormState, FormValues } from "@/lib/site/form-state";
import { namingAddresses, putEmails, typedEmails } from "@/lib/site/email-lists";
import { boundId, openedAt, submitForm } from "@/lib/site/manage-form";

/**
 * The forms of `{site}/manage/synoptic/…`: read with the fields and rules of synopticgroups/
 * (lib/synoptic/fields.ts) and saved by the same services, through the management forms' one
 * path (lib/site/manage-form.ts: the session's form token, the API's messages next to the fields,
 * the input kept, and the stored version shown beside the user's when someone else saved first).
 */

const text = (form: FormData, name: string) => {
  const v = form.get(name);
  return typeof v === "string" ? v : "";
};

/** The form's fields as the API reads them: the typed addresses become a list. */
function apiInput(form: FormData): RequestInput {
  const data = new FormData();
  for (const name of ["name", "slug", "display_timezone", "fresh_time_limit", "stations"]) data.set(name, text(form, name));
  putEmails(data, "early_warning_emails", typedEmails(form, "early_warning_emails"));
  return RequestInput.formData(data);
}

/** A synoptic group as the form shows its stored version after a refusal as stale (SynopticGroupForm's ConflictNote). */
async function storedValues(id: number): Promise<FormValues | null> {
  const group = await synopticGroupJson(id);
  if (!group) return null;
  return {
    name: group.name, slug: group.slug, display_timezone: group.display_timezone, fresh_time_limit: String(group.fresh_time_limit),
    early_warning_emails: group.early_warning_emails, stations: JSON.stringify(group.stations), last_modified: group.last_modified ?? "",
  };
}

/** Creates (no `id` in the form) or saves a synoptic group; an edit carries the `last_modified` it was opened with. */
export async function saveSynopticGroup(prev: FormState, form: FormData): Promise<FormState> {
  const existing = boundId(Number(text(form, "id")) || null);
  return submitForm(prev, form, async (user) => {
    try {
      if (!existing) return `/manage/synoptic/${await createSynopticGroup(user, async () => (await readSynopticGroup(apiInput(form), "create")) as SynopticGroupValues)}/?saved=1`;
      await updateSynopticGroup(user, existing, () => readSynopticGroup(apiInput(form), "replace"), { unchangedSince: openedAt(form) });
      return `/manage/synoptic/${existing}/?saved=1`;
    } catch (error) {
      throw namingAddresses(error, "early_warning_emails", typedEmails(form, "early_warning_emails"));
    }
  }, () => storedValues(existing));
}

export async function removeSynopticGroup(idValue: unknown, prev: FormState, form: FormData): Promise<FormState> {
  const id = boundId(idValue);
  const group = await findSynopticGroup(id);
  return submitForm(prev, form, async (user) => {
    await deleteSynopticGroup(user, id);
    return `/manage/synoptic/?deleted=${encodeURIComponent(group?.name ?? "")}`;
  });
}

/** "Send again" of a warning whose e-mail failed (synoptic.md §3). */
export async function resendWarningAction(idValue: unknown, warningValue: unknown, prev: FormState, form: FormData): Promise<FormState> {
  const id = boundId(idValue);
  return submitForm(prev, form, async (user) => {
    await resendWarning(user, id, boundId(warningValue));
    return `/manage/synoptic/${id}/?resent=1#warnings`;
  });
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
