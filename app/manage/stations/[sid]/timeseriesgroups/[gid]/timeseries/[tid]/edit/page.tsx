import type { Metadata } from "next";
import { getLocale, getTranslations } from "next-intl/server";
import { ManageHeader } from "@/components/manage/parts";
import Workbench from "@/components/manage/Workbench";
import { earlyRecordsScript } from "@/components/manage/records-loader";
import { workbenchRange, workbenchRecordsUrl } from "@/components/manage/workbench-requests";
import { findSeriesAt, groupVariableIn, workbenchView, writableSeries } from "@/lib/series";
import { guarded, stationPageMetadata } from "@/lib/manage";
import { typeName } from "@/lib/domain/timeseries-types";
import { managePaths } from "@/lib/site/manage-paths";
import { chartApiUrl, seriesApiPath } from "@/lib/site/paths";
import { pathId, seriesLabel } from "@/lib/frontend";
import { pageNonce } from "@/lib/site/nonce";
import { zoneOffsetMinutes } from "@/lib/site/time";
import { groupTitleIn } from "@/lib/site/group-title";
import { typeWord } from "@/app/manage/stations/[sid]/timeseriesgroups/[gid]/words";

type Params = Promise<{ sid: string; gid: string; tid: string }>;

export async function generateMetadata({ params }: { params: Promise<{ sid: string }> }): Promise<Metadata> {
  return stationPageMetadata((await getTranslations("manageSeriesWorkbench"))("title"), params);
}

/** `{site}/manage/stations/{sid}/timeseriesgroups/{gid}/timeseries/{tid}/edit/`: the quality-control workbench (corrections.md §3). */
export default async function EditRecordsPage({ params, searchParams }: { params: Params; searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  const { sid: sidText, gid: gidText, tid: tidText } = await params;
  const query = await searchParams;
  const [sid, gid, tid] = [pathId(sidText) ?? 0, pathId(gidText) ?? 0, pathId(tidText) ?? 0];
  const { data } = await guarded(`/manage/stations/${sidText}/timeseriesgroups/${gidText}/timeseries/${tidText}/edit/`, async (u) => {
    const s = await writableSeries(u, { stationId: sid, groupId: gid, seriesId: tid });
    const row = (await findSeriesAt({ stationId: sid, groupId: gid, seriesId: tid }))!;
    return { s, row, view: await workbenchView(u, tid, query) };
  });
  const { s, row, view } = data;
  const [t, tc, locale] = await Promise.all([getTranslations("manageSeriesWorkbench"), getTranslations("common"), getLocale()]);
  // The variable in the page's language (its Greek description on Greek pages).
  const variable = (await groupVariableIn(locale, gid)) || s.variable.descr;
  const label = seriesLabel({ type: typeWord(tc, typeName(row.type)), name: row.name, timeStep: row.timeStep });
  const offset = zoneOffsetMinutes(s.station.displayTimezone) ?? 0;
  const groupName = groupTitleIn(locale, { id: gid, name: s.group.name, variable });
  // The records and the compared series' means start loading with the page, not after its scripts
  // (in the HTML: react-dom's preload() would reach the browser only in the RSC payload). The
  // records go to the records worker, which reads them while React starts (records-loader.ts).
  const range = workbenchRange(view.range, s.firstTimestamp, s.lastTimestamp);
  const early = range ? view.compared.map((c) => chartApiUrl(c.stationId, c.groupId, c.seriesId, range.start, range.end, offset)) : [];
  const nonce = await pageNonce();
  return (
    <div className="page manage">
      {range && nonce && <script nonce={nonce} dangerouslySetInnerHTML={{ __html: earlyRecordsScript(workbenchRecordsUrl(seriesApiPath(sid, gid, tid), range)) }} />}
      {early.map((href) => <link key={href} rel="preload" as="fetch" crossOrigin="anonymous" href={href} />)}
      <ManageHeader crumbs={[{ label: s.station.name || tc("station", { id: sid }), href: managePaths.station(sid) }, { label: groupName, href: managePaths.group(sid, gid) }, { label: t("title") }]}
        title={t("heading", { label })} lead={`${s.group.name ? `${s.group.name} · ` : ""}${variable} (${s.unit.symbol})`} />
      <noscript><p className="message error">{t.rich("noscript", { path: `${seriesApiPath(sid, gid, tid)}data/`, code: (chunks) => <code>{chunks}</code> })}</p></noscript>
      <Workbench apiPath={seriesApiPath(sid, gid, tid)} offsetMinutes={offset} unit={s.unit.symbol} variable={variable} seriesId={tid}
        first={s.firstTimestamp} last={s.lastTimestamp} initialRange={view.range} initialCompared={view.compared} />
    </div>
  );
}
