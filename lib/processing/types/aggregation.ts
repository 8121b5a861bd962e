/**
 * Aggregation (processing.md §1–§3): the group's Checked (else Initial) series regularized and
 * aggregated to a longer time step, into the group's Aggregated series of that step named after
 * the method. Several per group, with distinct target_time_step and method.
 */
import { z } from "zod";
import { choice, integer, text } from "@/lib/http/fields";
import { typeCode } from "@/lib/domain/timeseries-types";
import { DEFAULT_LOCALE, translator, type Locale } from "@/lib/i18n";
import { records } from "@/lib/records";
import { AGGREGATION_METHODS, type AggregationMethod } from "../numerics/aggregate";
import { aggregationLookback, planAggregation, runAggregation, type AggregationConfig, type AggregationSource } from "../numerics/aggregation";
import { stepSeconds, timestampOffsetSeconds } from "../numerics/steps";
import { lastRecordBefore, readSourceFrom, storedTarget } from "../reads";
import { STORABLE_SPAN, STORABLE_TIMES } from "../storable";
import { fail, fixedStepError, stepField } from "./fields-kit";
import { shown } from "./form-kit";
import type { ProcessKind, RuleErrors } from "./kind";

export interface AggregationDefinition {
  type: "aggregation";
  config: AggregationConfig;
}

export const MAX_MISSING_LIMIT = 32_767;

/**
 * The longest target time step and resulting_timestamp_offset (processing.md §1): an interval,
 * or a shift, as long as the span of times records may have would stamp every result outside
 * it (in minutes: the offset is written in minutes, the step in days).
 */
export const MAX_OFFSET_MINUTES = STORABLE_SPAN / 60;
export const MAX_TARGET_DAYS = Math.floor(STORABLE_SPAN / 86_400);

export const AGGREGATION_RULES = {
  offset: (text: string) => `"${text}" is not a valid resulting timestamp offset.`,
  offsetTooLong: `Ensure the offset is at most ${MAX_OFFSET_MINUTES}min either way: ${STORABLE_TIMES}.`,
  stepTooLong: `Ensure the time step is at most ${MAX_TARGET_DAYS}D: ${STORABLE_TIMES}.`,
} as const;

/** The rule of resulting_timestamp_offset, null when it holds. */
function offsetError(text: string): string | null {
  const seconds = timestampOffsetSeconds(text).seconds;
  if (seconds === null) return AGGREGATION_RULES.offset(text);
  return Math.abs(seconds) > MAX_OFFSET_MINUTES * 60 ? AGGREGATION_RULES.offsetTooLong : null;
}

/** The rules of target_time_step, null when they hold. */
function targetStepError(text: string): string | null {
  const problem = fixedStepError(text);
  if (problem) return problem;
  return stepSeconds(text).seconds! > MAX_TARGET_DAYS * 86_400 ? AGGREGATION_RULES.stepTooLong : null;
}

export function aggregationErrors(c: AggregationConfig): RuleErrors {
  const errors: RuleErrors = {};
  const step = targetStepError(c.target_time_step);
  if (step) errors.target_time_step = [step];
  if (!AGGREGATION_METHODS.includes(c.method)) errors.method = [`"${c.method}" is not a valid choice.`];
  if (!Number.isInteger(c.max_missing) || c.max_missing < 0 || c.max_missing > MAX_MISSING_LIMIT) {
    errors.max_missing = [`Ensure this value is greater than or equal to 0 and less than or equal to ${MAX_MISSING_LIMIT}.`];
  }
  const offset = offsetError(c.resulting_timestamp_offset);
  if (offset) errors.resulting_timestamp_offset = [offset];
  return errors;
}

/** The Aggregated series' name of a method: Sum, Mean, Max, Min (processing.md §2). */
export function aggregatedSeriesName(method: AggregationConfig["method"]): string {
  return method.charAt(0).toUpperCase() + method.slice(1);
}

function offsetField() {
  const base = text({ default: "" });
  return {
    ...base,
    parse(raw: unknown) {
      const parsed = base.parse(raw);
      if (!parsed.ok) return parsed;
      const problem = offsetError(parsed.value);
      return problem ? fail<string>(problem) : parsed;
    },
    schema: z.string().meta({ description: `"" or an optional "-" and a positive integer and "min": 1min, -30min; at most ${MAX_OFFSET_MINUTES}min either way` }),
  };
}

function targetStepField() {
  const base = stepField();
  return {
    ...base,
    parse(raw: unknown) {
      const parsed = base.parse(raw);
      if (!parsed.ok) return parsed;
      const problem = targetStepError(parsed.value);
      return problem ? fail<string>(problem) : parsed;
    },
    schema: z.string().max(7).meta({ description: `A positive integer and min, h or D: 10min, 1h, 1D; at most ${MAX_TARGET_DAYS}D` }),
  };
}

// ---- words

const METHOD_WORDS = { mean: "methodMean", sum: "methodSum", max: "methodMax", min: "methodMin" } as const satisfies Record<AggregationConfig["method"], string>;

