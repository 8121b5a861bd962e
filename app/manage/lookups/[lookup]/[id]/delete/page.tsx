import type { Metadata } from "next";
import { notFound } from "next/navigation";
import { getTranslations } from "next-intl/server";
import { removeLookup } from "@/app/manage/actions/lookups";
import ConfirmDelete from "@/components/manage/ConfirmDelete";
import { ManageHeader } from "@/components/manage/parts";
import { LOOKUP_FORMS, lookupDeleteRefusal, lookupForAdmin, lookupOf } from "@/lib/lookups";
import { formToken } from "@/lib/site/form-token";
import { guarded, lookupObjectPageMetadata } from "@/lib/manage";
import { managePaths } from "@/lib/site/manage-paths";
import { pathId } from "@/lib/frontend";

type Params = Promise<{ lookup: string; id: string }>;

export async function generateMetadata({ params }: { params: Params }): Promise<Metadata> {
  return lookupObjectPageMetadata((await getTranslations("manageLookups"))("deleteTitle"), params);
}

/** The confirmation of a lookup's delete; a refusal (still referred to, api.md §11) is shown on the page. */
export default async function DeleteLookupPage({ params }: { params: Params }) {
  const { lookup, id: idText } = await params;
  const name = lookupOf(lookup);
  if (!name) notFound();
  const id = pathId(idText) ?? 0;
  const { user, data: { row: data, refusal } } = await guarded(`/manage/lookups/${name}/${idText}/delete/`, async (u) => {
    const row = await lookupForAdmin(u, name, id);
    return { row, refusal: await lookupDeleteRefusal(u, name, id) };
  });
  const form = LOOKUP_FORMS[name];
  const [t, td] = await Promise.all([getTranslations("manageLookups"), getTranslations("manageDelete")]);
  const title = form.label(data) || `#${id}`;
  return (
    <div className="page manage narrow-wide">
      <ManageHeader crumbs={[{ label: t("title"), href: managePaths.lookups }, { label: t(`forms.${name}.title`), href: managePaths.lookup(name) }, { label: td("delete") }]}
        title={td("deleteTitle", { name: title })} />
      <ConfirmDelete what={t(`forms.${name}.what`, { title })} takes="" note={td("lookupNote")}
        action={removeLookup.bind(null, name, id)} token={formToken(user.sessionId)} back={managePaths.lookupObject(name, id)} blocked={refusal} />
    </div>
  );
}
