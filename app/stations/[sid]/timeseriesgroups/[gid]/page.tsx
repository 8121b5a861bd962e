import type { Metadata } from "next";
import Link from "next/link";
import { notFound } from "next/navigation";
import { getLocale, getTranslations } from "next-intl/server";
import { cache } from "react";
import DownloadForm from "@/components/chart/DownloadForm";
import SeriesChart from "@/components/chart/SeriesChart";
import { stepSeconds } from "@/components/chart/gaps";
import { timeStepToMinutesMonths } from "@/lib/formats/time-step";
import { currentUser } from "@/lib/site/current-user";
import { registerPageCache } from "@/lib/site/page-cache";
import { groupPageData, initialChart, pathId, seriesLabel, timeStepLabel } from "@/lib/frontend";
import { managePaths } from "@/lib/site/manage-paths";
import { chartApiUrl, groupPath, stationPath } from "@/lib/site/paths";
import { formatDateTime, offsetLabel, parseInstant, zoneOffsetMinutes } from "@/lib/site/time";
import { AccessRequestCard } from "@/components/site/AccessRequest";
import { Breadcrumbs } from "@/components/site/Breadcrumbs";
import { accessOffer } from "@/lib/access";
import { groupTitleIn } from "@/lib/site/group-title";

// server.mjs serves this page's HTML to anonymous visitors from a cache once this is registered (ADR 0018).
registerPageCache();

type Params = Promise<{ sid: string; gid: string }>;

/** The catalogue keys ("common") of the series' types. */
const TYPE_KEYS = { Initial: "typeInitial", Checked: "typeChecked", Regularized: "typeRegularized", Aggregated: "typeAggregated" } as const;
type SearchParams = Promise<Record<string, string | string[] | undefined>>;

/** The page's data, read once per request (the metadata and the page both need it). */
const loadIds = cache(async (sid: string, gid: string) => {
  const stationId = pathId(sid);
  const groupId = pathId(gid);
  if (!stationId || !groupId) return null;
  const [user, locale] = await Promise.all([currentUser(), getLocale()]);
  return groupPageData(stationId, groupId, user, locale);
});

async function load(params: Params) {
  const { sid, gid } = await params;
  return loadIds(sid, gid);
}

export async function generateMetadata({ params }: { params: Params }): Promise<Metadata> {
  const data = await load(params);
  if (!data) return { title: (await getTranslations("common"))("pageNotFound") };
  return { title: `${groupTitleIn(await getLocale(), data.group)} · ${data.station.name}` };
}

/**
 * `{site}/stations/{sid}/timeseriesgroups/{gid}/`: the group, a chart of one of its series and a
 * download form (api.md §16). Who may read which series is decided here, on the server.
 */
