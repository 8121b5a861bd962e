/**
 * The configurations of the three process types (processing.md §1) as typed values, and the
 * rules they must follow beyond their syntax (which the API's field specs parse): each rule's
 * message under the field it concerns, so that the API, the site's forms and scripts report
 * the same words.
 */
import type { AggregationConfig } from "./numerics/aggregation";
import { AGGREGATION_METHODS } from "./numerics/aggregate";
import type { ChecksConfig } from "./numerics/checks";
import type { CurvePeriod } from "./numerics/interpolate";
import type { RangeCheckConfig } from "./numerics/range-check";
import type { RateOfChangeConfig } from "./numerics/rate-of-change";
import { stepSeconds, timestampOffsetSeconds } from "./numerics/steps";

export type { AggregationConfig, ChecksConfig, CurvePeriod, RangeCheckConfig, RateOfChangeConfig };

export const PROCESS_TYPES = ["checks", "curve_interpolation", "aggregation"] as const;
export type ProcessType = (typeof PROCESS_TYPES)[number];

export interface CurveConfig {
  /** Each period's points sorted by x. */
  periods: CurvePeriod[];
}

/** A process's type and configuration (the curve interpolation's target group is separate). */
export type ProcessConfig =
  | { type: "checks"; config: ChecksConfig }
  | { type: "curve_interpolation"; config: CurveConfig; targetGroupId: number }
  | { type: "aggregation"; config: AggregationConfig };

export const MAX_MISSING_LIMIT = 32_767;
/** A time step is stored in a series' time_step, at most 7 characters (api.md §6). */
const TIME_STEP_LENGTH = 7;

export type RuleErrors = Record<string, string[]>;

export const RULES = {
  atLeastOneCheck: "At least one of range_check and rate_of_change_check is required.",
  boundsOrder: "The bounds must be in the order lower_bound ≤ soft_lower_bound ≤ soft_upper_bound ≤ upper_bound.",
  noThresholds: "thresholds: At least one threshold is required.",
  distinctDeltas: (a: string, b: string) => a === b
    ? `thresholds: Each delta_t may appear only once ("${a}" appears twice).`
    : `thresholds: Each delta_t may appear only once ("${a}" and "${b}" are the same duration).`,
  symmetricPositive: (i: number) => `thresholds[${i}].allowed_diff: With symmetric thresholds every allowed_diff must be greater than 0.`,
  noPeriods: "At least one period is required.",
  periodOrder: (i: number) => `periods[${i}]: start_date must not be after end_date.`,
  overlap: (i: number, j: number) => `periods[${i}] overlaps periods[${j}].`,
  fewPoints: (i: number) => `periods[${i}].points: At least two points are required.`,
  distinctX: (i: number, x: number) => `periods[${i}].points: Each x may appear only once (${x} appears twice).`,
  offset: (text: string) => `"${text}" is not a valid resulting timestamp offset.`,
} as const;

/** A duration of `delta_t` or `target_time_step`: minutes, hours or days; null when valid. */
export function fixedStepError(text: string): string | null {
  if (text.length > TIME_STEP_LENGTH) return `Ensure this field has no more than ${TIME_STEP_LENGTH} characters.`;
  const step = stepSeconds(text);
  return step.seconds === null ? step.reason : null;
}

export function rangeCheckErrors(c: RangeCheckConfig): string[] {
  const chain = [c.lower_bound, c.soft_lower_bound, c.soft_upper_bound, c.upper_bound].filter((b): b is number => b !== null);
  for (let i = 1; i < chain.length; i++) if (chain[i - 1] > chain[i]) return [RULES.boundsOrder];
  return [];
}

export function rateOfChangeErrors(c: RateOfChangeConfig): string[] {
  if (c.thresholds.length === 0) return [RULES.noThresholds];
  const errors: string[] = [];
  const seen = new Map<number, string>();
  c.thresholds.forEach((t, i) => {
    const problem = fixedStepError(t.delta_t);
    if (problem) {
      errors.push(`thresholds[${i}].delta_t: ${problem}`);
      return;
    }
    const seconds = stepSeconds(t.delta_t).seconds!;
    const earlier = seen.get(seconds);
    if (earlier !== undefined) errors.push(RULES.distinctDeltas(earlier, t.delta_t));
    else seen.set(seconds, t.delta_t);
    if (c.symmetric && !(t.allowed_diff > 0)) errors.push(RULES.symmetricPositive(i));
  });
  return errors;
}

