/**
 * Processes in words, as the group page lists them (processing.md §5):
 * "Checked: range 0…40 °C, soft 2…38; rate of change 10min 5 °C", "Hourly mean, at most 2
 * missing", "Curve interpolation into Discharge: 2 periods, 2020-01-01 to 2021-12-31".
 */
import type { AggregationConfig, ChecksConfig, CurveConfig, ProcessConfig } from "./config";
import { stepSeconds } from "./numerics/steps";

const num = (n: number) => String(n).replace("-", "−");

function withUnit(text: string, unit: string): string {
  return unit ? `${text} ${unit}` : text;
}

function describeChecks(c: ChecksConfig, unit: string): string {
  const parts: string[] = [];
  const r = c.range_check;
  if (r) {
    let text = withUnit(`range ${num(r.lower_bound)}…${num(r.upper_bound)}`, unit);
    const { soft_lower_bound: lower, soft_upper_bound: upper } = r;
    if (lower !== null && upper !== null) text += `, soft ${num(lower)}…${num(upper)}`;
    else if (lower !== null) text += `, soft from ${num(lower)}`;
    else if (upper !== null) text += `, soft up to ${num(upper)}`;
    parts.push(text);
  }
  const roc = c.rate_of_change_check;
  if (roc) {
    // Symmetric thresholds bound changes either way; otherwise the sign says rises (+) or falls (−).
    const thresholds = roc.thresholds.map((t) => withUnit(`${t.delta_t} ${roc.symmetric ? num(Math.abs(t.allowed_diff)) : t.allowed_diff > 0 ? `+${num(t.allowed_diff)}` : num(t.allowed_diff)}`, unit));
    parts.push(`rate of change ${thresholds.join(", ")}${roc.remove_failing_values ? ", failing values removed" : ""}`);
  }
  return `Checked: ${parts.join("; ")}`;
}

const METHOD_WORDS: Record<AggregationConfig["method"], string> = { mean: "mean", sum: "sum", max: "maximum", min: "minimum" };

/** "Hourly", "Daily", "10-minute", "3-hour", "2-day". */
export function stepWords(step: string): string {
  const seconds = stepSeconds(step).seconds;
  if (seconds === 3_600) return "Hourly";
  if (seconds === 86_400) return "Daily";
  if (seconds === null) return step;
  if (seconds % 86_400 === 0) return `${seconds / 86_400}-day`;
  if (seconds % 3_600 === 0) return `${seconds / 3_600}-hour`;
  return `${seconds / 60}-minute`;
}

function describeAggregation(c: AggregationConfig): string {
  let text = `${stepWords(c.target_time_step)} ${METHOD_WORDS[c.method]}, ${c.max_missing === 0 ? "no missing values allowed" : `at most ${c.max_missing} missing`}`;
  const offset = /^(-?)(\d+)min$/.exec(c.resulting_timestamp_offset);
  if (offset) text += `, stamped ${offset[2]} min ${offset[1] ? "later" : "earlier"}`;
  return text;
}

function describeCurve(c: CurveConfig, targetGroupName: string): string {
  const n = c.periods.length;
  const starts = c.periods.map((p) => p.start_date).sort();
  const ends = c.periods.map((p) => p.end_date).sort();
  return `Curve interpolation into ${targetGroupName}: ${n} period${n === 1 ? "" : "s"}, ${starts[0]} to ${ends[n - 1]}`;
}

/** `unit`: the group's unit symbol; `targetGroupName`: a curve interpolation's target group, as the page names it. */
export function describeProcess(p: ProcessConfig, context: { unit: string; targetGroupName?: string }): string {
  switch (p.type) {
    case "checks":
      return describeChecks(p.config, context.unit);
    case "aggregation":
      return describeAggregation(p.config);
    case "curve_interpolation":
      return describeCurve(p.config, context.targetGroupName ?? `group ${p.targetGroupId}`);
  }
}
