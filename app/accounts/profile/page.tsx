import type { Metadata } from "next";
import { redirect } from "next/navigation";
import { PasswordForm, ProfileForm } from "@/components/accounts/ProfileForms";
import { currentUser } from "@/lib/site/current-user";

export const metadata: Metadata = { title: "Your profile" };

/** `{site}/accounts/profile/` (api.md §16): login required. */
export default async function ProfilePage() {
  const user = await currentUser();
  if (!user) redirect(`/accounts/login/?next=${encodeURIComponent("/accounts/profile/")}`);
  return (
    <div className="page narrow-wide">
      <header className="page-header">
        <h1>Your profile</h1>
      </header>
      <div className="two-columns">
        <section className="card" aria-labelledby="account-heading">
          <h2 id="account-heading">Account</h2>
          <dl className="details">
            <div><dt>Username</dt><dd>{user.username}</dd></div>
            <div><dt>E-mail</dt><dd>{user.email || <span className="muted">—</span>}</dd></div>
            <div><dt>First name</dt><dd>{user.firstName || <span className="muted">—</span>}</dd></div>
            <div><dt>Last name</dt><dd>{user.lastName || <span className="muted">—</span>}</dd></div>
          </dl>
          <h3>Edit</h3>
          <ProfileForm username={user.username} firstName={user.firstName} lastName={user.lastName} />
        </section>
        <section className="card" aria-labelledby="password-heading">
          <h2 id="password-heading">Change password</h2>
          <PasswordForm />
        </section>
      </div>
    </div>
  );
}
