import type { Metadata } from "next";
import Link from "next/link";
import { getLocale, getTranslations } from "next-intl/server";
import StationsMap from "@/components/map/StationsMap";
import SearchHelp from "@/components/site/SearchHelp";
import { settings } from "@/lib/config";
import { unknownTypeTerms } from "@/lib/stations";
import { searchParamsOf, siteSearch } from "@/lib/frontend";
import { formatCountIn } from "@/lib/i18n";

const PAGE_SIZE = 50;

type SearchParams = Promise<Record<string, string | string[] | undefined>>;

const one = (v: string | string[] | undefined) => (Array.isArray(v) ? v[0] : v) ?? "";

export async function generateMetadata({ searchParams }: { searchParams: SearchParams }): Promise<Metadata> {
  const q = one((await searchParams).q).trim();
  const t = await getTranslations("home");
  return { title: q ? t("titleMatching", { q }) : t("titleMap") };
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
  const [t, tc, locale] = await Promise.all([getTranslations("home"), getTranslations("common"), getLocale()]);
  const formatCount = (n: number) => formatCountIn(locale, n);
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
        <section className="home-map" aria-label={t("mapLabel")}>
          <StationsMap q={q} bbox={bbox} initialBbox={result.boundingBox} tileUrl={mapTileUrl} tileAttribution={mapTileAttribution} />
        </section>
      )}

      <section className="home-results" aria-labelledby="results-heading">
        {/* Where the logout button sends (components/accounts/LogoutButton.tsx). */}
        {one(sp.logged_out) === "1" && <p className="message success" role="status">{t("loggedOut")}</p>}
        <h1 id="results-heading">{searching ? t("searchResults") : t("stations")}</h1>

        {!result.ok ? (
          <div className="message error" role="alert">
            <p><strong>{t("notUnderstood")}</strong></p>
            <p>{result.message}</p>
            <p>{t.rich("correctIt", { link: (chunks) => <Link href="/">{chunks}</Link> })}</p>
          </div>
        ) : (
          <>
            {/* A site without stations (a new instance) says so, rather than that none "match (all stations)". */}
            {result.count === 0 && !searching ? <p className="result-summary" aria-live="polite">{t("noStationsYet")}</p> : (
            <p className="result-summary" aria-live="polite">
              {q ? t.rich("summaryQuery", { count: result.count, q, quote: (chunks) => <q className="query">{chunks}</q> })
                : t(searching ? "summarySearch" : "summaryAll", { count: result.count })}
              {bbox && <>{t("inArea")} <code>{bbox}</code></>}.
              {bbox && <> <Link href={withoutBbox.size ? `/?${withoutBbox}` : "/"}>{t("searchEverywhere")}</Link>.</>}
              {searching && !bbox && <> <Link href="/">{t("showAll")}</Link>.</>}
            </p>
            )}
            {unknown.length > 0 && (
              <p className="search-note" role="note">
                {t("ignored")} {unknown.map((term, i) => <span key={term}>{i > 0 && ", "}<q className="query">{term}</q></span>)}
                {t("noSearchType", { count: unknown.length })}
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
                    <Link href={`/stations/${s.id}/`}>{s.name || tc("station", { id: s.id })}</Link>
                    {s.code && <span className="code">{s.code}</span>}
                  </div>
                  <div className="station-list-meta">
                    <span>{s.ownerName || "—"}</span>
                    <span>
                      {t("lastUpdate")} {s.lastUpdate ? <time dateTime={s.lastUpdate}>{formatUpdate(s.lastUpdate)}</time> : tc("noRecords")}
                    </span>
                  </div>
                </li>
              ))}
            </ol>
            {result.count > PAGE_SIZE && (
              <nav className="pagination" aria-label={t("resultPages")}>
                {requestedPage > 1 ? <Link href={pageLink(requestedPage - 1)} rel="prev">{t("previous")}</Link> : <span />}
                <span>{t("pageOf", { page: formatCount(requestedPage), pages: formatCount(Math.ceil(result.count / PAGE_SIZE)) })}</span>
                {requestedPage * PAGE_SIZE < result.count ? <Link href={pageLink(requestedPage + 1)} rel="next">{t("next")}</Link> : <span />}
              </nav>
            )}
          </>
        )}
        {result.ok && result.count > 0 && result.stations.length === 0 && (
          <p>
            {t("noSuchPage", { page: requestedPage })} <Link href={pageLink(1)}>{t("firstPage")}</Link>.
          </p>
        )}
      </section>
    </div>
  );
}
