import type { Metadata } from "next";
import Link from "next/link";
import { getTranslations } from "next-intl/server";
import ResetRequestForm from "@/components/accounts/ResetRequestForm";

export async function generateMetadata(): Promise<Metadata> {
  return { title: (await getTranslations("reset"))("title") };
}

/** `{site}/accounts/password/reset/` (api.md §16). */
export default async function PasswordResetPage() {
  const t = await getTranslations("reset");
  return (
    <div className="narrow">
      <div className="card">
        <h1>{t("title")}</h1>
        <p>{t("intro")}</p>
        <ResetRequestForm />
        <p className="form-footer">
          <Link href="/accounts/login/">{t("back")}</Link>
        </p>
      </div>
    </div>
  );
}
