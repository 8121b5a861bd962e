"use server";

import { headers } from "next/headers";
import { getLocale } from "next-intl/server";
import { readRegistration, register, resendActivation } from "@/lib/accounts";
import { newChallenge, type CaptchaChallenge } from "@/lib/auth/captcha";
import { forwardedAddress } from "@/lib/auth/client-address";
import { settings } from "@/lib/config";
import { ValidationFailed, type FieldErrors } from "@/lib/domain/errors";
import { RequestInput } from "@/lib/http/body";
import { siteRoot } from "@/lib/http/urls";
import { fieldErrorIn, fieldErrorsIn } from "@/lib/site/field-errors";

const REGISTRATION_CLOSED = "Registration is closed.";

/** The registration form of `{site}/accounts/register/` (public.md §1). */
export interface RegisterState {
  errors: FieldErrors;
  /** What was typed (never the passwords), kept on a refusal. */
  values: { username: string; email: string };
  /** Sent: the page says "check your e-mail", whether the address was new or not. */
  sent: boolean;
  /** A fresh captcha challenge after each refusal (a solution is used once). */
  challenge: CaptchaChallenge | null;
}

async function requestSite(): Promise<{ site: string; address: string }> {
  const h = await headers();
  // {site} for the link: ENHYDRIS_SITE_URL, else this request's origin (as the reset e-mail's).
  const request = new Request(`http://${h.get("host") ?? "localhost"}/`, { headers: new Headers(h) });
  return { site: siteRoot(request), address: forwardedAddress(h) };
}

export async function registerAccount(_prev: RegisterState, form: FormData): Promise<RegisterState> {
  const locale = await getLocale();
  if (!settings().registrationOpen) return { errors: fieldErrorsIn(locale, { non_field_errors: [REGISTRATION_CLOSED] }), values: { username: "", email: "" }, sent: false, challenge: null };
  const field = (name: string) => {
    const v = form.get(name);
    return typeof v === "string" ? v : "";
  };
  const values = { username: field("username").trim(), email: field("email").trim() };
  try {
    const given = await readRegistration(RequestInput.formData(form));
    const { site, address } = await requestSite();
    // The e-mails in the language of the page the form was sent from (public.md §3).
    await register(given, field("altcha"), address, site, new Date(), locale);
  } catch (error) {
    // The checks' messages in the page's language (lib/site/field-errors.ts).
    if (error instanceof ValidationFailed) return { errors: fieldErrorsIn(locale, error.fields), values, sent: false, challenge: await newChallenge() };
    throw error;
  }
  return { errors: {}, values, sent: true, challenge: null };
}

export interface ResendState {
  error: string | null;
  sent: boolean;
  email: string;
}

/** `{site}/accounts/register/resend/`: the same answer whether an account awaits activation or not. */
export async function resendLink(_prev: ResendState, form: FormData): Promise<ResendState> {
  const value = form.get("email");
  const email = typeof value === "string" ? value.trim() : "";
  const locale = await getLocale();
  if (!settings().registrationOpen) return { error: fieldErrorIn(locale, REGISTRATION_CLOSED), sent: false, email };
  if (!email) return { error: fieldErrorIn(locale, "This field may not be blank."), sent: false, email };
  const { site, address } = await requestSite();
  try {
    // Limited per client address (public.md §1's rate); the mail itself goes in the background.
    await resendActivation(email, address, site, new Date(), locale);
  } catch (error) {
    if (error instanceof ValidationFailed) return { error: fieldErrorIn(locale, error.message), sent: false, email };
    throw error;
  }
  return { error: null, sent: true, email };
}
