import { useTranslations } from "next-intl";
import type { ReactNode } from "react";
import { CheckboxField, ErrorsFor, Hidden, SelectField, TextArea, TextField, type Option } from "@/components/manage/Form";
import { AGGREGATION_METHODS } from "@/lib/processing";
import type { ProcessType } from "@/lib/processing";

interface TypeFieldsProps {
  /** A curve interpolation's target group choices. */
  groups: Option[];
  /** How many period blocks a curve interpolation's form shows. */
  periods: number;
}

/**
 * The fields of a process form, by type (processing.md §1): each type's fields (their typed
 * bits become the API's body in lib/processing/types/<type>.ts); their messages appear under the
 * fieldset they concern.
 */
export function ProcessFields({ type, groups, periods }: { type: ProcessType } & TypeFieldsProps) {
  const TypeFields = TYPE_FIELDS[type];
  const t = useTranslations("manageSeriesProcess.fields");
  return (
    <>
      <Hidden name="type" value={type} />
      <Hidden name="last_modified" />
      <CheckboxField name="enabled" label={t("enabled")} help={t("enabledHelp")} />
      <ErrorsFor name="type" />
      <TypeFields groups={groups} periods={periods} />
    </>
  );
}

function ChecksFields() {
  const t = useTranslations("manageSeriesProcess.fields");
  return (
    <>
      <fieldset>
        <legend>{t("rangeCheck")}</legend>
        <p className="help">{t("rangeHelp")}</p>
        <div className="form-grid">
          <TextField name="range_lower_bound" label={t("lowerBound")} type="number" />
          <TextField name="range_upper_bound" label={t("upperBound")} type="number" />
          <TextField name="range_soft_lower_bound" label={t("softLowerBound")} type="number" />
          <TextField name="range_soft_upper_bound" label={t("softUpperBound")} type="number" />
        </div>
        <ErrorsFor name="range_check" />
      </fieldset>
      <fieldset>
        <legend>{t("rateCheck")}</legend>
        <TextArea name="rate_thresholds" label={t("thresholds")} rows={4}
          help={t("thresholdsHelp")} />
        <CheckboxField name="rate_symmetric" label={t("symmetric")} help={t("symmetricHelp")} />
        <CheckboxField name="rate_remove_failing_values" label={t("removeFailing")} help={t("removeFailingHelp")} />
        <ErrorsFor name="rate_of_change_check" />
      </fieldset>
    </>
  );
}

function CurveFields({ groups, periods }: { groups: Option[]; periods: number }) {
  const t = useTranslations("manageSeriesProcess.fields");
  return (
    <>
      <SelectField name="target_timeseries_group" label={t("targetGroup")} required options={groups} empty="—"
        help={groups.length > 0 ? t("targetGroupHelp") : t("targetGroupNone")} />
      {Array.from({ length: periods }, (_, i) => (
        <fieldset key={i}>
          <legend>{i === periods - 1 && i > 0 ? t("periodToAdd", { n: i + 1 }) : t("period", { n: i + 1 })}</legend>
          <div className="form-grid">
            <TextField name={`period_${i}_start_date`} label={t("startDate")} type="date" />
            <TextField name={`period_${i}_end_date`} label={t("endDate")} type="date" />
          </div>
          <TextArea name={`period_${i}_points`} label={t("points")} rows={5}
            help={t("pointsHelp")} />
        </fieldset>
      ))}
      <ErrorsFor name="periods" />
    </>
  );
}

function AggregationFields() {
  const t = useTranslations("manageSeriesProcess.fields");
  return (
    <div className="form-grid">
      {/* No maxLength (see SeriesFields): a long step is refused by the server with the API's message, as typed. */}
      <TextField name="target_time_step" label={t("targetTimeStep")} required help={t("targetTimeStepHelp")} />
      <SelectField name="method" label={t("method")} required options={AGGREGATION_METHODS.map((m) => ({ value: m, label: t(`methods.${m}`) }))} empty="—" />
      <TextField name="max_missing" label={t("maxMissing")} type="number" inputMode="numeric" help={t("maxMissingHelp")} />
      <TextField name="resulting_timestamp_offset" label={t("timestampOffset")} maxLength={10} help={t("timestampOffsetHelp")} />
    </div>
  );
}

/** A process type's fields; a type without them does not compile. */
const TYPE_FIELDS: Record<ProcessType, (props: TypeFieldsProps) => ReactNode> = {
  checks: ChecksFields,
  curve_interpolation: CurveFields,
  aggregation: AggregationFields,
};
