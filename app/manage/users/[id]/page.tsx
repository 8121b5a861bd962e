import type { Metadata } from "next";
import { mailPasswordReset, saveUser } from "@/app/manage/actions/users";
import ManagedForm from "@/components/manage/Form";
import { Done, ManageHeader, Section } from "@/components/manage/parts";
import UserFields from "@/components/manage/UserFields";
import { userForAdmin } from "@/lib/accounts";
import { formToken } from "@/lib/site/form-token";
import { guarded, superuserPageMetadata, userValues } from "@/lib/manage";
import { managePaths } from "@/lib/site/manage-paths";
import { pathId } from "@/lib/frontend";

export function generateMetadata(): Promise<Metadata> {
  return superuserPageMetadata("Edit user");
}

type Search = Promise<Record<string, string | string[] | undefined>>;

/** `{site}/manage/users/{id}/` (management.md §2): a user's names, e-mail and rights, and a password-reset e-mail. */
export default async function UserPage({ params, searchParams }: { params: Promise<{ id: string }>; searchParams: Search }) {
  const [{ id: idText }, query] = await Promise.all([params, searchParams]);
  const id = pathId(idText) ?? 0;
  const { user, data } = await guarded(`/manage/users/${idText}/`, (u) => userForAdmin(u, id));
  const token = formToken(user.sessionId);
  return (
    <div className="page manage narrow-wide">
      <ManageHeader crumbs={[{ label: "Users", href: managePaths.users }, { label: data.username }]} title={data.username}
        lead={`Joined ${data.dateJoined.toISOString().slice(0, 10)} · last login ${data.lastLogin ? data.lastLogin.toISOString().slice(0, 16).replace("T", " ") + " UTC" : "never"}`} />
      <Done code={query.done} />
      <Section id="edit" title="Account">
        <ManagedForm action={saveUser.bind(null, id)} initial={userValues(data)} token={token} submit="Save user" label="User">
          <UserFields />
        </ManagedForm>
      </Section>
      <Section id="password" title="Password">
        <p>Passwords are never shown or set here. A password-reset e-mail lets the user choose a new one{data.email ? <> (to <strong>{data.email}</strong>)</> : ""}.</p>
        <ManagedForm action={mailPasswordReset.bind(null, id)} initial={{}} token={token} submit="Send a password-reset e-mail" label="Password reset" />
      </Section>
    </div>
  );
}
