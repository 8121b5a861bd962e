import "@/components/synoptic/synoptic.css";
import type { Metadata } from "next";
import Link from "next/link";
import { getTranslations } from "next-intl/server";
import { allSynopticGroups } from "@/lib/synoptic";
import { currentUser } from "@/lib/site/current-user";

export async function generateMetadata(): Promise<Metadata> {
  return { title: (await getTranslations("synoptic"))("title") };
}

/** `{site}/synoptic/`: the synoptic groups, each linked to its page. */
export default async function SynopticIndexPage() {
  const [groups, user, t] = await Promise.all([allSynopticGroups(), currentUser(), getTranslations("synoptic")]);
  return (
    <div className="page narrow-wide">
      <header className="page-header">
        <h1>{t("title")}</h1>
        <p className="lead">{t("lead")}</p>
      </header>
      <section className="card" aria-labelledby="groups-heading">
        <h2 id="groups-heading" className="visually-hidden">{t("groups")}</h2>
        {groups.length === 0 ? <p className="muted">{t("noGroups")}</p> : (
          <ul className="synoptic-index">
            {groups.map((g) => (
              <li key={g.slug}>
                <Link href={`/synoptic/${g.slug}/`}>{g.name}</Link>{" "}
                <span className="muted small">{t("stationCount", { count: g.stations })}</span>
              </li>
            ))}
          </ul>
        )}
        {user && <p><Link href="/manage/synoptic/">{t("manageGroups")}</Link></p>}
      </section>
    </div>
  );
}
