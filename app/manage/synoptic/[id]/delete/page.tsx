import "@/components/synoptic/synoptic.css";
import type { Metadata } from "next";
import Link from "next/link";
import { getTranslations } from "next-intl/server";
import { synopticGroupContents } from "@/lib/synoptic";
import { editable, synopticPageMetadata } from "@/app/manage/synoptic/guard";
import { deleteSynopticGroupAction } from "@/app/manage/synoptic/actions";
import { formToken, TOKEN_FIELD } from "@/lib/site/form-token";
import { FORM_EXPIRED } from "@/lib/site/forms";

type Params = Promise<{ id: string }>;

export async function generateMetadata({ params }: { params: Params }): Promise<Metadata> {
  return synopticPageMetadata((await getTranslations("manageOpsSynoptic"))("deleteTitle"), params);
}

/** `{site}/manage/synoptic/{id}/delete/`: says what goes with it, then deletes on a POST (management.md). */
export default async function DeleteSynopticGroupPage({ params, searchParams }: { params: Params; searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  const { user, group } = await editable((await params).id, (id) => `/manage/synoptic/${id}/delete/`);
  const contents = await synopticGroupContents(group.id);
  const t = await getTranslations("manageOpsSynoptic");
  return (
    <div className="narrow">
      <div className="card">
        <h1>{t("deleteHeading", { name: group.name })}</h1>
        {(await searchParams).expired !== undefined && <p className="message error" role="alert">{FORM_EXPIRED}</p>}
        <p>{t("deleteBody", { slug: group.slug, stations: contents.stations, series: contents.series, warnings: contents.warnings })}</p>
        <form action={deleteSynopticGroupAction} className="form-footer" aria-label={t("deleteButton")}>
          <input type="hidden" name={TOKEN_FIELD} value={formToken(user.sessionId)} />
          <input type="hidden" name="id" value={group.id} />
          <button type="submit" className="danger">{t("deleteButton")}</button>{" "}
          <Link href={`/manage/synoptic/${group.id}/`}>{t("cancel")}</Link>
        </form>
      </div>
    </div>
  );
}
