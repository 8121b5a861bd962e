"use client";

import { useTranslations } from "next-intl";
import { useActionState, useState, type FormEvent } from "react";
import { logInWithoutScript } from "@/app/accounts/login/actions";
import { signInWithCredentials } from "@/components/accounts/nextauth-client";
import { loginErrorMessage } from "@/components/accounts/loginMessages";
import { safeNextPath } from "@/lib/site/paths";
import { useHydrated } from "@/components/site/useHydrated";

/**
 * With JavaScript the form logs in through next-auth (and stays on the page on a refusal); without
 * it, the browser posts it to a server action that does the same (app/accounts/login/actions.ts).
 */
export default function LoginForm({ next, initialError, registrationOpen }: { next: string; initialError: string | null; registrationOpen: boolean }) {
  // The server action's outcome (a refusal without JavaScript), then the script's own.
  const [posted, postAction] = useActionState(logInWithoutScript, { error: initialError, username: "" });
  const [scriptError, setError] = useState<string | null | undefined>(undefined);
  const error = scriptError === undefined ? posted.error : scriptError;
  const [busy, setBusy] = useState(false);
  const live = useHydrated();
  const t = useTranslations("login");

  async function submit(e: FormEvent<HTMLFormElement>) {
    e.preventDefault();
    const form = new FormData(e.currentTarget);
    setBusy(true);
    setError(null);
    try {
      const target = safeNextPath(next);
      const code = await signInWithCredentials(String(form.get("username") ?? "").trim(), String(form.get("password") ?? ""), `${window.location.origin}${target}`);
      if (code) {
        setError(loginErrorMessage(code, (key, values) => t(key, values), registrationOpen));
        setBusy(false);
        return;
      }
      // A full load, so that every part of the page shows the new login state.
      window.location.assign(target);
    } catch {
      setError(t("unreachable"));
      setBusy(false);
    }
  }

  return (
    <form className="stacked-form" onSubmit={submit} action={postAction} data-client="" data-hydrated={live || undefined}>
      <input type="hidden" name="next" value={next} />
      {error && (
        <div className="form-errors" role="alert">
          <p>{error}</p>
          {registrationOpen && error === t("notActivated") && <p><a href="/accounts/register/resend/">{t("resendLink")}</a></p>}
        </div>
      )}
      <label htmlFor="login-username">{t("username")}</label>
      <input id="login-username" name="username" type="text" defaultValue={posted.username} autoComplete="username" autoCapitalize="none" spellCheck={false} required autoFocus />
      <label htmlFor="login-password">{t("password")}</label>
      <input id="login-password" name="password" type="password" autoComplete="current-password" required />
      <button type="submit" disabled={busy}>{busy ? t("submitting") : t("submit")}</button>
    </form>
  );
}
