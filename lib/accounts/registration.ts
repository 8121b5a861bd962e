import { createHash, randomBytes, timingSafeEqual } from "node:crypto";
import { readFileSync } from "node:fs";
import { INVALID_EMAIL, isValidEmail, PASSWORDS_DIFFER } from "@/lib/accounts/accounts";
import { passwordField } from "@/lib/accounts/fields";
import { USERNAME_TAKEN, usernameProblem } from "@/lib/accounts/users";
import { spendCaptcha } from "@/lib/auth/captcha";
import { hashPassword, passwordProblems } from "@/lib/auth/passwords";
import { decodeUid, encodeUid } from "@/lib/auth/reset-tokens";
import { settings } from "@/lib/config";
import { db } from "@/lib/db";
import { ValidationFailed } from "@/lib/domain/errors";
import type { RequestInput } from "@/lib/http/body";
import { boolean, text, validatedFields } from "@/lib/http/fields";
import { DEFAULT_LOCALE, translator, type Locale } from "@/lib/i18n";
import { sendMail } from "@/lib/mail";

/**
 * Self-registration on the site (public.md §1): the form's rules (those of auth/user/ and the
 * password change), the captcha, the rate per client address, the activation link and what
 * happens to accounts never activated. An address already registered gets an e-mail saying so,
 * and the page says the same in both cases.
 */
export const TERMS_NOT_ACCEPTED = "You must accept the terms of use to register.";
export const TOO_MANY_REGISTRATIONS = "Too many registrations from your address. Please try again in an hour.";

export interface Registration {
  username: string;
  email: string;
  password: string;
}

/** The form's fields and rules; ValidationFailed names what is wrong, field by field. */
export async function readRegistration(input: RequestInput): Promise<Registration> {
  const v = await validatedFields(input, {
    username: text({ required: true, blank: false, max: 150 }),
    email: text({ required: true, blank: false, max: 254 }),
    password1: passwordField(),
    password2: passwordField(),
    accept_terms: boolean({ default: false }),
  }, "create", async (v, errors) => {
    if (v.username !== undefined && !errors.has("username")) {
      const problem = await usernameProblem(v.username, 0);
      if (problem) errors.add("username", problem);
    }
    if (v.email !== undefined && !errors.has("email") && !isValidEmail(v.email)) errors.add("email", INVALID_EMAIL);
    if (v.password1 !== undefined && v.password2 !== undefined) {
      if (v.password1 !== v.password2) errors.add("password2", PASSWORDS_DIFFER);
      else for (const problem of passwordProblems(v.password2, v.username ?? "")) errors.add("password2", problem);
    }
    if (!v.accept_terms) errors.add("accept_terms", TERMS_NOT_ACCEPTED);
  });
  return { username: v.username!, email: v.email!, password: v.password1! };
}

/** Whether `address` has used up its registrations of the last hour. */
export async function registrationRateReached(address: string, now = new Date()): Promise<boolean> {
  const since = new Date(now.getTime() - 3600_000);
  const count = await db().prisma.registrationAttempt.count({ where: { address, at: { gt: since } } });
  return count >= settings().registrationRate;
}

const tokenHash = (token: string) => createHash("sha256").update(token).digest("hex");
const expiry = (now: Date) => new Date(now.getTime() + settings().activationDays * 86_400_000);

function mailFrom(site: string): { from: string; name: string } {
  const host = new URL(site).host;
  return { from: settings().emailFrom || `noreply@${host.replace(/:\d+$/, "")}`, name: settings().siteName || host };
}

/** The activation e-mail, in the language of the page the user registered on (public.md §3). */
async function mailActivation(site: string, user: { id: number; username: string; email: string }, token: string, locale: Locale): Promise<void> {
  const { from, name } = mailFrom(site);
  const t = translator(locale, "mail");
  await sendMail({
    to: user.email,
    from,
    subject: t("activationSubject", { site: name }),
    text: t("activationText", {
      username: user.username, site: name, days: String(settings().activationDays), link: `${site}/accounts/activate/${encodeUid(user.id)}/${token}/`,
    }),
  });
}

async function mailAlreadyRegistered(site: string, email: string, usernames: string[], locale: Locale): Promise<void> {
  const { from, name } = mailFrom(site);
  const t = translator(locale, "mail");
  const quoted = (u: string) => (locale === "el" ? `«${u}»` : `"${u}"`);
  await sendMail({
    to: email,
    from,
    subject: t("registeredSubject", { site: name }),
    text: t("registeredText", {
      site: name,
      accounts: usernames.length === 1 ? t("theAccount", { username: usernames[0] }) : t("theAccounts", { usernames: usernames.map(quoted).join(", ") }),
      login: `${site}/accounts/login/`, reset: `${site}/accounts/password/reset/`,
    }),
  });
}

