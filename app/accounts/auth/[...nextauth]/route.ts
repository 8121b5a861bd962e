import NextAuth from "next-auth";
import { nextAuthOptions, SITE_AUTH_BASE } from "@/lib/accounts";
import { isHttps, readCookie } from "@/lib/auth/csrf";
import { readSiteSession, SESSION_COOKIES } from "@/lib/auth/session";
import { siteRoot } from "@/lib/http/urls";

export const dynamic = "force-dynamic";
export const runtime = "nodejs";

type Context = { params: Promise<{ nextauth: string[] }> };

/**
 * next-auth's own routes. Its base URL is {site}/accounts/auth (api.md §2.1, §14): derived here
 * from ENHYDRIS_SITE_URL or the request, so that no next-auth variable needs setting.
 */
async function handler(request: Request, context: Context): Promise<Response> {
  const base = siteRoot(request);
  process.env.NEXTAUTH_URL = `${base}${SITE_AUTH_BASE}`;
  const secure = base.startsWith("https:") || isHttps(request);
  const { nextauth } = await context.params;
  if (request.method === "GET" && nextauth.join("/") === "session") {
    const ended = await endedSessionAnswer(request);
    if (ended) return ended;
  }
  return NextAuth(request as never, context as never, nextAuthOptions(secure)) as Promise<Response>;
}

/**
 * next-auth's session route decodes the cookie alone: for a session that has ended (logged out,
 * ended by a password change, or past its 14 days) it would still name the user and re-issue the
 * cookie. Such a cookie gets next-auth's answer for no session, `{}`, and is removed.
 */
async function endedSessionAnswer(request: Request): Promise<Response | null> {
  const sent = SESSION_COOKIES.filter((name) => readCookie(request, name));
  if (sent.length === 0 || (await readSiteSession(request))) return null;
  const headers = new Headers({ "Cache-Control": "no-store" });
  for (const name of sent) headers.append("Set-Cookie", `${name}=; Path=/; Max-Age=0; HttpOnly; SameSite=Lax${name.startsWith("__Secure-") ? "; Secure" : ""}`);
  return Response.json({}, { headers });
}

export { handler as GET, handler as POST };
