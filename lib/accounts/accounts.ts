import { db } from "@/lib/db";
import { hashPassword, passwordProblems, verifyPassword } from "@/lib/auth/passwords";
import { checkResetToken, decodeUid, encodeUid, makeResetToken } from "@/lib/auth/reset-tokens";
import { endSiteSessions } from "@/lib/auth/session";
import { clearNameAndAccountFailures, isPossibleLoginName, recordFailure, throttleKeys, throttleWait } from "@/lib/auth/throttle";
import { checkCredentials, findLoginUser, type AuthUser } from "@/lib/auth/users";
import { settings } from "@/lib/config";
import { DEFAULT_LOCALE, isLocale, translator, type Locale } from "@/lib/i18n";
import { sendMail } from "@/lib/mail";
import { Throttled, ValidationFailed } from "@/lib/domain/errors";

/**
 * Account operations shared by the API (api.md §12) and the site (§16): logging in with the
 * throttle, changing and resetting passwords, and what each ends (api.md §2.1).
 */
export const LOGIN_FAILED = "Unable to log in with provided credentials.";
export const PASSWORDS_DIFFER = "The two password fields didn’t match.";
export const INVALID_EMAIL = "Enter a valid email address.";

/** A failed attempt is throttled for some seconds, or 0 when the credentials were wrong. */
export type LoginResult = { ok: true; user: AuthUser } | { ok: false; throttledFor: number; notActivated?: boolean };

/**
 * The throttle counters of a login attempt: its name (username, else e-mail), the account that
 * name logs in to (its username and its e-mail address count together), and its address.
 */
export async function loginKeys(username: string, email: string, address: string): Promise<string[]> {
  const name = username || email || null;
  const account = name && isPossibleLoginName(name) ? await findLoginUser(username || null, username ? null : email) : null;
  return throttleKeys(name, address, account?.id ?? null);
}

/**
 * Checks a login attempt (username, or e-mail) against its throttle counters first, then the
 * credentials; failures count, a success clears the name's and the account's counters.
 */
export async function attemptLogin(username: string, email: string, password: string, address: string): Promise<LoginResult> {
  const keys = await loginKeys(username, email, address);
  const wait = await throttleWait(keys);
  if (wait > 0) return { ok: false, throttledFor: wait };
  return verifyLogin(username, email, password, keys);
}

/** The credential check of a login whose throttle was checked; failures count. */
/** Whether the user signed up and has not activated the account yet (public.md §1). */
async function awaitsActivation(userId: number): Promise<boolean> {
  return (await db().prisma.pendingActivation.count({ where: { userId } })) > 0;
}

export async function verifyLogin(username: string, email: string, password: string, keys: string[]): Promise<LoginResult> {
  const name = username || email || null;
  // A name longer than any account's fails at once (it says nothing about which accounts exist).
  const result = name && isPossibleLoginName(name) ? await checkCredentials(username || null, username ? null : email, password) : null;
  if (result && !result.ok && result.reason === "inactive" && (await awaitsActivation(result.userId))) {
    // The right password of an account signed up and not activated yet: the login says so (public.md §1).
    return { ok: false, throttledFor: 0, notActivated: true };
  }
  if (!result?.ok) {
    await recordFailure(keys);
    return { ok: false, throttledFor: 0 };
  }
  await clearNameAndAccountFailures(name, result.user.id);
  await db().write((tx) => tx.user.update({ where: { id: result.user.id }, data: { lastLogin: new Date() } }));
  return { ok: true, user: result.user };
}

/** Checks the two new passwords (api.md §12.4); errors under new_password2. */
function checkNewPassword(new1: string, new2: string, username: string): void {
  if (new1 !== new2) throw ValidationFailed.field("new_password2", PASSWORDS_DIFFER);
  const problems = passwordProblems(new2, username);
  if (problems.length) throw ValidationFailed.field("new_password2", ...problems);
}

/** Which credential survives a password change: the one that made it (api.md §2.1). */
export interface Keep {
  tokenId?: number | null;
  sessionId?: string | null;
}

/** Sets a password and ends the user's tokens and site sessions, except `keep`. */
export async function setPassword(userId: number, password: string, keep: Keep = {}): Promise<void> {
  const hash = await hashPassword(password);
  await db().write(async (tx) => {
    await tx.user.update({ where: { id: userId }, data: { password: hash } });
    await tx.authToken.deleteMany({ where: { userId, ...(keep.tokenId ? { id: { not: keep.tokenId } } : {}) } });
  });
  await endSiteSessions(userId, keep.sessionId);
}

