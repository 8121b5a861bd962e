import type { Metadata } from "next";
import { getTranslations } from "next-intl/server";
import { removeProcess } from "@/app/manage/actions/processing";
import ConfirmDelete from "@/components/manage/ConfirmDelete";
import { ManageHeader } from "@/components/manage/parts";
import { guarded, processForEditing, stationPageMetadata } from "@/lib/manage";
import { formToken } from "@/lib/site/form-token";
import { managePaths } from "@/lib/site/manage-paths";
import { pathId } from "@/lib/frontend";

export async function generateMetadata({ params }: { params: Promise<{ sid: string }> }): Promise<Metadata> {
  return stationPageMetadata((await getTranslations("manageSeriesProcess"))("deleteProcess"), params);
}

/** The confirmation of a process's delete: its queued run goes, its target series and their records stay (processing.md §1). */
export default async function DeleteProcessPage({ params }: { params: Promise<{ sid: string; gid: string; pid: string }> }) {
  const { sid: sidText, gid: gidText, pid: pidText } = await params;
  const [sid, gid, pid] = [pathId(sidText) ?? 0, pathId(gidText) ?? 0, pathId(pidText) ?? 0];
  const { user, data } = await guarded(`/manage/stations/${sidText}/timeseriesgroups/${gidText}/processes/${pidText}/delete/`,
    (u) => processForEditing(u, sid, gid, pid, 0));
  const [t, tc] = await Promise.all([getTranslations("manageSeriesProcess"), getTranslations("common")]);
  const stationName = data.station.name || tc("station", { id: sid });
  const groupName = data.group.name || t("groupFallback", { id: gid });
  return (
    <div className="page manage narrow-wide">
      <ManageHeader crumbs={[{ label: stationName, href: managePaths.station(sid) }, { label: groupName, href: managePaths.group(sid, gid) },
        { label: t("crumb", { id: pid }), href: managePaths.process(sid, gid, pid) }, { label: t("delete") }]} title={t("deleteTitle", { id: pid })} lead={data.description} />
      <ConfirmDelete what={t("deleteWhat", { id: pid })} takes="" note={t("deleteNote")}
        action={removeProcess.bind(null, sid, gid, pid)} token={formToken(user.sessionId)} back={managePaths.process(sid, gid, pid)} />
    </div>
  );
}
