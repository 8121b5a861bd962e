import { ensureUser, type Actor } from "@/lib/auth/permissions";
import { hashPassword } from "@/lib/auth/passwords";
import { findUserProfile, type AuthUser, type UserProfile } from "@/lib/auth/users";
import { db } from "@/lib/db";
import { ValidationFailed } from "@/lib/services/errors";
import { valuesOf, type Given } from "@/lib/services/given";

/** Users: creating them (command line, tests) and the profile of api.md §12.3. */
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

/** Changes the actor's username and names; email and pk are read-only (api.md §12.3). */
export async function updateProfile(actor: Actor, given: Given<ProfileData, AuthUser>): Promise<void> {
  const user = ensureUser(actor);
  const data = await valuesOf(given, user);
  if (data.username !== undefined && !USERNAME_PATTERN.test(data.username)) throw ValidationFailed.field("username", USERNAME_MESSAGE);
  try {
    await db().write((tx) => tx.user.update({ where: { id: user.id }, data }));
  } catch (e) {
    // Another user took the name since it was checked: the unique index refuses it.
    if ((e as { code?: string }).code === "P2002") throw ValidationFailed.field("username", USERNAME_TAKEN);
    throw e;
  }
}
