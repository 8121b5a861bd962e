import type { Metadata } from "next";
import Link from "next/link";
import { notFound } from "next/navigation";
import type { ReactNode } from "react";
import { requestAccess } from "@/app/manage/actions/access";
import ManagedForm, { TextArea } from "@/components/manage/Form";
import PointMap from "@/components/map/PointMap";
import { accessOffer, MAX_TEXT } from "@/lib/access";
import { formToken } from "@/lib/site/form-token";
import { settings } from "@/lib/config";
import { canEditStation, lonLat, pathId, stationPageData, stationWithOwner, timeStepLabel } from "@/lib/frontend";
import { currentUser } from "@/lib/site/current-user";
import { managePaths } from "@/lib/site/manage-paths";
import { contentPath, groupPath } from "@/lib/site/paths";
import { formatDate, offsetLabel, zoneOffsetMinutes } from "@/lib/site/time";
import { Breadcrumbs } from "@/components/site/Breadcrumbs";
import { ZonedTime } from "@/components/site/ZonedTime";
import { groupTitle } from "@/lib/site/names";

type Params = Promise<{ sid: string }>;

export async function generateMetadata({ params }: { params: Params }): Promise<Metadata> {
  const id = pathId((await params).sid);
  const head = id ? await stationWithOwner(id) : null;
  return { title: head ? head.station.name || `Station ${id}` : "Page not found" };
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

function coordinate(value: number, positive: string, negative: string): string {
  return `${Math.abs(value).toFixed(5)}° ${value < 0 ? negative : positive}`;
}

/** `{site}/stations/{sid}/`: every detail of the station and what belongs to it (api.md §16). */
export default async function StationPage({ params }: { params: Params }) {
  const id = pathId((await params).sid);
  const [data, user] = await Promise.all([id ? stationPageData(id) : null, currentUser()]);
  if (!id || !data) notFound();
  const [editable, offer] = await Promise.all([canEditStation(user, id), accessOffer(user, id)]);
  const { station, ownerName } = data;
  const offset = zoneOffsetMinutes(station.display_timezone) ?? 0;
  const point = lonLat(station.geom);
  const { mapTileUrl, mapTileAttribution } = settings();
  const lastUpdate = station.last_update ? Date.parse(station.last_update) / 1000 : null;
  const name = station.name || `Station ${station.id}`;

  return (
    <div className="page">
      <Breadcrumbs crumbs={[{ label: "Stations", href: "/" }, { label: name }]} />
      <header className="page-header manage-header">
        <div>
          <h1>
            {name} {station.code && <span className="code">{station.code}</span>}
          </h1>
          <p className="lead">{ownerName}</p>
        </div>
        {editable && <div className="header-actions"><Link className="button secondary" href={managePaths.station(station.id)}>Edit</Link></div>}
      </header>

      <div className="station-overview">
        <section className="card" aria-labelledby="details-heading">
          <h2 id="details-heading">Details</h2>
          <dl className="details">
            <Detail term="Code">{station.code || none}</Detail>
            <Detail term="Owner">{ownerName || none}</Detail>
            <Detail term="Station type">{data.stationTypes.length ? data.stationTypes.join(", ") : none}</Detail>
            <Detail term="Coordinates (WGS84)">
              {point ? (
                <>
                  {coordinate(point[1], "N", "S")}, {coordinate(point[0], "E", "W")}
                  <span className="muted small"> (lon {point[0]}, lat {point[1]})</span>
                </>
              ) : none}
            </Detail>
            <Detail term="Altitude">{station.altitude !== null ? `${station.altitude} m` : none}</Detail>
            <Detail term="Time zone">
              {offsetLabel(offset)} <span className="muted small">({station.display_timezone})</span>
            </Detail>
            <Detail term="Start date">{station.start_date ?? none}</Detail>
            <Detail term="End date">{station.end_date ?? none}</Detail>
            <Detail term="Overseer">{station.overseer || none}</Detail>
            <Detail term="Last update">
              {lastUpdate !== null ? <ZonedTime at={lastUpdate} offset={offset} /> : "no records"}
            </Detail>
            <Detail term="Remarks">{station.remarks ? <span className="pre-line">{station.remarks}</span> : none}</Detail>
            {station.replicated_from !== undefined && (
              <Detail term="Replicated">Copied from another instance; read-only here</Detail>
            )}
          </dl>
        </section>
        {point && (
          <div className="station-map">
            <PointMap lon={point[0]} lat={point[1]} name={name} tileUrl={mapTileUrl} tileAttribution={mapTileAttribution} />
          </div>
        )}
      </div>

      <ListCard id="groups" title="Time series" empty={data.groups.length === 0 ? "This station has no time series." : null}>
        <DataTable columns={["Name", "Variable", "Unit", "Time step", "Records"]}>
          {data.groups.map((g) => {
            const firsts = g.series.map((s) => s.first).filter((t): t is number => t !== null);
            const lasts = g.series.map((s) => s.last).filter((t): t is number => t !== null);
            const steps = [...new Set(g.series.map((s) => timeStepLabel(s.timeStep)))];
            return (
              <tr key={g.id}>
                <th scope="row">
                  <Link href={groupPath(station.id, g.id)}>{groupTitle(g)}</Link>
                </th>
                <td data-label="Variable">{g.variable}</td>
                <td data-label="Unit">{g.unit}</td>
                <td data-label="Time step">{steps.length ? steps.join(", ") : none}</td>
                <td data-label="Records">
                  {firsts.length ? `${formatDate(Math.min(...firsts), offset)} – ${formatDate(Math.max(...lasts), offset)}` : <span className="muted">no records</span>}
                </td>
              </tr>
            );
          })}
        </DataTable>
      </ListCard>

      {user && offer && (
        <section className="card" id="access" aria-labelledby="access-heading">
          <h2 id="access-heading">Protected data</h2>
          {offer === "pending" ? (
            <p className="message" role="status">Your request for access to the protected time series of this station is waiting for its maintainers&apos; decision; you will be told by e-mail.</p>
          ) : (
            <>
              <p>Some time series of this station are protected: only the people its maintainers allow may download them.</p>
              <ManagedForm action={requestAccess.bind(null, station.id)} initial={{}} token={formToken(user.sessionId)} submit="Request access" label="Request access">
                <TextArea name="message" label="Message" rows={3} help={`Optional: who you are and what you need the data for (at most ${MAX_TEXT} characters). The station's maintainers receive it by e-mail.`} />
              </ManagedForm>
            </>
          )}
        </section>
      )}

      <ListCard id="images" title="Images" empty={data.images.length === 0 ? "No images." : null}>
        <ul className="gallery">
          {data.images.map((img) => (
            <li key={img.id}>
              <figure>
                <a href={contentPath("images", station.id, img.id)}>
                  {/* eslint-disable-next-line @next/next/no-img-element -- served by the API, any size */}
                  <img src={contentPath("images", station.id, img.id)} alt={img.descr || `Image of ${name}`} loading="lazy" />
                </a>
                <figcaption>
                  {img.descr || <span className="muted">No description</span>}
                  {img.date && <span className="muted small"> · {img.date}</span>}
                  {img.remarks && <span className="block small muted">{img.remarks}</span>}
                </figcaption>
              </figure>
            </li>
          ))}
        </ul>
      </ListCard>

      <ListCard id="files" title="Files" empty={data.files.length === 0 ? "No files." : null}>
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

      <ListCard id="events" title="Events" empty={data.events.length === 0 ? "No events." : null}>
        <DataTable columns={["Date", "Type", "Reported by", "Report"]}>
          {data.events.map((e) => (
            <tr key={e.id}>
              <td data-label="Date" className="nowrap">{e.date}</td>
              <td data-label="Type">{e.type}</td>
              <td data-label="Reported by">{e.user || none}</td>
              <td data-label="Report" className="pre-line">{e.report || none}</td>
            </tr>
          ))}
        </DataTable>
      </ListCard>
    </div>
  );
}