/** The rules of the checks' fields (both may be null here; at least one is required by the caller). */
export function checksErrors(c: ChecksConfig): RuleErrors {
  const errors: RuleErrors = {};
  const range = c.range_check ? rangeCheckErrors(c.range_check) : [];
  const roc = c.rate_of_change_check ? rateOfChangeErrors(c.rate_of_change_check) : [];
  if (range.length) errors.range_check = range;
  if (roc.length) errors.rate_of_change_check = roc;
  if (!c.range_check && !c.rate_of_change_check) errors.non_field_errors = [RULES.atLeastOneCheck];
  return errors;
}

const dayOf = (date: string) => Date.parse(`${date}T00:00:00Z`);

export function periodsErrors(periods: readonly CurvePeriod[]): string[] {
  if (periods.length === 0) return [RULES.noPeriods];
  const errors: string[] = [];
  periods.forEach((p, i) => {
    if (dayOf(p.start_date) > dayOf(p.end_date)) errors.push(RULES.periodOrder(i));
    if (p.points.length < 2) errors.push(RULES.fewPoints(i));
    const xs = new Set<number>();
    for (const [x] of p.points) {
      if (xs.has(x)) {
        errors.push(RULES.distinctX(i, x));
        break;
      }
      xs.add(x);
    }
  });
  for (let i = 0; i < periods.length; i++) {
    for (let j = 0; j < i; j++) {
      const a = periods[i];
      const b = periods[j];
      if (dayOf(a.start_date) <= dayOf(b.end_date) && dayOf(b.start_date) <= dayOf(a.end_date)) {
        errors.push(RULES.overlap(i, j));
        break;
      }
    }
  }
  return errors;
}

export function aggregationErrors(c: AggregationConfig): RuleErrors {
  const errors: RuleErrors = {};
  const step = fixedStepError(c.target_time_step);
  if (step) errors.target_time_step = [step];
  if (!AGGREGATION_METHODS.includes(c.method)) errors.method = [`"${c.method}" is not a valid choice.`];
  if (!Number.isInteger(c.max_missing) || c.max_missing < 0 || c.max_missing > MAX_MISSING_LIMIT) {
    errors.max_missing = [`Ensure this value is greater than or equal to 0 and less than or equal to ${MAX_MISSING_LIMIT}.`];
  }
  if (timestampOffsetSeconds(c.resulting_timestamp_offset).seconds === null) errors.resulting_timestamp_offset = [RULES.offset(c.resulting_timestamp_offset)];
  return errors;
}

/** Every rule of a configuration, by field. */
export function configErrors(p: ProcessConfig): RuleErrors {
  switch (p.type) {
    case "checks":
      return checksErrors(p.config);
    case "curve_interpolation": {
      const periods = periodsErrors(p.config.periods);
      return periods.length ? { periods } : {};
    }
    case "aggregation":
      return aggregationErrors(p.config);
  }
}

/** The form in which a configuration is stored and shown: each period's points sorted by x. */
export function normalized(p: ProcessConfig): ProcessConfig {
  if (p.type !== "curve_interpolation") return p;
  const periods = p.config.periods.map((period) => ({ ...period, points: [...period.points].sort((a, b) => a[0] - b[0]) }));
  return { ...p, config: { periods } };
}

/** The Aggregated series' name of a method: Sum, Mean, Max, Min (processing.md §2). */
export function aggregatedSeriesName(method: AggregationConfig["method"]): string {
  return method.charAt(0).toUpperCase() + method.slice(1);
}

/** At most one checks process per group, one aggregation per target_time_step and method. */
export function uniqueKey(p: ProcessConfig): string | null {
  if (p.type === "checks") return "checks";
  if (p.type === "aggregation") return `aggregation ${p.config.target_time_step} ${p.config.method}`;
  return null;
}
