import "@/components/synoptic/synoptic.css";
import type { Metadata } from "next";
import Link from "next/link";
import { getTranslations } from "next-intl/server";
import { editableSynopticGroups } from "@/lib/synoptic";
import { loggedIn } from "@/app/manage/synoptic/guard";
import { Breadcrumbs } from "@/components/site/Breadcrumbs";
import { managePaths } from "@/lib/site/manage-paths";

export async function generateMetadata(): Promise<Metadata> {
  return { title: (await getTranslations("manageOpsSynoptic"))("title") };
}

type SearchParams = Promise<Record<string, string | string[] | undefined>>;

/** `{site}/manage/synoptic/`: the synoptic groups the user may edit (all, for a superuser). */
export default async function ManageSynopticPage({ searchParams }: { searchParams: SearchParams }) {
  const user = await loggedIn("/manage/synoptic/");
  const groups = await editableSynopticGroups(user);
  const deleted = (await searchParams).deleted;
  const t = await getTranslations("manageOpsSynoptic");
  return (
    <div className="page">
      <Breadcrumbs crumbs={[{ label: t("manage"), href: managePaths.home }, { label: t("title") }]} />
      <header className="page-header">
        <h1>{t("title")}</h1>
        <p className="lead">{t("lead")}</p>
      </header>
      {typeof deleted === "string" && <p className="message success" role="status">{t("deleted", { name: deleted })}</p>}
      <section className="card" aria-labelledby="list-heading">
        <h2 id="list-heading">{user.isSuperuser ? t("allGroups") : t("yourGroups")}</h2>
        <p><Link className="button" href="/manage/synoptic/new/">{t("newGroup")}</Link></p>
        {groups.length === 0 ? <p className="muted">{t("none")}</p> : (
          <div className="table-wrap">
            <table className="data-table">
              <thead><tr><th scope="col">{t("colName")}</th><th scope="col">{t("colPage")}</th><th scope="col">{t("colStations")}</th><th scope="col">{t("colEmails")}</th></tr></thead>
              <tbody>
                {groups.map((g) => (
                  <tr key={g.id}>
                    <th scope="row"><Link href={`/manage/synoptic/${g.id}/`}>{g.name}</Link></th>
                    <td data-label={t("colPage")}><Link href={`/synoptic/${g.slug}/`}>/synoptic/{g.slug}/</Link></td>
                    <td data-label={t("colStations")}>{g.stationCount}</td>
                    <td data-label={t("colEmails")}>{g.earlyWarningEmails.length ? g.earlyWarningEmails.join(", ") : <span className="muted">{t("noEmails")}</span>}</td>
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
