"use client";

import Link from "next/link";
import { useTranslations } from "next-intl";
import { useActionState } from "react";
import { registerAccount, type RegisterState } from "@/app/accounts/register/actions";
import CaptchaField from "@/components/accounts/CaptchaField";
import FieldErrors from "@/components/accounts/FieldErrors";
import type { CaptchaChallenge } from "@/lib/auth/captcha";
import { useHydrated } from "@/components/site/useHydrated";

/** `{site}/accounts/register/`'s form (public.md §1); the server action checks everything again. */
export default function RegisterForm({ challenge }: { challenge: CaptchaChallenge }) {
  const [state, action, pending] = useActionState<RegisterState, FormData>(registerAccount, { errors: {}, values: { username: "", email: "" }, sent: false, challenge });
  const live = useHydrated();
  const t = useTranslations("register");
  if (state.sent) {
    return (
      <div className="message success" role="status">
        <p><strong>{t("checkEmail")}</strong></p>
        <p>{t.rich("sent", { email: state.values.email, b: (chunks) => <strong>{chunks}</strong> })}</p>
      </div>
    );
  }
  const e = state.errors;
  const described = (name: string) => (e[name]?.length ? `${name}-errors` : undefined);
  const formErrors = [...(e.non_field_errors ?? []), ...(e.altcha ?? [])];
  return (
    <form action={action} aria-label={t("formLabel")} className="stacked-form" noValidate data-client="" data-hydrated={live || undefined}>
      {formErrors.length > 0 && (
        <div className="form-errors" role="alert">
          {formErrors.map((m) => <p key={m}>{m}</p>)}
        </div>
      )}
      <label htmlFor="register-username">{t("username")}</label>
      <input id="register-username" name="username" type="text" autoComplete="username" autoCapitalize="none" spellCheck={false} required maxLength={150}
        defaultValue={state.values.username} aria-invalid={!!e.username} aria-describedby={described("username")} />
      <FieldErrors id="username-errors" errors={e.username} />
      <label htmlFor="register-email">{t("email")}</label>
      <input id="register-email" name="email" type="email" autoComplete="email" required maxLength={254}
        defaultValue={state.values.email} aria-invalid={!!e.email} aria-describedby={described("email")} />
      <FieldErrors id="email-errors" errors={e.email} />
      <label htmlFor="register-password1">{t("password")}</label>
      <input id="register-password1" name="password1" type="password" autoComplete="new-password" required aria-invalid={!!e.password1} aria-describedby={described("password1")} />
      <FieldErrors id="password1-errors" errors={e.password1} />
      <label htmlFor="register-password2">{t("passwordAgain")}</label>
      <input id="register-password2" name="password2" type="password" autoComplete="new-password" required aria-invalid={!!e.password2} aria-describedby={described("password2")} />
      <FieldErrors id="password2-errors" errors={e.password2} />
      <p className="help">{t("passwordHelp")}</p>
      <label className="checkbox">
        <input name="accept_terms" type="checkbox" value="true" aria-invalid={!!e.accept_terms} aria-describedby={described("accept_terms")} />
        {" "}{t.rich("acceptTerms", { link: (chunks) => <Link href="/accounts/terms/" target="_blank">{chunks}</Link> })}
      </label>
      <FieldErrors id="accept_terms-errors" errors={e.accept_terms} />
      <CaptchaField challenge={state.challenge ?? challenge} />
      <button type="submit" disabled={pending}>{pending ? t("submitting") : t("submit")}</button>
    </form>
  );
}
