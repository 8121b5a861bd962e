/**
 * The browser side of the site login (api.md §2.1), without next-auth/react (whose client
 * would look for /api/auth): next-auth's CSRF token, then its credentials callback or sign-out,
 * asking for JSON instead of redirects.
 */
const BASE = "/accounts/auth";

async function csrfToken(): Promise<string> {
  const response = await fetch(`${BASE}/csrf`, { credentials: "same-origin", cache: "no-store" });
  if (!response.ok) throw new Error(`HTTP ${response.status}`);
  return ((await response.json()) as { csrfToken: string }).csrfToken;
}

async function post(path: string, fields: Record<string, string>): Promise<string> {
  const body = new URLSearchParams({ ...fields, csrfToken: await csrfToken(), json: "true" });
  const response = await fetch(`${BASE}/${path}`, {
    method: "POST",
    credentials: "same-origin",
    headers: { "Content-Type": "application/x-www-form-urlencoded", "X-Auth-Return-Redirect": "1" },
    body,
  });
  if (!response.ok && response.status !== 401) throw new Error(`HTTP ${response.status}`);
  const { url } = (await response.json()) as { url?: string };
  return url ?? "";
}

/** null on success, else next-auth's error code ("CredentialsSignin", "Throttled:<n>", …). */
export async function signInWithCredentials(username: string, password: string, callbackUrl: string): Promise<string | null> {
  const url = await post("callback/credentials", { username, password, callbackUrl });
  const error = url ? new URL(url, window.location.origin).searchParams.get("error") : "CredentialsSignin";
  return error;
}

export async function signOut(): Promise<void> {
  await post("signout", { callbackUrl: `${window.location.origin}/` });
}
