import type { Metadata } from "next";
import Link from "next/link";
import { notFound } from "next/navigation";
import { getLocale, getTranslations } from "next-intl/server";
import type { ReactNode } from "react";
import PointMap from "@/components/map/PointMap";
import { AccessRequestCard } from "@/components/site/AccessRequest";
import { accessOffer } from "@/lib/access";
import { settings } from "@/lib/config";
import { canEditStation, lonLat, pathId, stationPageData, stationWithOwner, timeStepLabel } from "@/lib/frontend";
import { currentUser } from "@/lib/site/current-user";
import { managePaths } from "@/lib/site/manage-paths";
import { contentPath, groupPath } from "@/lib/site/paths";
import { formatDate, offsetLabel, zoneOffsetMinutes } from "@/lib/site/time";
import { Breadcrumbs } from "@/components/site/Breadcrumbs";
import { ZonedTime } from "@/components/site/ZonedTime";
import { groupTitleIn } from "@/lib/site/group-title";
import { decimalIn } from "@/lib/i18n";

type Params = Promise<{ sid: string }>;

export async function generateMetadata({ params }: { params: Params }): Promise<Metadata> {
  const id = pathId((await params).sid);
  const head = id ? await stationWithOwner(id) : null;
  const t = await getTranslations("common");
  return { title: head ? head.station.name || t("station", { id: id! }) : t("pageNotFound") };
}

/** A card of the page under its heading; says `empty` instead when there is nothing to list. */
function ListCard({ id, title, empty, children }: { id: string; title: string; empty: string | null; children: ReactNode }) {
  return (
    <section className="card" aria-labelledby={`${id}-heading`}>
      <h2 id={`${id}-heading`}>{title}</h2>
      {empty === null ? children : <p className="muted">{empty}</p>}
    </section>
  );
}

/** A table of the page: column headings, then the rows given. */
function DataTable({ columns, children }: { columns: string[]; children: ReactNode }) {
  return (
    <div className="table-wrap">
      <table className="data-table">
        <thead>
          <tr>
            {columns.map((c) => <th key={c} scope="col">{c}</th>)}
          </tr>
        </thead>
        <tbody>{children}</tbody>
      </table>
    </div>
  );
}

function Detail({ term, children }: { term: string; children: ReactNode }) {
  return (
    <div>
      <dt>{term}</dt>
      <dd>{children}</dd>
    </div>
  );
}

const none = <span className="muted">—</span>;

function coordinate(value: number, positive: string, negative: string, decimals: (text: string) => string): string {
  return `${decimals(Math.abs(value).toFixed(5))}° ${value < 0 ? negative : positive}`;
}

