import type { Metadata } from "next";
import { notFound } from "next/navigation";
import { getTranslations } from "next-intl/server";
import ResendForm from "@/components/accounts/ResendForm";
import { settings } from "@/lib/config";

export async function generateMetadata(): Promise<Metadata> {
  return { title: (await getTranslations("resend"))("title") };
}
export const dynamic = "force-dynamic";

/** `{site}/accounts/register/resend/` (public.md §1). */
export default async function ResendPage() {
  if (!settings().registrationOpen) notFound();
  const t = await getTranslations("resend");
  return (
    <div className="narrow">
      <div className="card">
        <h1>{t("title")}</h1>
        <p>{t("intro", { days: settings().activationDays })}</p>
        <ResendForm />
      </div>
    </div>
  );
}
