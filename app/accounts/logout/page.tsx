import type { Metadata } from "next";
import Link from "next/link";
import { getTranslations } from "next-intl/server";
import LogoutButton from "@/components/accounts/LogoutButton";
import { currentUser } from "@/lib/site/current-user";

export async function generateMetadata(): Promise<Metadata> {
  return { title: (await getTranslations("logout"))("title") };
}

/** `{site}/accounts/logout/`: a button that logs out by POST (api.md §16). */
export default async function LogoutPage() {
  const [user, t] = await Promise.all([currentUser(), getTranslations("logout")]);
  return (
    <div className="narrow">
      <div className="card">
        <h1>{t("title")}</h1>
        {user ? (
          <>
            <p>{t.rich("loggedInAs", { username: user.username, b: (chunks) => <strong>{chunks}</strong> })}</p>
            <LogoutButton />
          </>
        ) : (
          <p>
            {t.rich("notLoggedIn", { login: (chunks) => <Link href="/accounts/login/">{chunks}</Link>, map: (chunks) => <Link href="/">{chunks}</Link> })}
          </p>
        )}
      </div>
    </div>
  );
}
