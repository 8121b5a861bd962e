import type { Metadata } from "next";
import { removeProcess } from "@/app/manage/actions/processing";
import ConfirmDelete from "@/components/manage/ConfirmDelete";
import { ManageHeader } from "@/components/manage/parts";
import { guarded, processForEditing, stationPageMetadata } from "@/lib/manage";
import { formToken } from "@/lib/site/form-token";
import { managePaths } from "@/lib/site/manage-paths";
import { pathId } from "@/lib/frontend";

export function generateMetadata({ params }: { params: Promise<{ sid: string }> }): Promise<Metadata> {
  return stationPageMetadata("Delete process", params);
}

/** The confirmation of a process's delete: its queued run goes, its target series and their records stay (processing.md §1). */
export default async function DeleteProcessPage({ params }: { params: Promise<{ sid: string; gid: string; pid: string }> }) {
  const { sid: sidText, gid: gidText, pid: pidText } = await params;
  const [sid, gid, pid] = [pathId(sidText) ?? 0, pathId(gidText) ?? 0, pathId(pidText) ?? 0];
  const { user, data } = await guarded(`/manage/stations/${sidText}/timeseriesgroups/${gidText}/processes/${pidText}/delete/`,
    (u) => processForEditing(u, sid, gid, pid, 0));
  const stationName = data.station.name || `Station ${sid}`;
  const groupName = data.group.name || `group ${gid}`;
  return (
    <div className="page manage narrow-wide">
      <ManageHeader crumbs={[{ label: stationName, href: managePaths.station(sid) }, { label: groupName, href: managePaths.group(sid, gid) },
        { label: `Process ${pid}`, href: managePaths.process(sid, gid, pid) }, { label: "Delete" }]} title={`Delete process ${pid}`} lead={data.description} />
      <ConfirmDelete what={`process ${pid}`} takes="" note="Its target series and their records stay; a queued run is dropped."
        action={removeProcess.bind(null, sid, gid, pid)} token={formToken(user.sessionId)} back={managePaths.process(sid, gid, pid)} />
    </div>
  );
}
