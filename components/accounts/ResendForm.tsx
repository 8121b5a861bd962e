"use client";

import { useTranslations } from "next-intl";
import { useActionState } from "react";
import { resendLink, type ResendState } from "@/app/accounts/register/actions";
import FieldErrors from "@/components/accounts/FieldErrors";
import { useHydrated } from "@/components/site/useHydrated";

const START: ResendState = { error: null, sent: false, email: "" };

/** `{site}/accounts/register/resend/`'s form: a new activation link (public.md §1). */
export default function ResendForm() {
  const [state, action, pending] = useActionState(resendLink, START);
  const live = useHydrated();
  const t = useTranslations("resend");
  if (state.sent) {
    return (
      <div className="message success" role="status">
        <p>{t.rich("sent", { email: state.email, b: (chunks) => <strong>{chunks}</strong> })}</p>
      </div>
    );
  }
  return (
    <form action={action} aria-label={t("title")} className="stacked-form" noValidate data-client="" data-hydrated={live || undefined}>
      <label htmlFor="resend-email">{t("email")}</label>
      <input id="resend-email" name="email" type="email" autoComplete="email" required defaultValue={state.email}
        aria-invalid={!!state.error} aria-describedby={state.error ? "email-errors" : undefined} />
      <FieldErrors id="email-errors" errors={state.error ? [state.error] : undefined} />
      <button type="submit" disabled={pending}>{pending ? t("sending") : t("submit")}</button>
    </form>
  );
}
