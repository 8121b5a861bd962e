import type { Metadata } from "next";
import { headers } from "next/headers";
import Link from "next/link";
import { getTranslations } from "next-intl/server";
import LoginForm from "@/components/accounts/LoginForm";
import { loginErrorMessage } from "@/components/accounts/loginMessages";
import { settings } from "@/lib/config";
import { currentUser } from "@/lib/site/current-user";
import { safeNextPath } from "@/lib/site/paths";

export async function generateMetadata(): Promise<Metadata> {
  return { title: (await getTranslations("login"))("title") };
}

type SearchParams = Promise<Record<string, string | string[] | undefined>>;
const one = (v: string | string[] | undefined) => (Array.isArray(v) ? v[0] : v) ?? "";

/** Only a path of this site; an absolute callbackUrl of next-auth is reduced to its path when it is ours. */
function nextPath(value: string, host: string | null): string {
  if (!value) return "/";
  if (/^https?:\/\//i.test(value)) {
    try {
      const url = new URL(value);
      if (!host || url.host !== host) return "/";
      return url.pathname + url.search + url.hash;
    } catch {
      return "/";
    }
  }
  // The same rule as the form's redirect: a browser drops tabs and line breaks from a link, so "/\t/evil.example" leads off-site.
  return safeNextPath(value);
}

/** `{site}/accounts/login/` (api.md §16). */
export default async function LoginPage({ searchParams }: { searchParams: SearchParams }) {
  const sp = await searchParams;
  const host = (await headers()).get("host");
  const next = nextPath(one(sp.next) || one(sp.callbackUrl), host);
  const [user, t] = await Promise.all([currentUser(), getTranslations("login")]);
  return (
    <div className="narrow">
      <div className="card">
        <h1>{t("title")}</h1>
        {user && (
          <p className="message">
            {t.rich("loggedInAs", { username: user.username, b: (chunks) => <strong>{chunks}</strong>, link: (chunks) => <Link href={next}>{chunks}</Link> })}
          </p>
        )}
        <LoginForm next={next} registrationOpen={settings().registrationOpen}
          initialError={loginErrorMessage(one(sp.error) || null, (key, values) => t(key, values), settings().registrationOpen)} />
        <p className="form-footer">
          <Link href="/accounts/password/reset/">{t("forgot")}</Link>
          {settings().registrationOpen && <> · <Link href="/accounts/register/">{t("register")}</Link></>}
        </p>
      </div>
    </div>
  );
}
