import type { Metadata } from "next";
import Link from "next/link";
import { addGroup } from "@/app/manage/actions/series";
import { addChild, savePeople, saveStation } from "@/app/manage/actions/stations";
import { AttachmentFields, EventFields, GroupFields } from "@/components/manage/fields";
import ManagedForm from "@/components/manage/Form";
import { ActivityList, Done, ManageHeader, Section, Table } from "@/components/manage/parts";
import { UserPicker } from "@/components/manage/Pickers";
import ReplicatedStation from "@/components/manage/ReplicatedStation";
import StationForm from "@/components/manage/StationForm";
import { ensureEditor, isSuperuser } from "@/lib/auth/permissions";
import { Conflict, NotFound } from "@/lib/domain/errors";
import { detachableStation } from "@/lib/replication";
import { guarded, lookupChoices, manageMetadata, manageUser, ownerChoices, stationForEditing, stationValues } from "@/lib/manage";
import { existingStation, stationAccess } from "@/lib/stations";
import { telemetrySummary } from "@/lib/telemetry";
import { formToken } from "@/lib/site/form-token";
import { managePaths } from "@/lib/site/manage-paths";
import { contentPath, stationPath } from "@/lib/site/paths";
import { pathId } from "@/lib/frontend";
import { groupTitle } from "@/lib/site/names";
import { formatCount } from "@/lib/site/numbers";

type Params = Promise<{ sid: string }>;

/** A replicated station for a superuser (its read-only view); null for others, whom the editors' check below answers. */
async function replicatedForSuperuser(path: string, sid: number) {
  const user = await manageUser(path);
  if (!isSuperuser(user)) return null;
  return detachableStation(user, sid).catch((error: unknown) => {
    if (error instanceof Conflict || error instanceof NotFound) return null;
    throw error;
  });
}
type Search = Promise<Record<string, string | string[] | undefined>>;

export async function generateMetadata({ params }: { params: Promise<{ sid: string }> }): Promise<Metadata> {
  const sid = pathId((await params).sid) ?? 0;
  // A replicated station's page is its superusers' read-only view with Detach (others: 403).
  const replicated = (await stationAccess(sid))?.replicatedFrom != null;
  return manageMetadata(replicated ? "Replicated station" : "Edit station", async (user) => {
    const station = await existingStation(sid);
    if (!(station.replicatedFrom !== null && isSuperuser(user))) ensureEditor(user, station);
  });
}


/**
 * `{site}/manage/stations/{sid}/` (management.md §2): the station form, its maintainers and data
 * viewers, its groups, files, images and events (each with an add form), and its activity.
 */
