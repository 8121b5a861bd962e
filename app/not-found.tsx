import type { Metadata } from "next";
import { headers } from "next/headers";
import { currentUser } from "@/lib/site/current-user";
import { translator } from "@/lib/i18n";
import { requestLocale } from "@/lib/site/locale";
import { PATH_HEADER, refusalCardHtml, refusalText } from "@/lib/frontend";

// The title in the page's language, as the card below.
export async function generateMetadata(): Promise<Metadata> {
  return { title: translator(await requestLocale(), "refusal")("notFoundTitle") };
}

/** 404 (api.md §16): what is not at this address (lib/frontend/refusals.ts). */
export default async function NotFound() {
  const [requestHeaders, user, locale] = await Promise.all([headers(), currentUser(), requestLocale()]);
  const text = await refusalText(404, requestHeaders.get(PATH_HEADER) ?? "", locale);
  return <div className="narrow" dangerouslySetInnerHTML={{ __html: refusalCardHtml(404, text, user !== null, locale) }} />;
}
