import { getRequestConfig } from "next-intl/server";
import { messagesOf } from "@/lib/i18n";
import { requestLocale } from "@/lib/site/locale";

/**
 * next-intl's request configuration (next.config.js names this file): the language is chosen
 * per request, without locale prefixes in the URLs (public.md §3: addresses do not change).
 * The API never renders through it: it stays English.
 */
export default getRequestConfig(async () => {
  const locale = await requestLocale();
  return { locale, messages: messagesOf(locale), timeZone: "UTC" };
});
