import type { Metadata } from "next";
import Link from "next/link";
import LogoutButton from "@/components/accounts/LogoutButton";
import { currentUser } from "@/lib/site/current-user";

export const metadata: Metadata = { title: "Log out" };

/** `{site}/accounts/logout/`: a button that logs out by POST (api.md §16). */
export default async function LogoutPage() {
  const user = await currentUser();
  return (
    <div className="narrow">
      <div className="card">
        <h1>Log out</h1>
        {user ? (
          <>
            <p>
              You are logged in as <strong>{user.username}</strong>. Logging out ends your sessions on this site, in every browser.
            </p>
            <LogoutButton />
          </>
        ) : (
          <p>
            You are not logged in. <Link href="/accounts/login/">Log in</Link> or <Link href="/">go to the station map</Link>.
          </p>
        )}
      </div>
    </div>
  );
}
