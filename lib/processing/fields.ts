import { z } from "zod";
import type { RequestInput } from "@/lib/http/body";
import { INVALID_JSON, jsonValue, listOf, objectOf, sharedSpec } from "@/lib/http/nested-fields";
import {
  boolean, choice, date, integer, MSG, number, pk, specSchema, text, validateFields, type Field, type FieldSpec, type Parsed, type WriteMode,
} from "@/lib/http/fields";
import {
  fixedStepError, MAX_MISSING_LIMIT, periodsErrors, PROCESS_TYPES, rangeCheckErrors, rateOfChangeErrors, RULES, type AggregationConfig,
  type ChecksConfig, type CurvePeriod, type ProcessConfig, type ProcessType, type RangeCheckConfig, type RateOfChangeConfig,
} from "@/lib/processing/config";
import { AGGREGATION_METHODS } from "@/lib/processing/numerics/aggregate";
import { timestampOffsetSeconds } from "@/lib/processing/numerics/steps";
import { ErrorCollector, ValidationFailed } from "@/lib/domain/errors";
import type { ProcessRow } from "@/lib/processing/state";
import { PROCESS_MESSAGES, type ProcessValues, type RunRequest } from "@/lib/processing/processes";
import { existing } from "@/lib/domain/refs";
import { PeriodsSchema, RangeCheckSchema, RateOfChangeCheckSchema } from "@/lib/http/openapi-schemas";

/**
 * The fields of processes (processing.md §1) and of a run request. Nested objects and lists
 * are JSON values in a JSON body, and JSON text in a form body (or in a JSON string). Their
 * messages name the member they concern: "lower_bound: This field is required.",
 * "thresholds[1].delta_t: …" (indexes from 0).
 */
const ok = <T>(value: T): Parsed<T> => ({ ok: true, value });
const fail = <T>(...errors: string[]): Parsed<T> => ({ ok: false, errors });

export { INVALID_JSON };

/**
 * A field holding a nested value, or null when `nullable`; `rules` checks a parsed value. The
 * messages of a list's items start with the field's name ("periods[0].start_date: …").
 */
function nested<T>(name: string, parse: (value: unknown) => Parsed<T>, rules: (value: T) => string[], schema: z.ZodType,
  options: { required?: boolean; nullable?: boolean }): Field<T | null> {
  return {
    required: options.required ?? false,
    default: options.nullable ? () => null : undefined,
    parse(raw) {
      const value = jsonValue(raw);
      if (!value.ok) return value;
      if (value.value === null) return options.nullable ? ok(null) : fail(MSG.null);
      const parsed = parse(value.value);
      // A list's items are named after the field ("periods[0]…"); an object's members by their
      // own names ("lower_bound: …", "thresholds[1].delta_t: …"), without the field's.
      if (!parsed.ok) return fail(...parsed.errors.map((e) => (e.startsWith("[") ? `${name}${e}` : e.startsWith(".") ? e.slice(1) : e)));
      const problems = rules(parsed.value);
      return problems.length ? fail(...problems) : parsed;
    },
    schema: options.nullable ? schema.nullable() : schema,
  };
}

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
    z.array(z.object({ delta_t: z.string(), allowed_diff: z.number() }))),
});

/** A required list member of a nested object. */
function listField<T>(item: (v: unknown, at: string) => Parsed<T>, schema: z.ZodType): Field<T[]> {
  return { required: true, parse: (raw) => listOf(raw, item), schema };
}

/** A fixed duration: `10min`, `1h`, `1D` (months and years are refused). */
function stepField(): Field<string> {
  const base = text({ required: true, blank: false });
  return {
    ...base,
    parse(raw) {
      const parsed = base.parse(raw);
      if (!parsed.ok) return parsed;
      const problem = fixedStepError(parsed.value);
      return problem ? fail(problem) : parsed;
    },
    schema: z.string().max(7).meta({ description: "A positive integer and min, h or D: 10min, 1h, 1D" }),
  };
}

const coordinate = sharedSpec(() => number({ required: true }));

function point(value: unknown, at: string): Parsed<[number, number]> {
  const message = `${at}: A point is a pair of numbers [x, y].`;
  if (!Array.isArray(value) || value.length !== 2) return fail(message);
  const x = coordinate().parse(value[0]);
  const y = coordinate().parse(value[1]);
  return x.ok && y.ok ? ok([x.value!, y.value!]) : fail(message);
}

const periodSpec = sharedSpec(() => ({
  start_date: date({ required: true, nullable: false }),
  end_date: date({ required: true, nullable: false }),
  points: {
    required: true,
    parse: (raw: unknown) => listOf(raw, point),
    schema: z.array(z.tuple([z.number(), z.number()])),
  } as Field<[number, number][]>,
}));

export const commonProcessFields = () => ({
  type: choice(PROCESS_TYPES, { required: true }),
  enabled: boolean({ default: true }),
});

