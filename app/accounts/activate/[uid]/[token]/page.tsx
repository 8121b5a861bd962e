import type { Metadata } from "next";
import Link from "next/link";
import { notFound } from "next/navigation";
import type { ReactNode } from "react";
import { getTranslations } from "next-intl/server";
import { activate } from "@/lib/accounts";
import { settings } from "@/lib/config";

export async function generateMetadata(): Promise<Metadata> {
  return { title: (await getTranslations("activate"))("title"), referrer: "no-referrer" };
}
export const dynamic = "force-dynamic";

/** The link of the activation e-mail (public.md §1): valid once, for ENHYDRIS_ACTIVATION_DAYS. */
export default async function ActivatePage({ params }: { params: Promise<{ uid: string; token: string }> }) {
  if (!settings().registrationOpen) notFound();
  const { uid, token } = await params;
  const outcome = await activate(uid, token);
  const t = await getTranslations("activate");
  const login = (chunks: ReactNode) => <Link href="/accounts/login/">{chunks}</Link>;
  const resend = (chunks: ReactNode) => <Link href="/accounts/register/resend/">{chunks}</Link>;
  return (
    <div className="narrow">
      <div className="card">
        {outcome === "activated" ? (
          <>
            <h1>{t("active")}</h1>
            <p>{t("mayLogIn")}</p>
            <p><Link className="button" href="/accounts/login/">{t("logIn")}</Link></p>
          </>
        ) : outcome === "expired" ? (
          <>
            <h1>{t("expired")}</h1>
            <p>{t.rich("expiredText", { resend })}</p>
          </>
        ) : (
          <>
            <h1>{t("invalid")}</h1>
            <p>{t.rich("invalidText", { login, resend })}</p>
          </>
        )}
      </div>
    </div>
  );
}
