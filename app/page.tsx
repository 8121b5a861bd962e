import type { Metadata } from "next";
import Link from "next/link";
import StationsMap from "@/components/map/StationsMap";
import SearchHelp from "@/components/site/SearchHelp";
import { settings } from "@/lib/config";
import { unknownTypeTerms } from "@/lib/stations";
import { searchParamsOf, siteSearch } from "@/lib/frontend";
import { countText, formatCount } from "@/lib/site/numbers";

const PAGE_SIZE = 50;

type SearchParams = Promise<Record<string, string | string[] | undefined>>;

const one = (v: string | string[] | undefined) => (Array.isArray(v) ? v[0] : v) ?? "";

export async function generateMetadata({ searchParams }: { searchParams: SearchParams }): Promise<Metadata> {
  const q = one((await searchParams).q).trim();
  return { title: q ? `Stations matching “${q}”` : "Station map" };
}

function formatUpdate(iso: string | null): string {
  return iso ? iso.replace("T", " ").replace(/:\d\dZ$/, " UTC") : "—";
}

/**
 * `{site}/`: the search (q and bbox in the query string), a map of every match (one GeoJSON
 * request, clustered) and the server-rendered list of the same stations (api.md §16).
 */
export default async function HomePage({ searchParams }: { searchParams: SearchParams }) {
  const sp = await searchParams;
  const q = one(sp.q).trim();
  const bbox = one(sp.bbox).trim();
  const requestedPage = Math.max(1, Math.floor(Number(one(sp.page)) || 1));
  const result = await siteSearch(q, bbox, (requestedPage - 1) * PAGE_SIZE, PAGE_SIZE);
  const { mapTileUrl, mapTileAttribution } = settings();
  const pageLink = (page: number) => {
    const params = searchParamsOf(q, bbox);
    if (page > 1) params.set("page", String(page));
    return params.size ? `/?${params}` : "/";
  };
  const withoutBbox = searchParamsOf(q, "");
  const searching = q !== "" || bbox !== "";
  const unknown = unknownTypeTerms(q);

  return (
    <div className={result.ok ? "home" : "home no-map"}>
      {result.ok && (
        <section className="home-map" aria-label="Map of the stations">
          <StationsMap q={q} bbox={bbox} initialBbox={result.boundingBox} tileUrl={mapTileUrl} tileAttribution={mapTileAttribution} />
        </section>
      )}

      <section className="home-results" aria-labelledby="results-heading">
        {/* Where the logout button sends (components/accounts/LogoutButton.tsx). */}
        {one(sp.logged_out) === "1" && <p className="message success" role="status">You have been logged out.</p>}
        <h1 id="results-heading">{searching ? "Search results" : "Stations"}</h1>

        {!result.ok ? (
          <div className="message error" role="alert">
            <p><strong>The search could not be understood.</strong></p>
            <p>{result.message}</p>
            <p>Correct it in the search box above, or <Link href="/">show every station</Link>.</p>
          </div>
        ) : (
          <>
            {/* A site without stations (a new instance) says so, rather than that none "match (all stations)". */}
            {result.count === 0 && !searching ? <p className="result-summary" aria-live="polite">There are no stations yet.</p> : (
            <p className="result-summary" aria-live="polite">
              {result.count === 0 ? "No stations match" : countText(result.count, "station matches", "stations match")}
              {q ? <> the search <q className="query">{q}</q></> : searching ? " the search" : " (all stations)"}
              {bbox && <> in the area <code>{bbox}</code></>}.
              {bbox && <> <Link href={withoutBbox.size ? `/?${withoutBbox}` : "/"}>Search everywhere</Link>.</>}
              {searching && !bbox && <> <Link href="/">Show all stations</Link>.</>}
            </p>
            )}
            {unknown.length > 0 && (
              <p className="search-note" role="note">
                Ignored: {unknown.map((term, i) => <span key={term}>{i > 0 && ", "}<q className="query">{term}</q></span>)}
                {unknown.length === 1 ? " has" : " have"} no known search type before the colon (see “How to search”).
              </p>
            )}
          </>
        )}

        <SearchHelp />

        {result.ok && result.stations.length > 0 && (
          <>
            <ol className="station-list" start={(requestedPage - 1) * PAGE_SIZE + 1}>
              {result.stations.map((s) => (
                <li key={s.id}>
                  <div className="station-list-name">
                    <Link href={`/stations/${s.id}/`}>{s.name || `Station ${s.id}`}</Link>
                    {s.code && <span className="code">{s.code}</span>}
                  </div>
                  <div className="station-list-meta">
                    <span>{s.ownerName || "—"}</span>
                    <span>
                      Last update: {s.lastUpdate ? <time dateTime={s.lastUpdate}>{formatUpdate(s.lastUpdate)}</time> : "no records"}
                    </span>
                  </div>
                </li>
              ))}
            </ol>
            {result.count > PAGE_SIZE && (
              <nav className="pagination" aria-label="Result pages">
                {requestedPage > 1 ? <Link href={pageLink(requestedPage - 1)} rel="prev">← Previous</Link> : <span />}
                <span>
                  Page {formatCount(requestedPage)} of {formatCount(Math.ceil(result.count / PAGE_SIZE))}
                </span>
                {requestedPage * PAGE_SIZE < result.count ? <Link href={pageLink(requestedPage + 1)} rel="next">Next →</Link> : <span />}
              </nav>
            )}
          </>
        )}
        {result.ok && result.count > 0 && result.stations.length === 0 && (
          <p>
            There is no page {requestedPage}. <Link href={pageLink(1)}>Go to the first page</Link>.
          </p>
        )}
      </section>
    </div>
  );
}
