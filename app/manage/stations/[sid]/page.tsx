import type { Metadata } from "next";
import Link from "next/link";
import { getLocale, getTranslations } from "next-intl/server";
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
import { groupTitleIn } from "@/lib/site/group-title";
import { formatCountIn } from "@/lib/i18n";

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
  const t = await getTranslations("manageStation");
  return manageMetadata(replicated ? t("replicatedTitle") : t("editTitle"), async (user) => {
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
  const [t, locale] = await Promise.all([getTranslations("manageStation"), getLocale()]);
  const token = formToken(user.sessionId);
  const values = stationValues(station, data.ownerName, data.people);
  const name = station.name || t("stationN", { id: String(station.id) });
  const unitOptions = choices.units.map((u) => ({ id: u.id, label: u.label }));
  return (
    <div className="page manage">
      <ManageHeader crumbs={[{ label: name }]} title={<>{name} {station.code && <span className="code">{station.code}</span>}</>} lead={data.ownerName}
        actions={<>
          <Link className="button secondary" href={stationPath(sid)}>{t("publicPage")}</Link>
          <Link className="button danger-link" href={`${managePaths.station(sid)}delete/`}>{t("deleteStation")}</Link>
        </>} />
      <Done code={query.done} />
      <nav className="section-nav" aria-label={t("sections")}>
        <a href="#details">{t("details")}</a> <a href="#people">{t("people")}</a> <a href="#groups">{t("timeSeries")}</a> <a href="#telemetry">{t("telemetry")}</a>
        <a href="#files">{t("files")}</a> <a href="#images">{t("images")}</a> <a href="#events">{t("events")}</a> <a href="#activity">{t("activity")}</a>
      </nav>

      <Section id="details" title={t("details")}>
        <StationForm action={saveStation.bind(null, sid)} initial={values} token={token} stationTypes={choices.stationTypes}
          owners={data.owners} submit={t("saveStation")} />
      </Section>

      <Section id="people" title={t("people")}>
        <ManagedForm action={savePeople.bind(null, sid)} initial={values} token={token} submit={t("savePeople")} label={t("people")}>
          <input type="hidden" name="last_modified" value={values.last_modified as string} />
          <div className="form-grid">
            <UserPicker name="maintainers" label={t("maintainers")} stationId={sid} help={t("maintainersHelp")} />
            <UserPicker name="data_viewers" label={t("dataViewers")} stationId={sid} help={t("dataViewersHelp")} />
          </div>
        </ManagedForm>
      </Section>

      <Section id="groups" title={t("groups")}>
        {data.groups.length ? (
          <Table columns={[t("group"), t("variable"), t("unit"), t("timeSeries"), t("records")]}>
            {data.groups.map((g) => (
              <tr key={g.id}>
                <th scope="row"><Link href={managePaths.group(sid, g.id)}>{groupTitleIn(locale, g)}</Link>{g.hidden && <span className="badge">{t("hidden")}</span>}</th>
                <td data-label={t("variable")}>{g.variable}</td>
                <td data-label={t("unit")}>{g.unit}</td>
                <td data-label={t("timeSeries")}>{g.series}</td>
                <td data-label={t("records")}>{formatCountIn(locale, g.records)}</td>
              </tr>
            ))}
          </Table>
        ) : <p className="muted">{t("noGroups")}</p>}
        <details className="add-form" open={data.groups.length === 0}>
          <summary>{t("addGroupSummary")}</summary>
          <ManagedForm action={addGroup.bind(null, sid)} initial={{ precision: "2", hidden: "false" }} token={token} submit={t("addGroup")} label={t("newGroup")}>
            <GroupFields variables={choices.variables} units={unitOptions} />
          </ManagedForm>
        </details>
      </Section>

      <Section id="telemetry" title={t("telemetry")}>
        {data.telemetry ? (
          <dl className="details">
            <div><dt>{t("fetchedFrom")}</dt><dd>{t("fetchedFromValue", { type: data.telemetry.typeName, schedule: data.telemetry.schedule, sensors: data.telemetry.sensors })}</dd></div>
            <div><dt>{t("state")}</dt><dd>
              <span className={`badge telemetry-${data.telemetry.status}`}>{t(`telemetryStatus.${data.telemetry.status}`)}</span>{" "}
              {data.telemetry.status === "never" ? t("notFetched")
                : t(data.telemetry.status === "error" ? "lastFetchFailed" : "lastFetch", { time: data.telemetry.lastFetch?.toISOString().slice(0, 16).replace("T", " ") ?? "" })}
              {data.telemetry.unhealthy > 0 && <span className="badge feed-stale">{t("unhealthy", { count: data.telemetry.unhealthy })}</span>}
            </dd></div>
            <div><dt>{t("nextFetch")}</dt><dd>{data.telemetry.nextFetch.toISOString().slice(0, 16).replace("T", " ")} UTC</dd></div>
          </dl>
        ) : <p className="muted">{t("noTelemetry")}</p>}
        <p><Link href={managePaths.telemetry(sid)}>{data.telemetry ? t("telemetryLink") : t("setUpTelemetry")}</Link></p>
      </Section>

      <Section id="files" title={t("files")}>
        {data.files.length ? (
          <ul className="item-list">
            {data.files.map((f) => (
              <li key={f.id}>
                <a href={contentPath("files", sid, f.id)} download>{f.descr}</a>
                <span className="muted small">{f.date ? ` · ${f.date}` : ""}{f.fileName ? ` · ${f.fileName}` : ""}</span>
                <span className="item-actions"><Link href={managePaths.child("files", sid, f.id)}>{t("edit")}</Link> <Link href={`${managePaths.child("files", sid, f.id)}delete/`}>{t("delete")}</Link></span>
              </li>
            ))}
          </ul>
        ) : <p className="muted">{t("noFiles")}</p>}
        <details className="add-form">
          <summary>{t("addFileSummary")}</summary>
          <ManagedForm action={addChild.bind(null, "files", sid)} initial={{}} token={token} submit={t("addFile")} multipart label={t("newFile")}>
            <AttachmentFields kind="files" create />
          </ManagedForm>
        </details>
      </Section>

      <Section id="images" title={t("images")}>
        {data.images.length ? (
          <ul className="gallery manage-gallery">
            {data.images.map((img) => (
              <li key={img.id}>
                <figure>
                  {/* eslint-disable-next-line @next/next/no-img-element -- served by the API */}
                  <img src={contentPath("images", sid, img.id)} alt={img.descr || t("imageN", { id: String(img.id) })} loading="lazy" />
                  <figcaption>
                    {img.descr || <span className="muted">{t("noDescription")}</span>}{img.date && <span className="muted small"> · {img.date}</span>}
                    <span className="item-actions block"><Link href={managePaths.child("images", sid, img.id)}>{t("edit")}</Link> <Link href={`${managePaths.child("images", sid, img.id)}delete/`}>{t("delete")}</Link></span>
                  </figcaption>
                </figure>
              </li>
            ))}
          </ul>
        ) : <p className="muted">{t("noImages")}</p>}
        <details className="add-form">
          <summary>{t("addImageSummary")}</summary>
          <ManagedForm action={addChild.bind(null, "images", sid)} initial={{ featured: "false" }} token={token} submit={t("addImage")} multipart label={t("newImage")}>
            <AttachmentFields kind="images" create />
          </ManagedForm>
        </details>
      </Section>

      <Section id="events" title={t("events")}>
        {data.events.length ? (
          <Table columns={[t("date"), t("type"), t("user"), t("report"), ""]}>
            {data.events.map((e) => (
              <tr key={e.id}>
                <td data-label={t("date")} className="nowrap">{e.date}</td>
                <td data-label={t("type")}>{e.typeName}</td>
                <td data-label={t("user")}>{e.user}</td>
                <td data-label={t("report")} className="pre-line">{e.report}</td>
                <td data-label="" className="nowrap"><Link href={managePaths.child("events", sid, e.id)}>{t("edit")}</Link> <Link href={`${managePaths.child("events", sid, e.id)}delete/`}>{t("delete")}</Link></td>
              </tr>
            ))}
          </Table>
        ) : <p className="muted">{t("noEvents")}</p>}
        <details className="add-form">
          <summary>{t("addEventSummary")}</summary>
          <ManagedForm action={addChild.bind(null, "events", sid)} initial={{ date: new Date().toISOString().slice(0, 10) }} token={token} submit={t("addEvent")} label={t("newEvent")}>
            <EventFields eventTypes={choices.eventTypes} />
          </ManagedForm>
        </details>
      </Section>

      <Section id="activity" title={t("activity")}>
        <ActivityList items={data.activity} empty={t("noActivity")} />
        <p className="small"><a href={`/api/stations/${sid}/activity/`}>{t("allActivity")}</a></p>
      </Section>
    </div>
  );
}
