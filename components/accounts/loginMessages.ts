/** The login page's messages for next-auth's error codes (api.md §12.1, §16). */
export const LOGIN_FAILED = "Unable to log in with provided credentials.";
/** A refusal because the account is not activated yet (public.md §1); the form offers a new link. */
export const NOT_ACTIVATED_MESSAGE = "Your account is not activated yet. Open the link in the e-mail we sent you when you registered, or have it sent again.";

function waitText(seconds: number): string {
  if (seconds < 90) return `${seconds} ${seconds === 1 ? "second" : "seconds"}`;
  const minutes = Math.ceil(seconds / 60);
  return `${minutes} minutes`;
}

export function loginErrorMessage(code: string | null | undefined): string | null {
  if (!code) return null;
  const throttled = /^Throttled:(\d+)$/.exec(code);
  if (throttled) {
    const seconds = Math.max(1, Number(throttled[1]));
    return `Too many failed login attempts. Try again in ${waitText(seconds)}.`;
  }
  if (code === "CredentialsSignin") return LOGIN_FAILED;
  if (code === "NotActivated") return NOT_ACTIVATED_MESSAGE;
  return "Logging in failed. Please try again.";
}
