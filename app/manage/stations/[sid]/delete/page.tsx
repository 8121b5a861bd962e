import type { Metadata } from "next";
import { getTranslations } from "next-intl/server";
import { removeStation } from "@/app/manage/actions/stations";
import ConfirmDelete, { contentsIn } from "@/components/manage/ConfirmDelete";
import { ManageHeader } from "@/components/manage/parts";
import { editableStation, stationContents, stationJsonById } from "@/lib/stations";
import { formToken } from "@/lib/site/form-token";
import { guarded, stationPageMetadata } from "@/lib/manage";
import { managePaths } from "@/lib/site/manage-paths";
import { pathId } from "@/lib/frontend";

export async function generateMetadata({ params }: { params: Promise<{ sid: string }> }): Promise<Metadata> {
  return stationPageMetadata((await getTranslations("manageStation"))("deleteStation"), params);
}

/** The confirmation of a station's delete: everything under it goes too (api.md §4.3). */
export default async function DeleteStationPage({ params }: { params: Promise<{ sid: string }> }) {
  const { sid: sidText } = await params;
  const sid = pathId(sidText) ?? 0;
  const [t, ts] = await Promise.all([getTranslations("manageDelete"), getTranslations("manageStation")]);
  const { user, data } = await guarded(`/manage/stations/${sidText}/delete/`, async (u) => {
    await editableStation(u, sid);
    const [station, contents] = await Promise.all([stationJsonById(sid), stationContents(sid)]);
    return { name: station!.name || ts("stationN", { id: String(sid) }), contents };
  });
  return (
    <div className="page manage narrow-wide">
      <ManageHeader crumbs={[{ label: data.name, href: managePaths.station(sid) }, { label: t("delete") }]} title={t("deleteTitle", { name: data.name })} />
      <ConfirmDelete what={t("station", { name: data.name })} takes={await contentsIn(data.contents)} action={removeStation.bind(null, sid)}
        token={formToken(user.sessionId)} back={managePaths.station(sid)} />
    </div>
  );
}
