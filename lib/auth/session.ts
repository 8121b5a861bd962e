import { randomBytes } from "node:crypto";
import { decode } from "next-auth/jwt";
import { db, fromPrimary } from "@/lib/db";
import { secretKey } from "@/lib/auth/secret";
import { cookieOfHeader, readCookie } from "@/lib/auth/csrf";
import { bridge } from "@/lib/runtime/bridge";

/**
 * Site sessions (api.md §2.1): next-auth's JWT cookie names a row of `site_session`; deleting
 * the row ends the session on every instance at once.
 */
export const SESSION_COOKIES = ["__Secure-next-auth.session-token", "next-auth.session-token"];

/**
 * How long a site session lasts from its login, in seconds: the cookie's expiry, and an absolute
 * bound on the row (OWASP's absolute timeout), since next-auth re-issues the cookie with a new
 * expiry whenever its session route is called.
 */
export const SESSION_MAX_AGE = 14 * 24 * 3600;

/** Sessions created at or before this moment have ended. */
function lifetimeStart(): Date {
  return new Date(Date.now() - SESSION_MAX_AGE * 1000);
}

export async function createSiteSession(userId: number): Promise<string> {
  const id = randomBytes(24).toString("base64url");
  await db().write((tx) => tx.siteSession.create({ data: { id, userId, created: new Date() } }));
  return id;
}

export async function endSiteSessions(userId: number, except?: string | null): Promise<void> {
  await db().write((tx) => tx.siteSession.deleteMany({ where: { userId, ...(except ? { id: { not: except } } : {}) } }));
}

/**
 * The upkeep (lib/jobs/maintenance.ts): deletes the rows of sessions past their lifetime, which
 * no request accepts any more; returns how many.
 */
export async function deleteEndedSiteSessions(): Promise<number> {
  const { count } = await db().write((tx) => tx.siteSession.deleteMany({ where: { created: { lte: lifetimeStart() } } }));
  return count;
}

/**
 * The live site session whose cookie `get` returns (any cookie source: requests, pages, the
 * proxy, server.mjs): its row exists and is within SESSION_MAX_AGE of the login. On the primary:
 * a session just created (login) or deleted (logout) counts at once.
 */
export async function siteSessionFromCookies(get: (name: string) => string | null | undefined): Promise<{ id: string; userId: number } | null> {
  for (const name of SESSION_COOKIES) {
    const cookie = get(name);
    if (!cookie) continue;
    const sid = await sessionIdOfToken(cookie);
    if (!sid) continue;
    const row = await fromPrimary(() => db().prisma.siteSession.findUnique({ where: { id: sid, created: { gt: lifetimeStart() } }, select: { id: true, userId: true } }));
    if (row) return row;
  }
  return null;
}

/** The live site session a request carries, if any. */
export function readSiteSession(request: Request): Promise<{ id: string; userId: number } | null> {
  return siteSessionFromCookies((name) => readCookie(request, name));
}

/**
 * The server asks this before Next reads a large site form post (a server action's body is read
 * whole, up to 100 MB, before the action can refuse an anonymous caller): whether the request's
 * Cookie header carries a live site session. Set on the bridge (lib/runtime/bridge.ts) by
 * whichever bundle loads this module first (the API's, at the server's warm-up); every copy
 * answers alike.
 */
bridge().siteSessionCheck ??= async (cookieHeader) => (await siteSessionFromCookies((name) => cookieOfHeader(cookieHeader, name))) !== null;

export async function sessionIdOfToken(token: string): Promise<string | null> {
  try {
    const payload = await decode({ token, secret: secretKey() });
    return typeof payload?.sid === "string" ? payload.sid : null;
  } catch {
    return null;
  }
}
