import NextAuth from "next-auth";
import { nextAuthOptions, SITE_AUTH_BASE } from "@/lib/auth/next-auth";
import { isHttps } from "@/lib/auth/csrf";
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
  return NextAuth(request as never, context as never, nextAuthOptions(secure)) as Promise<Response>;
}

export { handler as GET, handler as POST };
