import type { Metadata } from "next";
import Link from "next/link";
import { getTranslations } from "next-intl/server";
import { approveAccess, denyAccess } from "@/app/manage/actions/access";
import ManagedForm, { TextArea, TextField } from "@/components/manage/Form";
import { ActivityList, Done, ManageHeader, Pager, pageNumber, Section, Table } from "@/components/manage/parts";
import { MAX_TEXT, pendingForEditor } from "@/lib/access";
import { formToken } from "@/lib/site/form-token";
import { ZonedTime } from "@/components/site/ZonedTime";
import { canCreateStation, isSuperuser } from "@/lib/auth/permissions";
import { recentActivity } from "@/lib/activity";
import { activitySummaryIn } from "@/lib/site/field-errors";
import { requestLocale } from "@/lib/site/locale";
import { type EditableStation, editableStations, failedProcesses, manageUser, queryProblem } from "@/lib/manage";
import { managePaths } from "@/lib/site/manage-paths";
import { stationPath } from "@/lib/site/paths";
import { feedProblems } from "@/lib/telemetry";
import { formatDateTime, zoneOffsetMinutes } from "@/lib/site/time";

export async function generateMetadata(): Promise<Metadata> {
  return { title: (await getTranslations("manage"))("title") };
}

type Search = Promise<Record<string, string | string[] | undefined>>;

const PAGE_SIZE = 20;
const FAILED_SHOWN = 20;
const ACCESS_SHOWN = 50;

/**
 * `{site}/manage/` (management.md §2): the stations the user may edit (searched with the syntax
 * of api.md §4.5), a "New station" link for those who may add stations, the processes whose
 * last run failed, and the latest changes; links to lookups and users for superusers.
 */
