import type { Metadata } from "next";
import { forbidden } from "next/navigation";
import { saveStation } from "@/app/manage/actions/stations";
import { ManageHeader } from "@/components/manage/parts";
import StationForm from "@/components/manage/StationForm";
import { canCreateStation, ensureStationCreator } from "@/lib/auth/permissions";
import { lookupChoices, manageMetadata, manageUser, ownerChoices } from "@/lib/manage";
import { formToken } from "@/lib/site/form-token";

export function generateMetadata(): Promise<Metadata> {
  return manageMetadata("New station", ensureStationCreator);
}

/** `{site}/manage/stations/new/` (management.md §2): for those who may add stations (api.md §15). */
export default async function NewStationPage() {
  const user = await manageUser("/manage/stations/new/");
  if (!canCreateStation(user)) forbidden();
  const [choices, owners] = await Promise.all([lookupChoices(), ownerChoices("", 1000)]);
  const initial = { display_timezone: "Etc/GMT", geom_srid: "4326", stype: [""] };
  return (
    <div className="page manage">
      <ManageHeader crumbs={[{ label: "New station" }]} title="New station" lead="You become its creator, and may edit it and what belongs to it." />
      <section className="card">
        <StationForm action={saveStation.bind(null, null)} initial={initial} token={formToken(user.sessionId)} stationTypes={choices.stationTypes}
          owners={owners} submit="Create station" />
      </section>
    </div>
  );
}
