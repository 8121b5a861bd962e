/** The login page's messages for next-auth's error codes (api.md §12.1, §16), as keys of the "login" catalogue. */
export type LoginErrorKey = "failed" | "notActivated" | "notActivatedClosed" | "throttledSeconds" | "throttledMinutes" | "other";

export interface LoginError {
  key: LoginErrorKey;
  values?: { count: number };
}

/**
 * `registrationOpen`: whether the registration pages are open (ENHYDRIS_REGISTRATION_OPEN); when
 * closed, the resend page answers 404, so a refusal of an unactivated account sends its owner to
 * the administrator instead (public.md §1).
 */
export function loginError(code: string | null | undefined, registrationOpen = true): LoginError | null {
  if (!code) return null;
  const throttled = /^Throttled:(\d+)$/.exec(code);
  if (throttled) {
    const seconds = Math.max(1, Number(throttled[1]));
    return seconds < 90 ? { key: "throttledSeconds", values: { count: seconds } } : { key: "throttledMinutes", values: { count: Math.ceil(seconds / 60) } };
  }
  if (code === "CredentialsSignin") return { key: "failed" };
  // A refusal because the account is not activated yet (public.md §1); the form offers a new link.
  if (code === "NotActivated") return { key: registrationOpen ? "notActivated" : "notActivatedClosed" };
  return { key: "other" };
}

/** A translator of the "login" catalogue (next-intl's, from getTranslations or useTranslations). */
export type LoginTranslator = (key: LoginErrorKey, values?: { count: number }) => string;

/** The message of a code in the page's language; null for none. */
export function loginErrorMessage(code: string | null | undefined, t: LoginTranslator, registrationOpen = true): string | null {
  const error = loginError(code, registrationOpen);
  return error ? t(error.key, error.values) : null;
}
