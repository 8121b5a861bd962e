import type { Metadata } from "next";
import { headers } from "next/headers";
import { currentUser } from "@/lib/site/current-user";
import { translator } from "@/lib/i18n";
import { requestLocale } from "@/lib/site/locale";
import { PATH_HEADER, refusalCardHtml, refusalText } from "@/lib/frontend";

// The title in the page's language, as the card below.
export async function generateMetadata(): Promise<Metadata> {
  return { title: translator(await requestLocale(), "refusal")("forbiddenTitle") };
}

/** 403 (management.md §1): a page the user may not use, and what they may not do there (lib/frontend/refusals.ts). */
export default async function Forbidden() {
  const [requestHeaders, user, locale] = await Promise.all([headers(), currentUser(), requestLocale()]);
  const text = await refusalText(403, requestHeaders.get(PATH_HEADER) ?? "", locale);
  return <div className="narrow" dangerouslySetInnerHTML={{ __html: refusalCardHtml(403, text, user !== null, locale) }} />;
}
