import type { Metadata } from "next";
import { removeStation } from "@/app/manage/actions/stations";
import ConfirmDelete from "@/components/manage/ConfirmDelete";
import { ManageHeader } from "@/components/manage/parts";
import { contentsText, editableStation, stationContents, stationJsonById } from "@/lib/stations";
import { formToken } from "@/lib/site/form-token";
import { guarded, stationPageMetadata } from "@/lib/manage";
import { managePaths } from "@/lib/site/manage-paths";
import { pathId } from "@/lib/frontend";

export function generateMetadata({ params }: { params: Promise<{ sid: string }> }): Promise<Metadata> {
  return stationPageMetadata("Delete station", params);
}

/** The confirmation of a station's delete: everything under it goes too (api.md §4.3). */
export default async function DeleteStationPage({ params }: { params: Promise<{ sid: string }> }) {
  const { sid: sidText } = await params;
  const sid = pathId(sidText) ?? 0;
  const { user, data } = await guarded(`/manage/stations/${sidText}/delete/`, async (u) => {
    await editableStation(u, sid);
    const [station, contents] = await Promise.all([stationJsonById(sid), stationContents(sid)]);
    return { name: station!.name || `Station ${sid}`, contents };
  });
  return (
    <div className="page manage narrow-wide">
      <ManageHeader crumbs={[{ label: data.name, href: managePaths.station(sid) }, { label: "Delete" }]} title={`Delete ${data.name}`} />
      <ConfirmDelete what={`station “${data.name}”`} takes={contentsText(data.contents)} action={removeStation.bind(null, sid)}
        token={formToken(user.sessionId)} back={managePaths.station(sid)} />
    </div>
  );
}
