import type { Metadata } from "next";
import { headers } from "next/headers";
import { currentUser } from "@/lib/site/current-user";
import { requestLocale } from "@/lib/site/locale";
import { NOT_FOUND_TITLE, PATH_HEADER, refusalCardHtml, refusalText } from "@/lib/frontend";

// The title stays English (static, as before); the card below is in the page's language.
export const metadata: Metadata = { title: NOT_FOUND_TITLE };

/** 404 (api.md §16): what is not at this address (lib/frontend/refusals.ts). */
export default async function NotFound() {
  const [requestHeaders, user, locale] = await Promise.all([headers(), currentUser(), requestLocale()]);
  const text = await refusalText(404, requestHeaders.get(PATH_HEADER) ?? "", locale);
  return <div className="narrow" dangerouslySetInnerHTML={{ __html: refusalCardHtml(404, text, user !== null, locale) }} />;
}
