import type { Metadata } from "next";
import Link from "next/link";
import { getTranslations } from "next-intl/server";
import { ManageHeader } from "@/components/manage/parts";
import UploadForm from "@/components/manage/UploadForm";
import { settings } from "@/lib/config";
import { findSeriesAt, writableSeries } from "@/lib/series";
import { guarded, processesForEditing, stationPageMetadata } from "@/lib/manage";
import { describeProcesses, processesFedBy, processesWriting, seriesOfGroups } from "@/lib/processing";
import { typeName } from "@/lib/domain/timeseries-types";
import { managePaths } from "@/lib/site/manage-paths";
import { requestLocale } from "@/lib/site/locale";
import { groupPath, seriesApiPath } from "@/lib/site/paths";
import { pathId, seriesLabel } from "@/lib/frontend";
import { formatDateTime, offsetLabel, zoneOffsetMinutes } from "@/lib/site/time";
import { groupTitleIn } from "@/lib/site/group-title";
import { typeWord } from "@/app/manage/stations/[sid]/timeseriesgroups/[gid]/words";

type Params = Promise<{ sid: string; gid: string; tid: string }>;

export async function generateMetadata({ params }: { params: Promise<{ sid: string }> }): Promise<Metadata> {
  return stationPageMetadata((await getTranslations("manageSeriesUpload"))("title"), params);
}


/** `{site}/manage/stations/{sid}/timeseriesgroups/{gid}/timeseries/{tid}/upload/` (management.md §2). */
export default async function UploadPage({ params }: { params: Params }) {
  const { sid: sidText, gid: gidText, tid: tidText } = await params;
  const [sid, gid, tid] = [pathId(sidText) ?? 0, pathId(gidText) ?? 0, pathId(tidText) ?? 0];
  const { data } = await guarded(`/manage/stations/${sidText}/timeseriesgroups/${gidText}/timeseries/${tidText}/upload/`, async (u) => {
    const s = await writableSeries(u, { stationId: sid, groupId: gid, seriesId: tid });
    const row = (await findSeriesAt({ stationId: sid, groupId: gid, seriesId: tid }))!;
    const [all, series, writers] = await Promise.all([processesForEditing(gid, s.unit.symbol), seriesOfGroups([gid]), processesWriting(tid, gid)]);
    // Only the processes this upload queues (those its records feed, directly or through the group's chain), not every process of the group.
    const fed = new Set(processesFedBy(tid, all.map((p) => p.row), series));
    const processes = all.filter((p) => fed.has(p.row.id));
    const descriptions = await describeProcesses(writers.map(({ process: p }) => p.definition), () => s.unit.symbol, await requestLocale());
    const writtenBy = writers.map(({ process: p, stationId }, i) => ({ href: managePaths.process(stationId, p.groupId, p.id), description: descriptions[i] }));
    return { s, row, processes, writtenBy };
  });
  const { s, row, processes, writtenBy } = data;
  const [t, tc, locale] = await Promise.all([getTranslations("manageSeriesUpload"), getTranslations("common"), requestLocale()]);
  const label = seriesLabel({ type: typeWord(tc, typeName(row.type)), name: row.name, timeStep: row.timeStep });
  const offset = zoneOffsetMinutes(s.station.displayTimezone) ?? 0;
  const groupName = groupTitleIn(locale, { id: gid, name: s.group.name, variable: s.variable.descr });
  const chartHref = `${groupPath(sid, gid)}?series=${tid}`;
  return (
    <div className="page manage">
      <ManageHeader crumbs={[{ label: s.station.name || tc("station", { id: sid }), href: managePaths.station(sid) }, { label: groupName, href: managePaths.group(sid, gid) }, { label: t("crumb") }]}
        title={t("heading", { label })} lead={`${s.group.name ? `${s.group.name} · ` : ""}${s.variable.descr} (${s.unit.symbol})`} />
      <section className="card">
        <p className="muted">
          {s.firstTimestamp !== null && s.lastTimestamp !== null
            ? t("storedNowRange", { count: s.recordCount, first: formatDateTime(s.firstTimestamp, offset), last: formatDateTime(s.lastTimestamp, offset), zone: offsetLabel(offset) })
            : t("storedNow", { count: s.recordCount })}
          {s.recordCount > 0 && <> <Link href={chartHref}>{t("chart")}</Link></>}
        </p>
        {writtenBy.length > 0 && (
          <div className="message warning" role="note">
            <p>
              {t.rich("writtenBy", {
                processes: () => writtenBy.map((w, i) => <span key={w.href}>{i > 0 && "; "}<Link href={w.href}>{w.description}</Link></span>),
              })}
            </p>
          </div>
        )}
        <noscript><p className="message error">{t.rich("noscript", { path: `${seriesApiPath(sid, gid, tid)}data/`, code: (chunks) => <code>{chunks}</code> })}</p></noscript>
        <UploadForm apiPath={`${seriesApiPath(sid, gid, tid)}data/`} defaultZone={s.station.displayTimezone} displayOffset={offset} chartHref={chartHref} maxBytes={settings().maxUploadSize}
          processesApi={`/api/stations/${sid}/timeseriesgroups/${gid}/processes/`} processes={Object.fromEntries(processes.map((p) => [p.row.id, p.description]))} />
      </section>
    </div>
  );
}
