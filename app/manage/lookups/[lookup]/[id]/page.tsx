import type { Metadata } from "next";
import Link from "next/link";
import { notFound } from "next/navigation";
import { getTranslations } from "next-intl/server";
import { saveLookup } from "@/app/manage/actions/lookups";
import ManagedForm from "@/components/manage/Form";
import LookupFields from "@/components/manage/LookupFields";
import { ManageHeader, Section } from "@/components/manage/parts";
import { LOOKUP_FORMS, lookupForAdmin, lookupOf } from "@/lib/lookups";
import { guarded, lookupChoices, lookupObjectPageMetadata, lookupValues } from "@/lib/manage";
import { formToken } from "@/lib/site/form-token";
import { managePaths } from "@/lib/site/manage-paths";
import { pathId } from "@/lib/frontend";

type Params = Promise<{ lookup: string; id: string }>;

export async function generateMetadata({ params }: { params: Params }): Promise<Metadata> {
  return lookupObjectPageMetadata((await getTranslations("manageLookups"))("editTitle"), params);
}

/** `{site}/manage/lookups/{lookup}/{id}/`: the form of one object, and its delete. */
export default async function LookupObjectPage({ params }: { params: Params }) {
  const { lookup, id: idText } = await params;
  const name = lookupOf(lookup);
  if (!name) notFound();
  const id = pathId(idText) ?? 0;
  const { user, data } = await guarded(`/manage/lookups/${name}/${idText}/`, async (u) => {
    const json = await lookupForAdmin(u, name, id);
    return { json, variables: (await lookupChoices()).variables };
  });
  const form = LOOKUP_FORMS[name];
  const t = await getTranslations("manageLookups");
  const title = form.label(data.json) || `#${id}`;
  return (
    <div className="page manage narrow-wide">
      <ManageHeader crumbs={[{ label: t("title"), href: managePaths.lookups }, { label: t(`forms.${name}.title`), href: managePaths.lookup(name) }, { label: title }]}
        title={title} lead={t(`forms.${name}.lead`)}
        actions={<Link className="button danger-link" href={`${managePaths.lookupObject(name, id)}delete/`}>{t("delete")}</Link>} />
      <Section id="edit" title={t(`forms.${name}.edit`)}>
        <ManagedForm action={saveLookup.bind(null, name, id)} initial={lookupValues(data.json)} token={formToken(user.sessionId)} submit={t("save")} label={t(`forms.${name}.editLabel`)}>
          <LookupFields fields={form.fields} variables={data.variables} />
        </ManagedForm>
      </Section>
    </div>
  );
}
