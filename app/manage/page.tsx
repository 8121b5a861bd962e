import type { Metadata } from "next";
import Link from "next/link";
import { approveAccess, denyAccess } from "@/app/manage/actions/access";
import ManagedForm, { TextArea, TextField } from "@/components/manage/Form";
import { ActivityList, Done, ManageHeader, Pager, pageNumber, Section, Table } from "@/components/manage/parts";
import { MAX_TEXT, pendingForEditor } from "@/lib/access";
import { formToken } from "@/lib/site/form-token";
import { ZonedTime } from "@/components/site/ZonedTime";
import { canCreateStation, isSuperuser } from "@/lib/auth/permissions";
import { recentActivity } from "@/lib/activity";
import { type EditableStation, editableStations, failedProcesses, manageUser, queryProblem } from "@/lib/manage";
import { managePaths } from "@/lib/site/manage-paths";
import { countText } from "@/lib/site/numbers";
import { stationPath } from "@/lib/site/paths";
import { feedProblems } from "@/lib/telemetry";
import { formatDateTime, zoneOffsetMinutes } from "@/lib/site/time";

export const metadata: Metadata = { title: "Manage" };

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
  const [activity, failed, feeds, access, found] = await Promise.all([
    recentActivity(user, 15),
    failedProcesses(user, FAILED_SHOWN),
    feedProblems(user, FAILED_SHOWN),
    pendingForEditor(user, ACCESS_SHOWN),
    editableStations(user, q, (page - 1) * PAGE_SIZE, PAGE_SIZE).then((r) => ({ ...r, problem: null }), (e) => ({ count: 0, stations: [] as EditableStation[], problem: queryProblem(e) })),
  ]);
  const { problem, ...result } = found;
  const superuser = isSuperuser(user);
  return (
    <div className="page manage">
      <ManageHeader crumbs={[]} title="Manage" lead={`Logged in as ${user.username}${superuser ? " (administrator)" : ""}`}
        actions={canCreateStation(user) ? <Link className="button" href={managePaths.newStation}>New station</Link> : undefined} />
      <Done code={params.done} />
      {/* The other management pages are reached from here: synoptic groups by anyone logged in, the rest by superusers. */}
      <nav className="card admin-links" aria-label="Administration">
        {superuser && (
          <>
            <Link href={managePaths.lookups}>Lookups</Link>
            <span className="muted small">station types, variables, units, owners…</span>
            <Link href={managePaths.users}>Users</Link>
            <span className="muted small">accounts and their rights</span>
          </>
        )}
        <Link href={managePaths.synoptic}>Synoptic groups</Link>
        <span className="muted small">latest values of chosen stations, and alarm e-mails</span>
        {superuser && (
          <>
            <Link href={managePaths.replication}>Replication</Link>
            <span className="muted small">stations copied from other instances</span>
          </>
        )}
      </nav>
      <div className="manage-columns">
        <Section id="stations" title={superuser ? "Stations" : "Your stations"}>
          <form className="inline-search" role="search" method="get" action="/manage/">
            <label htmlFor="manage-q">{superuser ? "Search all stations" : "Search your stations"}</label>
            <div className="inline-search-row">
              <input id="manage-q" type="search" name="q" defaultValue={q} placeholder="e.g. arta owner:ntua" aria-describedby={problem ? "manage-q-error" : undefined} />
              <button type="submit" className="secondary">Search</button>
            </div>
            {problem && <p className="field-errors" id="manage-q-error" role="alert">{problem}</p>}
          </form>
          {result.stations.length ? (
            <Table columns={["Station", "Owner", "Last update", ""]}>
              {result.stations.map((s) => (
                <tr key={s.id}>
                  <th scope="row">
                    {/* A replicated station is read-only here: no link to its edit page (replication.md §2), but superusers' to its page with Detach. */}
                    {s.replicated && !superuser ? s.name || `Station ${s.id}` : <Link href={managePaths.station(s.id)}>{s.name || `Station ${s.id}`}</Link>} {s.code && <span className="code">{s.code}</span>}
                    {s.replicated && <span className="badge" title="Copied from another instance: read-only here until an administrator detaches it">replicated, read-only</span>}
                  </th>
                  <td data-label="Owner">{s.ownerName}</td>
                  <td data-label="Last update" className="nowrap">
                    {s.lastUpdate !== null ? <ZonedTime at={s.lastUpdate} offset={zoneOffsetMinutes(s.displayTimezone) ?? 0} /> : <span className="muted">no records</span>}
                  </td>
                  <td data-label="" className="nowrap"><Link href={stationPath(s.id)} className="small">public page</Link></td>
                </tr>
              ))}
            </Table>
          ) : (
            <p className="muted">{superuser ? (q ? "No station matches this search." : "There are no stations yet.") : q ? "No station of yours matches this search." : "You do not edit any station yet."}
              {canCreateStation(user) && !q && <> <Link href={managePaths.newStation}>Add one.</Link></>}</p>
          )}
          <p className="muted small">{countText(result.count, "station", "stations")}</p>
          <Pager page={page} pages={Math.ceil(result.count / PAGE_SIZE)} params={q ? { q } : {}} path="/manage/" />
        </Section>
        {access.length > 0 && (
          <Section id="access-requests" title="Access requests waiting for you">
            <ul className="item-list access-requests">
              {access.map((r) => (
                <li key={r.id}>
                  <p>
                    <strong>{r.username}</strong>{r.email && <span className="muted small"> ({r.email})</span>} asks to read the protected data of{" "}
                    <Link href={stationPath(r.station)}>{r.station_name || `Station ${r.station}`}</Link>
                    <span className="muted small"> · {formatDateTime(Date.parse(r.created) / 1000, 0)} UTC</span>
                  </p>
                  {r.message ? <blockquote className="pre-line">{r.message}</blockquote> : <p className="muted small">No message.</p>}
                  <ManagedForm action={approveAccess.bind(null, r.station, r.id)} initial={{}} token={formToken(user.sessionId)} submit="Approve"
                    label={`Approve the request of ${r.username}`}>
                    <TextField name="valid_until" type="date" label="Access until"
                      help="The first day without access (it ends when that day begins, UTC); leave empty for no end. The user is reminded a week before." />
                  </ManagedForm>
                  <ManagedForm action={denyAccess.bind(null, r.station, r.id)} initial={{}} token={formToken(user.sessionId)} submit="Deny" danger
                    label={`Deny the request of ${r.username}`}>
                    <TextArea name="reason" label="Reason" required rows={2} help={`Sent to the user (at most ${MAX_TEXT} characters).`} />
                  </ManagedForm>
                </li>
              ))}
            </ul>
          </Section>
        )}
        {failed.length > 0 && (
          <Section id="failed-processes" title="Processes whose last run failed">
            <ul className="item-list failed-processes">
              {failed.map((p) => (
                <li key={p.id}>
                  <Link href={`${managePaths.group(p.stationId, p.groupId)}#processes`}>{p.stationName || `Station ${p.stationId}`} · {p.groupName}</Link>
                  : <Link href={managePaths.process(p.stationId, p.groupId, p.id)}>{p.description}</Link>
                  {p.failedAt && <span className="muted small"> · {formatDateTime(p.failedAt.getTime() / 1000, 0)} UTC</span>}
                  <p className="message error small">{p.error}</p>
                </li>
              ))}
            </ul>
          </Section>
        )}
        {feeds.length > 0 && (
          <Section id="feeds" title="Telemetry feeds that need attention">
            <ul className="item-list feed-problems">
              {feeds.map((p) => (
                <li key={p.stationId}>
                  <Link href={managePaths.telemetry(p.stationId)}>{p.stationName || `Station ${p.stationId}`}</Link>
                  {p.failing && <span className="badge telemetry-error">last fetch failed</span>}
                  {p.stale.length > 0 && <span className="badge feed-stale">stale: {p.stale.join(", ")}</span>}
                  {p.stuck.length > 0 && <span className="badge feed-stuck">stuck: {p.stuck.join(", ")}</span>}
                  {p.lastFetch && <span className="muted small"> · last fetch {formatDateTime(p.lastFetch.getTime() / 1000, 0)} UTC</span>}
                </li>
              ))}
            </ul>
          </Section>
        )}
        <Section id="activity" title="Latest changes">
          <ActivityList items={activity} empty="No changes yet." stationLinks />
        </Section>
      </div>
    </div>
  );
}
