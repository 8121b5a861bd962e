import { randomBytes } from "node:crypto";
import { mailResetLink } from "@/lib/accounts/accounts";
import { ensureSuperuser, ensureUser, type Actor } from "@/lib/auth/permissions";
import { hashPassword } from "@/lib/auth/passwords";
import { findUserProfile, type AuthUser, type UserProfile } from "@/lib/auth/users";
import { db, Prisma, type Tx } from "@/lib/db";
import { changedFields, changeSummary, named, recordActivity } from "@/lib/domain/activity-log";
import { NotFound, ValidationFailed } from "@/lib/domain/errors";
import { valuesOf, type Given } from "@/lib/domain/given";
import { isDatabaseId } from "@/lib/domain/refs";
import { containsSql } from "@/lib/db/dialect-sql";
import type { Locale } from "@/lib/i18n";

/**
 * Users: creating them (command line, tests), the profile of api.md §12.3, and the management of
 * users by superusers (management.md §2: never a password in clear; a reset e-mail instead).
 */
export interface NewUser {
  username: string;
  email?: string;
  password: string;
  firstName?: string;
  lastName?: string;
  isSuperuser?: boolean;
  isActive?: boolean;
  canAddStations?: boolean;
}

export const USERNAME_PATTERN = /^[\p{L}\p{N}@.+_-]+$/u;
export const USERNAME_MESSAGE = "Enter a valid username. This value may contain only letters, numbers, and @/./+/-/_ characters.";
export const USERNAME_TAKEN = "A user with that username already exists.";

export async function createUser(user: NewUser): Promise<number> {
  if (!USERNAME_PATTERN.test(user.username) || [...user.username].length > 150) throw new Error(USERNAME_MESSAGE);
  const password = await hashPassword(user.password);
  const created = await db().write((tx) => tx.user.create({
    data: {
      username: user.username,
      email: user.email ?? "",
      firstName: user.firstName ?? "",
      lastName: user.lastName ?? "",
      password,
      isSuperuser: user.isSuperuser ?? false,
      isActive: user.isActive ?? true,
      canAddStations: user.canAddStations ?? false,
      dateJoined: new Date(),
    },
  }));
  return created.id;
}

/** The actor's own profile. */
export async function profileOf(actor: Actor): Promise<UserProfile> {
  const user = ensureUser(actor);
  const profile = await findUserProfile(user.id);
  if (!profile) throw new Error(`user ${user.id} has gone`);
  return profile;
}

/**
 * What is wrong with a username that passed the field's own rules (length, blank): its
 * characters, then whether another user has it; null when `userId` may take it.
 */
export async function usernameProblem(username: string, userId: number): Promise<string | null> {
  if (!USERNAME_PATTERN.test(username)) return USERNAME_MESSAGE;
  const other = await db().prisma.user.findFirst({ where: { username, id: { not: userId } }, select: { id: true } });
  return other ? USERNAME_TAKEN : null;
}

export interface ProfileData {
  username?: string;
  firstName?: string;
  lastName?: string;
}

const USER_FIELDS: Record<string, string> = {
  firstName: "first_name", lastName: "last_name", isActive: "is_active", isSuperuser: "is_superuser", canAddStations: "can_add_stations",
};

/** Writes a user's fields and records the change; a username another user took meanwhile is the field's error. */
async function changeUser(actor: Actor, id: number, data: ProfileData | UserAdminData): Promise<void> {
  try {
    await db().write(async (tx) => {
      const before = await tx.user.findUniqueOrThrow({ where: { id } });
      const after = await tx.user.update({ where: { id }, data });
      await recordActivity(tx, actor, {
        action: "change", objectType: "user", objectId: id, stationId: null, summary: changeSummary(`user ${named(after.username, id)}`, changedFields(before, data, USER_FIELDS)),
      });
    });
  } catch (e) {
    // Another user took the name since it was checked: the unique index refuses it.
    if ((e as { code?: string }).code === "P2002") throw ValidationFailed.field("username", USERNAME_TAKEN);
    throw e;
  }
}

/** Changes the actor's username and names; email and pk are read-only (api.md §12.3). */
export async function updateProfile(actor: Actor, given: Given<ProfileData, AuthUser>): Promise<void> {
  const user = ensureUser(actor);
  const data = await valuesOf(given, user);
  if (data.username !== undefined && !USERNAME_PATTERN.test(data.username)) throw ValidationFailed.field("username", USERNAME_MESSAGE);
  await changeUser(actor, user.id, data);
}

/**
 * The actor's language of the site (public.md §3), or "" for none (then the cookie and the
 * browser's choose). A display preference: not in the activity log.
 */
export async function setLanguage(actor: Actor, language: Locale | ""): Promise<void> {
  const user = ensureUser(actor);
  await db().write((tx) => tx.user.update({ where: { id: user.id }, data: { language } }));
}

/** What a superuser sets of a user (management.md §2). */
export interface UserAdminData {
  username?: string;
  email?: string;
  firstName?: string;
  lastName?: string;
  isActive?: boolean;
  isSuperuser?: boolean;
  canAddStations?: boolean;
}

/** A user as the users pages list and edit it; no password, ever. */
export interface UserSummary {
  id: number;
  username: string;
  email: string;
  firstName: string;
  lastName: string;
  isActive: boolean;
  isSuperuser: boolean;
  canAddStations: boolean;
  dateJoined: Date;
  lastLogin: Date | null;
}

