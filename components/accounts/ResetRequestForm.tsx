"use client";

import { useTranslations } from "next-intl";
import { useActionState } from "react";
import { requestReset, type ResetState } from "@/app/accounts/password/reset/actions";
import FieldErrors from "@/components/accounts/FieldErrors";
import { useHydrated } from "@/components/site/useHydrated";

const START: ResetState = { error: null, sent: false, email: "" };

export default function ResetRequestForm() {
  const [state, action, pending] = useActionState(requestReset, START);
  const live = useHydrated();
  const t = useTranslations("reset");
  if (state.sent) {
    return (
      <div className="message success" role="status">
        <p><strong>{t("sentTitle")}</strong></p>
        <p>{t.rich("sent", { email: state.email, b: (chunks) => <strong>{chunks}</strong> })}</p>
      </div>
    );
  }
  return (
    <form action={action} className="stacked-form" noValidate data-client="" data-hydrated={live || undefined}>
      <label htmlFor="reset-email">{t("email")}</label>
      <input id="reset-email" name="email" type="email" autoComplete="email" required defaultValue={state.email}
        aria-invalid={!!state.error} aria-describedby={state.error ? "email-errors" : undefined} />
      <FieldErrors id="email-errors" errors={state.error ? [state.error] : undefined} />
      <button type="submit" disabled={pending}>{pending ? t("sending") : t("submit")}</button>
    </form>
  );
}
