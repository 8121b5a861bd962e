import type { Metadata } from "next";
import { getTranslations } from "next-intl/server";
import { removeGroup } from "@/app/manage/actions/series";
import ConfirmDelete from "@/components/manage/ConfirmDelete";
import { ManageHeader } from "@/components/manage/parts";
import { groupContents } from "@/lib/stations";
import { contentsWords } from "@/app/manage/stations/[sid]/timeseriesgroups/[gid]/words";
import { groupForEditing, guarded, stationPageMetadata } from "@/lib/manage";
import { formToken } from "@/lib/site/form-token";
import { managePaths } from "@/lib/site/manage-paths";
import { pathId } from "@/lib/frontend";

export async function generateMetadata({ params }: { params: Promise<{ sid: string }> }): Promise<Metadata> {
  return stationPageMetadata((await getTranslations("manageSeriesGroup"))("deleteGroupTitle"), params);
}

/** The confirmation of a group's delete: its time series and their records go too (api.md §5). */
export default async function DeleteGroupPage({ params }: { params: Promise<{ sid: string; gid: string }> }) {
  const { sid: sidText, gid: gidText } = await params;
  const [sid, gid] = [pathId(sidText) ?? 0, pathId(gidText) ?? 0];
  const { user, data } = await guarded(`/manage/stations/${sidText}/timeseriesgroups/${gidText}/delete/`, async (u) => {
    const page = await groupForEditing(u, sid, gid);
    return { ...page, contents: await groupContents(gid) };
  });
  const [t, tc] = await Promise.all([getTranslations("manageSeriesGroup"), getTranslations("common")]);
  const stationName = data.station.name || tc("station", { id: sid });
  const name = data.group.name || t("groupFallback", { id: gid });
  return (
    <div className="page manage narrow-wide">
      <ManageHeader crumbs={[{ label: stationName, href: managePaths.station(sid) }, { label: name, href: managePaths.group(sid, gid) }, { label: t("delete") }]}
        title={t("deleteNamed", { name })} />
      <ConfirmDelete what={t("deleteGroupWhat", { name })} takes={contentsWords(t, data.contents)} action={removeGroup.bind(null, sid, gid)}
        token={formToken(user.sessionId)} back={managePaths.group(sid, gid)} />
    </div>
  );
}
