import { createHash, randomBytes } from "node:crypto";
import { settings } from "@/lib/config";
import { db, fromPrimary, Prisma } from "@/lib/db";
import type { AuthUser } from "@/lib/auth/users";

/** API tokens (api.md §2): 40 hex characters; only their SHA-256 is stored. */
export function hashKey(key: string): string {
  return createHash("sha256").update(key, "utf8").digest("hex");
}

export async function issueToken(userId: number): Promise<string> {
  const key = randomBytes(20).toString("hex");
  await db().write((tx) => tx.authToken.create({ data: { keyHash: hashKey(key), userId, created: new Date() } }));
  return key;
}

interface TokenRow {
  id: number; user_id: number; created: Date;
  username: string | null; email: string | null; is_superuser: boolean | null; is_active: boolean | null; can_add_stations: boolean | null;
}

/**
 * The token of a key, unless unknown or expired, with its user (null if deleted). The hash lookup
 * makes the check timing-safe. On the primary: a deleted token (logout) must stop working at once.
 */
export async function findToken(key: string): Promise<{ id: number; userId: number; user: AuthUser | null } | null> {
  // Every request with a token asks: one native query for the token and its user, not Prisma's
  // (docs/decisions/0003-native-hot-reads.md).
  const [token] = await fromPrimary(() => db().query<TokenRow>(Prisma.sql`
    SELECT t.id, t.user_id, t.created, u.username, u.email, u.is_superuser, u.is_active, u.can_add_stations
    FROM auth_token t LEFT JOIN users u ON u.id = t.user_id WHERE t.key_hash = ${hashKey(key)}`));
  if (!token) return null;
  const lifetime = settings().tokenLifetime;
  if (lifetime > 0 && Date.now() - token.created.getTime() > lifetime * 1000) return null;
  const user = token.username === null ? null : {
    id: token.user_id, username: token.username, email: token.email!, isSuperuser: token.is_superuser!, isActive: token.is_active!,
    canAddStations: token.can_add_stations!,
  };
  return { id: token.id, userId: token.user_id, user };
}

export async function revokeToken(id: number): Promise<void> {
  await db().write((tx) => tx.authToken.deleteMany({ where: { id } }));
}
