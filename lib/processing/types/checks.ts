/**
 * Checks (processing.md §1–§3): a range check and a rate-of-change check turn the group's
 * Initial series into its Checked series. At most one per group.
 */
import { z } from "zod";
import { boolean, number, type Parsed } from "@/lib/http/fields";
import { objectOf, sharedSpec } from "@/lib/http/nested-fields";
import { typeCode } from "@/lib/domain/timeseries-types";
import type { FieldErrors } from "@/lib/domain/errors";
import { decimalIn, DEFAULT_LOCALE, translator, type Locale } from "@/lib/i18n";
import { memberNameIn } from "@/lib/site/field-errors";
import { withTypedTimeStep } from "@/lib/site/form-words";
import { planChecks, runChecks, type ChecksConfig } from "../numerics/checks";
import { EMPTY } from "../numerics/series";
import type { RangeCheckConfig } from "../numerics/range-check";
import type { RateOfChangeConfig } from "../numerics/rate-of-change";
import { stepSeconds } from "../numerics/steps";
import { readRecords, readSourceFrom, storedTarget } from "../reads";
import { fixedStepError, listField, nested, stepField, tooManyItems } from "./fields-kit";
import { cells, lineNumbers, lines, numberOrText, shown, text, typedText } from "./form-kit";
import type { ProcessKind, RuleErrors } from "./kind";

/**
 * At most this many rate-of-change thresholds (processing.md §1): a run compares each record
 * with each, so that their number bounds its cost per record.
 */
export const MAX_THRESHOLDS = 50;

export interface ChecksDefinition {
  type: "checks";
  config: ChecksConfig;
}

export const CHECKS_RULES = {
  atLeastOneCheck: "At least one of range_check and rate_of_change_check is required.",
  boundsOrder: "The bounds must be in the order lower_bound ≤ soft_lower_bound ≤ soft_upper_bound ≤ upper_bound.",
  noThresholds: "thresholds: At least one threshold is required.",
  tooManyThresholds: `thresholds: ${tooManyItems(MAX_THRESHOLDS)}`,
  distinctDeltas: (a: string, b: string) => a === b
    ? `thresholds: Each delta_t may appear only once ("${a}" appears twice).`
    : `thresholds: Each delta_t may appear only once ("${a}" and "${b}" are the same duration).`,
  /** Asymmetric thresholds: one rise bound and one fall bound per delta_t (processing.md §2). */
  distinctSignedDeltas: (a: string, b: string, rise: boolean) => {
    const bounds = rise ? "rise bounds (allowed_diff > 0)" : "fall bounds (allowed_diff < 0)";
    return a === b
      ? `thresholds: Each delta_t may have one rise bound and one fall bound ("${a}" has two ${bounds}).`
      : `thresholds: Each delta_t may have one rise bound and one fall bound ("${a}" and "${b}" are the same duration, both ${bounds}).`;
  },
  symmetricPositive: (i: number) => `thresholds[${i}].allowed_diff: With symmetric thresholds every allowed_diff must be greater than 0.`,
  asymmetricNonZero: (i: number) => `thresholds[${i}].allowed_diff: Without symmetric thresholds an allowed_diff must not be 0 (a positive one bounds rises, a negative one falls).`,
} as const;

export function rangeCheckErrors(c: RangeCheckConfig): string[] {
  const chain = [c.lower_bound, c.soft_lower_bound, c.soft_upper_bound, c.upper_bound].filter((b): b is number => b !== null);
  for (let i = 1; i < chain.length; i++) if (chain[i - 1] > chain[i]) return [CHECKS_RULES.boundsOrder];
  return [];
}

export function rateOfChangeErrors(c: RateOfChangeConfig): string[] {
  if (c.thresholds.length === 0) return [CHECKS_RULES.noThresholds];
  if (c.thresholds.length > MAX_THRESHOLDS) return [CHECKS_RULES.tooManyThresholds];
  const errors: string[] = [];
  // Symmetric: each delta_t once. Otherwise once per sign: a rise bound and a fall bound.
  const seen = new Map<string, string>();
  c.thresholds.forEach((t, i) => {
    const problem = fixedStepError(t.delta_t);
    if (problem) {
      errors.push(`thresholds[${i}].delta_t: ${problem}`);
      return;
    }
    const seconds = stepSeconds(t.delta_t).seconds!;
    const rise = t.allowed_diff > 0;
    const key = c.symmetric ? `${seconds}` : `${seconds}${rise ? "+" : "-"}`;
    const earlier = seen.get(key);
    if (earlier !== undefined) {
      errors.push(c.symmetric ? CHECKS_RULES.distinctDeltas(earlier, t.delta_t) : CHECKS_RULES.distinctSignedDeltas(earlier, t.delta_t, rise));
    } else if (c.symmetric || t.allowed_diff !== 0) {
      seen.set(key, t.delta_t);
    }
    if (c.symmetric && !(t.allowed_diff > 0)) errors.push(CHECKS_RULES.symmetricPositive(i));
    if (!c.symmetric && t.allowed_diff === 0) errors.push(CHECKS_RULES.asymmetricNonZero(i));
  });
  return errors;
}