export default async function ManageStationPage({ params, searchParams }: { params: Params; searchParams: Search }) {
  const [{ sid: sidText }, query] = await Promise.all([params, searchParams]);
  const sid = pathId(sidText) ?? 0;
  const replicated = await replicatedForSuperuser(`/manage/stations/${sidText}/`, sid);
  if (replicated) return <ReplicatedStation station={replicated} done={query.done} />;
  const { user, data } = await guarded(`/manage/stations/${sidText}/`, async (u) => {
    const [page, choices, owners] = await Promise.all([stationForEditing(u, sid), lookupChoices(), ownerChoices("", 1000)]);
    return { ...page, choices, owners, telemetry: await telemetrySummary(sid) };
  });
  const { station, choices } = data;
  const token = formToken(user.sessionId);
  const values = stationValues(station, data.ownerName, data.people);
  const name = station.name || `Station ${station.id}`;
  const unitOptions = choices.units.map((u) => ({ id: u.id, label: u.label }));
  return (
    <div className="page manage">
      <ManageHeader crumbs={[{ label: name }]} title={<>{name} {station.code && <span className="code">{station.code}</span>}</>} lead={data.ownerName}
        actions={<>
          <Link className="button secondary" href={stationPath(sid)}>Public page</Link>
          <Link className="button danger-link" href={`${managePaths.station(sid)}delete/`}>Delete station</Link>
        </>} />
      <Done code={query.done} />
      <nav className="section-nav" aria-label="Sections">
        <a href="#details">Details</a> <a href="#people">Maintainers and data viewers</a> <a href="#groups">Time series</a> <a href="#telemetry">Telemetry</a>
        <a href="#files">Files</a> <a href="#images">Images</a> <a href="#events">Events</a> <a href="#activity">Activity</a>
      </nav>

      <Section id="details" title="Details">
        <StationForm action={saveStation.bind(null, sid)} initial={values} token={token} stationTypes={choices.stationTypes}
          owners={data.owners} submit="Save station" />
      </Section>

      <Section id="people" title="Maintainers and data viewers">
        <ManagedForm action={savePeople.bind(null, sid)} initial={values} token={token} submit="Save people" label="Maintainers and data viewers">
          <input type="hidden" name="last_modified" value={values.last_modified as string} />
          <div className="form-grid">
            <UserPicker name="maintainers" label="Maintainers" stationId={sid} help="They may edit the station and everything under it." />
            <UserPicker name="data_viewers" label="Data viewers" stationId={sid} help="They may read the records of its private time series." />
          </div>
        </ManagedForm>
      </Section>

      <Section id="groups" title="Time series groups">
        {data.groups.length ? (
          <Table columns={["Group", "Variable", "Unit", "Time series", "Records"]}>
            {data.groups.map((g) => (
              <tr key={g.id}>
                <th scope="row"><Link href={managePaths.group(sid, g.id)}>{groupTitle(g)}</Link>{g.hidden && <span className="badge">hidden</span>}</th>
                <td data-label="Variable">{g.variable}</td>
                <td data-label="Unit">{g.unit}</td>
                <td data-label="Time series">{g.series}</td>
                <td data-label="Records">{formatCount(g.records)}</td>
              </tr>
            ))}
          </Table>
        ) : <p className="muted">No time series groups yet.</p>}
        <details className="add-form" open={data.groups.length === 0}>
          <summary>Add a time series group</summary>
          <ManagedForm action={addGroup.bind(null, sid)} initial={{ precision: "2", hidden: "false" }} token={token} submit="Add group" label="New time series group">
            <GroupFields variables={choices.variables} units={unitOptions} />
          </ManagedForm>
        </details>
      </Section>

      <Section id="telemetry" title="Telemetry">
        {data.telemetry ? (
          <dl className="details">
            <div><dt>Fetched from</dt><dd>{data.telemetry.typeName}, {data.telemetry.schedule}; {data.telemetry.sensors === 1 ? "1 sensor" : `${data.telemetry.sensors} sensors`}</dd></div>
            <div><dt>State</dt><dd>
              <span className={`badge telemetry-${data.telemetry.status}`}>{data.telemetry.status}</span>{" "}
              {data.telemetry.status === "never" ? "not fetched yet" : `last fetch ${data.telemetry.lastFetch?.toISOString().slice(0, 16).replace("T", " ")} UTC${data.telemetry.status === "error" ? ", failed" : ""}`}
              {data.telemetry.unhealthy > 0 && <span className="badge feed-stale">{data.telemetry.unhealthy === 1 ? "1 feed stale or stuck" : `${data.telemetry.unhealthy} feeds stale or stuck`}</span>}
            </dd></div>
            <div><dt>Next fetch</dt><dd>{data.telemetry.nextFetch.toISOString().slice(0, 16).replace("T", " ")} UTC</dd></div>
          </dl>
        ) : <p className="muted">No telemetry: data arrive only when someone uploads them.</p>}
        <p><Link href={managePaths.telemetry(sid)}>{data.telemetry ? "Telemetry: fetch now, log, alerts, change" : "Set up telemetry"}</Link></p>
      </Section>

      <Section id="files" title="Files">
        {data.files.length ? (
          <ul className="item-list">
            {data.files.map((f) => (
              <li key={f.id}>
                <a href={contentPath("files", sid, f.id)} download>{f.descr}</a>
                <span className="muted small">{f.date ? ` · ${f.date}` : ""}{f.fileName ? ` · ${f.fileName}` : ""}</span>
                <span className="item-actions"><Link href={managePaths.child("files", sid, f.id)}>Edit</Link> <Link href={`${managePaths.child("files", sid, f.id)}delete/`}>Delete</Link></span>
              </li>
            ))}
          </ul>
        ) : <p className="muted">No files.</p>}
        <details className="add-form">
          <summary>Add a file</summary>
          <ManagedForm action={addChild.bind(null, "files", sid)} initial={{}} token={token} submit="Add file" multipart label="New file">
            <AttachmentFields kind="files" create />
          </ManagedForm>
        </details>
      </Section>

      <Section id="images" title="Images">
        {data.images.length ? (
          <ul className="gallery manage-gallery">
            {data.images.map((img) => (
              <li key={img.id}>
                <figure>
                  {/* eslint-disable-next-line @next/next/no-img-element -- served by the API */}
                  <img src={contentPath("images", sid, img.id)} alt={img.descr || `Image ${img.id}`} loading="lazy" />
                  <figcaption>
                    {img.descr || <span className="muted">No description</span>}{img.date && <span className="muted small"> · {img.date}</span>}
                    <span className="item-actions block"><Link href={managePaths.child("images", sid, img.id)}>Edit</Link> <Link href={`${managePaths.child("images", sid, img.id)}delete/`}>Delete</Link></span>
                  </figcaption>
                </figure>
              </li>
            ))}
          </ul>
        ) : <p className="muted">No images.</p>}
        <details className="add-form">
          <summary>Add an image</summary>
          <ManagedForm action={addChild.bind(null, "images", sid)} initial={{ featured: "false" }} token={token} submit="Add image" multipart label="New image">
            <AttachmentFields kind="images" create />
          </ManagedForm>
        </details>
      </Section>

      <Section id="events" title="Events">
        {data.events.length ? (
          <Table columns={["Date", "Type", "User", "Report", ""]}>
            {data.events.map((e) => (
              <tr key={e.id}>
                <td data-label="Date" className="nowrap">{e.date}</td>
                <td data-label="Type">{e.typeName}</td>
                <td data-label="User">{e.user}</td>
                <td data-label="Report" className="pre-line">{e.report}</td>
                <td data-label="" className="nowrap"><Link href={managePaths.child("events", sid, e.id)}>Edit</Link> <Link href={`${managePaths.child("events", sid, e.id)}delete/`}>Delete</Link></td>
              </tr>
            ))}
          </Table>
        ) : <p className="muted">No events.</p>}
        <details className="add-form">
          <summary>Add an event</summary>
          <ManagedForm action={addChild.bind(null, "events", sid)} initial={{ date: new Date().toISOString().slice(0, 10) }} token={token} submit="Add event" label="New event">
            <EventFields eventTypes={choices.eventTypes} />
          </ManagedForm>
        </details>
      </Section>

      <Section id="activity" title="Activity">
        <ActivityList items={data.activity} empty="No changes recorded yet." />
        <p className="small"><a href={`/api/stations/${sid}/activity/`}>All of it (JSON, paged)</a></p>
      </Section>
    </div>
  );
}
