"use client";

import { useTranslations } from "next-intl";
import { useActionState } from "react";
import type { FormState } from "@/app/accounts/profile/actions";
import { updatePassword, updateProfile } from "@/app/accounts/profile/actions";
import FieldErrors from "@/components/accounts/FieldErrors";
import { useHydrated } from "@/components/site/useHydrated";

const EMPTY: FormState = { errors: {}, message: null };

function Status({ state }: { state: FormState }) {
  const t = useTranslations("profile");
  if (state.errors.form) return <div className="form-errors" role="alert"><p>{state.errors.form.join(" ")}</p></div>;
  if (state.message) return <p className="message success" role="status">{state.message}</p>;
  if (Object.keys(state.errors).length) return <p className="form-errors" role="alert">{t("correct")}</p>;
  return null;
}

function describedBy(state: FormState, field: string, help?: string) {
  const ids = [help, state.errors[field]?.length ? `${field}-errors` : undefined].filter(Boolean);
  return ids.length ? ids.join(" ") : undefined;
}

export function ProfileForm({ username, firstName, lastName, token }: { username: string; firstName: string; lastName: string; token: string }) {
  const [state, action, pending] = useActionState(updateProfile, EMPTY);
  const live = useHydrated();
  const t = useTranslations("profile");
  const v = state.values ?? { username, first_name: firstName, last_name: lastName };
  return (
    <form action={action} className="stacked-form" key={JSON.stringify(v)} data-client="" data-hydrated={live || undefined}>
      <Status state={state} />
      <input type="hidden" name="csrfmiddlewaretoken" value={token} />
      <label htmlFor="profile-username">{t("username")}</label>
      <input id="profile-username" name="username" defaultValue={v.username} required maxLength={150} autoComplete="username"
        aria-invalid={!!state.errors.username} aria-describedby={describedBy(state, "username", "username-help")} />
      <p className="help" id="username-help">{t("usernameHelp")}</p>
      <FieldErrors id="username-errors" errors={state.errors.username} />
      <label htmlFor="profile-first-name">{t("firstName")}</label>
      <input id="profile-first-name" name="first_name" defaultValue={v.first_name} maxLength={150} autoComplete="given-name"
        aria-invalid={!!state.errors.first_name} aria-describedby={describedBy(state, "first_name")} />
      <FieldErrors id="first_name-errors" errors={state.errors.first_name} />
      <label htmlFor="profile-last-name">{t("lastName")}</label>
      <input id="profile-last-name" name="last_name" defaultValue={v.last_name} maxLength={150} autoComplete="family-name"
        aria-invalid={!!state.errors.last_name} aria-describedby={describedBy(state, "last_name")} />
      <FieldErrors id="last_name-errors" errors={state.errors.last_name} />
      <button type="submit" disabled={pending}>{pending ? t("saving") : t("save")}</button>
    </form>
  );
}

export function PasswordForm({ token }: { token: string }) {
  const [state, action, pending] = useActionState(updatePassword, EMPTY);
  const live = useHydrated();
  const t = useTranslations("profile");
  return (
    <form action={action} className="stacked-form" data-client="" data-hydrated={live || undefined}>
      <Status state={state} />
      <input type="hidden" name="csrfmiddlewaretoken" value={token} />
      <label htmlFor="old-password">{t("currentPassword")}</label>
      <input id="old-password" name="old_password" type="password" autoComplete="current-password" required
        aria-invalid={!!state.errors.old_password} aria-describedby={describedBy(state, "old_password")} />
      <FieldErrors id="old_password-errors" errors={state.errors.old_password} />
      <label htmlFor="new-password1">{t("newPassword")}</label>
      <input id="new-password1" name="new_password1" type="password" autoComplete="new-password" required
        aria-invalid={!!state.errors.new_password1} aria-describedby={describedBy(state, "new_password1", "password-help")} />
      <p className="help" id="password-help">{t("passwordHelp")}</p>
      <FieldErrors id="new_password1-errors" errors={state.errors.new_password1} />
      <label htmlFor="new-password2">{t("newPasswordAgain")}</label>
      <input id="new-password2" name="new_password2" type="password" autoComplete="new-password" required
        aria-invalid={!!state.errors.new_password2} aria-describedby={describedBy(state, "new_password2")} />
      <FieldErrors id="new_password2-errors" errors={state.errors.new_password2} />
      <button type="submit" disabled={pending}>{pending ? t("changing") : t("changePassword")}</button>
    </form>
  );
}
