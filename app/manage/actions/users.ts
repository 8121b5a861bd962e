"use server";

import { headers } from "next/headers";
import { getTranslations } from "next-intl/server";
import { createUserBy, readUserAdminInput, sendPasswordReset, updateUserBy, type UserAdminData } from "@/lib/accounts";
import { siteRoot } from "@/lib/http/urls";
import type { FormState } from "@/lib/site/form-state";
import { boundId, formInput, submitForm } from "@/lib/site/manage-form";
import { requestLocale } from "@/lib/site/locale";
import { managePaths as paths } from "@/lib/site/manage-paths";

/**
 * The forms of the users' pages (management.md §2), for superusers.
 * Each is a POST that the session's form token protects (lib/site/manage-form.ts), reads the
 * form with the API's field readers and changes data through the API's services, which check the
 * permissions. Ids bound by the pages arrive from the browser like any other input: they are
 * checked like path ids.
 */

const id = boundId;

export async function addUser(prev: FormState, form: FormData): Promise<FormState> {
  return submitForm(prev, form, async (user) => {
    const uid = await createUserBy(user, async () => (await readUserAdminInput(formInput(form), 0, "create")) as UserAdminData & { username: string });
    return `${paths.user(uid)}?done=created`;
  });
}

export async function saveUser(idValue: unknown, prev: FormState, form: FormData): Promise<FormState> {
  const uid = id(idValue);
  return submitForm(prev, form, async (user) => {
    await updateUserBy(user, uid, () => readUserAdminInput(formInput(form), uid, "replace"));
    return `${paths.user(uid)}?done=saved`;
  });
}

export async function mailPasswordReset(idValue: unknown, prev: FormState, form: FormData): Promise<FormState> {
  const uid = id(idValue);
  return submitForm(prev, form, async (user) => {
    const h = await headers();
    // {site} for the link: ENHYDRIS_SITE_URL, else this request's origin (api.md §13).
    await sendPasswordReset(user, uid, siteRoot(new Request(`http://${h.get("host") ?? "localhost"}/`, { headers: new Headers(h) })), await requestLocale());
    return { message: (await getTranslations("manageUsers"))("resetSent") };
  });
}
