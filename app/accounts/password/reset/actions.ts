"use server";

import { headers } from "next/headers";
import { readResetEmail, requestPasswordReset } from "@/lib/accounts";
import { RequestInput } from "@/lib/http/body";
import { siteRoot } from "@/lib/http/urls";
import { fieldErrorIn } from "@/lib/site/field-errors";
import { requestLocale } from "@/lib/site/locale";
import { ValidationFailed } from "@/lib/domain/errors";

/** The request form of `{site}/accounts/password/reset/` (api.md §12.5, §16). */
export interface ResetState {
  error: string | null;
  sent: boolean;
  email: string;
}

export async function requestReset(_prev: ResetState, form: FormData): Promise<ResetState> {
  const value = form.get("email");
  let email = typeof value === "string" ? value.trim() : "";
  const locale = await requestLocale();
  try {
    // The field and messages of auth/password/reset/ (api.md §12.5).
    email = await readResetEmail(RequestInput.formData(form));
  } catch (error) {
    // The check's messages in the page's language (lib/site/field-errors.ts).
    if (error instanceof ValidationFailed) return { error: error.fields.email?.map((m) => fieldErrorIn(locale, m, "email")).join(" ") ?? null, sent: false, email };
    throw error;
  }
  const h = await headers();
  // {site} for the link: ENHYDRIS_SITE_URL, else this request's origin (api.md §13).
  const request = new Request(`http://${h.get("host") ?? "localhost"}/`, { headers: new Headers(h) });
  requestPasswordReset(email, siteRoot(request), locale);
  return { error: null, sent: true, email };
}
