import type { NextAuthOptions } from "next-auth";
import CredentialsProvider from "next-auth/providers/credentials";
import { attemptLogin } from "@/lib/accounts/accounts";
import { secretKey } from "@/lib/auth/secret";
import { createSiteSession, endSiteSessions, SESSION_MAX_AGE } from "@/lib/auth/session";

/**
 * The site login (api.md §2.1): next-auth's credentials provider against the service's users,
 * with the login throttle; the JWT names a row of site_session, which ends the session when it
 * is deleted. Mounted at {site}/accounts/auth/.
 */
export const SITE_AUTH_BASE = "/accounts/auth";

/** A thrown message of authorize() becomes the `error` parameter of the login page. */
export const THROTTLED_PREFIX = "Throttled:";
/** The error code of a login refused because the account awaits activation (public.md §1). */
export const NOT_ACTIVATED = "NotActivated";

/** next-auth's session cookie: a __Secure- one when the site is served over HTTPS (its useSecureCookies). */
export function sessionCookieName(secure: boolean): string {
  return `${secure ? "__Secure-" : ""}next-auth.session-token`;
}

/** The login page's error code of a refused login (components/accounts/loginMessages.ts). */
export function loginErrorCode(result: { throttledFor: number; notActivated?: boolean }): string {
  if (result.throttledFor) return `${THROTTLED_PREFIX}${result.throttledFor}`;
  return result.notActivated ? NOT_ACTIVATED : "CredentialsSignin";
}

export function nextAuthOptions(secure: boolean): NextAuthOptions {
  return {
    secret: secretKey(),
    useSecureCookies: secure,
    session: { strategy: "jwt", maxAge: SESSION_MAX_AGE },
    pages: { signIn: "/accounts/login/", signOut: "/accounts/logout/", error: "/accounts/login/" },
    providers: [
      CredentialsProvider({
        name: "Enhydris",
        credentials: { username: { label: "Username or e-mail", type: "text" }, password: { label: "Password", type: "password" } },
        async authorize(credentials, req) {
          const forwarded = req.headers?.["x-forwarded-for"];
          const address = (Array.isArray(forwarded) ? forwarded[0] : forwarded)?.split(",")[0]?.trim() || "unknown";
          const result = await attemptLogin((credentials?.username ?? "").trim(), "", credentials?.password ?? "", address);
          if (!result.ok) throw new Error(loginErrorCode(result));
          return { id: String(result.user.id), name: result.user.username };
        },
      }),
    ],
    callbacks: {
      async jwt({ token, user }) {
        if (user) {
          token.uid = Number(user.id);
          token.sid = await createSiteSession(Number(user.id));
        }
        return token;
      },
      /**
       * As next-auth's own rule (a path, or an address on this site's origin; anything else: the
       * site's root), but a callbackUrl that is no URL at all (`http://host:3000.evil.example/`)
       * also goes to the root, where next-auth's `new URL` would throw and answer 500.
       */
      redirect({ url, baseUrl }) {
        if (url.startsWith("/")) return `${baseUrl}${url}`;
        return URL.canParse(url) && new URL(url).origin === baseUrl ? url : baseUrl;
      },
    },
    events: {
      async signOut({ token }) {
        if (typeof token?.uid === "number") await endSiteSessions(token.uid);
      },
    },
  };
}
