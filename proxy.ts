import { NextResponse, type NextRequest } from "next/server";
import { settings } from "@/lib/config";
import { CSRF_COOKIE, csrfCookieHeader, isHttps, newCsrfToken } from "@/lib/auth/csrf";
import { siteUserFromCookies } from "@/lib/site/current-user";

/**
 * Site pages only (api.md §16): sets the `csrftoken` cookie when the request has none
 * (legacy.md §1.2), sends anonymous users to the login page when authentication is required
 * (§15.4), and tells the layout the current search (to fill the header's search box) and address
 * (for the footer's language switcher).
 *
 * The matcher keeps the proxy off the API, next-auth's routes, the legacy data path, Next's
 * assets and static files: a proxy buffers the bodies of the requests it matches. The management
 * pages' forms post files (a proxy would cut a body above 10 MB): there it sees only requests
 * without a body (no Content-Type).
 */
export const config = {
  matcher: [
    "/((?!api/|api$|_next/|accounts/auth/|accounts/auth$|timeseries/data/|timeseries/data$|manage/|manage$|.*\\.[A-Za-z0-9]+$).*)",
    { source: "/manage/:path*", missing: [{ type: "header", key: "content-type" }] },
  ],
};

/** Pages an anonymous user may open even when authentication is required. */
const OPEN_PATHS = new Set(["/accounts/login/", "/accounts/password/reset/", "/language/"]);

export async function proxy(request: NextRequest): Promise<NextResponse> {
  const { pathname, search, searchParams } = request.nextUrl;
  let response: NextResponse;
  if (settings().authenticationRequired && !OPEN_PATHS.has(pathname)
    && !(await siteUserFromCookies((name) => request.cookies.get(name)?.value))) {
    const login = request.nextUrl.clone();
    login.pathname = "/accounts/login/";
    login.search = `?next=${encodeURIComponent(pathname + search)}`;
    response = NextResponse.redirect(login, 302);
  } else {
    const headers = new Headers(request.headers);
    headers.set("x-enhydris-q", encodeURIComponent(pathname === "/" ? (searchParams.get("q") ?? "") : ""));
    // Where the footer's language switcher comes back to (app/layout.tsx).
    headers.set("x-enhydris-here", encodeURIComponent(pathname + search));
    response = NextResponse.next({ request: { headers } });
  }
  if (!request.cookies.get(CSRF_COOKIE)?.value) {
    response.headers.append("Set-Cookie", csrfCookieHeader(newCsrfToken(), isHttps(request)));
  }
  return response;
}