const SUMMARY_SELECT = {
  id: true, username: true, email: true, firstName: true, lastName: true, isActive: true, isSuperuser: true, canAddStations: true,
  dateJoined: true, lastLogin: true,
} as const;

function userFilter(q: string): Prisma.Sql {
  const needle = q.trim().toLowerCase();
  if (!needle) return Prisma.empty;
  const has = (column: string) => containsSql(Prisma.sql`lower(${Prisma.raw(column)})`, needle);
  return Prisma.sql`WHERE ${has("username")} OR ${has("email")} OR ${has("first_name")} OR ${has("last_name")}`;
}

/** Users whose username, e-mail or names contain `q` (any case), by username; with the count of every match. */
export async function searchUsers(actor: Actor, q: string, offset: number, limit: number): Promise<{ count: number; users: UserSummary[] }> {
  ensureSuperuser(actor);
  const filter = userFilter(q);
  const [[counted], rows] = await Promise.all([
    db().query<{ n: unknown }>(Prisma.sql`SELECT COUNT(*) AS n FROM users ${filter}`),
    db().query<{ id: unknown }>(Prisma.sql`SELECT id FROM users ${filter} ORDER BY username, id LIMIT ${limit} OFFSET ${offset}`),
  ]);
  const ids = rows.map((r) => Number(r.id));
  const users = await db().prisma.user.findMany({ where: { id: { in: ids } }, select: SUMMARY_SELECT });
  const byId = new Map(users.map((u) => [u.id, u]));
  return { count: Number(counted.n), users: ids.flatMap((id) => byId.get(id) ?? []) };
}

/** Usernames (with names) of active users matching `q`, for choosing maintainers and data viewers: at most `limit`. */
export async function userChoices(q: string, limit: number): Promise<{ id: number; username: string; name: string }[]> {
  const filter = userFilter(q);
  const rows = await db().query<{ id: unknown; username: string; first_name: string; last_name: string }>(Prisma.sql`
    SELECT id, username, first_name, last_name FROM (SELECT * FROM users ${filter}) u WHERE is_active = ${true} ORDER BY username LIMIT ${limit}`);
  return rows.map((r) => ({ id: Number(r.id), username: r.username, name: `${r.first_name} ${r.last_name}`.trim() }));
}

/** The usernames of users by id (for showing a station's maintainers and data viewers). */
export async function usernames(ids: number[]): Promise<Map<number, string>> {
  if (ids.length === 0) return new Map();
  const rows = await db().prisma.user.findMany({ where: { id: { in: ids } }, select: { id: true, username: true } });
  return new Map(rows.map((r) => [r.id, r.username]));
}

/** One user, for a superuser (NotFound first, then the permission). */
export async function userForAdmin(actor: Actor, id: number): Promise<UserSummary> {
  const user = isDatabaseId(id) ? await db().prisma.user.findUnique({ where: { id }, select: SUMMARY_SELECT }) : null;
  if (!user) throw new NotFound();
  ensureSuperuser(actor);
  return user;
}

/** A new user made by a superuser: no usable password until the user sets one through a reset e-mail. */
export async function createUserBy(actor: Actor, given: Given<UserAdminData & { username: string }>): Promise<number> {
  ensureSuperuser(actor);
  const data = await valuesOf(given, undefined);
  // A random password nobody knows, hashed like any other (a login attempt takes the same time).
  const password = await hashPassword(randomBytes(32).toString("base64"));
  try {
    return await db().write(async (tx) => {
      const user = await tx.user.create({ data: { ...data, password, dateJoined: new Date() } });
      await recordActivity(tx, actor, { action: "create", objectType: "user", objectId: user.id, stationId: null, summary: `Created user ${named(user.username, user.id)}` });
      return user.id;
    });
  } catch (e) {
    if ((e as { code?: string }).code === "P2002") throw ValidationFailed.field("username", USERNAME_TAKEN);
    throw e;
  }
}

/** Changes a user; superusers may not take away their own rights (nobody would be left to give them back). */
export async function updateUserBy(actor: Actor, id: number, given: Given<UserAdminData, UserSummary>): Promise<void> {
  const user = await userForAdmin(actor, id);
  const data = await valuesOf(given, user);
  if (actor!.id === id) {
    if (data.isSuperuser === false) throw ValidationFailed.field("is_superuser", "You cannot remove your own superuser status.");
    if (data.isActive === false) throw ValidationFailed.field("is_active", "You cannot deactivate your own account.");
  }
  await changeUser(actor, id, data);
}

/**
 * Mails the user a password-reset link (api.md §13), so that they choose their password themselves:
 * in the account's language, else `locale` (the administrator's page's).
 */
export async function sendPasswordReset(actor: Actor, id: number, site: string, locale?: Locale): Promise<void> {
  const user = await userForAdmin(actor, id);
  if (!user.isActive) throw ValidationFailed.nonField("This user is not active: activate the account first.");
  if (!(await mailResetLink(id, site, locale))) throw ValidationFailed.nonField("This user has no e-mail address.");
  await db().write((tx: Tx) => recordActivity(tx, actor, {
    action: "reset", objectType: "user", objectId: id, stationId: null, summary: `Sent a password-reset e-mail to user ${named(user.username, id)}`,
  }));
}
