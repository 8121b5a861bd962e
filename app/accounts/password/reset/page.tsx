import type { Metadata } from "next";
import Link from "next/link";
import ResetRequestForm from "@/components/accounts/ResetRequestForm";

export const metadata: Metadata = { title: "Reset your password" };

/** `{site}/accounts/password/reset/` (api.md §16). */
export default function PasswordResetPage() {
  return (
    <div className="narrow">
      <div className="card">
        <h1>Reset your password</h1>
        <p>Enter the e-mail address of your account and we will send you a link to choose a new password.</p>
        <ResetRequestForm />
        <p className="form-footer">
          <Link href="/accounts/login/">Back to the login page</Link>
        </p>
      </div>
    </div>
  );
}
