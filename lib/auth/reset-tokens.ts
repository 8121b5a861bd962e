import { createHmac, timingSafeEqual } from "node:crypto";
import { settings } from "@/lib/config";
import { secretKey } from "@/lib/auth/secret";

/**
 * Password-reset links (api.md §13): `<uidb64>` is the user id in unpadded base64url; the token
 * is `<issued, base 36>-<HMAC>` over the user id and the current password hash, so it expires,
 * and dies (is used up) as soon as the password changes by any route.
 */
export function encodeUid(userId: number): string {
  return Buffer.from(String(userId), "utf8").toString("base64url");
}

export function decodeUid(uidb64: string): number | null {
  if (!/^[A-Za-z0-9_-]{1,20}$/.test(uidb64)) return null;
  const text = Buffer.from(uidb64, "base64url").toString("utf8");
  return /^[1-9]\d{0,14}$/.test(text) ? Number(text) : null;
}

function signature(userId: number, passwordHash: string, issued: number): string {
  return createHmac("sha256", `password-reset:${secretKey()}`)
    .update(`${userId}:${passwordHash}:${issued}`)
    .digest("base64url")
    .slice(0, 32);
}

export function makeResetToken(userId: number, passwordHash: string, now = Date.now()): string {
  const issued = Math.floor(now / 1000);
  return `${issued.toString(36)}-${signature(userId, passwordHash, issued)}`;
}

export function checkResetToken(userId: number, passwordHash: string, token: string, now = Date.now()): boolean {
  const match = /^([0-9a-z]{1,10})-([A-Za-z0-9_-]{32})$/.exec(token);
  if (!match) return false;
  const issued = parseInt(match[1], 36);
  const age = Math.floor(now / 1000) - issued;
  if (age < 0 || age > settings().passwordResetTimeout) return false;
  const expected = Buffer.from(signature(userId, passwordHash, issued));
  const given = Buffer.from(match[2]);
  return expected.length === given.length && timingSafeEqual(expected, given);
}
