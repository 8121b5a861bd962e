import type { Metadata } from "next";
import { getTranslations } from "next-intl/server";
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

export async function generateMetadata({ params }: { params: Params }): Promise<Metadata> {
  return stationPageMetadata((await getTranslations("manageOpsTelemetry"))("deleteTitle"), params);
}

/** The confirmation of a telemetry's delete (the station's editors): its schedule, mappings and log go; the fetched records stay. */
export default async function DeleteTelemetryPage({ params }: { params: Params }) {
  const { sid: sidText } = await params;
  const sid = pathId(sidText) ?? 0;
  const { user, data } = await guarded(`/manage/stations/${sidText}/telemetry/delete/`, async (u) => {
    await readableTelemetry(u, sid);
    return (await stationJsonById(sid))!;
  });
  const t = await getTranslations("manageOpsTelemetry");
  const name = data.name || t("stationFallback", { id: String(sid) });
  const base = `${managePaths.station(sid)}telemetry/`;
  return (
    <div className="page manage narrow-wide">
      <ManageHeader crumbs={[{ label: name, href: managePaths.station(sid) }, { label: t("title"), href: base }, { label: t("deleteCrumb") }]} title={t("deleteHeading", { name })} />
      <ConfirmDelete what={t("deleteWhat")} takes={t("deleteTakes")} note={t("deleteNote")}
        action={removeTelemetry.bind(null, sid)} token={formToken(user.sessionId)} back={base} />
    </div>
  );
}
