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
  return (
    <ManagedForm action={action} initial={initial} token={token} submit={submit} className="station-form" label="Station">
      <Hidden name="last_modified" />
      <Hidden name="geom_initial" />
      <Hidden name="stored_original_srid" />
      <div className="form-grid">
        <TextField name="name" label="Name" maxLength={200} />
        <TextField name="code" label="Code" maxLength={50} />
      </div>
      <OwnerPicker fallback={owners} />
      <LocationPicker viewport={mapDefaultViewport} tileUrl={mapTileUrl} tileAttribution={mapTileAttribution} />
      <div className="form-grid">
        <TextField name="altitude" label="Altitude" type="number" help="Metres; may be empty." />
        <SelectField name="display_timezone" label="Display time zone" options={ZONES} help="The zone of the station's times on the site and in downloads." />
        <TextField name="start_date" label="Start date" type="date" help="May be empty." />
        <TextField name="end_date" label="End date" type="date" help="May be empty." />
        <TextField name="overseer" label="Overseer" maxLength={30} />
      </div>
      <CheckboxList name="stype" label="Station types" options={stationTypes.map((t) => ({ value: String(t.id), label: t.label }))} />
      <TextArea name="remarks" label="Remarks" rows={3} />
    </ManagedForm>
  );
}