/** The rules of the checks' fields (both may be null here; at least one is required). */
export function checksErrors(c: ChecksConfig): RuleErrors {
  const errors: RuleErrors = {};
  const range = c.range_check ? rangeCheckErrors(c.range_check) : [];
  const roc = c.rate_of_change_check ? rateOfChangeErrors(c.rate_of_change_check) : [];
  if (range.length) errors.range_check = range;
  if (roc.length) errors.rate_of_change_check = roc;
  if (!c.range_check && !c.rate_of_change_check) errors.non_field_errors = [CHECKS_RULES.atLeastOneCheck];
  return errors;
}

// ---- the API's fields

export const RangeCheckSchema = z.object({
  lower_bound: z.number(), upper_bound: z.number(), soft_lower_bound: z.number().nullable().optional(), soft_upper_bound: z.number().nullable().optional(),
}).meta({ id: "RangeCheck", description: "lower_bound ≤ soft_lower_bound ≤ soft_upper_bound ≤ upper_bound; values outside the hard bounds are emptied (RANGE), outside the soft ones flagged SUSPECT" });

export const RateOfChangeCheckSchema = z.object({
  symmetric: z.boolean().optional(),
  remove_failing_values: z.boolean().optional(),
  thresholds: z.array(z.object({
    delta_t: z.string().meta({ description: "A positive integer and min, h or D; distinct (without symmetric: one rise and one fall bound each)" }),
    allowed_diff: z.number(),
  })).min(1).max(MAX_THRESHOLDS),
}).meta({ id: "RateOfChangeCheck" });

const rangeSpec = () => ({
  lower_bound: number({ required: true }),
  upper_bound: number({ required: true }),
  soft_lower_bound: number({ nullable: true, default: null }),
  soft_upper_bound: number({ nullable: true, default: null }),
});

const thresholdSpec = sharedSpec(() => ({
  delta_t: stepField(),
  allowed_diff: number({ required: true }),
}));

const rateOfChangeSpec = () => ({
  symmetric: boolean({ default: false }),
  remove_failing_values: boolean({ default: false }),
  thresholds: listField((v, at) => objectOf(v, thresholdSpec(), at) as Parsed<RateOfChangeConfig["thresholds"][number]>,
    z.array(z.object({ delta_t: z.string(), allowed_diff: z.number() })), MAX_THRESHOLDS),
});

// ---- the site's form: a range check as four number fields, thresholds typed one per line as `10min 7.3`

/** `10min 7.3` (or two spreadsheet cells) → a threshold; a line with other than two parts is sent as it is, for the API's message. */
function threshold(line: string): Record<string, unknown> {
  const [delta, diff, ...rest] = cells(withTypedTimeStep(line));
  if (rest.length) return { delta_t: delta, allowed_diff: [diff, ...rest].join(" ") };
  return diff === undefined ? { delta_t: delta } : { delta_t: delta, allowed_diff: numberOrText(diff) };
}

function rangeCheckInput(form: FormData): string {
  const names = ["lower_bound", "upper_bound", "soft_lower_bound", "soft_upper_bound"];
  const typed = names.map((n) => text(form, `range_${n}`));
  if (typed.every((v) => v === "")) return "";
  const out: Record<string, unknown> = {};
  names.forEach((n, i) => {
    if (typed[i] !== "") out[n] = numberOrText(typed[i]);
    else if (n.startsWith("soft")) out[n] = null;
  });
  return JSON.stringify(out);
}

function rateOfChangeInput(form: FormData): string {
  const typed = lines(text(form, "rate_thresholds"));
  if (typed.length === 0) return "";
  return JSON.stringify({
    symmetric: text(form, "rate_symmetric") === "true",
    remove_failing_values: text(form, "rate_remove_failing_values") === "true",
    thresholds: typed.map(threshold),
  });
}

/** "thresholds[1].delta_t: …" → "Line 2: delta_t: …", counting the lines as typed. */
function thresholdLineMessages(errors: FieldErrors, form: FormData, locale: Locale): FieldErrors {
  if (!errors.rate_of_change_check) return errors;
  const thresholdLines = lineNumbers(typedText(form, "rate_thresholds"));
  return {
    ...errors,
    rate_of_change_check: errors.rate_of_change_check.map((m) => {
      const match = /^thresholds\[(\d+)\](?:\.(\w+))?: (.*)$/.exec(m);
      const line = match && thresholdLines[Number(match[1])];
      return line ? `${translator(locale, "processWords")("line", { line })}: ${match[2] ? `${memberNameIn(locale, match[2])}: ` : ""}${match[3]}` : m;
    }),
  };
}

// ---- words

