"use server";

import { cookies, headers } from "next/headers";
import { redirect } from "next/navigation";
import { encode } from "next-auth/jwt";
import { getTranslations } from "next-intl/server";
import { loginErrorMessage } from "@/components/accounts/loginMessages";
import { attemptLogin, loginErrorCode, sessionCookieName } from "@/lib/accounts";
import { secretKey } from "@/lib/auth/secret";
import { createSiteSession, SESSION_MAX_AGE } from "@/lib/auth/session";
import { settings } from "@/lib/config";
import { safeNextPath } from "@/lib/site/paths";

export interface LoginState {
  error: string | null;
  /** What the user typed as the username, kept on a refusal. */
  username: string;
}

/**
 * The login form posted without JavaScript (management.md §1: a plain form works without it).
 * The same check and throttle as next-auth's credentials provider (lib/accounts/next-auth.ts), then
 * the cookie next-auth would set: its JWT naming a new site_session row. With JavaScript the form
 * goes through next-auth itself (components/accounts/LoginForm.tsx).
 */
export async function logInWithoutScript(_prev: LoginState, form: FormData): Promise<LoginState> {
  const field = (name: string) => {
    const v = form.get(name);
    return typeof v === "string" ? v : "";
  };
  const username = field("username").trim();
  const request = await headers();
  // server.mjs puts the client's address here (the socket's, or a trusted proxy's X-Forwarded-For).
  const address = request.get("x-forwarded-for")?.split(",")[0]?.trim() || "unknown";
  const result = await attemptLogin(username, "", field("password"), address);
  if (!result.ok) {
    const t = await getTranslations("login");
    return { error: loginErrorMessage(loginErrorCode(result), (key, values) => t(key, values), settings().registrationOpen), username };
  }
  // As the next-auth route decides (app/accounts/auth/[...nextauth]/route.ts): an https site URL,
  // or a request that came over HTTPS (server.mjs's x-enhydris-scheme).
  const secure = settings().siteUrl.startsWith("https:") || request.get("x-enhydris-scheme") === "https";
  const sid = await createSiteSession(result.user.id);
  const token = await encode({
    token: { name: result.user.username, sub: String(result.user.id), uid: result.user.id, sid },
    secret: secretKey(),
    maxAge: SESSION_MAX_AGE,
  });
  (await cookies()).set(sessionCookieName(secure), token, { httpOnly: true, sameSite: "lax", path: "/", secure, maxAge: SESSION_MAX_AGE });
  redirect(safeNextPath(field("next")));
}
