import type { Metadata } from "next";
import { notFound } from "next/navigation";
import { getTranslations } from "next-intl/server";
import { removeSeries } from "@/app/manage/actions/series";
import ConfirmDelete from "@/components/manage/ConfirmDelete";
import { ManageHeader } from "@/components/manage/parts";
import { contentsWords } from "@/app/manage/stations/[sid]/timeseriesgroups/[gid]/words";
import { groupForEditing, guarded, stationPageMetadata } from "@/lib/manage";
import { formToken } from "@/lib/site/form-token";
import { managePaths } from "@/lib/site/manage-paths";
import { pathId, seriesLabel } from "@/lib/frontend";
import { typeWord } from "@/app/manage/stations/[sid]/timeseriesgroups/[gid]/words";

export async function generateMetadata({ params }: { params: Promise<{ sid: string }> }): Promise<Metadata> {
  return stationPageMetadata((await getTranslations("manageSeriesGroup"))("deleteSeriesTitle"), params);
}

/** The confirmation of a time series' delete: its records go too (api.md §6). */
export default async function DeleteSeriesPage({ params }: { params: Promise<{ sid: string; gid: string; tid: string }> }) {
  const { sid: sidText, gid: gidText, tid: tidText } = await params;
  const [sid, gid, tid] = [pathId(sidText) ?? 0, pathId(gidText) ?? 0, pathId(tidText) ?? 0];
  const { user, data } = await guarded(`/manage/stations/${sidText}/timeseriesgroups/${gidText}/timeseries/${tidText}/delete/`, (u) => groupForEditing(u, sid, gid));
  const series = data.series.find((t) => t.id === tid);
  if (!series) notFound();
  const [t, tc] = await Promise.all([getTranslations("manageSeriesGroup"), getTranslations("common")]);
  const groupName = data.group.name || t("groupFallback", { id: gid });
  const label = seriesLabel({ ...series, type: typeWord(tc, series.type) });
  return (
    <div className="page manage narrow-wide">
      <ManageHeader crumbs={[{ label: data.station.name || tc("station", { id: sid }), href: managePaths.station(sid) }, { label: groupName, href: managePaths.group(sid, gid) }, { label: t("delete") }]}
        title={t("deleteNamed", { name: label })} />
      <ConfirmDelete what={t("deleteSeriesWhat", { label, group: groupName })} takes={contentsWords(t, { records: series.count })}
        action={removeSeries.bind(null, sid, gid, tid)} token={formToken(user.sessionId)} back={managePaths.group(sid, gid)} />
    </div>
  );
}
