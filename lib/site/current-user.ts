import { cache } from "react";
import { cookies } from "next/headers";
import { siteSessionFromCookies } from "@/lib/auth/session";
import { findUserProfile, type UserProfile } from "@/lib/auth/users";
import { requestContext } from "@/lib/observability/logger.mjs";

/**
 * The user of the site session a page request carries (api.md §2.1): next-auth's JWT cookie names
 * a `site_session` row; the session counts only while that row exists and its user is active.
 */
export interface SiteUser extends UserProfile {
  /** The id of the site session (kept by a password change made on the site). */
  sessionId: string;
}

/** Reads the user from any cookie source (server components, the proxy). */
export async function siteUserFromCookies(get: (name: string) => string | undefined): Promise<SiteUser | null> {
  const session = await siteSessionFromCookies(get);
  if (!session) return null;
  const user = await findUserProfile(session.userId);
  return user?.isActive ? { ...user, sessionId: session.id } : null;
}

/** The current request's user, once per request. */
export const currentUser = cache(async (): Promise<SiteUser | null> => {
  const jar = await cookies();
  const user = await siteUserFromCookies((name) => jar.get(name)?.value);
  // The request log names the page's user.
  const context = requestContext();
  if (context) context.userId = user?.id ?? null;
  return user;
});
