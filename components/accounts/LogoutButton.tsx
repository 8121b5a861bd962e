"use client";

import { useTranslations } from "next-intl";
import { useState } from "react";
import { signOut } from "@/components/accounts/nextauth-client";

export default function LogoutButton() {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const t = useTranslations("logout");
  async function logout() {
    setBusy(true);
    setError(null);
    try {
      await signOut();
      // A full load, so that every part of the page shows that nobody is logged in; the map page says so.
      // eslint-disable-next-line @next/next/no-location-assign-relative-destination
      window.location.assign("/?logged_out=1");
    } catch {
      setError(t("failed"));
      setBusy(false);
    }
  }
  return (
    <>
      {error && <p className="form-errors" role="alert">{error}</p>}
      <button type="button" className="button" onClick={logout} disabled={busy}>
        {busy ? t("submitting") : t("submit")}
      </button>
    </>
  );
}
