import { useTranslations } from "next-intl";
import { CheckboxField, Hidden, SelectField, TextArea, TextField, FileField } from "@/components/manage/Form";
import { settings } from "@/lib/config";
import type { Messages } from "@/lib/i18n";
import type { Choice } from "@/lib/manage";
import { INTERVAL_UNITS } from "@/lib/replication";
import { TIMESERIES_TYPES } from "@/lib/domain/timeseries-types";

type IntervalUnit = keyof Messages["manageFields"]["intervalUnits"];

/** The fields of each management form, by the API's field names (api.md §5, §6, §9, §10). */

const options = (choices: Choice[]) => choices.map((c) => ({ value: String(c.id), label: c.label }));

export function GroupFields({ variables, units }: { variables: Choice[]; units: Choice[] }) {
  const t = useTranslations("manageFields");
  return (
    <>
      <Hidden name="last_modified" />
      <div className="form-grid">
        <TextField name="name" label={t("name")} maxLength={200} help={t("groupNameHelp")} />
        <SelectField name="variable" label={t("variable")} required options={options(variables)} empty="—" />
        <SelectField name="unit_of_measurement" label={t("unit")} required options={options(units)} empty="—" />
        <TextField name="precision" label={t("precision")} type="number" inputMode="numeric" required help={t("precisionHelp")} />
      </div>
      <CheckboxField name="hidden" label={t("hidden")} help={t("hiddenHelp")} />
      <TextArea name="remarks" label={t("remarks")} rows={3} />
    </>
  );
}

export function SeriesFields() {
  const t = useTranslations("manageFields");
  return (
    <>
      <Hidden name="last_modified" />
      <div className="form-grid">
        <SelectField name="type" label={t("type")} required options={TIMESERIES_TYPES.map((type) => ({ value: type, label: t(`seriesTypes.${type}`) }))} empty="—" />
        {/* No maxLength: the browser would cut "10 minutes" to "10 minu" silently; the server refuses a long one with the API's message. */}
        <TextField name="time_step" label={t("timeStep")} help={t("timeStepHelp")} />
        <TextField name="name" label={t("name")} maxLength={100} help={t("seriesNameHelp")} />
      </div>
      <CheckboxField name="publicly_available" label={t("publiclyAvailable")} help={t("publiclyAvailableHelp")} />
    </>
  );
}

export function AttachmentFields({ kind, create }: { kind: "files" | "images"; create: boolean }) {
  const t = useTranslations("manageFields");
  return (
    <>
      <Hidden name="last_modified" />
      <FileField name="content" label={create ? (kind === "files" ? t("file") : t("image")) : kind === "files" ? t("replaceFile") : t("replaceImage")}
        required={create} maxBytes={settings().maxUploadSize} accept={kind === "images" ? ".jpg,.jpeg,.png,.gif,.webp,image/jpeg,image/png,image/gif,image/webp" : undefined}
        help={create ? undefined : t("keepStored")} />
      <div className="form-grid">
        <TextField name="descr" label={t("description")} maxLength={100} required={kind === "files"} />
        <TextField name="date" label={t("date")} type="date" help={t("mayBeEmpty")} />
      </div>
      <TextArea name="remarks" label={t("remarks")} rows={2} />
      {kind === "images" && <CheckboxField name="featured" label={t("featured")} help={t("featuredHelp")} />}
    </>
  );
}

export function EventFields({ eventTypes }: { eventTypes: Choice[] }) {
  const t = useTranslations("manageFields");
  return (
    <>
      <Hidden name="last_modified" />
      <div className="form-grid">
        <TextField name="date" label={t("date")} type="date" required />
        <SelectField name="type" label={t("type")} required options={options(eventTypes)} empty="—" />
        <TextField name="user" label={t("user")} maxLength={64} help={t("userHelp")} />
      </div>
      <TextArea name="report" label={t("report")} rows={3} />
    </>
  );
}

/**
 * A replication source (replication.md §1). The password and token are write-only: never shown;
 * on an edit, left empty they keep the stored ones, and "clear" removes all three credentials.
 */
export function SourceFields({ stored }: { stored?: { username: boolean; password: boolean; token: boolean } }) {
  const t = useTranslations("manageFields");
  const unitLabel = (unit: string) => (t.has(`intervalUnits.${unit as IntervalUnit}`) ? t(`intervalUnits.${unit as IntervalUnit}`) : unit);
  const kept = (what: "password" | "token") => (stored?.[what] ? t(`${what}Stored`) : t(`${what}None`));
  return (
    <>
      {stored && <Hidden name="last_modified" />}
      <div className="form-grid">
        <TextField name="name" label={t("name")} maxLength={200} help={t("sourceNameHelp")} />
        <TextField name="url" label={t("url")} required maxLength={500} placeholder="https://other.example.org/" help={t("urlHelp")} />
        <TextField name="query" label={t("stations")} maxLength={1000} help={t("queryHelp")} />
      </div>
      <fieldset className="field-group">
        <legend>{t("schedule")}</legend>
        <div className="form-grid">
          <TextField name="interval" label={t("runEvery")} type="number" inputMode="numeric" required help={t("intervalHelp")} />
          <SelectField name="interval_unit" label={t("intervalUnit")} options={INTERVAL_UNITS.map((u) => ({ value: u.value, label: unitLabel(u.label) }))} />
        </div>
        <CheckboxField name="enabled" label={t("enabled")} help={t("enabledHelp")} />
        <CheckboxField name="prune" label={t("prune")} help={t("pruneHelp")} />
      </fieldset>
      <fieldset className="field-group">
        <legend>{t("credentials")}</legend>
        <p className="help">{t("credentialsHelp")}</p>
        <div className="form-grid">
          <TextField name="username" label={t("username")} maxLength={150} />
          <TextField name="password" label={t("password")} type="password" maxLength={500} autoComplete="new-password" help={stored ? kept("password") : undefined} />
          <TextField name="token" label={t("token")} type="password" maxLength={500} autoComplete="off" help={stored ? kept("token") : undefined} />
        </div>
        {stored && (stored.username || stored.password || stored.token) && (
          <CheckboxField name="clear_credentials" label={t("clearCredentials")} help={t("clearCredentialsHelp")} />
        )}
      </fieldset>
    </>
  );
}
