"use server";

import { refresh } from "next/cache";
import { headers } from "next/headers";
import { getLocale, getTranslations } from "next-intl/server";
import { loginErrorMessage } from "@/components/accounts/loginMessages";
import { changePassword, readPasswordChange, readProfile, updateProfile as saveProfile } from "@/lib/accounts";
import { forwardedAddress } from "@/lib/auth/client-address";
import { RequestInput } from "@/lib/http/body";
import { Throttled } from "@/lib/domain/errors";
import { currentUser } from "@/lib/site/current-user";
import { fieldErrorsIn } from "@/lib/site/field-errors";
import { FORM_EXPIRED, formErrors, SESSION_ENDED } from "@/lib/site/forms";
import { TOKEN_FIELD, validFormToken } from "@/lib/site/form-token";

/**
 * The profile forms of `{site}/accounts/profile/` (api.md §12.3, §12.4, §16): the profile is
 * read with the fields and rules of `auth/user/` and saved by the same service.
 */
export interface FormState {
  errors: Record<string, string[]>;
  message: string | null;
  values?: Record<string, string>;
}

/** The state of a form sent after the session ended, in the page's language. */
async function notLoggedIn(): Promise<FormState> {
  return { errors: fieldErrorsIn(await getLocale(), { form: [SESSION_ENDED] }), message: null };
}

/** The state of a form without the session's token (posted from elsewhere, or before a new login). */
async function expired(): Promise<FormState> {
  return { errors: fieldErrorsIn(await getLocale(), { form: [FORM_EXPIRED] }), message: null };
}

const text = (form: FormData, name: string) => {
  const v = form.get(name);
  return typeof v === "string" ? v : null;
};

/** The form's state after a refusal, or the error again when it is not the user's to correct. */
async function refused(error: unknown, values?: Record<string, string>): Promise<FormState> {
  const errors = formErrors(error);
  if (!errors) throw error;
  // The checks' messages in the page's language (lib/site/field-errors.ts).
  return { errors: fieldErrorsIn(await getLocale(), errors), message: null, values };
}

export async function updateProfile(_prev: FormState, form: FormData): Promise<FormState> {
  const user = await currentUser();
  if (!user) return notLoggedIn();
  if (!validFormToken(user.sessionId, form.get(TOKEN_FIELD))) return expired();
  const values = Object.fromEntries(["username", "first_name", "last_name"].map((name) => [name, (text(form, name) ?? "").trim()]));
  try {
    await saveProfile(user, () => readProfile(RequestInput.formData(form), user.id, "replace"));
  } catch (error) {
    return refused(error, values);
  }
  refresh();
  return { errors: {}, message: (await getTranslations("profile"))("saved"), values };
}

export async function updatePassword(_prev: FormState, form: FormData): Promise<FormState> {
  const user = await currentUser();
  if (!user) return notLoggedIn();
  if (!validFormToken(user.sessionId, form.get(TOKEN_FIELD))) return expired();
  try {
    // The fields and messages of auth/password/change/ (api.md §12.4).
    const v = await readPasswordChange(RequestInput.formData(form));
    await changePassword(user, v.old, v.new1, v.new2, { sessionId: user.sessionId }, forwardedAddress(await headers()));
  } catch (error) {
    // Too many wrong old passwords: the login page's words (the same counters, api.md §12.1).
    if (error instanceof Throttled) {
      const t = await getTranslations("login");
      return { errors: { old_password: [loginErrorMessage(`Throttled:${error.retryAfter}`, (key, values) => t(key, values))!] }, message: null };
    }
    return refused(error);
  }
  return { errors: {}, message: (await getTranslations("profile"))("passwordSaved") };
}