/**
 * Registers: checks the rate and the captcha, then either makes an inactive account and mails its
 * activation link, or (the address is taken) mails its owner. The caller shows the same page in
 * both cases; the e-mail is sent in the background so that both take the same time.
 */
export async function register(given: Registration, captcha: string, address: string, site: string, now = new Date(), locale: Locale = DEFAULT_LOCALE): Promise<void> {
  if (await registrationRateReached(address, now)) throw ValidationFailed.nonField(TOO_MANY_REGISTRATIONS);
  const captchaProblem = await spendCaptcha(captcha);
  if (captchaProblem) throw ValidationFailed.field("altcha", captchaProblem);
  await db().write((tx) => tx.registrationAttempt.create({ data: { address, at: now } }));
  const password = await hashPassword(given.password);
  const owners = await db().prisma.$queryRaw<{ username: string }[]>`SELECT username FROM users WHERE lower(email) = lower(${given.email}) ORDER BY id`;
  if (owners.length) {
    void mailAlreadyRegistered(site, given.email, owners.map((o) => o.username), locale)
      .catch((e) => console.error("registration e-mail failed:", (e as Error).message));
    return;
  }
  const token = randomBytes(32).toString("base64url");
  let user: { id: number; username: string; email: string };
  try {
    user = await db().write(async (tx) => {
      const created = await tx.user.create({
        data: { username: given.username, email: given.email, password, isActive: false, dateJoined: now },
        select: { id: true, username: true, email: true },
      });
      await tx.pendingActivation.create({ data: { userId: created.id, tokenHash: tokenHash(token), expiresAt: expiry(now) } });
      return created;
    });
  } catch (e) {
    // Another registration took the username since the form was checked.
    if ((e as { code?: string }).code === "P2002") throw ValidationFailed.field("username", USERNAME_TAKEN);
    throw e;
  }
  void mailActivation(site, user, token, locale).catch((e) => console.error("activation e-mail failed:", (e as Error).message));
}

export type ActivationOutcome = "activated" | "expired" | "invalid";

/** Follows an activation link: a valid one activates the account and is used up. */
export async function activate(uidb64: string, token: string, now = new Date()): Promise<ActivationOutcome> {
  const id = decodeUid(uidb64);
  if (id === null || !token) return "invalid";
  const pending = await db().prisma.pendingActivation.findUnique({ where: { userId: id } });
  if (!pending) return "invalid";
  const given = Buffer.from(tokenHash(token), "hex");
  const stored = Buffer.from(pending.tokenHash, "hex");
  if (given.length !== stored.length || !timingSafeEqual(given, stored)) return "invalid";
  if (pending.expiresAt <= now) return "expired";
  const done = await db().write(async (tx) => {
    const { count } = await tx.pendingActivation.deleteMany({ where: { userId: id, tokenHash: pending.tokenHash } });
    if (count) await tx.user.update({ where: { id }, data: { isActive: true } });
    return count > 0;
  });
  return done ? "activated" : "invalid";
}

/**
 * Sends a new activation link (valid the full period again) to every account of the address that
 * awaits activation; nothing otherwise. In the background: the answer is the same either way.
 */
export function resendActivation(email: string, site: string, now = new Date(), locale: Locale = DEFAULT_LOCALE): void {
  void (async () => {
    const users = await db().prisma.$queryRaw<{ id: unknown; username: string; email: string }[]>`
      SELECT u.id, u.username, u.email FROM users u JOIN pending_activation p ON p.user_id = u.id
      WHERE lower(u.email) = lower(${email}) AND u.is_active = ${false}`;
    for (const { id, username, email: address } of users) {
      const user = { id: Number(id), username, email: address };
      const token = randomBytes(32).toString("base64url");
      await db().write((tx) => tx.pendingActivation.update({ where: { userId: user.id }, data: { tokenHash: tokenHash(token), expiresAt: expiry(now) } }));
      await mailActivation(site, user, token, locale);
    }
  })().catch((e) => console.error("activation e-mail failed:", (e as Error).message));
}

/** Upkeep: removes the accounts whose activation link expired unused, and the rate's old rows. */
export async function deleteExpiredRegistrations(now = new Date()): Promise<number> {
  return db().write(async (tx) => {
    const expired = await tx.pendingActivation.findMany({ where: { expiresAt: { lt: now } }, select: { userId: true }, take: 1000 });
    const { count } = await tx.user.deleteMany({ where: { id: { in: expired.map((p) => p.userId) }, isActive: false } });
    await tx.registrationAttempt.deleteMany({ where: { at: { lt: new Date(now.getTime() - 3600_000) } } });
    return count;
  });
}

/** The terms' Markdown (ENHYDRIS_TERMS_FILE, in the one language the administrator wrote it), or a short default text in the page's language. */
export function termsMarkdown(locale: Locale = DEFAULT_LOCALE): string {
  const file = settings().termsFile;
  return file ? readFileSync(/* turbopackIgnore: true */ file, "utf8") : translator(locale, "termsDefault")("markdown");
}
