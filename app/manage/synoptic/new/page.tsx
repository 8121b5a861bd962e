import type { Metadata } from "next";
import Link from "next/link";
import SynopticGroupForm from "@/components/synoptic/SynopticGroupForm";
import { DISPLAY_TIMEZONES } from "@/lib/api/station-fields";
import { settings } from "@/lib/config";
import { loggedIn } from "@/app/manage/synoptic/guard";

export const metadata: Metadata = { title: "New synoptic group" };

/** `{site}/manage/synoptic/new/`: any logged-in user may create a synoptic group (and then edit it). */
export default async function NewSynopticGroupPage() {
  await loggedIn("/manage/synoptic/new/");
  const { mapTileUrl, mapTileAttribution, mapDefaultViewport } = settings();
  return (
    <div className="page">
      <nav className="breadcrumbs" aria-label="Breadcrumb">
        <ol>
          <li><Link href="/manage/synoptic/">Synoptic groups</Link></li>
          <li aria-current="page">New</li>
        </ol>
      </nav>
      <header className="page-header"><h1>New synoptic group</h1></header>
      <SynopticGroupForm initial={null} choices={[]} zones={DISPLAY_TIMEZONES} tileUrl={mapTileUrl} tileAttribution={mapTileAttribution}
        defaultBbox={mapDefaultViewport as [number, number, number, number]} />
    </div>
  );
}
