import "@/components/synoptic/synoptic.css";
import type { Metadata } from "next";
import Link from "next/link";
import { allSynopticGroups } from "@/lib/synoptic";
import { currentUser } from "@/lib/site/current-user";

export const metadata: Metadata = { title: "Synoptic views" };

/** `{site}/synoptic/`: the synoptic groups, each linked to its page. */
export default async function SynopticIndexPage() {
  const [groups, user] = await Promise.all([allSynopticGroups(), currentUser()]);
  return (
    <div className="page narrow-wide">
      <header className="page-header">
        <h1>Synoptic views</h1>
        <p className="lead">The latest values of the stations of a region, how fresh they are and what is out of bounds.</p>
      </header>
      <section className="card" aria-labelledby="groups-heading">
        <h2 id="groups-heading" className="visually-hidden">Synoptic groups</h2>
        {groups.length === 0 ? <p className="muted">There are no synoptic groups yet.</p> : (
          <ul className="synoptic-index">
            {groups.map((g) => (
              <li key={g.slug}>
                <Link href={`/synoptic/${g.slug}/`}>{g.name}</Link>{" "}
                <span className="muted small">{g.stations} {g.stations === 1 ? "station" : "stations"}</span>
              </li>
            ))}
          </ul>
        )}
        {user && <p><Link href="/manage/synoptic/">Manage synoptic groups</Link></p>}
      </section>
    </div>
  );
}
