import { db } from "@/lib/db";
import { hashPassword } from "@/lib/auth/passwords";

/** Creates a user (command line, tests). Usernames follow the rule of api.md §12.3. */
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
