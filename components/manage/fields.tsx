import { CheckboxField, Hidden, SelectField, TextArea, TextField, FileField } from "@/components/manage/Form";
import { settings } from "@/lib/config";
import type { Choice } from "@/lib/manage";
import { INTERVAL_UNITS } from "@/lib/replication";
import { TIMESERIES_TYPES } from "@/lib/domain/timeseries-types";

/** The fields of each management form, by the API's field names (api.md §5, §6, §9, §10). */

const options = (choices: Choice[]) => choices.map((c) => ({ value: String(c.id), label: c.label }));

export function GroupFields({ variables, units }: { variables: Choice[]; units: Choice[] }) {
  return (
    <>
      <Hidden name="last_modified" />
      <div className="form-grid">
        <TextField name="name" label="Name" maxLength={200} help="May be empty: the variable names it then." />
        <SelectField name="variable" label="Variable" required options={options(variables)} empty="—" />
        <SelectField name="unit_of_measurement" label="Unit of measurement" required options={options(units)} empty="—" />
        <TextField name="precision" label="Precision" type="number" inputMode="numeric" required help="Decimal digits of the values, from -10 to 20." />
      </div>
      <CheckboxField name="hidden" label="Hidden" help="Not listed on the station's public page." />
      <TextArea name="remarks" label="Remarks" rows={3} />
    </>
  );
}

export function SeriesFields() {
  return (
    <>
      <Hidden name="last_modified" />
      <div className="form-grid">
        <SelectField name="type" label="Type" required options={TIMESERIES_TYPES.map((t) => ({ value: t, label: t }))} empty="—" />
        {/* No maxLength: the browser would cut "10 minutes" to "10 minu" silently; the server refuses a long one with the API's message. */}
        <TextField name="time_step" label="Time step" help='e.g. 10min, H, D, 3M; empty for irregular.' />
        <TextField name="name" label="Name" maxLength={100} help="Tells apart aggregated series of one time step." />
      </div>
      <CheckboxField name="publicly_available" label="Publicly available" help="Anyone may read its records; otherwise only the station's data readers." />
    </>
  );
}

export function AttachmentFields({ kind, create }: { kind: "files" | "images"; create: boolean }) {
  return (
    <>
      <Hidden name="last_modified" />
      <FileField name="content" label={create ? (kind === "files" ? "File" : "Image") : `Replace the ${kind === "files" ? "file" : "image"}`}
        required={create} maxBytes={settings().maxUploadSize} accept={kind === "images" ? ".jpg,.jpeg,.png,.gif,.webp,image/jpeg,image/png,image/gif,image/webp" : undefined}
        help={create ? undefined : "Leave empty to keep the stored one."} />
      <div className="form-grid">
        <TextField name="descr" label="Description" maxLength={100} required={kind === "files"} />
        <TextField name="date" label="Date" type="date" help="May be empty." />
      </div>
      <TextArea name="remarks" label="Remarks" rows={2} />
      {kind === "images" && <CheckboxField name="featured" label="Featured" help="Shown first." />}
    </>
  );
}

export function EventFields({ eventTypes }: { eventTypes: Choice[] }) {
  return (
    <>
      <Hidden name="last_modified" />
      <div className="form-grid">
        <TextField name="date" label="Date" type="date" required />
        <SelectField name="type" label="Type" required options={options(eventTypes)} empty="—" />
        <TextField name="user" label="User" maxLength={64} help="Who reported it (free text)." />
      </div>
      <TextArea name="report" label="Report" rows={3} />
    </>
  );
}

/**
 * A replication source (replication.md §1). The password and token are write-only: never shown;
 * on an edit, left empty they keep the stored ones, and "clear" removes all three credentials.
 */
export function SourceFields({ stored }: { stored?: { username: boolean; password: boolean; token: boolean } }) {
  const kept = (what: "password" | "token") => (stored?.[what] ? `A ${what} is stored; leave empty to keep it.` : `No ${what} is stored.`);
  return (
    <>
      {stored && <Hidden name="last_modified" />}
      <div className="form-grid">
        <TextField name="name" label="Name" maxLength={200} help="How this page names the source; may be empty (its URL then)." />
        <TextField name="url" label="URL" required maxLength={500} placeholder="https://other.example.org/" help="The other instance's site root (http or https)." />
        <TextField name="query" label="Stations" maxLength={1000} help='A station search, as on the map (e.g. owner:ntua); empty for all stations.' />
      </div>
      <fieldset className="field-group">
        <legend>Schedule</legend>
        <div className="form-grid">
          <TextField name="interval" label="Run every" type="number" inputMode="numeric" required help="0: only on demand (Run now); otherwise at least 60 seconds." />
          <SelectField name="interval_unit" label="Unit" options={INTERVAL_UNITS} />
        </div>
        <CheckboxField name="enabled" label="Enabled" help="Runs on its schedule and with Run now; a disabled source does not run." />
        <CheckboxField name="prune" label="Delete here what is deleted at the source" help="Otherwise such objects are only reported in the run." />
      </fieldset>
      <fieldset className="field-group">
        <legend>Credentials</legend>
        <p className="help">Optional: without them only public data is copied. Either a username and password or a token. They are never shown again.</p>
        <div className="form-grid">
          <TextField name="username" label="Username" maxLength={150} />
          <TextField name="password" label="Password" type="password" maxLength={500} autoComplete="new-password" help={stored ? kept("password") : undefined} />
          <TextField name="token" label="Token" type="password" maxLength={500} autoComplete="off" help={stored ? kept("token") : undefined} />
        </div>
        {stored && (stored.username || stored.password || stored.token) && (
          <CheckboxField name="clear_credentials" label="Clear the stored credentials" help="Removes the username, password and token: replication then copies public data only." />
        )}
      </fieldset>
    </>
  );
}
