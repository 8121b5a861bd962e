import { cache } from "react";
import { cookies, headers } from "next/headers";
import { LANGUAGE_COOKIE, negotiateLocale, type Locale } from "@/lib/i18n";
import { currentUser } from "@/lib/site/current-user";

/**
 * The language of the current page request (public.md §3): the logged-in account's setting, else
 * the footer switcher's cookie, else Accept-Language, else English. Once per request; next-intl's
 * request configuration (lib/site/intl-request.ts) and the layout's `<html lang>` read it.
 */
export const requestLocale = cache(async (): Promise<Locale> => {
  const [user, jar, requestHeaders] = await Promise.all([currentUser(), cookies(), headers()]);
  return negotiateLocale({
    account: user?.language,
    cookie: jar.get(LANGUAGE_COOKIE)?.value,
    acceptLanguage: requestHeaders.get("accept-language"),
  });
});
