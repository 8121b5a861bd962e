import type { Metadata } from "next";
import Link from "next/link";
import { notFound } from "next/navigation";
import RegisterForm from "@/components/accounts/RegisterForm";
import { newChallenge } from "@/lib/auth/captcha";
import { settings } from "@/lib/config";

export const metadata: Metadata = { title: "Register" };
export const dynamic = "force-dynamic";

/** `{site}/accounts/register/` (public.md §1): 404 unless ENHYDRIS_REGISTRATION_OPEN. */
export default async function RegisterPage() {
  if (!settings().registrationOpen) notFound();
  return (
    <div className="narrow">
      <div className="card">
        <h1>Register</h1>
        <p>An account lets you ask for access to protected data{settings().usersCanAddContent ? " and add stations of your own" : ""}.</p>
        <RegisterForm challenge={await newChallenge()} />
        <p className="form-footer">
          Already registered? <Link href="/accounts/login/">Log in</Link>
        </p>
      </div>
    </div>
  );
}