export default async function GroupPage({ params, searchParams }: { params: Params; searchParams: SearchParams }) {
  const data = await load(params);
  if (!data) notFound();
  const { station, group, series, processes } = data;
  const [user, t, tc] = await Promise.all([currentUser(), getTranslations("group"), getTranslations("common")]);
  // A logged-in user's offer about the station's protected data (public.md §2), as on the station page.
  const offer = user && series.some((s) => !s.publiclyAvailable) ? await accessOffer(user, station.id) : null;
  const stepLabel = (step: string) => (step ? timeStepLabel(step) : tc("irregular"));
  // The series' types (Initial, Checked, Regularized, Aggregated) in the page's language.
  const typeWord = (type: string) => (type in TYPE_KEYS ? tc(TYPE_KEYS[type as keyof typeof TYPE_KEYS]) : type);
  const label = (s: (typeof series)[number]) => seriesLabel({ ...s, type: typeWord(s.type) });
  const offset = zoneOffsetMinutes(station.display_timezone) ?? 0;
  const sp = await searchParams;
  const param = (name: string) => {
    const value = sp[name];
    return (Array.isArray(value) ? value[0] : value) ?? "";
  };
  const requested = Number(param("series"));
  // Default: the first series with records that the user may read.
  const preferred = series.find((s) => s.canRead && s.first !== null) ?? series[0] ?? null;
  const selected = series.find((s) => s.id === requested) ?? preferred;
  const stationName = station.name || tc("station", { id: station.id });
  const title = groupTitleIn(await getLocale(), group);
  const here = groupPath(station.id, group.id);
  // The chart the browser would ask for first (same URL as SeriesChart builds), read here.
  let chart = null;
  if (selected?.canRead && selected.first !== null) {
    const start = param("start") ? parseInstant(param("start"), offset) : null;
    const end = param("end") ? parseInstant(param("end"), offset) : null;
    const url = chartApiUrl(station.id, group.id, selected.id, start, end, offset);
    const points = await initialChart(url, selected.id, station.id, group.id, user);
    if (points) chart = { url, points };
  }

  return (
    <div className="page">
      <Breadcrumbs crumbs={[{ label: tc("stations"), href: "/" }, { label: stationName, href: stationPath(station.id) }, { label: title }]} />
      <header className="page-header manage-header">
        <div>
        <h1>{title}</h1>
        <p className="lead">
          {t.rich(group.unit ? "lead" : "leadNoUnit", {
            variable: group.variable, unit: group.unit, station: stationName,
            link: (chunks) => <Link href={stationPath(station.id)}>{chunks}</Link>,
          })}
        </p>
        </div>
        {data.editable && <div className="header-actions"><Link className="button secondary" href={managePaths.group(station.id, group.id)}>{tc("edit")}</Link></div>}
      </header>

      <section className="card" aria-labelledby="chart-heading">
        <h2 id="chart-heading">{t("chart")}</h2>
        {series.length === 0 ? (
          <p className="muted">{t("noSeries")}</p>
        ) : (
          <SeriesChart
            key={here}
            stationId={station.id}
            groupId={group.id}
            series={series.map((s) => ({ id: s.id, label: label(s), canRead: s.canRead, first: s.first, last: s.last, step: stepSeconds(timeStepToMinutesMonths(s.timeStep)) }))}
            defaultSeriesId={selected?.id ?? null}
            initialChart={chart}
            offsetMinutes={offset}
            unit={group.unit}
            variable={group.variable}
            loginHref={user ? null : `/accounts/login/?next=${encodeURIComponent(here)}`}
          />
        )}
      </section>

      <div className="two-columns">
        <section className="card" aria-labelledby="group-heading">
          <h2 id="group-heading">{t("about")}</h2>
          <dl className="details">
            <div><dt>{t("name")}</dt><dd>{group.name || <span className="muted">—</span>}</dd></div>
            <div><dt>{t("variable")}</dt><dd>{group.variable}</dd></div>
            <div><dt>{t("unit")}</dt><dd>{group.unit}{group.unitDescr && <span className="muted small"> ({group.unitDescr})</span>}</dd></div>
            <div><dt>{t("station")}</dt><dd><Link href={stationPath(station.id)}>{stationName}</Link></dd></div>
            <div><dt>{t("timeZone")}</dt><dd>{offsetLabel(offset)} <span className="muted small">({station.display_timezone})</span></dd></div>
            <div><dt>{t("remarks")}</dt><dd>{group.remarks ? <span className="pre-line">{group.remarks}</span> : <span className="muted">—</span>}</dd></div>
          </dl>
          {series.length > 0 && (
            <div className="table-wrap">
              <table className="data-table compact">
                <caption className="visually-hidden">{t("seriesCaption")}</caption>
                <thead>
                  <tr>
                    <th scope="col">{t("timeSeries")}</th>
                    <th scope="col">{t("timeStep")}</th>
                    <th scope="col">{t("records")}</th>
                    <th scope="col">{t("access")}</th>
                  </tr>
                </thead>
                <tbody>
                  {series.map((s) => (
                    <tr key={s.id}>
                      <th scope="row">{typeWord(s.type)}{s.name && <span className="muted"> · {s.name}</span>}</th>
                      <td data-label={t("timeStep")}>{stepLabel(s.timeStep)}</td>
                      <td data-label={t("records")}>
                        {s.first !== null && s.last !== null
                          ? `${formatDateTime(s.first, offset)} – ${formatDateTime(s.last, offset)}`
                          : <span className="muted">{t("none")}</span>}
                      </td>
                      <td data-label={t("access")}>
                        {s.publiclyAvailable ? t("public") : s.canRead ? t("privateReadable") : t("private")}
                        {/* The request's form is on this page, below (public.md §2); none while a request waits. */}
                        {user && !s.canRead && offer?.state === "request" && <> · <a href="#access">{t("requestAccess")}</a></>}
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          )}
        </section>

        <section className="card" aria-labelledby="download-heading">
          <h2 id="download-heading">{t("download")}</h2>
          <DownloadForm
            stationId={station.id}
            groupId={group.id}
            series={series.filter((s) => s.canRead).map((s) => ({ id: s.id, label: label(s) }))}
            defaultSeriesId={selected?.canRead ? selected.id : null}
            displayZone={station.display_timezone}
            offsetMinutes={offset}
          />
        </section>
      </div>

      {user && offer && <AccessRequestCard stationId={station.id} groupId={group.id} offer={offer} sessionId={user.sessionId} />}

      {processes.length > 0 && (
        <section className="card" aria-labelledby="processing-heading">
          <h2 id="processing-heading">{t("processing")}</h2>
          <ul className="process-list">
            {processes.map((p) => (
              <li key={p.id} data-process={p.id}>
                <span className="process-description">{p.description}</span>
                {!p.enabled && <span className="muted">{t("disabled")}</span>}
                <span className="muted small">
                  {" · "}
                  {p.lastSuccess !== null ? t("lastSuccess", { at: formatDateTime(p.lastSuccess, offset), zone: offsetLabel(offset) }) : t("notRunYet")}
                </span>
                {p.failure && <p className="message error small">{t("lastRunFailed", { failure: p.failure })}</p>}
              </li>
            ))}
          </ul>
        </section>
      )}
    </div>
  );
}
