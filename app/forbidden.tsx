import type { Metadata } from "next";
import { headers } from "next/headers";
import { currentUser } from "@/lib/site/current-user";
import { requestLocale } from "@/lib/site/locale";
import { FORBIDDEN_TITLE, PATH_HEADER, refusalCardHtml, refusalText } from "@/lib/frontend";

// The title stays English (static, as before); the card below is in the page's language.
export const metadata: Metadata = { title: FORBIDDEN_TITLE };

/** 403 (management.md §1): a page the user may not use, and what they may not do there (lib/frontend/refusals.ts). */
export default async function Forbidden() {
  const [requestHeaders, user, locale] = await Promise.all([headers(), currentUser(), requestLocale()]);
  const text = await refusalText(403, requestHeaders.get(PATH_HEADER) ?? "", locale);
  return <div className="narrow" dangerouslySetInnerHTML={{ __html: refusalCardHtml(403, text, user !== null, locale) }} />;
}
