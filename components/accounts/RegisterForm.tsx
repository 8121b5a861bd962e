"use client";

import Link from "next/link";
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
  if (state.sent) {
    return (
      <div className="message success" role="status">
        <p><strong>Check your e-mail.</strong></p>
        <p>
          We sent a message to <strong>{state.values.email}</strong>. If the registration went through, it holds the link that
          activates your account; if the address already has an account, it says so. Check your spam folder if nothing arrives.
        </p>
      </div>
    );
  }
  const e = state.errors;
  const described = (name: string) => (e[name]?.length ? `${name}-errors` : undefined);
  const formErrors = [...(e.non_field_errors ?? []), ...(e.altcha ?? [])];
  return (
    <form action={action} aria-label="Register" className="stacked-form" noValidate data-client="" data-hydrated={live || undefined}>
      {formErrors.length > 0 && (
        <div className="form-errors" role="alert">
          {formErrors.map((m) => <p key={m}>{m}</p>)}
        </div>
      )}
      <label htmlFor="register-username">Username</label>
      <input id="register-username" name="username" type="text" autoComplete="username" autoCapitalize="none" spellCheck={false} required maxLength={150}
        defaultValue={state.values.username} aria-invalid={!!e.username} aria-describedby={described("username")} />
      <FieldErrors id="username-errors" errors={e.username} />
      <label htmlFor="register-email">E-mail address</label>
      <input id="register-email" name="email" type="email" autoComplete="email" required maxLength={254}
        defaultValue={state.values.email} aria-invalid={!!e.email} aria-describedby={described("email")} />
      <FieldErrors id="email-errors" errors={e.email} />
      <label htmlFor="register-password1">Password</label>
      <input id="register-password1" name="password1" type="password" autoComplete="new-password" required aria-invalid={!!e.password1} aria-describedby={described("password1")} />
      <FieldErrors id="password1-errors" errors={e.password1} />
      <label htmlFor="register-password2">Password again</label>
      <input id="register-password2" name="password2" type="password" autoComplete="new-password" required aria-invalid={!!e.password2} aria-describedby={described("password2")} />
      <FieldErrors id="password2-errors" errors={e.password2} />
      <p className="help">At least 8 characters, not entirely numeric, and not your username.</p>
      <label className="checkbox">
        <input name="accept_terms" type="checkbox" value="true" aria-invalid={!!e.accept_terms} aria-describedby={described("accept_terms")} />
        {" "}I accept the <Link href="/accounts/terms/" target="_blank">terms of use</Link>
      </label>
      <FieldErrors id="accept_terms-errors" errors={e.accept_terms} />
      <CaptchaField challenge={state.challenge ?? challenge} />
      <button type="submit" disabled={pending}>{pending ? "Registering…" : "Register"}</button>
    </form>
  );
}
