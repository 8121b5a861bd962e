import { createHmac, timingSafeEqual } from "node:crypto";
import { secretKey } from "@/lib/auth/secret";

/**
 * The token of the site's management forms (management.md §1): an HMAC of the site session, so
 * that a form posted from elsewhere is refused even when a browser sends no Origin header (the
 * same-origin check of server.mjs covers the rest). It changes with every login.
 */
export const TOKEN_FIELD = "csrfmiddlewaretoken";

export function formToken(sessionId: string): string {
  return createHmac("sha256", secretKey()).update(`manage-form:${sessionId}`).digest("base64url");
}

export function validFormToken(sessionId: string, sent: FormDataEntryValue | null): boolean {
  if (typeof sent !== "string") return false;
  const expected = Buffer.from(formToken(sessionId));
  const given = Buffer.from(sent);
  return expected.length === given.length && timingSafeEqual(expected, given);
}