/** "Hourly", "Daily", "10-minute", "3-hour", "2-day". */
export function stepWords(step: string): string {
  return stepWordsIn(DEFAULT_LOCALE, step);
}

/** A time step in words in a language: in Greek "ανά ώρα", "ανά 10 λεπτά"… */
export function stepWordsIn(locale: Locale, step: string): string {
  const t = translator(locale, "processWords");
  const seconds = stepSeconds(step).seconds;
  if (seconds === 3_600) return t("stepHourly");
  if (seconds === 86_400) return t("stepDaily");
  if (seconds === null) return t("stepOther", { step });
  if (seconds % 86_400 === 0) return t("stepDays", { count: seconds / 86_400 });
  if (seconds % 3_600 === 0) return t("stepHours", { count: seconds / 3_600 });
  return t("stepMinutes", { count: seconds / 60 });
}

function describeAggregation(c: AggregationConfig, locale: Locale = DEFAULT_LOCALE): string {
  const t = translator(locale, "processWords");
  const missing = c.max_missing === 0 ? t("noMissing") : t("atMostMissing", { count: c.max_missing });
  let text = t("aggregation", { step: stepWordsIn(locale, c.target_time_step), method: t(METHOD_WORDS[c.method]), missing });
  const offset = /^(-?)(\d+)min$/.exec(c.resulting_timestamp_offset);
  if (offset) text += `, ${t(offset[1] ? "stampedLater" : "stampedEarlier", { minutes: Number(offset[2]) })}`;
  return text;
}

const AGGREGATED = typeCode("Aggregated");

export const aggregation: ProcessKind<AggregationDefinition> = {
  type: "aggregation",

  fields: () => ({
    target_time_step: targetStepField(),
    method: choice(AGGREGATION_METHODS, { required: true }),
    max_missing: integer({ min: 0, max: MAX_MISSING_LIMIT, default: 0 }),
    resulting_timestamp_offset: offsetField(),
  }),
  responseSchema: () => ({
    target_time_step: z.string().optional().meta({ description: "aggregation: 10min, 1h, 1D…" }),
    method: z.enum(AGGREGATION_METHODS as [AggregationMethod, ...AggregationMethod[]]).optional().meta({ description: "aggregation" }),
    max_missing: z.int().min(0).max(MAX_MISSING_LIMIT).optional().meta({ description: "aggregation" }),
    resulting_timestamp_offset: z.string().optional().meta({ description: "aggregation: \"\", 1min, -30min…" }),
  }),
  definition: (sent, stored) => ({ type: "aggregation", config: { ...stored?.config, ...sent } as AggregationConfig }),
  output: (d) => ({
    target_time_step: d.config.target_time_step, method: d.config.method, max_missing: d.config.max_missing,
    resulting_timestamp_offset: d.config.resulting_timestamp_offset,
  }),
  errors: (d) => aggregationErrors(d.config),
  normalized: (d) => d,
  uniqueKey: (d) => `aggregation ${d.config.target_time_step} ${d.config.method}`,
  onePerGroup: false,
  clashMessage: "This group already has an aggregation with this target_time_step and method.",

  fromStored: (config) => ({ type: "aggregation", config: config as AggregationConfig }),
  toStored: (d) => ({ config: d.config, targetGroupId: null }),

  name: (d) => `aggregation ${d.config.target_time_step} ${d.config.method}`,
  describe: (d, context) => describeAggregation(d.config, context.locale),

  reads: "checked, else initial",
  targetGroupId: () => null,
  target: (groupId, d) => ({ groupId, type: AGGREGATED, timeStep: d.config.target_time_step, name: aggregatedSeriesName(d.config.method) }),

  // Aggregation works in local time, on the source's time step.
  usesZone: true,
  async compute(d, { source, target, zoneOffset, dirtyFrom }) {
    const summary = await records().summary(source.id);
    const whole: AggregationSource = { timeStep: source.timeStep, zoneOffsetSeconds: zoneOffset, first: summary?.first ?? null, last: summary?.last ?? null };
    const before = aggregationLookback(d.config, dirtyFrom, whole, await lastRecordBefore(source.id, dirtyFrom, false));
    const lastValued = before === null ? null : await lastRecordBefore(target.id, before, true);
    const plan = planAggregation(d.config, dirtyFrom, whole, lastValued);
    const stored = storedTarget(target, plan.targetFrom);
    return { plan, target: runAggregation(d.config, await readSourceFrom(source, plan.sourceFrom), whole, plan), stored };
  },

  form: {
    label: "aggregation",
    add: { summary: "Add an aggregation", submit: "Add aggregation", rank: 2, initial: { max_missing: "0" } },
    toApi: () => ({}),
    values: (d) => ({
      target_time_step: d.config.target_time_step, method: d.config.method, max_missing: shown(d.config.max_missing),
      resulting_timestamp_offset: d.config.resulting_timestamp_offset,
    }),
  },
};
