import { db, fromPrimary, Prisma } from "@/lib/db";
import { verifyPassword } from "@/lib/auth/passwords";

/** The user fields that authentication and permissions need. */
export interface AuthUser {
  id: number;
  username: string;
  email: string;
  isSuperuser: boolean;
  isActive: boolean;
  canAddStations: boolean;
}

const AUTH_USER_SELECT = { id: true, username: true, email: true, isSuperuser: true, isActive: true, canAddStations: true } as const;

/** On the primary (as every read of authentication): a deactivated user or a withdrawn permission counts at once. */
export async function findAuthUser(id: number): Promise<AuthUser | null> {
  // Every authenticated request asks: a native query, not Prisma's (docs/decisions/0003-native-hot-reads.md).
  const [r] = await fromPrimary(() => db().query<AuthUserRow>(Prisma.sql`
    SELECT id, username, email, is_superuser, is_active, can_add_stations FROM users WHERE id = ${id}`));
  return r ? { id: r.id, username: r.username, email: r.email, isSuperuser: r.is_superuser, isActive: r.is_active, canAddStations: r.can_add_stations } : null;
}

interface AuthUserRow { id: number; username: string; email: string; is_superuser: boolean; is_active: boolean; can_add_stations: boolean }

/** A user with the names of the profile (api.md §12.3). */
export interface UserProfile extends AuthUser {
  firstName: string;
  lastName: string;
  /** The site's language the account chose ("" for none: public.md §3). */
  language: string;
}

export async function findUserProfile(id: number): Promise<UserProfile | null> {
  return fromPrimary(() => db().prisma.user.findUnique({ where: { id }, select: { ...AUTH_USER_SELECT, firstName: true, lastName: true, language: true } }));
}

/**
 * The user a login names (api.md §12.1): the username exactly; else, for a value with "@", the
 * one active user with that e-mail address (case-insensitive). With no username, `email`.
 */
export function findLoginUser(username: string | null, email: string | null): Promise<(AuthUser & { password: string }) | null> {
  return fromPrimary(() => findLoginUserNow(username, email));
}

async function findLoginUserNow(username: string | null, email: string | null): Promise<(AuthUser & { password: string }) | null> {
  const select = { ...AUTH_USER_SELECT, password: true } as const;
  if (username) {
    const byName = await db().prisma.user.findUnique({ where: { username }, select });
    if (byName) return byName;
    if (!username.includes("@")) return null;
    email = username;
  }
  if (!email) return null;
  const rows = await db().prisma.$queryRaw<{ id: number }[]>`SELECT id FROM users WHERE lower(email) = lower(${email}) AND is_active = ${true}`;
  if (rows.length !== 1) return null;
  return db().prisma.user.findUnique({ where: { id: Number(rows[0].id) }, select });
}

export type CredentialCheck =
  | { ok: true; user: AuthUser }
  | { ok: false; reason: "invalid" }
  | { ok: false; reason: "inactive"; userId: number };

/** Checks a name and password; the password is verified even for unknown users (timing). */
export async function checkCredentials(username: string | null, email: string | null, password: string): Promise<CredentialCheck> {
  const user = await findLoginUser(username, email);
  const valid = await verifyPassword(password, user?.password ?? null);
  if (!user || !valid) return { ok: false, reason: "invalid" };
  if (!user.isActive) return { ok: false, reason: "inactive", userId: user.id };
  const { password: _omit, ...authUser } = user;
  return { ok: true, user: authUser };
}
