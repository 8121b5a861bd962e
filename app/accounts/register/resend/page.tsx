import type { Metadata } from "next";
import { notFound } from "next/navigation";
import ResendForm from "@/components/accounts/ResendForm";
import { settings } from "@/lib/config";

export const metadata: Metadata = { title: "Send the activation link again" };
export const dynamic = "force-dynamic";

/** `{site}/accounts/register/resend/` (public.md §1). */
export default function ResendPage() {
  if (!settings().registrationOpen) notFound();
  return (
    <div className="narrow">
      <div className="card">
        <h1>Send the activation link again</h1>
        <p>Enter the e-mail address you registered with; a new link, valid for {settings().activationDays} days, will be sent to it.</p>
        <ResendForm />
      </div>
    </div>
  );
}
