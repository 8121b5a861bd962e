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
  return (
    <>
      <Hidden name="type" value={type} />
      <Hidden name="last_modified" />
      <CheckboxField name="enabled" label="Enabled" help="A disabled process is not run." />
      <ErrorsFor name="type" />
      <TypeFields groups={groups} periods={periods} />
    </>
  );
}

function ChecksFields() {
  return (
    <>
      <fieldset>
        <legend>Range check</legend>
        <p className="help">Values outside the hard bounds become empty (flag RANGE); those outside the soft bounds are flagged SUSPECT. Leave all four empty for no range check.</p>
        <div className="form-grid">
          <TextField name="range_lower_bound" label="Lower bound" type="number" />
          <TextField name="range_upper_bound" label="Upper bound" type="number" />
          <TextField name="range_soft_lower_bound" label="Soft lower bound" type="number" />
          <TextField name="range_soft_upper_bound" label="Soft upper bound" type="number" />
        </div>
        <ErrorsFor name="range_check" />
      </fieldset>
      <fieldset>
        <legend>Rate-of-change check</legend>
        <TextArea name="rate_thresholds" label="Thresholds" rows={4}
          help="One per line: a time difference and the largest change allowed in it, e.g. “10min 7.3”, “1h 20”. Empty: no rate-of-change check." />
        <CheckboxField name="rate_symmetric" label="Symmetric" help="A fall counts like a rise." />
        <CheckboxField name="rate_remove_failing_values" label="Remove failing values" help="Empty them instead of only flagging them." />
        <ErrorsFor name="rate_of_change_check" />
      </fieldset>
    </>
  );
}

function CurveFields({ groups, periods }: { groups: Option[]; periods: number }) {
  return (
    <>
      <SelectField name="target_timeseries_group" label="Target group" required options={groups} empty="—"
        help={groups.length > 0
          ? "Its Initial series receives the interpolated values (e.g. the discharge group of the station)."
          : "None to choose yet: first add a group for the interpolated variable (e.g. discharge) to this station, or to another station you edit."} />
      {Array.from({ length: periods }, (_, i) => (
        <fieldset key={i}>
          <legend>Period {i + 1}{i === periods - 1 && i > 0 ? " (to add one)" : ""}</legend>
          <div className="form-grid">
            <TextField name={`period_${i}_start_date`} label="Start date" type="date" />
            <TextField name={`period_${i}_end_date`} label="End date" type="date" />
          </div>
          <TextArea name={`period_${i}_points`} label="Points (x, y)" rows={5}
            help="One point per line; paste two columns from a spreadsheet (tab-separated) or type “x, y”." />
        </fieldset>
      ))}
      <ErrorsFor name="periods" />
    </>
  );
}

function AggregationFields() {
  return (
    <div className="form-grid">
      {/* No maxLength (see SeriesFields): a long step is refused by the server with the API's message, as typed. */}
      <TextField name="target_time_step" label="Target time step" required help="e.g. 1h, 1D, 30min." />
      <SelectField name="method" label="Method" required options={AGGREGATION_METHODS.map((m) => ({ value: m, label: m }))} empty="—" />
      <TextField name="max_missing" label="Max missing" type="number" inputMode="numeric" help="Source records that may be missing in an interval (0–32767)." />
      <TextField name="resulting_timestamp_offset" label="Resulting timestamp offset" maxLength={10} help="Empty, or e.g. 1min, -30min." />
    </div>
  );
}

/** A process type's fields; a type without them does not compile. */
const TYPE_FIELDS: Record<ProcessType, (props: TypeFieldsProps) => ReactNode> = {
  checks: ChecksFields,
  curve_interpolation: CurveFields,
  aggregation: AggregationFields,
};
