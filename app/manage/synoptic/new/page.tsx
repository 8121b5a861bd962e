import type { Metadata } from "next";
import { getTranslations } from "next-intl/server";
import SynopticGroupForm from "@/components/manage/synoptic/SynopticGroupForm";
import { DISPLAY_TIMEZONES } from "@/lib/stations";
import { settings } from "@/lib/config";
import { loggedIn } from "@/app/manage/synoptic/guard";
import { Breadcrumbs } from "@/components/site/Breadcrumbs";
import { formToken } from "@/lib/site/form-token";
import { managePaths } from "@/lib/site/manage-paths";

export async function generateMetadata(): Promise<Metadata> {
  return { title: (await getTranslations("manageOpsSynoptic"))("newGroup") };
}

/** `{site}/manage/synoptic/new/`: any logged-in user may create a synoptic group (and then edit it). */
export default async function NewSynopticGroupPage() {
  const user = await loggedIn("/manage/synoptic/new/");
  const t = await getTranslations("manageOpsSynoptic");
  const { mapTileUrl, mapTileAttribution, mapDefaultViewport } = settings();
  return (
    <div className="page">
      <Breadcrumbs crumbs={[{ label: t("manage"), href: managePaths.home }, { label: t("title"), href: "/manage/synoptic/" }, { label: t("newCrumb") }]} />
      <header className="page-header"><h1>{t("newGroup")}</h1></header>
      <SynopticGroupForm initial={null} token={formToken(user.sessionId)} choices={[]} zones={DISPLAY_TIMEZONES} tileUrl={mapTileUrl} tileAttribution={mapTileAttribution}
        defaultBbox={mapDefaultViewport as [number, number, number, number]} />
    </div>
  );
}
