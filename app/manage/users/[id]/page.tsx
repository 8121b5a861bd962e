import type { Metadata } from "next";
import { getTranslations } from "next-intl/server";
import { mailPasswordReset, saveUser } from "@/app/manage/actions/users";
import ManagedForm from "@/components/manage/Form";
import { Done, ManageHeader, Section } from "@/components/manage/parts";
import UserFields from "@/components/manage/UserFields";
import { userForAdmin } from "@/lib/accounts";
import { formToken } from "@/lib/site/form-token";
import { guarded, superuserPageMetadata, userValues } from "@/lib/manage";
import { managePaths } from "@/lib/site/manage-paths";
import { pathId } from "@/lib/frontend";

export async function generateMetadata(): Promise<Metadata> {
  return superuserPageMetadata((await getTranslations("manageUsers"))("editTitle"));
}

type Search = Promise<Record<string, string | string[] | undefined>>;

/** `{site}/manage/users/{id}/` (management.md §2): a user's names, e-mail and rights, and a password-reset e-mail. */
export default async function UserPage({ params, searchParams }: { params: Promise<{ id: string }>; searchParams: Search }) {
  const [{ id: idText }, query] = await Promise.all([params, searchParams]);
  const id = pathId(idText) ?? 0;
  const { user, data } = await guarded(`/manage/users/${idText}/`, (u) => userForAdmin(u, id));
  const token = formToken(user.sessionId);
  const t = await getTranslations("manageUsers");
  return (
    <div className="page manage narrow-wide">
      <ManageHeader crumbs={[{ label: t("title"), href: managePaths.users }, { label: data.username }]} title={data.username}
        lead={t("joined", { date: data.dateJoined.toISOString().slice(0, 10), last: data.lastLogin ? data.lastLogin.toISOString().slice(0, 16).replace("T", " ") + " UTC" : t("never") })} />
      <Done code={query.done} />
      <Section id="edit" title={t("account")}>
        <ManagedForm action={saveUser.bind(null, id)} initial={userValues(data)} token={token} submit={t("saveUser")} label={t("user")}>
          <UserFields />
        </ManagedForm>
      </Section>
      <Section id="password" title={t("password")}>
        <p>{data.email ? t.rich("passwordTextTo", { email: data.email, strong: (chunks) => <strong>{chunks}</strong> }) : t("passwordText")}</p>
        <ManagedForm action={mailPasswordReset.bind(null, id)} initial={{}} token={token} submit={t("sendReset")} label={t("resetLabel")} />
      </Section>
    </div>
  );
}
