"use server";

import { redirect } from "next/navigation";
import {
  createSource, deleteSource, detachStation, queueRun, readSourceForm, SOURCE_DISABLED, type SourceValues, sourceValues, storedSource, updateSource, withoutSecrets,
} from "@/lib/replication";
import { NotFound, PermissionDenied, ValidationFailed } from "@/lib/domain/errors";
import { currentUser } from "@/lib/site/current-user";
import type { FormState } from "@/lib/site/form-state";
import { TOKEN_FIELD, validFormToken } from "@/lib/site/form-token";
import { queueing } from "@/lib/site/forms";
import { boundId, openedAt, submitForm } from "@/lib/site/manage-form";
import { managePaths as paths } from "@/lib/site/manage-paths";

/**
 * Adding, editing and deleting a replication source on `{site}/manage/replication/` (superusers):
 * the API's reader (lib/replication/form.ts) and services, as the management forms do
 * (lib/site/manage-form.ts: the form token, the API's messages next to the fields, the input kept).
 */
export async function addSource(prev: FormState, form: FormData): Promise<FormState> {
  return withoutSecrets(await submitForm(prev, form, async (user) => {
    const id = await createSource(user, async () => (await readSourceForm(form, false)) as SourceValues);
    return `${paths.replication}?done=source-created#source-${id}`;
  }));
}

export async function saveSource(idValue: unknown, prev: FormState, form: FormData): Promise<FormState> {
  const id = boundId(idValue);
  return withoutSecrets(await submitForm(prev, form, async (user) => {
    await updateSource(user, id, () => readSourceForm(form, true), { unchangedSince: openedAt(form) });
    return `${paths.replication}?done=source-saved#source-${id}`;
  }, async () => {
    const stored = await storedSource(id);
    return stored && sourceValues(stored);
  }));
}

export async function removeSource(idValue: unknown, prev: FormState, form: FormData): Promise<FormState> {
  const id = boundId(idValue);
  return submitForm(prev, form, async (user) => {
    await deleteSource(user, id);
    return `${paths.replication}?done=source-deleted`;
  });
}

/** "Detach" of a replicated station (replication.md §2, superusers): it becomes a station of this instance, editable here. */
export async function detach(sidValue: unknown, prev: FormState, form: FormData): Promise<FormState> {
  const sid = boundId(sidValue);
  return submitForm(prev, form, async (user) => {
    await detachStation(user, sid);
    return `${paths.station(sid)}?done=detached`;
  });
}

/**
 * "Run now" (or "Dry run", the same form's button `run=dry`) on `{site}/manage/replication/`:
 * queues a run of the source as `run/` does (superusers), then shows the page again with what
 * happened: `done=run-queued` or `done=dry-run-queued` (the run is in the source's runs), or
 * `problem=…` when nothing was queued (the source deleted or disabled meanwhile, …). The outcome
 * travels in the address, not in the form's state, because the form of a source deleted
 * meanwhile is no longer on the page.
 */
export async function runNow(form: FormData): Promise<void> {
  redirect(`/manage/replication/?${await queued(form)}`);
}

async function queued(form: FormData): Promise<string> {
  const id = Number(form.get("source"));
  const user = await currentUser();
  if (!user) return "problem=session-ended";
  if (!validFormToken(user.sessionId, form.get(TOKEN_FIELD))) return "problem=form-expired";
  try {
    if (!Number.isSafeInteger(id)) throw new NotFound();
    const dryRun = form.get("run") === "dry";
    await queueing("a replication run", () => queueRun(user, id, { dryRun }));
    return `done=${dryRun ? "dry-run-queued" : "run-queued"}#source-${id}`;
  } catch (error) {
    if (error instanceof NotFound) return "problem=source-gone";
    if (error instanceof PermissionDenied) return "problem=not-allowed";
    if (error instanceof ValidationFailed) return error.fields.non_field_errors?.includes(SOURCE_DISABLED) ? `problem=source-disabled#source-${id}` : "problem=not-queued";
    throw error;
  }
}
