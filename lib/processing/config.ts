/**
 * A process's definition (processing.md §1) and the rules it must follow beyond its syntax,
 * each message under the field it concerns, so that the API, the site's forms and scripts
 * report the same words. What each type defines is in its module (lib/processing/types/); this
 * is what holds for any type.
 */
import type { AggregationConfig } from "./numerics/aggregation";
import type { ChecksConfig } from "./numerics/checks";
import type { CurvePeriod } from "./numerics/interpolate";
import type { RangeCheckConfig } from "./numerics/range-check";
import type { RateOfChangeConfig } from "./numerics/rate-of-change";
import { AGGREGATION_RULES } from "./types/aggregation";
import { CHECKS_RULES } from "./types/checks";
import { CURVE_RULES } from "./types/curve-interpolation";
import { kindOf, type ProcessConfig } from "./types";
import type { RuleErrors } from "./types/kind";

export type { AggregationConfig, ChecksConfig, CurvePeriod, RangeCheckConfig, RateOfChangeConfig, RuleErrors };
export { PROCESS_TYPES, type ProcessConfig, type ProcessType } from "./types";
export type { CurveConfig } from "./types/curve-interpolation";
export { aggregatedSeriesName, aggregationErrors, MAX_MISSING_LIMIT } from "./types/aggregation";
export { checksErrors, rangeCheckErrors, rateOfChangeErrors } from "./types/checks";
export { periodsErrors } from "./types/curve-interpolation";
export { fixedStepError } from "./types/fields-kit";

/** Every type's messages. */
export const RULES = { ...CHECKS_RULES, ...CURVE_RULES, ...AGGREGATION_RULES } as const;

/** Every rule of a configuration, by field. */
export function configErrors(p: ProcessConfig): RuleErrors {
  return kindOf(p).errors(p);
}

/** The form in which a configuration is stored and shown (a curve's points sorted by x). */
export function normalized(p: ProcessConfig): ProcessConfig {
  return kindOf(p).normalized(p);
}

/** Processes of a group with the same key clash: at most one checks, one aggregation per target_time_step and method. */
export function uniqueKey(p: ProcessConfig): string | null {
  return kindOf(p).uniqueKey(p);
}