/** `{site}/stations/{sid}/`: every detail of the station and what belongs to it (api.md §16). */
export default async function StationPage({ params }: { params: Params }) {
  const id = pathId((await params).sid);
  const locale = await getLocale();
  const [data, user] = await Promise.all([id ? stationPageData(id, locale) : null, currentUser()]);
  if (!id || !data) notFound();
  const [editable, offer, t, tc] = await Promise.all([
    canEditStation(user, id), accessOffer(user, id), getTranslations("station"), getTranslations("common"),
  ]);
  const decimals = (text: string | number) => decimalIn(locale, text);
  const { station, ownerName } = data;
  const offset = zoneOffsetMinutes(station.display_timezone) ?? 0;
  const point = lonLat(station.geom);
  const { mapTileUrl, mapTileAttribution } = settings();
  const lastUpdate = station.last_update ? Date.parse(station.last_update) / 1000 : null;
  const name = station.name || tc("station", { id: station.id });

  return (
    <div className="page">
      <Breadcrumbs crumbs={[{ label: tc("stations"), href: "/" }, { label: name }]} />
      <header className="page-header manage-header">
        <div>
          <h1>
            {name} {station.code && <span className="code">{station.code}</span>}
          </h1>
          <p className="lead">{ownerName}</p>
        </div>
        {editable && <div className="header-actions"><Link className="button secondary" href={managePaths.station(station.id)}>{tc("edit")}</Link></div>}
      </header>

      <div className="station-overview">
        <section className="card" aria-labelledby="details-heading">
          <h2 id="details-heading">{t("details")}</h2>
          <dl className="details">
            <Detail term={t("code")}>{station.code || none}</Detail>
            <Detail term={t("owner")}>{ownerName || none}</Detail>
            <Detail term={t("stationType")}>{data.stationTypes.length ? data.stationTypes.join(", ") : none}</Detail>
            <Detail term={t("coordinates")}>
              {point ? (
                <>
                  {coordinate(point[1], t("north"), t("south"), decimals)}, {coordinate(point[0], t("east"), t("west"), decimals)}
                  <span className="muted small"> {t("lonLat", { lon: decimals(point[0]), lat: decimals(point[1]) })}</span>
                </>
              ) : none}
            </Detail>
            <Detail term={t("altitude")}>{station.altitude !== null ? `${decimals(station.altitude)} m` : none}</Detail>
            <Detail term={t("timeZone")}>
              {offsetLabel(offset)} <span className="muted small">({station.display_timezone})</span>
            </Detail>
            <Detail term={t("startDate")}>{station.start_date ?? none}</Detail>
            <Detail term={t("endDate")}>{station.end_date ?? none}</Detail>
            <Detail term={t("overseer")}>{station.overseer || none}</Detail>
            <Detail term={t("lastUpdate")}>
              {lastUpdate !== null ? <ZonedTime at={lastUpdate} offset={offset} /> : tc("noRecords")}
            </Detail>
            <Detail term={t("remarks")}>{station.remarks ? <span className="pre-line">{station.remarks}</span> : none}</Detail>
            {station.replicated_from !== undefined && (
              <Detail term={t("replicated")}>{t("replicatedText")}</Detail>
            )}
          </dl>
        </section>
        {point && (
          <div className="station-map">
            <PointMap lon={point[0]} lat={point[1]} name={name} tileUrl={mapTileUrl} tileAttribution={mapTileAttribution} />
          </div>
        )}
      </div>

      <ListCard id="groups" title={t("timeSeries")} empty={data.groups.length === 0 ? t("noTimeSeries") : null}>
        <DataTable columns={[t("name"), t("variable"), t("unit"), t("timeStep"), t("records")]}>
          {data.groups.map((g) => {
            const firsts = g.series.map((s) => s.first).filter((t): t is number => t !== null);
            const lasts = g.series.map((s) => s.last).filter((t): t is number => t !== null);
            const steps = [...new Set(g.series.map((s) => s.timeStep ? timeStepLabel(s.timeStep) : tc("irregular")))];
            return (
              <tr key={g.id}>
                <th scope="row">
                  <Link href={groupPath(station.id, g.id)}>{groupTitleIn(locale, g)}</Link>
                </th>
                <td data-label={t("variable")}>{g.variable}</td>
                <td data-label={t("unit")}>{g.unit}</td>
                <td data-label={t("timeStep")}>{steps.length ? steps.join(", ") : none}</td>
                <td data-label={t("records")}>
                  {firsts.length ? `${formatDate(Math.min(...firsts), offset)} – ${formatDate(Math.max(...lasts), offset)}` : <span className="muted">{tc("noRecords")}</span>}
                </td>
              </tr>
            );
          })}
        </DataTable>
      </ListCard>

      {user && offer && <AccessRequestCard stationId={station.id} offer={offer} sessionId={user.sessionId} />}

      <ListCard id="images" title={t("images")} empty={data.images.length === 0 ? t("noImages") : null}>
        <ul className="gallery">
          {data.images.map((img) => (
            <li key={img.id}>
              <figure>
                <a href={contentPath("images", station.id, img.id)}>
                  {/* eslint-disable-next-line @next/next/no-img-element -- served by the API, any size */}
                  <img src={contentPath("images", station.id, img.id)} alt={img.descr || t("imageOf", { name })} loading="lazy" />
                </a>
                <figcaption>
                  {img.descr || <span className="muted">{t("noDescription")}</span>}
                  {img.date && <span className="muted small"> · {img.date}</span>}
                  {img.remarks && <span className="block small muted">{img.remarks}</span>}
                </figcaption>
              </figure>
            </li>
          ))}
        </ul>
      </ListCard>

      <ListCard id="files" title={t("files")} empty={data.files.length === 0 ? t("noFiles") : null}>
        <ul className="file-list">
          {data.files.map((f) => (
            <li key={f.id}>
              <a href={contentPath("files", station.id, f.id)} download>
                {f.descr}
              </a>
              <span className="muted small">
                {f.date ? ` · ${f.date}` : ""}
                {f.fileName ? ` · ${f.fileName}` : ""}
              </span>
              {f.remarks && <div className="small">{f.remarks}</div>}
            </li>
          ))}
        </ul>
      </ListCard>

      <ListCard id="events" title={t("events")} empty={data.events.length === 0 ? t("noEvents") : null}>
        <DataTable columns={[t("date"), t("type"), t("reportedBy"), t("report")]}>
          {data.events.map((e) => (
            <tr key={e.id}>
              <td data-label={t("date")} className="nowrap">{e.date}</td>
              <td data-label={t("type")}>{e.type}</td>
              <td data-label={t("reportedBy")}>{e.user || none}</td>
              <td data-label={t("report")} className="pre-line">{e.report || none}</td>
            </tr>
          ))}
        </DataTable>
      </ListCard>
    </div>
  );
}
