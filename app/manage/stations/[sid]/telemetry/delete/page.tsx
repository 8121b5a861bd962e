import type { Metadata } from "next";
import ConfirmDelete from "@/components/manage/ConfirmDelete";
import { ManageHeader } from "@/components/manage/parts";
import { pathId } from "@/lib/frontend";
import { guarded, stationPageMetadata } from "@/lib/manage";
import { formToken } from "@/lib/site/form-token";
import { managePaths } from "@/lib/site/manage-paths";
import { stationJsonById } from "@/lib/stations";
import { readableTelemetry } from "@/lib/telemetry";
import { removeTelemetry } from "../actions";

type Params = Promise<{ sid: string }>;

export function generateMetadata({ params }: { params: Params }): Promise<Metadata> {
  return stationPageMetadata("Delete telemetry", params);
}

/** The confirmation of a telemetry's delete (the station's editors): its schedule, mappings and log go; the fetched records stay. */
export default async function DeleteTelemetryPage({ params }: { params: Params }) {
  const { sid: sidText } = await params;
  const sid = pathId(sidText) ?? 0;
  const { user, data } = await guarded(`/manage/stations/${sidText}/telemetry/delete/`, async (u) => {
    await readableTelemetry(u, sid);
    return (await stationJsonById(sid))!;
  });
  const name = data.name || `Station ${sid}`;
  const base = `${managePaths.station(sid)}telemetry/`;
  return (
    <div className="page manage narrow-wide">
      <ManageHeader crumbs={[{ label: name, href: managePaths.station(sid) }, { label: "Telemetry", href: base }, { label: "Delete" }]} title={`Delete the telemetry of ${name}`} />
      <ConfirmDelete what="the telemetry" takes="its schedule, its sensors' mapping and its log" note="The records it fetched stay in their time series."
        action={removeTelemetry.bind(null, sid)} token={formToken(user.sessionId)} back={base} />
    </div>
  );
}
