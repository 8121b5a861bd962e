"use server";

import { headers } from "next/headers";
import { INVALID_EMAIL, isValidEmail, requestPasswordReset } from "@/lib/auth/accounts";
import { siteRoot } from "@/lib/http/urls";

/** The request form of `{site}/accounts/password/reset/` (api.md §12.5, §16). */
export interface ResetState {
  error: string | null;
  sent: boolean;
  email: string;
}

export async function requestReset(_prev: ResetState, form: FormData): Promise<ResetState> {
  const value = form.get("email");
  const email = typeof value === "string" ? value.trim() : "";
  if (!email) return { error: "This field is required.", sent: false, email };
  if (!isValidEmail(email)) return { error: INVALID_EMAIL, sent: false, email };
  const h = await headers();
  // {site} for the link: ENHYDRIS_SITE_URL, else this request's origin (api.md §13).
  const request = new Request(`http://${h.get("host") ?? "localhost"}/`, { headers: new Headers(h) });
  requestPasswordReset(email, siteRoot(request));
  return { error: null, sent: true, email };
}
