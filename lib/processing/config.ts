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

/** At most this many "overlaps" messages: finding each one's earlier period costs a scan of the list. */
const MAX_OVERLAP_MESSAGES = 10;

export function periodsErrors(periods: readonly CurvePeriod[]): string[] {
  if (periods.length === 0) return [RULES.noPeriods];
  const errors: string[] = [];
  const starts = periods.map((p) => dayOf(p.start_date));
  const ends = periods.map((p) => dayOf(p.end_date));
  periods.forEach((p, i) => {
    if (starts[i] > ends[i]) errors.push(RULES.periodOrder(i));
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
  errors.push(...overlapErrors(starts, ends));
  return errors;
}

/**
 * "periods[i] overlaps periods[j]" for each period i that overlaps an earlier one, j the first
 * such. Whether an earlier period overlaps i is a prefix-maximum query (of the ends of the
 * earlier periods that start by i's end) on a Fenwick tree over the start days, so that a list
 * of thousands of periods costs milliseconds, not a scan of every pair.
 */
function overlapErrors(starts: number[], ends: number[]): string[] {
  const n = starts.length;
  const sorted = [...starts].sort((a, b) => a - b);
  /** How many periods start on or before `day`. */
  const startingBy = (day: number) => {
    let lo = 0;
    let hi = n;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (sorted[mid] <= day) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  };
  const tree = new Float64Array(n + 1).fill(-Infinity);
  const errors: string[] = [];
  for (let i = 0; i < n && errors.length < MAX_OVERLAP_MESSAGES; i++) {
    let latestEnd = -Infinity;
    for (let k = startingBy(ends[i]); k > 0; k -= k & -k) latestEnd = Math.max(latestEnd, tree[k]);
    if (latestEnd >= starts[i]) {
      const j = starts.findIndex((s, j) => j < i && s <= ends[i] && starts[i] <= ends[j]);
      errors.push(RULES.overlap(i, j));
    }
    // Equal start days share the rank of the last of them; the prefix of startingBy(day) includes it.
    for (let k = startingBy(starts[i]); k <= n; k += k & -k) tree[k] = Math.max(tree[k], ends[i]);
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
