import type { Metadata } from "next";
import SynopticGroupForm from "@/components/synoptic/SynopticGroupForm";
import { DISPLAY_TIMEZONES } from "@/lib/stations";
import { settings } from "@/lib/config";
import { loggedIn } from "@/app/manage/synoptic/guard";
import { Breadcrumbs } from "@/components/site/Breadcrumbs";
import { formToken } from "@/lib/site/form-token";
import { managePaths } from "@/lib/site/manage-paths";

export const metadata: Metadata = { title: "New synoptic group" };

/** `{site}/manage/synoptic/new/`: any logged-in user may create a synoptic group (and then edit it). */
export default async function NewSynopticGroupPage() {
  const user = await loggedIn("/manage/synoptic/new/");
  const { mapTileUrl, mapTileAttribution, mapDefaultViewport } = settings();
  return (
    <div className="page">
      <Breadcrumbs crumbs={[{ label: "Manage", href: managePaths.home }, { label: "Synoptic groups", href: "/manage/synoptic/" }, { label: "New" }]} />
      <header className="page-header"><h1>New synoptic group</h1></header>
      <SynopticGroupForm initial={null} token={formToken(user.sessionId)} choices={[]} zones={DISPLAY_TIMEZONES} tileUrl={mapTileUrl} tileAttribution={mapTileAttribution}
        defaultBbox={mapDefaultViewport as [number, number, number, number]} />
    </div>
  );
}
