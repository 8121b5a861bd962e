import type { Metadata } from "next";
import { forbidden } from "next/navigation";
import { getTranslations } from "next-intl/server";
import { saveStation } from "@/app/manage/actions/stations";
import { ManageHeader } from "@/components/manage/parts";
import StationForm from "@/components/manage/StationForm";
import { canCreateStation, ensureStationCreator } from "@/lib/auth/permissions";
import { lookupChoices, manageMetadata, manageUser, ownerChoices } from "@/lib/manage";
import { formToken } from "@/lib/site/form-token";

export async function generateMetadata(): Promise<Metadata> {
  return manageMetadata((await getTranslations("manageStation"))("newTitle"), ensureStationCreator);
}

/** `{site}/manage/stations/new/` (management.md §2): for those who may add stations (api.md §15). */
export default async function NewStationPage() {
  const user = await manageUser("/manage/stations/new/");
  if (!canCreateStation(user)) forbidden();
  const [choices, owners, t] = await Promise.all([lookupChoices(), ownerChoices("", 1000), getTranslations("manageStation")]);
  const initial = { display_timezone: "Etc/GMT", geom_srid: "4326", stype: [""] };
  return (
    <div className="page manage">
      <ManageHeader crumbs={[{ label: t("newTitle") }]} title={t("newTitle")} lead={t("newLead")} />
      <section className="card">
        <StationForm action={saveStation.bind(null, null)} initial={initial} token={formToken(user.sessionId)} stationTypes={choices.stationTypes}
          owners={owners} submit={t("create")} />
      </section>
    </div>
  );
}
