import { createHash, randomBytes } from "node:crypto";
import { settings } from "@/lib/config";
import { db, fromPrimary, Prisma } from "@/lib/db";

/** API tokens (api.md §2): 40 hex characters; only their SHA-256 is stored. */
export function hashKey(key: string): string {
  return createHash("sha256").update(key, "utf8").digest("hex");
}

export async function issueToken(userId: number): Promise<string> {
  const key = randomBytes(20).toString("hex");
  await db().write((tx) => tx.authToken.create({ data: { keyHash: hashKey(key), userId, created: new Date() } }));
  return key;
}

/**
 * The token of a key, unless unknown or expired. The hash lookup makes the check timing-safe.
 * On the primary: a deleted token (logout) must stop working at once.
 */
export async function findToken(key: string): Promise<{ id: number; userId: number } | null> {
  // Every request with a token asks: a native query, not Prisma's (docs/decisions/0003-native-hot-reads.md).
  const [token] = await fromPrimary(() => db().query<{ id: number; user_id: number; created: Date }>(Prisma.sql`
    SELECT id, user_id, created FROM auth_token WHERE key_hash = ${hashKey(key)}`));
  if (!token) return null;
  const lifetime = settings().tokenLifetime;
  if (lifetime > 0 && Date.now() - token.created.getTime() > lifetime * 1000) return null;
  return { id: token.id, userId: token.user_id };
}

export async function revokeToken(id: number): Promise<void> {
  await db().write((tx) => tx.authToken.deleteMany({ where: { id } }));
}
