import { setLanguage } from "@/lib/accounts";
import { isHttps } from "@/lib/auth/csrf";
import { isLocale, LANGUAGE_COOKIE, LANGUAGE_COOKIE_MAX_AGE } from "@/lib/i18n";
import { currentUser } from "@/lib/site/current-user";
import { returnPath } from "@/lib/site/paths";

export const dynamic = "force-dynamic";

/**
 * POST `{site}/language/` (the footer's switcher and the profile's choice, public.md §3):
 * `language` (en, el; "" for the browser's choice) and `next` (the page to come back to, unless
 * the Referer names the page shown: returnPath). Sets
 * the language cookie (or removes it) and, for a logged-in user, the account's language (which
 * wins over the cookie in every browser), then sends the browser back (303). A cross-site post
 * is refused before it gets here (server.mjs checks the origin of site forms).
 */
export async function POST(request: Request): Promise<Response> {
  let form: FormData;
  try {
    form = await request.formData();
  } catch {
    return new Response("The form could not be read.\n", { status: 400, headers: { "Content-Type": "text/plain; charset=utf-8" } });
  }
  const language = form.get("language");
  const next = form.get("next");
  if (!isLocale(language) && language !== "") {
    return new Response("Unknown language.\n", { status: 400, headers: { "Content-Type": "text/plain; charset=utf-8" } });
  }
  const user = await currentUser();
  if (user) await setLanguage(user, language);
  const secure = isHttps(request) ? "; Secure" : "";
  return new Response(null, {
    status: 303,
    headers: {
      Location: returnPath(request.headers.get("referer"), request.headers.get("host"), typeof next === "string" ? next : null),
      "Set-Cookie": `${LANGUAGE_COOKIE}=${language}; Path=/; Max-Age=${language ? LANGUAGE_COOKIE_MAX_AGE : 0}; HttpOnly; SameSite=Lax${secure}`,
      "Cache-Control": "no-store",
    },
  });
}
