"use client";

import { useActionState } from "react";
import { requestReset, type ResetState } from "@/app/accounts/password/reset/actions";
import FieldErrors from "@/components/accounts/FieldErrors";
import { useHydrated } from "@/components/site/useHydrated";

const START: ResetState = { error: null, sent: false, email: "" };

export default function ResetRequestForm() {
  const [state, action, pending] = useActionState(requestReset, START);
  const live = useHydrated();
  if (state.sent) {
    return (
      <div className="message success" role="status">
        <p><strong>Password reset e-mail has been sent.</strong></p>
        <p>
          If an account uses <strong>{state.email}</strong>, a message with a link to choose a new password is on its way. The link
          works for a limited time. Check your spam folder if nothing arrives.
        </p>
      </div>
    );
  }
  return (
    <form action={action} className="stacked-form" noValidate data-client="" data-hydrated={live || undefined}>
      <label htmlFor="reset-email">E-mail address</label>
      <input id="reset-email" name="email" type="email" autoComplete="email" required defaultValue={state.email}
        aria-invalid={!!state.error} aria-describedby={state.error ? "email-errors" : undefined} />
      <FieldErrors id="email-errors" errors={state.error ? [state.error] : undefined} />
      <button type="submit" disabled={pending}>{pending ? "Sending…" : "Send me a reset link"}</button>
    </form>
  );
}
