import type { Metadata } from "next";
import { notFound } from "next/navigation";
import { getTranslations } from "next-intl/server";
import { marked } from "marked";
import { termsMarkdown } from "@/lib/accounts";
import { settings } from "@/lib/config";
import { requestLocale } from "@/lib/site/locale";

export async function generateMetadata(): Promise<Metadata> {
  return { title: (await getTranslations("activate"))("terms") };
}
export const dynamic = "force-dynamic";

/** `{site}/accounts/terms/` (public.md §1): ENHYDRIS_TERMS_FILE's Markdown, set by the administrator (trusted). */
export default async function TermsPage() {
  if (!settings().registrationOpen) notFound();
  const html = await marked.parse(termsMarkdown(await requestLocale()));
  return (
    <div className="narrow">
      <div className="card terms" dangerouslySetInnerHTML={{ __html: html }} />
    </div>
  );
}
