import type { Metadata } from "next";
import Link from "next/link";
import { notFound } from "next/navigation";
import { getTranslations } from "next-intl/server";
import { saveChild } from "@/app/manage/actions/stations";
import { AttachmentFields, EventFields } from "@/components/manage/fields";
import ManagedForm from "@/components/manage/Form";
import { ManageHeader } from "@/components/manage/parts";
import type { AttachmentRow, EventRow } from "@/lib/stations";
import {
  attachmentValues, childForEditing, eventValues, guarded, lookupChoices, refusalTitle, stationPageMetadata,
} from "@/lib/manage";
import { formToken } from "@/lib/site/form-token";
import { childKind, managePaths } from "@/lib/site/manage-paths";
import { contentPath } from "@/lib/site/paths";
import { pathId } from "@/lib/frontend";

type Params = Promise<{ sid: string; kind: string; id: string }>;

export async function generateMetadata({ params }: { params: Params }): Promise<Metadata> {
  const kind = childKind((await params).kind);
  return kind ? stationPageMetadata((await getTranslations("manageStation"))("editChild", { kind }), params) : { title: await refusalTitle(404) };
}

/** `{site}/manage/stations/{sid}/{files|images|events}/{id}/`: the form of one file, image or event. */
export default async function ManageChildPage({ params }: { params: Params }) {
  const { sid: sidText, kind: kindText, id: idText } = await params;
  const kind = childKind(kindText);
  if (!kind) notFound();
  const [sid, id] = [pathId(sidText) ?? 0, pathId(idText) ?? 0];
  const { user, data } = await guarded(`/manage/stations/${sidText}/${kind}/${idText}/`, async (u) => {
    const [found, choices] = await Promise.all([childForEditing(u, kind, sid, id), lookupChoices()]);
    return { ...found, choices };
  });
  const t = await getTranslations("manageStation");
  const stationName = data.station.name || t("stationN", { id: String(sid) });
  const values = kind === "events" ? eventValues(data.child as EventRow) : attachmentValues(data.child as AttachmentRow);
  const title = kind === "events" ? t("eventOf", { date: (data.child as EventRow).date }) : (data.child as AttachmentRow).descr || t("childN", { kind, id: String(id) });
  return (
    <div className="page manage narrow-wide">
      <ManageHeader crumbs={[{ label: stationName, href: managePaths.station(sid) }, { label: title }]} title={title}
        lead={t("childOf", { kind, station: stationName })}
        actions={<Link className="button danger-link" href={`${managePaths.child(kind, sid, id)}delete/`}>{t("deleteChild", { kind })}</Link>} />
      <section className="card">
        {kind !== "events" && (
          <p>
            {kind === "images" && (
              // eslint-disable-next-line @next/next/no-img-element -- served by the API
              <img className="edit-thumbnail" src={contentPath(kind, sid, id)} alt={(data.child as AttachmentRow).descr || t("storedImage")} />
            )}
            <a href={contentPath(kind, sid, id)} download>{t("download", { kind })}</a>{" "}
            <span className="muted small">({(data.child as AttachmentRow).fileName})</span>
          </p>
        )}
        <ManagedForm action={saveChild.bind(null, kind, sid, id)} initial={values} token={formToken(user.sessionId)} submit={t("saveChild", { kind })}
          multipart={kind !== "events"} label={t("editChild", { kind })}>
          {kind === "events" ? <EventFields eventTypes={data.choices.eventTypes} /> : <AttachmentFields kind={kind} create={false} />}
        </ManagedForm>
      </section>
    </div>
  );
}
