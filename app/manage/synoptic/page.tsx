import "@/components/synoptic/synoptic.css";
import type { Metadata } from "next";
import Link from "next/link";
import { editableSynopticGroups } from "@/lib/synoptic";
import { loggedIn } from "@/app/manage/synoptic/guard";
import { Breadcrumbs } from "@/components/site/Breadcrumbs";
import { managePaths } from "@/lib/site/manage-paths";

export const metadata: Metadata = { title: "Synoptic groups" };

type SearchParams = Promise<Record<string, string | string[] | undefined>>;

/** `{site}/manage/synoptic/`: the synoptic groups the user may edit (all, for a superuser). */
export default async function ManageSynopticPage({ searchParams }: { searchParams: SearchParams }) {
  const user = await loggedIn("/manage/synoptic/");
  const groups = await editableSynopticGroups(user);
  const deleted = (await searchParams).deleted;
  return (
    <div className="page">
      <Breadcrumbs crumbs={[{ label: "Manage", href: managePaths.home }, { label: "Synoptic groups" }]} />
      <header className="page-header">
        <h1>Synoptic groups</h1>
        <p className="lead">Stations shown together with their latest values, and the e-mails sent when a value crosses its limits.</p>
      </header>
      {typeof deleted === "string" && <p className="message success" role="status">The synoptic group “{deleted}” has been deleted.</p>}
      <section className="card" aria-labelledby="list-heading">
        <h2 id="list-heading">{user.isSuperuser ? "All synoptic groups" : "Your synoptic groups"}</h2>
        <p><Link className="button" href="/manage/synoptic/new/">New synoptic group</Link></p>
        {groups.length === 0 ? <p className="muted">None yet.</p> : (
          <div className="table-wrap">
            <table className="data-table">
              <thead><tr><th scope="col">Name</th><th scope="col">Page</th><th scope="col">Stations</th><th scope="col">E-mails</th></tr></thead>
              <tbody>
                {groups.map((g) => (
                  <tr key={g.id}>
                    <th scope="row"><Link href={`/manage/synoptic/${g.id}/`}>{g.name}</Link></th>
                    <td data-label="Page"><Link href={`/synoptic/${g.slug}/`}>/synoptic/{g.slug}/</Link></td>
                    <td data-label="Stations">{g.stationCount}</td>
                    <td data-label="E-mails">{g.earlyWarningEmails.length ? g.earlyWarningEmails.join(", ") : <span className="muted">none</span>}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </section>
    </div>
  );
}
