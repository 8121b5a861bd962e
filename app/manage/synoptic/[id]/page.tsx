import "@/components/synoptic/synoptic.css";
import type { Metadata } from "next";
import Link from "next/link";
import { getTranslations } from "next-intl/server";
import SynopticGroupForm from "@/components/manage/synoptic/SynopticGroupForm";
import { DISPLAY_TIMEZONES } from "@/lib/stations";
import { settings } from "@/lib/config";
import { stationChoices, synopticGroupJson, synopticWarnings } from "@/lib/synoptic";
import { formatDateTime, offsetLabel, zoneOffsetMinutes } from "@/lib/site/time";
import { editable, synopticPageMetadata } from "@/app/manage/synoptic/guard";
import { resendWarningAction } from "@/app/manage/synoptic/actions";
import ManagedForm from "@/components/manage/Form";
import { Breadcrumbs } from "@/components/site/Breadcrumbs";
import { formToken } from "@/lib/site/form-token";
import { managePaths } from "@/lib/site/manage-paths";
import { formatCountIn } from "@/lib/i18n";
import { requestLocale } from "@/lib/site/locale";

type Params = Promise<{ id: string }>;

export async function generateMetadata({ params }: { params: Params }): Promise<Metadata> {
  return synopticPageMetadata((await getTranslations("manageOpsSynoptic"))("editTitle"), params);
}
type SearchParams = Promise<Record<string, string | string[] | undefined>>;

const WARNINGS_SHOWN = 50;

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
  const [t, locale] = await Promise.all([getTranslations("manageOpsSynoptic"), requestLocale()]);
  return (
    <div className="page">
      <Breadcrumbs crumbs={[{ label: t("manage"), href: managePaths.home }, { label: t("title"), href: "/manage/synoptic/" }, { label: group.name }]} />
      <header className="page-header">
        <h1>{group.name}</h1>
        <p className="lead"><Link href={`/synoptic/${group.slug}/`}>{t("seePage")}</Link> · <Link href={`/manage/synoptic/${group.id}/delete/`}>{t("deleteIt")}</Link></p>
      </header>
      {sp.saved !== undefined && <p className="message success" role="status">{t("saved")}</p>}
      {sp.resent !== undefined && <p className="message success" role="status">{t("resent")}</p>}
      <SynopticGroupForm key={json.last_modified} initial={json} token={token} choices={choices} zones={DISPLAY_TIMEZONES} tileUrl={mapTileUrl}
        tileAttribution={mapTileAttribution} defaultBbox={mapDefaultViewport as [number, number, number, number]} />

      <section className="card synoptic-warnings" id="warnings" aria-labelledby="warnings-heading">
        <h2 id="warnings-heading">{t("warnings")}</h2>
        {warnings.count === 0 ? <p className="muted">{t("noWarnings")}</p> : (
          <>
            <p className="muted small">{warnings.count > WARNINGS_SHOWN
              ? t("warningsLatest", { shown: String(WARNINGS_SHOWN), count: formatCountIn(locale, warnings.count), zone: offsetLabel(offset) })
              : t("warningsAll", { count: formatCountIn(locale, warnings.count), zone: offsetLabel(offset) })}</p>
            <div className="table-wrap">
              <table className="data-table">
                <thead><tr><th scope="col">{t("colRecorded")}</th><th scope="col">{t("colEmail")}</th><th scope="col">{t("colAlarms")}</th></tr></thead>
                <tbody>
                  {recent.map((w) => (
                    <tr key={w.id} data-warning={w.id} data-status={w.status}>
                      <td data-label={t("colRecorded")} className="nowrap">{formatDateTime(Date.parse(w.created) / 1000, offset)}</td>
                      <td data-label={t("colEmail")}>
                        <strong>{t(`warningStatus.${w.status}`)}</strong>
                        {w.recipients.length > 0 && <span className="block small muted">{t("sentTo", { list: w.recipients.join(", ") })}</span>}
                        {w.status === "sent" && w.withheld.length > 0 && (
                          <span className="block small">{t("notTo", { list: w.withheld.join(", "), count: w.withheld.length, limit: String(alarmEmailsPerHour) })}</span>
                        )}
                        {w.error && <span className="block small error-text">{w.status === "pending" ? t("retrying", { error: w.error }) : w.error}</span>}
                        {w.status === "failed" && (
                          <ManagedForm action={resendWarningAction.bind(null, group.id, w.id)} initial={{}} token={token} submit={t("resend")} className="inline-form secondary-form"
                            label={t("resendLabel", { when: formatDateTime(Date.parse(w.created) / 1000, offset) })} />
                        )}
                      </td>
                      <td data-label={t("colAlarms")}><pre>{w.body.split("\n").slice(2).join("\n").trim()}</pre></td>
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
