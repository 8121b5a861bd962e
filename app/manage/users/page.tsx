import type { Metadata } from "next";
import Link from "next/link";
import { getTranslations } from "next-intl/server";
import { addUser } from "@/app/manage/actions/users";
import ManagedForm from "@/components/manage/Form";
import { Done, ManageHeader, Pager, pageNumber, Section, Table } from "@/components/manage/parts";
import UserFields from "@/components/manage/UserFields";
import { searchUsers } from "@/lib/accounts";
import { formToken } from "@/lib/site/form-token";
import { guarded, superuserPageMetadata } from "@/lib/manage";
import { managePaths } from "@/lib/site/manage-paths";

export async function generateMetadata(): Promise<Metadata> {
  return superuserPageMetadata((await getTranslations("manageUsers"))("title"));
}

type Search = Promise<Record<string, string | string[] | undefined>>;

const PAGE_SIZE = 50;

/** `{site}/manage/users/` (management.md §2): users (search, paged) and a new user's form, for superusers. */
export default async function UsersPage({ searchParams }: { searchParams: Search }) {
  const query = await searchParams;
  const q = typeof query.q === "string" ? query.q : "";
  const page = pageNumber(query.page);
  const { user, data } = await guarded("/manage/users/", (u) => searchUsers(u, q, (page - 1) * PAGE_SIZE, PAGE_SIZE));
  const t = await getTranslations("manageUsers");
  return (
    <div className="page manage">
      <ManageHeader crumbs={[{ label: t("title") }]} title={t("title")} lead={t(q ? "countMatch" : "count", { count: data.count })} />
      <Done code={query.done} />
      <div className="manage-columns">
        <Section id="users" title={t("title")}>
          <form className="inline-search" role="search" method="get" action={managePaths.users}>
            <label htmlFor="users-q">{t("searchLabel")}</label>
            <div className="inline-search-row">
              <input id="users-q" type="search" name="q" defaultValue={q} />
              <button type="submit" className="secondary">{t("search")}</button>
            </div>
          </form>
          {data.users.length ? (
            <Table columns={[t("username"), t("name"), t("email"), t("rights")]}>
              {data.users.map((u) => (
                <tr key={u.id}>
                  <th scope="row"><Link href={managePaths.user(u.id)}>{u.username}</Link></th>
                  <td data-label={t("name")}>{`${u.firstName} ${u.lastName}`.trim() || "—"}</td>
                  <td data-label={t("email")}>{u.email || "—"}</td>
                  {/* One child: at a phone's width the cell is a grid of its label and its value, so the badges stay together. */}
                  <td data-label={t("rights")}>
                    {u.isActive && !u.isSuperuser && !u.canAddStations ? "—" : (
                      <span>
                        {!u.isActive && <span className="badge">{t("inactive")}</span>}{" "}
                        {u.isSuperuser && <span className="badge">{t("superuser")}</span>}{" "}
                        {u.canAddStations && <span className="badge">{t("addsStations")}</span>}
                      </span>
                    )}
                  </td>
                </tr>
              ))}
            </Table>
          ) : <p className="muted">{t("noMatch")}</p>}
          <Pager page={page} pages={Math.ceil(data.count / PAGE_SIZE)} params={q ? { q } : {}} path={managePaths.users} />
        </Section>
        <Section id="add" title={t("addTitle")}>
          <p className="muted small">{t("noPassword")}</p>
          <ManagedForm action={addUser} initial={{ is_active: "true", is_superuser: "false", can_add_stations: "false" }} token={formToken(user.sessionId)}
            submit={t("addSubmit")} label={t("newUser")}>
            <UserFields />
          </ManagedForm>
        </Section>
      </div>
    </div>
  );
}
