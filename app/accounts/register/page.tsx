import type { Metadata } from "next";
import Link from "next/link";
import { notFound } from "next/navigation";
import { getTranslations } from "next-intl/server";
import RegisterForm from "@/components/accounts/RegisterForm";
import { newChallenge } from "@/lib/auth/captcha";
import { settings } from "@/lib/config";

export async function generateMetadata(): Promise<Metadata> {
  return { title: (await getTranslations("register"))("title") };
}
export const dynamic = "force-dynamic";

/** `{site}/accounts/register/` (public.md §1): 404 unless ENHYDRIS_REGISTRATION_OPEN. */
export default async function RegisterPage() {
  if (!settings().registrationOpen) notFound();
  const t = await getTranslations("register");
  return (
    <div className="narrow">
      <div className="card">
        <h1>{t("title")}</h1>
        <p>{settings().usersCanAddContent ? t("introStations") : t("intro")}</p>
        <RegisterForm challenge={await newChallenge()} />
        <p className="form-footer">
          {t("already")} <Link href="/accounts/login/">{t("logIn")}</Link>
        </p>
      </div>
    </div>
  );
}
