import "@/components/synoptic/synoptic.css";
import type { Metadata } from "next";
import Link from "next/link";
import { getTranslations } from "next-intl/server";
import { synopticGroupContents } from "@/lib/synoptic";
import { editable, synopticPageMetadata } from "@/app/manage/synoptic/guard";
import { removeSynopticGroup } from "@/app/manage/synoptic/actions";
import ManagedForm from "@/components/manage/Form";
import { formToken } from "@/lib/site/form-token";

type Params = Promise<{ id: string }>;

export async function generateMetadata({ params }: { params: Params }): Promise<Metadata> {
  return synopticPageMetadata((await getTranslations("manageOpsSynoptic"))("deleteTitle"), params);
}

/** `{site}/manage/synoptic/{id}/delete/`: says what goes with it, then deletes on a POST (management.md). */
export default async function DeleteSynopticGroupPage({ params }: { params: Params }) {
  const { user, group } = await editable((await params).id, (id) => `/manage/synoptic/${id}/delete/`);
  const contents = await synopticGroupContents(group.id);
  const t = await getTranslations("manageOpsSynoptic");
  return (
    <div className="narrow">
      <div className="card">
        <h1>{t("deleteHeading", { name: group.name })}</h1>
        <p>{t("deleteBody", { slug: group.slug, stations: contents.stations, series: contents.series, warnings: contents.warnings })}</p>
        <ManagedForm action={removeSynopticGroup.bind(null, group.id)} initial={{}} token={formToken(user.sessionId)} submit={t("deleteButton")} danger label={t("deleteButton")} />
        <p><Link href={`/manage/synoptic/${group.id}/`}>{t("cancel")}</Link></p>
      </div>
    </div>
  );
}
