import type { Metadata } from "next";
import Link from "next/link";
import ManagedForm from "@/components/manage/Form";
import { SourceFields } from "@/components/manage/fields";
import { ManageHeader, Section } from "@/components/manage/parts";
import { getSource, sourceValues } from "@/lib/replication";
import { formToken } from "@/lib/site/form-token";
import { guarded, sourcePageMetadata } from "@/lib/manage";
import { managePaths } from "@/lib/site/manage-paths";
import { pathId } from "@/lib/frontend";
import { saveSource } from "../actions";

type Params = Promise<{ id: string }>;

export function generateMetadata({ params }: { params: Params }): Promise<Metadata> {
  return sourcePageMetadata("Edit replication source", params);
}

/** `{site}/manage/replication/{id}/` (superusers): the form of one source; its credentials are never shown. */
export default async function SourcePage({ params }: { params: Params }) {
  const { id: idText } = await params;
  const id = pathId(idText) ?? 0;
  const { user, data: source } = await guarded(`/manage/replication/${idText}/`, (u) => getSource(u, id));
  const title = source.name || source.url;
  return (
    <div className="page manage narrow-wide">
      <ManageHeader crumbs={[{ label: "Replication", href: managePaths.replication }, { label: title }]} title={title} lead="A replication source"
        actions={<Link className="button danger-link" href={`${managePaths.source(id)}delete/`}>Delete</Link>} />
      <Section id="edit" title="Edit the source">
        <ManagedForm action={saveSource.bind(null, id)} initial={sourceValues(source)} token={formToken(user.sessionId)} submit="Save" label="Edit replication source">
          <SourceFields stored={{ username: source.username !== "", password: source.password !== "", token: source.token !== "" }} />
        </ManagedForm>
      </Section>
    </div>
  );
}
