"use client";

import { useState } from "react";
import { signOut } from "@/components/accounts/nextauth-client";

export default function LogoutButton() {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  async function logout() {
    setBusy(true);
    setError(null);
    try {
      await signOut();
      // A full load, so that every part of the page shows that nobody is logged in; the map page says so.
      // eslint-disable-next-line @next/next/no-location-assign-relative-destination
      window.location.assign("/?logged_out=1");
    } catch {
      setError("Logging out failed. Please try again.");
      setBusy(false);
    }
  }
  return (
    <>
      {error && <p className="form-errors" role="alert">{error}</p>}
      <button type="button" className="button" onClick={logout} disabled={busy}>
        {busy ? "Logging out…" : "Log out"}
      </button>
    </>
  );
}
