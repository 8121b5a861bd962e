import type { Metadata } from "next";
import Link from "next/link";
import { notFound } from "next/navigation";
import { activate } from "@/lib/accounts";
import { settings } from "@/lib/config";

export const metadata: Metadata = { title: "Account activation", referrer: "no-referrer" };
export const dynamic = "force-dynamic";

/** The link of the activation e-mail (public.md §1): valid once, for ENHYDRIS_ACTIVATION_DAYS. */
export default async function ActivatePage({ params }: { params: Promise<{ uid: string; token: string }> }) {
  if (!settings().registrationOpen) notFound();
  const { uid, token } = await params;
  const outcome = await activate(uid, token);
  return (
    <div className="narrow">
      <div className="card">
        {outcome === "activated" ? (
          <>
            <h1>Your account is active</h1>
            <p>You may now log in.</p>
            <p><Link className="button" href="/accounts/login/">Log in</Link></p>
          </>
        ) : outcome === "expired" ? (
          <>
            <h1>This activation link has expired</h1>
            <p>Have a new link sent to you: <Link href="/accounts/register/resend/">send the activation link again</Link>.</p>
          </>
        ) : (
          <>
            <h1>This activation link is invalid</h1>
            <p>It has already been used, or it is not a link we sent. If your account is active, <Link href="/accounts/login/">log in</Link>; otherwise <Link href="/accounts/register/resend/">have a new link sent</Link>.</p>
          </>
        )}
      </div>
    </div>
  );
}
