"use server";

import { createLookup, deleteLookup, LOOKUP_NAMES, type LookupName, lookupReaders, readLookupInput, updateLookup } from "@/lib/lookups";
import { lookupValues } from "@/lib/manage";
import type { FormState } from "@/lib/site/form-state";
import { boundId, formInput, openedAt, submitForm } from "@/lib/site/manage-form";
import { managePaths as paths } from "@/lib/site/manage-paths";

/**
 * The forms of the lookups (station types, variables, units and the like; management.md §2), for superusers.
 * Each is a POST that the session's form token protects (lib/site/manage-form.ts), reads the
 * form with the API's field readers and changes data through the API's services, which check the
 * permissions. Ids bound by the pages arrive from the browser like any other input: they are
 * checked like path ids.
 */

const id = boundId;

function lookupName(value: unknown): LookupName {
  return (LOOKUP_NAMES as readonly unknown[]).includes(value) ? (value as LookupName) : "stationtypes";
}

export async function addLookup(nameValue: unknown, prev: FormState, form: FormData): Promise<FormState> {
  const name = lookupName(nameValue);
  return submitForm(prev, form, async (user) => {
    await createLookup(user, name, () => readLookupInput(name, formInput(form), "create"));
    return `${paths.lookup(name)}?done=created`;
  });
}

export async function saveLookup(nameValue: unknown, idValue: unknown, prev: FormState, form: FormData): Promise<FormState> {
  const [name, objectId] = [lookupName(nameValue), id(idValue)];
  return submitForm(prev, form, async (user) => {
    await updateLookup(user, name, objectId, () => readLookupInput(name, formInput(form), "replace"), { unchangedSince: openedAt(form) });
    return `${paths.lookup(name)}?done=saved`;
  }, async () => {
    const json = await lookupReaders()[name].get(objectId);
    return json && lookupValues(json as Record<string, unknown>);
  });
}

export async function removeLookup(nameValue: unknown, idValue: unknown, prev: FormState, form: FormData): Promise<FormState> {
  const [name, objectId] = [lookupName(nameValue), id(idValue)];
  return submitForm(prev, form, async (user) => {
    await deleteLookup(user, name, objectId);
    return `${paths.lookup(name)}?done=deleted`;
  });
}
