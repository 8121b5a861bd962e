import type { Metadata } from "next";
import { notFound } from "next/navigation";
import { getTranslations } from "next-intl/server";
import { removeChild } from "@/app/manage/actions/stations";
import ConfirmDelete from "@/components/manage/ConfirmDelete";
import { ManageHeader } from "@/components/manage/parts";
import type { AttachmentRow, EventRow } from "@/lib/stations";
import { childForEditing, guarded, refusalTitle, stationPageMetadata } from "@/lib/manage";
import { formToken } from "@/lib/site/form-token";
import { childKind, managePaths } from "@/lib/site/manage-paths";
import { pathId } from "@/lib/frontend";

type Params = Promise<{ sid: string; kind: string; id: string }>;

export async function generateMetadata({ params }: { params: Params }): Promise<Metadata> {
  return childKind((await params).kind) ? stationPageMetadata((await getTranslations("manageDelete"))("delete"), params) : { title: await refusalTitle(404) };
}

/** The confirmation of the delete of a file (with its bytes), an image or an event. */
export default async function DeleteChildPage({ params }: { params: Params }) {
  const { sid: sidText, kind: kindText, id: idText } = await params;
  const kind = childKind(kindText);
  if (!kind) notFound();
  const [sid, id] = [pathId(sidText) ?? 0, pathId(idText) ?? 0];
  const { user, data } = await guarded(`/manage/stations/${sidText}/${kind}/${idText}/delete/`, (u) => childForEditing(u, kind, sid, id));
  const [t, ts] = await Promise.all([getTranslations("manageDelete"), getTranslations("manageStation")]);
  const stationName = data.station.name || ts("stationN", { id: String(sid) });
  const names = kind === "events"
    ? { kind, date: (data.child as EventRow).date, name: "" }
    : { kind, date: "", name: (data.child as AttachmentRow).descr || (data.child as AttachmentRow).fileName };
  const what = t("child", names);
  return (
    <div className="page manage narrow-wide">
      <ManageHeader crumbs={[{ label: stationName, href: managePaths.station(sid) }, { label: t("delete") }]} title={t("childTitle", names)} />
      <ConfirmDelete what={what} takes="" note={kind === "events" ? undefined : t("bytesToo")}
        action={removeChild.bind(null, kind, sid, id)} token={formToken(user.sessionId)} back={`${managePaths.station(sid)}#${kind}`} />
    </div>
  );
}