/** The fields of each type, in output order. */
export const TYPE_FIELDS = {
  checks: () => ({
    range_check: nested("range_check", (v) => objectOf(v, rangeSpec()) as Parsed<RangeCheckConfig>, rangeCheckErrors, RangeCheckSchema, { nullable: true }),
    rate_of_change_check: nested("rate_of_change_check", (v) => objectOf(v, rateOfChangeSpec()) as Parsed<RateOfChangeConfig>, rateOfChangeErrors,
      RateOfChangeCheckSchema, { nullable: true }),
  }),
  curve_interpolation: () => ({
    target_timeseries_group: pk(existing("timeseriesGroup"), { required: true }),
    periods: nested("periods", (v) => listOf(v, (p, at) => objectOf(p, periodSpec(), at) as Parsed<CurvePeriod>),
      periodsErrors, PeriodsSchema, { required: true }),
  }),
  aggregation: () => ({
    target_time_step: stepField(),
    method: choice(AGGREGATION_METHODS, { required: true }),
    max_missing: integer({ min: 0, max: MAX_MISSING_LIMIT, default: 0 }),
    resulting_timestamp_offset: offsetField(),
  }),
} satisfies Record<ProcessType, () => FieldSpec>;

function offsetField(): Field<string> {
  const base = text({ default: "" });
  return {
    ...base,
    parse(raw) {
      const parsed = base.parse(raw);
      if (!parsed.ok) return parsed;
      return timestampOffsetSeconds(parsed.value).seconds === null ? fail(RULES.offset(parsed.value)) : parsed;
    },
    schema: z.string().meta({ description: '"" or an optional "-" and a positive integer and "min": 1min, -30min' }),
  };
}

/** Every field of every type, for the OpenAPI document (PATCH: any of them). */
export function allProcessFields(): FieldSpec {
  return { ...commonProcessFields(), ...TYPE_FIELDS.checks(), ...TYPE_FIELDS.curve_interpolation(), ...TYPE_FIELDS.aggregation() };
}

/** A body that creates or replaces a process, for the OpenAPI document: the fields of its type, its required ones required. */
export function processBodySchema(): z.ZodType {
  const ofType = (type: ProcessType) => specSchema({ ...commonProcessFields(), ...TYPE_FIELDS[type]() }).extend({ type: z.literal(type) });
  return z.union([ofType("checks"), ofType("curve_interpolation"), ofType("aggregation")]);
}

type Stored = { [K in ProcessType]: Extract<ProcessConfig, { type: K }> };

/** A definition from the values of its type's fields, over the stored one (PUT and PATCH keep what is not sent). */
function definitionOf(type: ProcessType, sent: Record<string, unknown>, stored: ProcessConfig | null): ProcessConfig {
  switch (type) {
    case "checks": {
      const base = (stored as Stored["checks"] | null)?.config ?? { range_check: null, rate_of_change_check: null };
      return { type, config: { ...base, ...sent } as ChecksConfig };
    }
    case "curve_interpolation": {
      const old = stored as Stored["curve_interpolation"] | null;
      return {
        type,
        targetGroupId: (sent.target_timeseries_group as number | undefined) ?? old!.targetGroupId,
        config: { periods: (sent.periods as CurvePeriod[] | undefined) ?? old!.config.periods },
      };
    }
    case "aggregation": {
      const base = (stored as Stored["aggregation"] | null)?.config;
      return { type, config: { ...base, ...sent } as AggregationConfig };
    }
  }
}

/**
 * A process's values from a request body: on create every field of its type (required ones
 * sent, others their defaults); on PUT and PATCH the stored values with the fields sent. The
 * type cannot change (PUT must repeat it).
 */
export async function readProcess(input: RequestInput, mode: WriteMode, stored?: ProcessRow): Promise<ProcessValues> {
  const errors = new ErrorCollector();
  const common = await validateFields(input, commonProcessFields(), mode === "create" ? "create" : mode, errors);
  let type: ProcessType | undefined = common.type;
  if (stored) {
    if (type !== undefined && type !== stored.definition.type) errors.add("type", PROCESS_MESSAGES.typeFixed);
    type = stored.definition.type;
  }
  let sent: Record<string, unknown> = {};
  if (type) sent = await validateFields(input, TYPE_FIELDS[type](), mode, errors);
  errors.throwIfAny();
  return {
    enabled: common.enabled ?? stored?.enabled ?? true,
    definition: definitionOf(type!, sent, stored?.definition ?? null),
  };
}

export const runFields = () => ({
  from_scratch: boolean({ default: false }),
  wait: boolean({ default: false }),
});

export async function readRunRequest(input: RequestInput): Promise<RunRequest> {
  const errors = new ErrorCollector();
  const v = await validateFields(input, runFields(), "create", errors);
  if (errors.has()) throw new ValidationFailed(errors.errors);
  return { fromScratch: v.from_scratch ?? false, wait: v.wait ?? false };
}
