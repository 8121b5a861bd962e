import { useTranslations } from "next-intl";
import ManagedForm, { CheckboxList, Hidden, SelectField, TextArea, TextField } from "@/components/manage/Form";
import LocationPicker from "@/components/manage/LocationPicker";
import { OwnerPicker } from "@/components/manage/Pickers";
import { DISPLAY_TIMEZONES } from "@/lib/stations";
import { settings } from "@/lib/config";
import type { Choice } from "@/lib/manage";
import type { FormState, FormValues } from "@/lib/site/form-state";
import { zoneChoices } from "@/lib/site/time";

/** The display zones of api.md §4.1, as every form of the site offers zones. */
const ZONES = zoneChoices().filter((z) => (DISPLAY_TIMEZONES as readonly string[]).includes(z.value));

/**
 * The station form (management.md §2; fields and rules of api.md §4.1): the same fields for a new
 * station and an existing one. Labels are the API's field names in words.
 */
export default function StationForm({ action, initial, token, stationTypes, owners, submit }: {
  action: (state: FormState, form: FormData) => Promise<FormState>;
  initial: FormValues;
  token: string;
  stationTypes: Choice[];
  owners: { id: number; name: string }[];
  submit: string;
}) {
  const { mapDefaultViewport, mapTileUrl, mapTileAttribution } = settings();
  const t = useTranslations("manageFields");
  return (
    <ManagedForm action={action} initial={initial} token={token} submit={submit} className="station-form" label={t("station")}>
      <Hidden name="last_modified" />
      <Hidden name="geom_initial" />
      <Hidden name="stored_original_srid" />
      <div className="form-grid">
        <TextField name="name" label={t("name")} maxLength={200} />
        <TextField name="code" label={t("code")} maxLength={50} />
      </div>
      <OwnerPicker fallback={owners} />
      <LocationPicker viewport={mapDefaultViewport} tileUrl={mapTileUrl} tileAttribution={mapTileAttribution} />
      <div className="form-grid">
        <TextField name="altitude" label={t("altitude")} type="number" help={t("altitudeHelp")} />
        <SelectField name="display_timezone" label={t("displayTimezone")} options={ZONES} help={t("displayTimezoneHelp")} />
        <TextField name="start_date" label={t("startDate")} type="date" help={t("mayBeEmpty")} />
        <TextField name="end_date" label={t("endDate")} type="date" help={t("mayBeEmpty")} />
        <TextField name="overseer" label={t("overseer")} maxLength={30} />
      </div>
      <CheckboxList name="stype" label={t("stationTypes")} options={stationTypes.map((type) => ({ value: String(type.id), label: type.label }))} />
      <TextArea name="remarks" label={t("remarks")} rows={3} />
    </ManagedForm>
  );
}
