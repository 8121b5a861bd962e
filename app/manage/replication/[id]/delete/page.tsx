import type { Metadata } from "next";
import { getTranslations } from "next-intl/server";
import ConfirmDelete from "@/components/manage/ConfirmDelete";
import { ManageHeader } from "@/components/manage/parts";
import { copiedStationCount, getSource } from "@/lib/replication";
import { formToken } from "@/lib/site/form-token";
import { guarded, sourcePageMetadata } from "@/lib/manage";
import { managePaths } from "@/lib/site/manage-paths";
import { pathId } from "@/lib/frontend";
import { removeSource } from "../../actions";

type Params = Promise<{ id: string }>;

export async function generateMetadata({ params }: { params: Params }): Promise<Metadata> {
  return sourcePageMetadata((await getTranslations("manageOpsReplication"))("deleteTitle"), params);
}

/** The confirmation of a source's delete (superusers): its runs and id map go; the stations copied from it stay. */
export default async function DeleteSourcePage({ params }: { params: Params }) {
  const { id: idText } = await params;
  const id = pathId(idText) ?? 0;
  const { user, data } = await guarded(`/manage/replication/${idText}/delete/`, async (u) => {
    const source = await getSource(u, id);
    return { source, stations: await copiedStationCount(u, id) };
  });
  const title = data.source.name || data.source.url;
  const t = await getTranslations("manageOpsReplication");
  return (
    <div className="page manage narrow-wide">
      <ManageHeader crumbs={[{ label: t("title"), href: managePaths.replication }, { label: title, href: managePaths.source(id) }, { label: t("delete") }]}
        title={t("deleteHeading", { title })} />
      <ConfirmDelete what={t("deleteWhat", { title })} takes={t("deleteTakes")}
        note={data.stations === 0 ? t("noneCopied") : t("copied", { stations: data.stations, count: String(data.stations) })}
        action={removeSource.bind(null, id)} token={formToken(user.sessionId)} back={managePaths.source(id)} />
    </div>
  );
}
