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
export const TOO_MANY_RESENDS = "Too many requests for activation links from your address. Please try again in an hour.";
/** The least time between two activation links of the same account (the resend page, a repeated registration). */
export const RESEND_COOLDOWN_MS = 5 * 60_000;

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
      // The username of an account awaiting activation is not refused here: saying it is taken would
      // tell whether an earlier registration with it made an account, that is, whether its address
      // was new (no account enumeration); register() answers as for a registration instead.
      if (problem && !(problem === USERNAME_TAKEN && await pendingAccount(v.username))) errors.add("username", problem);
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

/** The account of a username that awaits its activation (made by a registration, not yet activated), if any. */
async function pendingAccount(username: string): Promise<{ id: number; username: string; email: string } | null> {
  return db().prisma.user.findFirst({ where: { username, isActive: false, activation: { isNot: null } }, select: { id: true, username: true, email: true } });
}

/**
 * Whether `address` has used up its registrations of the last hour. The requests for a new
 * activation link are counted apart, under "resend:" and the address (the same table and rate).
 */
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

/** To the address (as stored) of accounts that exist: no account was made. */
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

/** To the address typed in a registration whose username belongs to another registration awaiting activation. */
async function mailUsernamePending(site: string, email: string, username: string, locale: Locale): Promise<void> {
  const { from, name } = mailFrom(site);
  const t = translator(locale, "mail");
  await sendMail({
    to: email,
    from,
    subject: t("registeredSubject", { site: name }),
    text: t("usernamePendingText", { site: name, username, days: String(settings().activationDays), register: `${site}/accounts/register/`, login: `${site}/accounts/login/` }),
  });
}

/**
 * A new activation link (valid the full period again) for an account awaiting activation, unless
 * one was sent less than RESEND_COOLDOWN_MS ago (its link's expiry tells when).
 */
async function renewActivation(user: { id: number; username: string; email: string }, site: string, now: Date, locale: Locale): Promise<void> {
  const token = randomBytes(32).toString("base64url");
  const issuedBefore = expiry(new Date(now.getTime() - RESEND_COOLDOWN_MS));
  const { count } = await db().write((tx) => tx.pendingActivation.updateMany({
    where: { userId: user.id, expiresAt: { lte: issuedBefore } },
    data: { tokenHash: tokenHash(token), expiresAt: expiry(now) },
  }));
  if (count) await mailActivation(site, user, token, locale);
}

/** Mails each stored address among `owners` (that of the accounts, not as typed) the accounts it has. */
async function mailOwners(site: string, owners: { username: string; email: string }[], locale: Locale): Promise<void> {
  const byAddress = new Map<string, string[]>();
  for (const { username, email } of owners) byAddress.set(email, [...(byAddress.get(email) ?? []), username]);
  for (const [email, usernames] of byAddress) await mailAlreadyRegistered(site, email, usernames, locale);
}

/**
 * A registration whose username belongs to an account awaiting activation: nothing is made, and
 * the page says what it says for a registration (whether the earlier one made an account must not
 * show). The address typed gets an e-mail: the account's own address its activation link again
 * (RESEND_COOLDOWN_MS apart), an address with accounts that it has them, any other that the
 * username awaits another registration's activation.
 */
async function answerPendingUsername(pending: { id: number; username: string; email: string }, email: string, owners: { username: string; email: string }[], site: string, now: Date, locale: Locale): Promise<void> {
  if (pending.email.toLowerCase() === email.toLowerCase()) await renewActivation(pending, site, now, locale);
  else if (owners.length) await mailOwners(site, owners, locale);
  else await mailUsernamePending(site, email, pending.username, locale);
}

const logMailFailure = (e: unknown) => console.error("registration e-mail failed:", (e as Error).message);

/**
 * Registers: checks the rate and the captcha, then either makes an inactive account and mails its
 * activation link, or (the address is taken) mails its owner, or (the username awaits another
 * activation) mails the address typed. The caller shows the same page in all cases; the e-mail is
 * sent in the background so that they take about the same time.
 */
export async function register(given: Registration, captcha: string, address: string, site: string, now = new Date(), locale: Locale = DEFAULT_LOCALE): Promise<void> {
  if (await registrationRateReached(address, now)) throw ValidationFailed.nonField(TOO_MANY_REGISTRATIONS);
  const captchaProblem = await spendCaptcha(captcha);
  if (captchaProblem) throw ValidationFailed.field("altcha", captchaProblem);
  await db().write((tx) => tx.registrationAttempt.create({ data: { address, at: now } }));
  const password = await hashPassword(given.password);
  const owners = await db().prisma.$queryRaw<{ username: string; email: string }[]>`SELECT username, email FROM users WHERE lower(email) = lower(${given.email}) ORDER BY id`;
  const pending = await pendingAccount(given.username);
  if (pending) {
    void answerPendingUsername(pending, given.email, owners, site, now, locale).catch(logMailFailure);
    return;
  }
  if (owners.length) {
    void mailOwners(site, owners, locale).catch(logMailFailure);
    return;
  }
  // The account is made in the background too: its write would otherwise make this answer
  // measurably slower than the others (no account enumeration by timing).
  void makeAccount(given, password, owners, site, now, locale).catch((e) => console.error("registration failed:", (e as Error).message));
}

/** Makes the inactive account of a registration and mails its activation link. */
async function makeAccount(given: Registration, password: string, owners: { username: string; email: string }[], site: string, now: Date, locale: Locale): Promise<void> {
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
    // Another registration took the username since the form was checked: answered as above if it
    // awaits activation; else (an account made by an administrator meanwhile) nothing is made.
    if ((e as { code?: string }).code !== "P2002") throw e;
    const other = await pendingAccount(given.username);
    if (other) await answerPendingUsername(other, given.email, owners, site, now, locale);
    else console.error(`registration of "${given.username}" dropped: the username was taken meanwhile`);
    return;
  }
  await mailActivation(site, user, token, locale);
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
 * awaits activation and had none in the last RESEND_COOLDOWN_MS; nothing otherwise. In the
 * background: the answer is the same either way. The requests of a client address are limited
 * as its registrations (ENHYDRIS_REGISTRATION_RATE an hour, counted apart), whatever the address
 * typed, so that the refusal tells nothing of it.
 */
export async function resendActivation(email: string, client: string, site: string, now = new Date(), locale: Locale = DEFAULT_LOCALE): Promise<void> {
  const key = `resend:${client}`;
  if (await registrationRateReached(key, now)) throw ValidationFailed.nonField(TOO_MANY_RESENDS);
  await db().write((tx) => tx.registrationAttempt.create({ data: { address: key, at: now } }));
  void (async () => {
    const users = await db().prisma.$queryRaw<{ id: unknown; username: string; email: string }[]>`
      SELECT u.id, u.username, u.email FROM users u JOIN pending_activation p ON p.user_id = u.id
      WHERE lower(u.email) = lower(${email}) AND u.is_active = ${false}`;
    for (const { id, username, email: address } of users) await renewActivation({ id: Number(id), username, email: address }, site, now, locale);
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
