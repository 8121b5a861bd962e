import type { Metadata } from "next";
import Link from "next/link";
import { notFound } from "next/navigation";
import { getLocale, getTranslations } from "next-intl/server";
import { cache } from "react";
import RefreshEvery from "@/components/synoptic/RefreshEvery";
import SynopticChart from "@/components/synoptic/SynopticChart";
import { STATUS_KEYS, valueText } from "@/components/synoptic/types";
import { SLUG, synopticStationPage } from "@/lib/synoptic";
import { currentUser } from "@/lib/site/current-user";
import { pathId } from "@/lib/frontend";
import { stationPath } from "@/lib/site/paths";
import { formatDateTime, offsetLabel, zoneOffsetMinutes } from "@/lib/site/time";
import { Breadcrumbs } from "@/components/site/Breadcrumbs";

type Params = Promise<{ slug: string; sid: string }>;

const load = cache(async (slug: string, sid: string) => {
  const id = pathId(sid);
  return id && SLUG.test(slug) ? synopticStationPage(slug, id, await currentUser()) : null;
});

export async function generateMetadata({ params }: { params: Params }): Promise<Metadata> {
  const { slug, sid } = await params;
  const page = await load(slug, sid);
  return { title: page ? `${page.station.name} · ${page.group.name}` : (await getTranslations("common"))("pageNotFound") };
}

/**
 * `{site}/synoptic/{slug}/stations/{sid}/` (synoptic.md §2): the station's latest values and a
 * chart of each variable over the 24 hours before its last common date, limits drawn.
 */
export default async function SynopticStationPage({ params }: { params: Params }) {
  const { slug, sid } = await params;
  const page = await load(slug, sid);
  if (!page) notFound();
  const { group, station, charts } = page;
  const offset = zoneOffsetMinutes(group.displayTimezone) ?? 0;
  const zone = `${offsetLabel(offset)} (${group.displayTimezone})`;
  const lcd = station.lastCommonDate;
  const [t, locale] = await Promise.all([getTranslations("synoptic"), getLocale()]);
  return (
    <div className="page">
      <RefreshEvery ms={60_000} />
      <Breadcrumbs crumbs={[{ label: t("title"), href: "/synoptic/" }, { label: group.name, href: `/synoptic/${group.slug}/` }, { label: station.name }]} />
      <header className="page-header">
        <h1>{t("conditionsAt", { station: station.name })}</h1>
        <p className="lead">
          {lcd === null ? t("noDataYet") : (
            <>{t("lastCommonDate")} <time dateTime={new Date(lcd * 1000).toISOString()} className={`freshness-${station.freshness}`} data-freshness={station.freshness}>
              {formatDateTime(lcd, offset)}{station.freshness === "old" ? t("old") : ""}</time> <span className="muted small">{zone}</span></>
          )}
          {" · "}<Link href={stationPath(station.id)}>{t("allAbout")}</Link>
        </p>
      </header>
      <section className="card" aria-labelledby="latest-heading">
        <h2 id="latest-heading">{t("latestValues")}</h2>
        {charts.length === 0 ? <p className="muted">{t("nothingShown")}</p> : (
          <dl className="synoptic-values">
            {charts.map((c) => (
              <div key={c.timeseriesGroup} className={`status-${c.status}`} data-status={c.status}>
                <dt>{c.title}{c.subtitle && ` (${c.subtitle})`}</dt>
                <dd>
                  {valueText({ timeseries_group: c.timeseriesGroup, title: c.title, unit: c.unit, value: c.value, status: c.status }, c.precision, { locale, hidden: t("hidden") })}
                  {c.status !== "ok" && <span className="small"> {t(STATUS_KEYS[c.status])}</span>}
                </dd>
              </div>
            ))}
          </dl>
        )}
      </section>
      {charts.length > 0 && (
        <section aria-labelledby="charts-heading">
          <h2 id="charts-heading">{t("last24")}</h2>
          <div className="synoptic-charts">
            {charts.map((c) => (
              <section key={c.timeseriesGroup} className="card" aria-label={t("chartOf", { title: c.title })}>
                <h3>{c.title}{c.subtitle && ` (${c.subtitle})`}{c.unit && <span className="muted small"> {c.unit}</span>}</h3>
                {c.points === null ? <p className="chart-message">{t("notPublic")}</p>
                  : c.points.length === 0 || lcd === null ? <p className="chart-message">{t("noRecords24")}</p>
                    : <SynopticChart points={c.points} end={lcd} offsetMinutes={offset} precision={c.precision} unit={c.unit} title={c.title}
                      lowLimit={c.lowLimit} highLimit={c.highLimit} defaultMin={c.defaultChartMin} defaultMax={c.defaultChartMax} />}
              </section>
            ))}
          </div>
        </section>
      )}
    </div>
  );
}
