import { createHmac } from "node:crypto";
import { createChallenge, extractParams, verifySolution } from "altcha-lib/v1";
import { secretKey } from "@/lib/auth/secret";
import { db } from "@/lib/db";

/**
 * The site's captcha (public.md §1; docs/decisions/0021-captcha.md): an ALTCHA proof-of-work
 * challenge made and checked here with altcha-lib, no third party. A challenge is signed with a
 * key derived from the secret key and expires after CHALLENGE_MINUTES; a solution is accepted
 * once: its signature is kept in captcha_used until the challenge expires.
 */
const CHALLENGE_MINUTES = 20;
/** The search space: about a second of hashing on a phone (half of it on average). */
export const CHALLENGE_MAX_NUMBER = 100_000;

export const CAPTCHA_MISSING = "Please wait until the check that you are human is done, then send the form again.";
export const CAPTCHA_INVALID = "The check that you are human failed or has expired. Please send the form again.";

function hmacKey(): string {
  return createHmac("sha256", secretKey()).update("enhydris captcha").digest("hex");
}

export interface CaptchaChallenge {
  algorithm: string;
  challenge: string;
  maxnumber?: number;
  salt: string;
  signature: string;
}

export async function newChallenge(now = new Date()): Promise<CaptchaChallenge> {
  return createChallenge({ hmacKey: hmacKey(), maxNumber: CHALLENGE_MAX_NUMBER, expires: new Date(now.getTime() + CHALLENGE_MINUTES * 60_000) });
}

/**
 * Checks the form's solution (ALTCHA's base64 JSON payload) and uses it up; the message of what
 * is wrong, or null when it is good.
 */
export async function spendCaptcha(payload: string): Promise<string | null> {
  if (!payload) return CAPTCHA_MISSING;
  let parsed: { signature?: unknown; salt?: unknown };
  try {
    parsed = JSON.parse(Buffer.from(payload, "base64").toString("utf8"));
  } catch {
    return CAPTCHA_INVALID;
  }
  if (typeof parsed?.signature !== "string" || typeof parsed.salt !== "string") return CAPTCHA_INVALID;
  let valid = false;
  try {
    valid = await verifySolution(payload, hmacKey(), true);
  } catch {
    valid = false;
  }
  if (!valid) return CAPTCHA_INVALID;
  const expires = Number(extractParams({ salt: parsed.salt } as Parameters<typeof extractParams>[0]).expires);
  const expiresAt = new Date(Number.isFinite(expires) ? expires * 1000 : Date.now() + CHALLENGE_MINUTES * 60_000);
  try {
    await db().write((tx) => tx.captchaUsed.create({ data: { signature: parsed.signature as string, expiresAt } }));
  } catch (e) {
    if ((e as { code?: string }).code === "P2002") return CAPTCHA_INVALID;
    throw e;
  }
  return null;
}

/** Upkeep: forgets solutions whose challenge has expired (they fail the check by then). */
export async function deleteExpiredCaptchas(): Promise<number> {
  const { count } = await db().write((tx) => tx.captchaUsed.deleteMany({ where: { expiresAt: { lt: new Date() } } }));
  return count;
}
