import type { Metadata } from "next";
import Link from "next/link";
import { addUser } from "@/app/manage/actions/users";
import ManagedForm from "@/components/manage/Form";
import { Done, ManageHeader, Pager, pageNumber, Section, Table } from "@/components/manage/parts";
import UserFields from "@/components/manage/UserFields";
import { searchUsers } from "@/lib/accounts";
import { formToken } from "@/lib/site/form-token";
import { guarded, superuserPageMetadata } from "@/lib/manage";
import { managePaths } from "@/lib/site/manage-paths";
import { countText } from "@/lib/site/numbers";

export function generateMetadata(): Promise<Metadata> {
  return superuserPageMetadata("Users");
}

type Search = Promise<Record<string, string | string[] | undefined>>;

const PAGE_SIZE = 50;

/** `{site}/manage/users/` (management.md §2): users (search, paged) and a new user's form, for superusers. */
export default async function UsersPage({ searchParams }: { searchParams: Search }) {
  const query = await searchParams;
  const q = typeof query.q === "string" ? query.q : "";
  const page = pageNumber(query.page);
  const { user, data } = await guarded("/manage/users/", (u) => searchUsers(u, q, (page - 1) * PAGE_SIZE, PAGE_SIZE));
  return (
    <div className="page manage">
      <ManageHeader crumbs={[{ label: "Users" }]} title="Users" lead={`${countText(data.count, "user", "users")}${q ? " match" : ""}`} />
      <Done code={query.done} />
      <div className="manage-columns">
        <Section id="users" title="Users">
          <form className="inline-search" role="search" method="get" action={managePaths.users}>
            <label htmlFor="users-q">Search by username, e-mail or name</label>
            <div className="inline-search-row">
              <input id="users-q" type="search" name="q" defaultValue={q} />
              <button type="submit" className="secondary">Search</button>
            </div>
          </form>
          {data.users.length ? (
            <Table columns={["Username", "Name", "E-mail", "Rights"]}>
              {data.users.map((u) => (
                <tr key={u.id}>
                  <th scope="row"><Link href={managePaths.user(u.id)}>{u.username}</Link></th>
                  <td data-label="Name">{`${u.firstName} ${u.lastName}`.trim() || "—"}</td>
                  <td data-label="E-mail">{u.email || "—"}</td>
                  {/* One child: at a phone's width the cell is a grid of its label and its value, so the badges stay together. */}
                  <td data-label="Rights">
                    {u.isActive && !u.isSuperuser && !u.canAddStations ? "—" : (
                      <span>
                        {!u.isActive && <span className="badge">inactive</span>}{" "}
                        {u.isSuperuser && <span className="badge">superuser</span>}{" "}
                        {u.canAddStations && <span className="badge">adds stations</span>}
                      </span>
                    )}
                  </td>
                </tr>
              ))}
            </Table>
          ) : <p className="muted">No user matches.</p>}
          <Pager page={page} pages={Math.ceil(data.count / PAGE_SIZE)} params={q ? { q } : {}} path={managePaths.users} />
        </Section>
        <Section id="add" title="Add a user">
          <p className="muted small">The new user has no password: send them a password-reset e-mail from their page, and they choose one.</p>
          <ManagedForm action={addUser} initial={{ is_active: "true", is_superuser: "false", can_add_stations: "false" }} token={formToken(user.sessionId)}
            submit="Add user" label="New user">
            <UserFields />
          </ManagedForm>
        </Section>
      </div>
    </div>
  );
}