function withUnit(text: string, unit: string): string {
  return unit ? `${text} ${unit}` : text;
}

function describeChecks(c: ChecksConfig, unit: string, locale: Locale = DEFAULT_LOCALE): string {
  const t = translator(locale, "processWords");
  const num = (n: number) => decimalIn(locale, n).replace("-", "−");
  const parts: string[] = [];
  const r = c.range_check;
  if (r) {
    let text = withUnit(t("range", { lower: num(r.lower_bound), upper: num(r.upper_bound) }), unit);
    const { soft_lower_bound: lower, soft_upper_bound: upper } = r;
    if (lower !== null && upper !== null) text += `, ${t("softBoth", { lower: num(lower), upper: num(upper) })}`;
    else if (lower !== null) text += `, ${t("softFrom", { lower: num(lower) })}`;
    else if (upper !== null) text += `, ${t("softUpTo", { upper: num(upper) })}`;
    parts.push(text);
  }
  const roc = c.rate_of_change_check;
  if (roc) {
    // Symmetric thresholds bound changes either way; otherwise the sign says rises (+) or falls (−).
    const thresholds = roc.thresholds.map((th) => withUnit(`${th.delta_t} ${roc.symmetric ? num(Math.abs(th.allowed_diff)) : th.allowed_diff > 0 ? `+${num(th.allowed_diff)}` : num(th.allowed_diff)}`, unit));
    parts.push(`${t("rateOfChange", { thresholds: thresholds.join(", ") })}${roc.remove_failing_values ? `, ${t("failingRemoved")}` : ""}`);
  }
  return t("checked", { parts: parts.join("; ") });
}

const CHECKED = typeCode("Checked");

export const checks: ProcessKind<ChecksDefinition> = {
  type: "checks",

  fields: () => ({
    range_check: nested("range_check", (v) => objectOf(v, rangeSpec()) as Parsed<RangeCheckConfig>, rangeCheckErrors, RangeCheckSchema, { nullable: true }),
    rate_of_change_check: nested("rate_of_change_check", (v) => objectOf(v, rateOfChangeSpec()) as Parsed<RateOfChangeConfig>, rateOfChangeErrors,
      RateOfChangeCheckSchema, { nullable: true }),
  }),
  responseSchema: () => ({
    range_check: RangeCheckSchema.nullable().optional().meta({ description: "checks" }),
    rate_of_change_check: RateOfChangeCheckSchema.nullable().optional().meta({ description: "checks" }),
  }),
  definition: (sent, stored) => ({
    type: "checks",
    config: { ...(stored?.config ?? { range_check: null, rate_of_change_check: null }), ...sent } as ChecksConfig,
  }),
  output: (d) => ({ range_check: d.config.range_check, rate_of_change_check: d.config.rate_of_change_check }),
  errors: (d) => checksErrors(d.config),
  normalized: (d) => d,
  uniqueKey: () => "checks",
  onePerGroup: true,
  clashMessage: "This group already has checks.",

  fromStored: (config) => ({ type: "checks", config: config as ChecksConfig }),
  toStored: (d) => ({ config: d.config, targetGroupId: null }),

  name: () => "checks",
  describe: (d, context) => describeChecks(d.config, context.unit, context.locale),

  reads: "initial",
  targetGroupId: () => null,
  target: (groupId) => ({ groupId, type: CHECKED }),

  usesZone: false,
  async compute(d, { source, target, dirtyFrom }) {
    const plan = planChecks(d.config, dirtyFrom);
    const stored = storedTarget(target, plan.targetFrom);
    const [input, previous] = await Promise.all([
      readSourceFrom(source, plan.sourceFrom),
      plan.targetFrom === -Infinity ? EMPTY : readRecords(target.id, plan.sourceFrom, plan.targetFrom - 1),
    ]);
    return { plan, target: runChecks(d.config, input, previous, plan.targetFrom), stored };
  },

  form: {
    label: "checks",
    add: { summary: "Add checks", submit: "Add checks", rank: 1, initial: {} },
    ownKeys: /^(range_|rate_)/,
    toApi: (form) => ({ range_check: rangeCheckInput(form), rate_of_change_check: rateOfChangeInput(form) }),
    values(d) {
      const range = d.config.range_check;
      const rate = d.config.rate_of_change_check;
      return {
        range_lower_bound: shown(range?.lower_bound), range_upper_bound: shown(range?.upper_bound),
        range_soft_lower_bound: shown(range?.soft_lower_bound), range_soft_upper_bound: shown(range?.soft_upper_bound),
        rate_thresholds: rate ? rate.thresholds.map((t) => `${t.delta_t} ${t.allowed_diff}`).join("\n") : "",
        rate_symmetric: rate?.symmetric ? "true" : "false", rate_remove_failing_values: rate?.remove_failing_values ? "true" : "false",
      };
    },
    lineMessages: thresholdLineMessages,
  },
};
