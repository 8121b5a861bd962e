import type { Metadata } from "next";
import Link from "next/link";
import { getTranslations } from "next-intl/server";
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

export async function generateMetadata({ params }: { params: Params }): Promise<Metadata> {
  return sourcePageMetadata((await getTranslations("manageOpsReplication"))("editTitle"), params);
}

/** `{site}/manage/replication/{id}/` (superusers): the form of one source; its credentials are never shown. */
export default async function SourcePage({ params }: { params: Params }) {
  const { id: idText } = await params;
  const id = pathId(idText) ?? 0;
  const { user, data: source } = await guarded(`/manage/replication/${idText}/`, (u) => getSource(u, id));
  const title = source.name || source.url;
  const t = await getTranslations("manageOpsReplication");
  return (
    <div className="page manage narrow-wide">
      <ManageHeader crumbs={[{ label: t("title"), href: managePaths.replication }, { label: title }]} title={title} lead={t("sourceLead")}
        actions={<Link className="button danger-link" href={`${managePaths.source(id)}delete/`}>{t("delete")}</Link>} />
      <Section id="edit" title={t("editSection")}>
        <ManagedForm action={saveSource.bind(null, id)} initial={sourceValues(source)} token={formToken(user.sessionId)} submit={t("save")} label={t("editTitle")}>
          <SourceFields stored={{ username: source.username !== "", password: source.password !== "", token: source.token !== "" }} />
        </ManagedForm>
      </Section>
    </div>
  );
}
