/**
 * Field readers that more than one process type uses: nested values (JSON, or JSON text in a
 * form body), lists, and fixed durations. Their messages name the member they concern:
 * "lower_bound: This field is required.", "thresholds[1].delta_t: …" (indexes from 0).
 */
import { z } from "zod";
import { jsonValue, listOf } from "@/lib/http/nested-fields";
import { MSG, text, type Field, type Parsed } from "@/lib/http/fields";
import { stepSeconds } from "../numerics/steps";

export const ok = <T>(value: T): Parsed<T> => ({ ok: true, value });
export const fail = <T>(...errors: string[]): Parsed<T> => ({ ok: false, errors });

/** A time step is stored in a series' time_step, at most 7 characters (api.md §6). */
const TIME_STEP_LENGTH = 7;

/** A duration of `delta_t` or `target_time_step`: minutes, hours or days; null when valid. */
export function fixedStepError(text: string): string | null {
  if (text.length > TIME_STEP_LENGTH) return `Ensure this field has no more than ${TIME_STEP_LENGTH} characters.`;
  const step = stepSeconds(text);
  return step.seconds === null ? step.reason : null;
}

/**
 * A field holding a nested value, or null when `nullable`; `rules` checks a parsed value. The
 * messages of a list's items start with the field's name ("periods[0].start_date: …").
 */
export function nested<T>(name: string, parse: (value: unknown) => Parsed<T>, rules: (value: T) => string[], schema: z.ZodType,
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

/** DRF's message for a list longer than its limit. */
export const tooManyItems = (max: number) => `Ensure this field has no more than ${max} elements.`;

/** A required list member of a nested object, of at most `max` items (a longer one is refused before its items are read). */
export function listField<T>(item: (v: unknown, at: string) => Parsed<T>, schema: z.ZodType, max: number): Field<T[]> {
  return { required: true, parse: (raw) => (Array.isArray(raw) && raw.length > max ? fail(tooManyItems(max)) : listOf(raw, item)), schema };
}


/** A fixed duration: `10min`, `1h`, `1D` (months and years are refused). */
export function stepField(): Field<string> {
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
