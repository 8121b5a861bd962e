import type { Metadata } from "next";
import { redirect } from "next/navigation";
import { getTranslations } from "next-intl/server";
import { PasswordForm, ProfileForm } from "@/components/accounts/ProfileForms";
import { LOCALE_NAMES, LOCALES } from "@/lib/i18n";
import { LANGUAGE_PATH } from "@/lib/site/chrome";
import { currentUser } from "@/lib/site/current-user";
import { formToken } from "@/lib/site/form-token";

export async function generateMetadata(): Promise<Metadata> {
  return { title: (await getTranslations("profile"))("title") };
}

/** `{site}/accounts/profile/` (api.md §16): login required. */
export default async function ProfilePage() {
  const user = await currentUser();
  if (!user) redirect(`/accounts/login/?next=${encodeURIComponent("/accounts/profile/")}`);
  const t = await getTranslations("profile");
  // The management forms' token (lib/site/form-token.ts): a form posted from elsewhere does nothing.
  const token = formToken(user.sessionId);
  return (
    <div className="page narrow-wide">
      <header className="page-header">
        <h1>{t("title")}</h1>
      </header>
      <div className="two-columns">
        <section className="card" aria-labelledby="account-heading">
          <h2 id="account-heading">{t("account")}</h2>
          <dl className="details">
            <div><dt>{t("username")}</dt><dd>{user.username}</dd></div>
            <div><dt>{t("email")}</dt><dd>{user.email || <span className="muted">—</span>}</dd></div>
            <div><dt>{t("firstName")}</dt><dd>{user.firstName || <span className="muted">—</span>}</dd></div>
            <div><dt>{t("lastName")}</dt><dd>{user.lastName || <span className="muted">—</span>}</dd></div>
          </dl>
          <h3>{t("edit")}</h3>
          <ProfileForm username={user.username} firstName={user.firstName} lastName={user.lastName} token={token} />
        </section>
        <section className="card" aria-labelledby="password-heading">
          <h2 id="password-heading">{t("changePassword")}</h2>
          <PasswordForm token={token} />
        </section>
        <section className="card" aria-labelledby="language-heading">
          <h2 id="language-heading">{t("language")}</h2>
          {/* The account's language (public.md §3): the footer switcher's route, without scripts. */}
          <form method="post" action={LANGUAGE_PATH} className="stacked-form">
            <input type="hidden" name="next" value="/accounts/profile/" />
            <label htmlFor="profile-language">{t("language")}</label>
            <select id="profile-language" name="language" defaultValue={user.language} aria-describedby="language-help">
              <option value="">{t("languageAuto")}</option>
              {LOCALES.map((code) => <option key={code} value={code} lang={code}>{LOCALE_NAMES[code]}</option>)}
            </select>
            <p className="help" id="language-help">{t("languageHelp")}</p>
            <button type="submit">{t("saveLanguage")}</button>
          </form>
        </section>
      </div>
    </div>
  );
}