export default async function ManageHome({ searchParams }: { searchParams: Search }) {
  const params = await searchParams;
  const q = typeof params.q === "string" ? params.q : "";
  const page = pageNumber(params.page);
  const user = await manageUser(`/manage/${q || page > 1 ? `?${new URLSearchParams({ q, page: String(page) })}` : ""}`);
  const [t, tm, activity, failed, feeds, access, found] = await Promise.all([
    getTranslations("manageHome"),
    getTranslations("manage"),
    recentActivity(user, 15).then(async (items) => {
      const locale = await requestLocale();
      return items.map((a) => ({ ...a, summary: activitySummaryIn(locale, a.summary) }));
    }),
    failedProcesses(user, FAILED_SHOWN),
    feedProblems(user, FAILED_SHOWN),
    pendingForEditor(user, ACCESS_SHOWN),
    editableStations(user, q, (page - 1) * PAGE_SIZE, PAGE_SIZE).then((r) => ({ ...r, problem: null }), (e) => ({ count: 0, stations: [] as EditableStation[], problem: queryProblem(e) })),
  ]);
  const { problem, ...result } = found;
  const superuser = isSuperuser(user);
  return (
    <div className="page manage">
      <ManageHeader crumbs={[]} title={tm("title")} lead={t(superuser ? "loggedInAsAdmin" : "loggedInAs", { username: user.username })}
        actions={canCreateStation(user) ? <Link className="button" href={managePaths.newStation}>{t("newStation")}</Link> : undefined} />
      <Done code={params.done} />
      {/* The other management pages are reached from here: synoptic groups by anyone logged in, the rest by superusers. */}
      <nav className="card admin-links" aria-label={t("administration")}>
        {superuser && (
          <>
            <Link href={managePaths.lookups}>{t("lookups")}</Link>
            <span className="muted small">{t("lookupsHint")}</span>
            <Link href={managePaths.users}>{t("users")}</Link>
            <span className="muted small">{t("usersHint")}</span>
          </>
        )}
        <Link href={managePaths.synoptic}>{t("synoptic")}</Link>
        <span className="muted small">{t("synopticHint")}</span>
        {superuser && (
          <>
            <Link href={managePaths.replication}>{t("replication")}</Link>
            <span className="muted small">{t("replicationHint")}</span>
          </>
        )}
      </nav>
      <div className="manage-columns">
        <Section id="stations" title={superuser ? t("stations") : t("yourStations")}>
          <form className="inline-search" role="search" method="get" action="/manage/">
            <label htmlFor="manage-q">{superuser ? t("searchAll") : t("searchYours")}</label>
            <div className="inline-search-row">
              <input id="manage-q" type="search" name="q" defaultValue={q} placeholder={t("searchPlaceholder")} aria-describedby={problem ? "manage-q-error" : undefined} />
              <button type="submit" className="secondary">{t("search")}</button>
            </div>
            {problem && <p className="field-errors" id="manage-q-error" role="alert">{problem}</p>}
          </form>
          {result.stations.length ? (
            <Table columns={[t("station"), t("owner"), t("lastUpdate"), ""]}>
              {result.stations.map((s) => (
                <tr key={s.id}>
                  <th scope="row">
                    {/* A replicated station is read-only here: no link to its edit page (replication.md §2), but superusers' to its page with Detach. */}
                    {s.replicated && !superuser ? s.name || t("stationN", { id: s.id }) : <Link href={managePaths.station(s.id)}>{s.name || t("stationN", { id: s.id })}</Link>} {s.code && <span className="code">{s.code}</span>}
                    {s.replicated && <span className="badge" title={t("replicatedTitle")}>{t("replicated")}</span>}
                  </th>
                  <td data-label={t("owner")}>{s.ownerName}</td>
                  <td data-label={t("lastUpdate")} className="nowrap">
                    {s.lastUpdate !== null ? <ZonedTime at={s.lastUpdate} offset={zoneOffsetMinutes(s.displayTimezone) ?? 0} /> : <span className="muted">{t("noRecords")}</span>}
                  </td>
                  <td data-label="" className="nowrap"><Link href={stationPath(s.id)} className="small">{t("publicPage")}</Link></td>
                </tr>
              ))}
            </Table>
          ) : (
            <p className="muted">{superuser ? (q ? t("noMatch") : t("noStations")) : q ? t("noMatchYours") : t("noneYours")}
              {canCreateStation(user) && !q && <> <Link href={managePaths.newStation}>{t("addOne")}</Link></>}</p>
          )}
          <p className="muted small">{t("count", { count: result.count })}</p>
          <Pager page={page} pages={Math.ceil(result.count / PAGE_SIZE)} params={q ? { q } : {}} path="/manage/" />
        </Section>
        {access.length > 0 && (
          <Section id="access-requests" title={t("accessRequests")}>
            <ul className="item-list access-requests">
              {access.map((r) => (
                <li key={r.id}>
                  <p>
                    <strong>{r.username}</strong>{r.email && <span className="muted small"> ({r.email})</span>}{" "}
                    {t.rich("asksToRead", { station: r.station_name || t("stationN", { id: r.station }), link: (chunks) => <Link href={stationPath(r.station)}>{chunks}</Link> })}
                    <span className="muted small"> · {formatDateTime(Date.parse(r.created) / 1000, 0)} UTC</span>
                  </p>
                  {r.message ? <blockquote className="pre-line">{r.message}</blockquote> : <p className="muted small">{t("noMessage")}</p>}
                  <ManagedForm action={approveAccess.bind(null, r.station, r.id)} initial={{}} token={formToken(user.sessionId)} submit={t("approve")}
                    label={t("approveLabel", { username: r.username })}>
                    <TextField name="valid_until" type="date" label={t("accessUntil")} help={t("accessUntilHelp")} />
                  </ManagedForm>
                  <ManagedForm action={denyAccess.bind(null, r.station, r.id)} initial={{}} token={formToken(user.sessionId)} submit={t("deny")} danger
                    label={t("denyLabel", { username: r.username })}>
                    <TextArea name="reason" label={t("reason")} required rows={2} help={t("reasonHelp", { max: String(MAX_TEXT) })} />
                  </ManagedForm>
                </li>
              ))}
            </ul>
          </Section>
        )}
        {failed.length > 0 && (
          <Section id="failed-processes" title={t("failedProcesses")}>
            <ul className="item-list failed-processes">
              {failed.map((p) => (
                <li key={p.id}>
                  <Link href={`${managePaths.group(p.stationId, p.groupId)}#processes`}>{p.stationName || t("stationN", { id: p.stationId })} · {p.groupName}</Link>
                  : <Link href={managePaths.process(p.stationId, p.groupId, p.id)}>{p.description}</Link>
                  {p.failedAt && <span className="muted small"> · {formatDateTime(p.failedAt.getTime() / 1000, 0)} UTC</span>}
                  <p className="message error small">{p.error}</p>
                </li>
              ))}
            </ul>
          </Section>
        )}
        {feeds.length > 0 && (
          <Section id="feeds" title={t("feeds")}>
            <ul className="item-list feed-problems">
              {feeds.map((p) => (
                <li key={p.stationId}>
                  <Link href={managePaths.telemetry(p.stationId)}>{p.stationName || t("stationN", { id: p.stationId })}</Link>
                  {p.failing && <span className="badge telemetry-error">{t("lastFetchFailed")}</span>}
                  {p.stale.length > 0 && <span className="badge feed-stale">{t("stale", { feeds: p.stale.join(", ") })}</span>}
                  {p.stuck.length > 0 && <span className="badge feed-stuck">{t("stuck", { feeds: p.stuck.join(", ") })}</span>}
                  {p.lastFetch && <span className="muted small"> · {t("lastFetch", { time: formatDateTime(p.lastFetch.getTime() / 1000, 0) })}</span>}
                </li>
              ))}
            </ul>
          </Section>
        )}
        <Section id="activity" title={t("latestChanges")}>
          <ActivityList items={activity} empty={t("noChanges")} stationLinks />
        </Section>
      </div>
    </div>
  );
}