/**
 * Changes the user's password (api.md §12.4); ValidationFailed names what is wrong. The old
 * password is a password check like a login's: a wrong one counts against the account and the
 * client's address, and either counter at its limit refuses with Throttled (429).
 */
export async function changePassword(user: AuthUser, old: string, new1: string, new2: string, keep: Keep, address: string): Promise<void> {
  const keys = throttleKeys(null, address, user.id);
  const wait = await throttleWait(keys);
  if (wait > 0) throw new Throttled(wait);
  const stored = await db().prisma.user.findUnique({ where: { id: user.id }, select: { password: true } });
  if (!stored || !(await verifyPassword(old, stored.password))) {
    await recordFailure(keys);
    throw ValidationFailed.field("old_password", "Your old password was entered incorrectly. Please enter it again.");
  }
  await clearNameAndAccountFailures(null, user.id);
  checkNewPassword(new1, new2, user.username);
  await setPassword(user.id, new1, keep);
}

const EMAIL = /^[^\s@",;<>()[\]\\]+@(?:localhost|(?:[A-Za-z0-9\u00a0-\uffff](?:[A-Za-z0-9\u00a0-\uffff-]{0,61}[A-Za-z0-9\u00a0-\uffff])?\.)+[A-Za-z\u00a0-\uffff][A-Za-z0-9\u00a0-\uffff-]{0,62})$/;

export function isValidEmail(email: string): boolean {
  return email.length <= 254 && EMAIL.test(email) && !email.split("@")[0].startsWith(".") && !email.includes("..");
}

/**
 * Sends a reset link to every active user with the address (api.md §12.5, §13). Sending happens
 * in the background, so that the answer takes the same time whether the address exists or not.
 * `locale` is the request's language: the e-mail's when the account chose none (public.md §3).
 */
export function requestPasswordReset(email: string, site: string, locale: Locale = DEFAULT_LOCALE): void {
  void (async () => {
    const users = await db().prisma.$queryRaw<{ id: unknown }[]>`SELECT id FROM users WHERE lower(email) = lower(${email}) AND is_active = ${true}`;
    for (const { id } of users) await mailResetLink(Number(id), site, locale);
  })().catch((e) => console.error("password reset e-mail failed:", (e as Error).message));
}

/**
 * Mails the reset e-mail of api.md §13 to one user (at the user's own address), in the account's
 * language, else `locale`; false when the user has none.
 */
export async function mailResetLink(userId: number, site: string, locale: Locale = DEFAULT_LOCALE): Promise<boolean> {
  const user = await db().prisma.user.findUnique({ where: { id: userId }, select: { id: true, username: true, email: true, password: true, language: true } });
  if (!user?.email) return false;
  const { siteName, emailFrom, passwordResetTimeout } = settings();
  const host = new URL(site).host;
  const name = siteName || host;
  const link = `${site}/api/auth/password/reset/confirm/${encodeUid(user.id)}/${makeResetToken(user.id, user.password)}/`;
  const t = translator(isLocale(user.language) ? user.language : locale, "mailPasswordReset");
  await sendMail({
    to: user.email,
    from: emailFrom || `noreply@${host.replace(/:\d+$/, "")}`,
    subject: t("subject", { site: name }),
    text: t("text", { username: user.username, site: name, hours: String(Math.floor(passwordResetTimeout / 3600)), link }),
  });
  return true;
}

/** The user a reset link names, if the link is valid now. */
export async function resetLinkUser(uidb64: string, token: string): Promise<{ id: number; username: string } | null> {
  const id = decodeUid(uidb64);
  if (id === null) return null;
  const user = await db().prisma.user.findUnique({ where: { id }, select: { id: true, username: true, password: true, isActive: true } });
  if (!user || !user.isActive || !checkResetToken(user.id, user.password, token)) return null;
  return { id: user.id, username: user.username };
}

export async function resetUidUser(uidb64: string): Promise<{ id: number } | null> {
  const id = decodeUid(uidb64);
  if (id === null) return null;
  return db().prisma.user.findUnique({ where: { id }, select: { id: true } });
}

/** Completes a reset: the new password is set and every token and session of the user ends. */
export async function completeReset(user: { id: number; username: string }, new1: string, new2: string): Promise<void> {
  checkNewPassword(new1, new2, user.username);
  await setPassword(user.id, new1);
}
