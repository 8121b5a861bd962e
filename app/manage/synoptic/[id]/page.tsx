import "@/components/synoptic/synoptic.css";
import type { Metadata } from "next";
import Link from "next/link";
import SynopticGroupForm from "@/components/synoptic/SynopticGroupForm";
import { DISPLAY_TIMEZONES } from "@/lib/stations";
import { settings } from "@/lib/config";
import { stationChoices, synopticGroupJson, synopticWarnings, type WarningJson } from "@/lib/synoptic";
import { formatDateTime, offsetLabel, zoneOffsetMinutes } from "@/lib/site/time";
import { editable, synopticPageMetadata } from "@/app/manage/synoptic/guard";
import { resendWarningAction } from "@/app/manage/synoptic/actions";
import { Breadcrumbs } from "@/components/site/Breadcrumbs";
import { formToken, TOKEN_FIELD } from "@/lib/site/form-token";
import { FORM_EXPIRED } from "@/lib/site/forms";
import { managePaths } from "@/lib/site/manage-paths";
import { formatCount } from "@/lib/site/numbers";

type Params = Promise<{ id: string }>;

export function generateMetadata({ params }: { params: Params }): Promise<Metadata> {
  return synopticPageMetadata("Edit synoptic group", params);
}
type SearchParams = Promise<Record<string, string | string[] | undefined>>;

const WARNINGS_SHOWN = 50;

const STATUS_TEXT: Record<WarningJson["status"], string> = {
  pending: "being sent",
  sent: "sent",
  failed: "not sent",
  no_recipients: "no addresses to send to",
  withheld: "not sent: every address has had its limit of warnings this hour",
};

/** `{site}/manage/synoptic/{id}/`: the form, the recorded warnings (management.md; synoptic.md §3) and the way to delete. */
export default async function EditSynopticGroupPage({ params, searchParams }: { params: Params; searchParams: SearchParams }) {
  const { user, group } = await editable((await params).id, (id) => `/manage/synoptic/${id}/`);
  const token = formToken(user.sessionId);
  const sp = await searchParams;
  const json = (await synopticGroupJson(group.id))!;
  const [choices, warnings] = await Promise.all([stationChoices(json.stations.map((s) => s.station)), synopticWarnings(user, group.id)]);
  const recent = await warnings.page(0, WARNINGS_SHOWN);
  const { mapTileUrl, mapTileAttribution, mapDefaultViewport, alarmEmailsPerHour } = settings();
  const offset = zoneOffsetMinutes(group.displayTimezone) ?? 0;
  return (
    <div className="page">
      <Breadcrumbs crumbs={[{ label: "Manage", href: managePaths.home }, { label: "Synoptic groups", href: "/manage/synoptic/" }, { label: group.name }]} />
      <header className="page-header">
        <h1>{group.name}</h1>
        <p className="lead"><Link href={`/synoptic/${group.slug}/`}>See its page</Link> · <Link href={`/manage/synoptic/${group.id}/delete/`}>Delete it</Link></p>
      </header>
      {sp.saved !== undefined && <p className="message success" role="status">The synoptic group has been saved.</p>}
      {sp.resent !== undefined && <p className="message success" role="status">The warning will be sent again.</p>}
      {sp.expired !== undefined && <p className="message error" role="alert">{FORM_EXPIRED}</p>}
      <SynopticGroupForm key={json.last_modified} initial={json} token={token} choices={choices} zones={DISPLAY_TIMEZONES} tileUrl={mapTileUrl}
        tileAttribution={mapTileAttribution} defaultBbox={mapDefaultViewport as [number, number, number, number]} />

      <section className="card synoptic-warnings" id="warnings" aria-labelledby="warnings-heading">
        <h2 id="warnings-heading">Early warnings</h2>
        {warnings.count === 0 ? <p className="muted">No warnings yet. One is recorded, and e-mailed, when a value crosses a limit or changes too fast.</p> : (
          <>
            <p className="muted small">{warnings.count > WARNINGS_SHOWN ? `The latest ${WARNINGS_SHOWN} of ${formatCount(warnings.count)}` : `${formatCount(warnings.count)} in all`}, newest first; times in {offsetLabel(offset)}.</p>
            <div className="table-wrap">
              <table className="data-table">
                <thead><tr><th scope="col">Recorded</th><th scope="col">E-mail</th><th scope="col">Alarms</th></tr></thead>
                <tbody>
                  {recent.map((w) => (
                    <tr key={w.id} data-warning={w.id} data-status={w.status}>
                      <td data-label="Recorded" className="nowrap">{formatDateTime(Date.parse(w.created) / 1000, offset)}</td>
                      <td data-label="E-mail">
                        <strong>{STATUS_TEXT[w.status]}</strong>
                        {w.recipients.length > 0 && <span className="block small muted">to {w.recipients.join(", ")}</span>}
                        {w.status === "sent" && w.withheld.length > 0 && (
                          <span className="block small">not to {w.withheld.join(", ")}: {w.withheld.length === 1 ? "it has" : "they have"} had {alarmEmailsPerHour} warnings this hour</span>
                        )}
                        {w.error && <span className="block small error-text">{w.status === "pending" ? "Retrying after: " : ""}{w.error}</span>}
                        {w.status === "failed" && (
                          <form action={resendWarningAction} aria-label={`Send the warning of ${formatDateTime(Date.parse(w.created) / 1000, offset)} again`}>
                            <input type="hidden" name={TOKEN_FIELD} value={token} />
                            <input type="hidden" name="id" value={group.id} />
                            <input type="hidden" name="warning" value={w.id} />
                            <button type="submit" className="secondary">Send again</button>
                          </form>
                        )}
                      </td>
                      <td data-label="Alarms"><pre>{w.body.split("\n").slice(2).join("\n").trim()}</pre></td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          </>
        )}
      </section>
    </div>
  );
}
