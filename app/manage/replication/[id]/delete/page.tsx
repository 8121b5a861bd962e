import type { Metadata } from "next";
import ConfirmDelete from "@/components/manage/ConfirmDelete";
import { ManageHeader } from "@/components/manage/parts";
import { copiedStationCount, getSource } from "@/lib/replication";
import { formToken } from "@/lib/site/form-token";
import { guarded, sourcePageMetadata } from "@/lib/manage";
import { managePaths } from "@/lib/site/manage-paths";
import { pathId } from "@/lib/frontend";
import { removeSource } from "../../actions";

type Params = Promise<{ id: string }>;

export function generateMetadata({ params }: { params: Params }): Promise<Metadata> {
  return sourcePageMetadata("Delete replication source", params);
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
  const copied = data.stations === 1 ? "The station copied from it stays" : `The ${data.stations} stations copied from it stay`;
  return (
    <div className="page manage narrow-wide">
      <ManageHeader crumbs={[{ label: "Replication", href: managePaths.replication }, { label: title, href: managePaths.source(id) }, { label: "Delete" }]}
        title={`Delete ${title}`} />
      <ConfirmDelete what={`the replication source “${title}”`} takes="its schedule and its record of which stations it copied"
        note={`${data.stations === 0 ? "No station has been copied from it." : `${copied}, as stations of this instance: editable here, no longer updated.`}`}
        action={removeSource.bind(null, id)} token={formToken(user.sessionId)} back={managePaths.source(id)} />
    </div>
  );
}
