import { z } from "zod";
import { isUploadedFile, pythonTypeName, type RequestInput, type UploadedFile } from "@/lib/http/body";
import { parseBoolean } from "@/lib/config/boolean.mjs";
import { ErrorCollector } from "@/lib/domain/errors";

/**
 * Request field validation with Django REST framework's semantics and messages (api.md §1.2,
 * §1.3, §1.6). Each field reads a JSON value or a form string, and carries a zod schema that
 * documents its canonical JSON input in the OpenAPI document.
 */
export type Parsed<T> = { ok: true; value: T } | { ok: false; errors: string[] };

export interface Field<T> {
  readonly required: boolean;
  /** The value an omitted optional field takes on create. */
  readonly default?: () => T;
  /** Lists read every value of a repeated form key. */
  readonly list?: boolean;
  parse(raw: unknown): Parsed<T>;
  /** Checks referenced ids after parsing; returns the messages of those that do not exist. */
  check?(value: T): Promise<string[]>;
  readonly schema: z.ZodType;
}

export const MSG = {
  required: "This field is required.",
  null: "This field may not be null.",
  blank: "This field may not be blank.",
  string: "Not a valid string.",
  integer: "A valid integer is required.",
  number: "A valid number is required.",
  boolean: "Must be a valid boolean.",
  date: "Date has wrong format. Use one of these formats instead: YYYY-MM-DD.",
  maxLength: (n: number) => `Ensure this field has no more than ${n} characters.`,
  maxValue: (n: number) => `Ensure this value is less than or equal to ${n}.`,
  minValue: (n: number) => `Ensure this value is greater than or equal to ${n}.`,
  choice: (x: string) => `"${x}" is not a valid choice.`,
  pkMissing: (id: number | string) => `Invalid pk "${id}" - object does not exist.`,
  pkType: (t: string) => `Incorrect type. Expected pk value, received ${t}.`,
  notAList: (t: string) => `Expected a list of items but got type "${t}".`,
  noFile: "No file was submitted.",
  notAFile: "The submitted data was not a file. Check the encoding type on the form.",
  emptyFile: "The submitted file is empty.",
} as const;

const ok = <T>(value: T): Parsed<T> => ({ ok: true, value });
const fail = <T>(...errors: string[]): Parsed<T> => ({ ok: false, errors });

interface Common<T> {
  required?: boolean;
  default?: T | (() => T);
}

function defaults<T>(options: Common<T>, fallback?: T): Pick<Field<T>, "required" | "default"> {
  const d = options.default !== undefined ? options.default : fallback;
  return {
    required: options.required ?? false,
    default: d === undefined ? undefined : typeof d === "function" ? (d as () => T) : () => d as T,
  };
}

/** Length in code points, as Python counts it. */
export function codePointLength(s: string): number {
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0xd800 || c > 0xdbff || i + 1 >= s.length) n++;
    else { n++; i++; }
  }
  return n;
}

export function text(options: Common<string> & { max?: number; blank?: boolean; trim?: boolean } = {}): Field<string> {
  const { max, blank = true, trim = true } = options;
  return {
    ...defaults(options, options.required ? undefined : ""),
    parse(raw) {
      if (raw === null) return fail(MSG.null);
      let s: string;
      if (typeof raw === "string") s = raw;
      else if (typeof raw === "number" && Number.isFinite(raw)) s = String(raw);
      else return fail(MSG.string);
      if (trim) s = s.trim();
      if (s === "" && !blank) return fail(MSG.blank);
      if (max !== undefined && codePointLength(s) > max) return fail(MSG.maxLength(max));
      return ok(s);
    },
    schema: max === undefined ? z.string() : z.string().max(max),
  };
}

const INTEGER = /^[+-]?\d+$/;

export function parseIntegerValue(raw: unknown): number | undefined {
  if (typeof raw === "number") return Number.isSafeInteger(raw) ? raw : undefined;
  if (typeof raw === "string" && INTEGER.test(raw.trim())) {
    const n = Number(raw.trim());
    return Number.isSafeInteger(n) ? n : undefined;
  }
  return undefined;
}

/** The range of the database's integer columns; narrower ranges are given per field. */
const INT32_MIN = -2_147_483_648;
const INT32_MAX = 2_147_483_647;

export function integer(options: Common<number | null> & { min?: number; max?: number; nullable?: boolean } = {}): Field<number | null> {
  const { min = INT32_MIN, max = INT32_MAX, nullable = false } = options;
  return {
    ...defaults(options),
    parse(raw) {
      if (raw === null || (raw === "" && nullable)) return nullable ? ok(null) : fail(MSG.null);
      const n = parseIntegerValue(raw);
      if (n === undefined) return fail(MSG.integer);
      if (n > max) return fail(MSG.maxValue(max));
      if (n < min) return fail(MSG.minValue(min));
      return ok(n);
    },
    schema: nullable ? z.int().min(min).max(max).nullable() : z.int().min(min).max(max),
  };
}

const DECIMAL = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/;

export function number(options: Common<number | null> & { nullable?: boolean } = {}): Field<number | null> {
  const { nullable = false } = options;
  return {
    ...defaults(options),
    parse(raw) {
      if (raw === null || (raw === "" && nullable)) return nullable ? ok(null) : fail(MSG.null);
      if (typeof raw === "number") return Number.isFinite(raw) ? ok(raw) : fail(MSG.number);
      if (typeof raw === "string" && DECIMAL.test(raw.trim())) {
        const n = Number(raw.trim());
        return Number.isFinite(n) ? ok(n) : fail(MSG.number);
      }
      return fail(MSG.number);
    },
    schema: nullable ? z.number().nullable() : z.number(),
  };
}

export function boolean(options: Common<boolean> = {}): Field<boolean> {
  return {
    ...defaults(options),
    parse(raw) {
      if (raw === null) return fail(MSG.null);
      const b = parseBoolean(raw);
      return b === undefined ? fail(MSG.boolean) : ok(b);
    },
    schema: z.boolean(),
  };
}

/** A real calendar date written YYYY-MM-DD. */
export function isCalendarDate(s: string): boolean {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(s);
  if (!m) return false;
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  if (y < 1 || mo < 1 || mo > 12 || d < 1) return false;
  const days = [31, (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0 ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
  return d <= days[mo - 1];
}

export function date(options: Common<string | null> & { nullable?: boolean } = {}): Field<string | null> {
  const { nullable = true } = options;
  return {
    ...defaults(options, options.required || !nullable ? undefined : null),
    parse(raw) {
      if (raw === null || raw === "") return nullable ? ok(null) : fail(raw === null ? MSG.null : MSG.date);
      if (typeof raw !== "string" || !isCalendarDate(raw.trim())) return fail(MSG.date);
      return ok(raw.trim());
    },
    schema: nullable ? z.iso.date().nullable() : z.iso.date(),
  };
}

export function choice<T extends string>(values: readonly T[], options: Common<T> & { message?: (x: string) => string } = {}): Field<T> {
  const message = options.message ?? MSG.choice;
  return {
    ...defaults(options),
    parse(raw) {
      if (raw === null) return fail(MSG.null);
      const s = typeof raw === "string" ? raw.trim() : typeof raw === "number" ? String(raw) : JSON.stringify(raw);
      return (values as readonly string[]).includes(s) ? ok(s as T) : fail(message(s));
    },
    schema: z.enum(values as unknown as [T, ...T[]]),
  };
}

/** Reads one reference: an id, a numeric string, or an object with an `id` member. */
export function parsePk(raw: unknown): Parsed<number> {
  if (typeof raw === "object" && raw !== null && !Array.isArray(raw) && "id" in raw) {
    raw = (raw as { id: unknown }).id;
  }
  if (typeof raw === "number" && Number.isSafeInteger(raw)) return ok(raw);
  if (typeof raw === "string" && INTEGER.test(raw.trim())) {
    const n = Number(raw.trim());
    return Number.isSafeInteger(n) ? ok(n) : fail(MSG.pkMissing(raw.trim()));
  }
  return fail(MSG.pkType(pythonTypeName(raw)));
}

type ExistingIds = (ids: number[]) => Promise<Set<number>>;

export function pk(exists: ExistingIds, options: Common<number | null> & { nullable?: boolean } = {}): Field<number | null> {
  const { nullable = false } = options;
  return {
    ...defaults(options),
    parse(raw) {
      if (raw === null || raw === "") return nullable ? ok(null) : fail(MSG.null);
      return parsePk(raw);
    },
    async check(value) {
      if (value === null) return [];
      return (await exists([value])).has(value) ? [] : [MSG.pkMissing(value)];
    },
    schema: nullable ? z.int().nullable() : z.int(),
  };
}

export function pkList(exists: ExistingIds, options: Common<number[]> = {}): Field<number[]> {
  return {
    ...defaults(options, []),
    list: true,
    parse(raw) {
      let items: unknown[];
      if (Array.isArray(raw)) {
        // A form key sent once with an empty value means the empty list (extension).
        items = raw.length === 1 && raw[0] === "" ? [] : raw;
      } else {
        return fail(MSG.notAList(pythonTypeName(raw)));
      }
      const ids: number[] = [];
      for (const item of items) {
        if (item === null) return fail(MSG.null);
        const parsed = parsePk(item);
        if (!parsed.ok) return parsed;
        if (!ids.includes(parsed.value)) ids.push(parsed.value);
      }
      return ok(ids);
    },
    async check(value) {
      if (value.length === 0) return [];
      const found = await exists(value);
      const missing = value.find((id) => !found.has(id));
      return missing === undefined ? [] : [MSG.pkMissing(missing)];
    },
    schema: z.array(z.int()),
  };
}

export function file(options: Common<UploadedFile | null> & { validate?: (f: UploadedFile) => string | null } = {}): Field<UploadedFile | null> {
  return {
    ...defaults(options),
    parse(raw) {
      if (raw === null || raw === "") return fail(MSG.noFile);
      if (!isUploadedFile(raw)) return fail(MSG.notAFile);
      if (raw.size === 0) return fail(MSG.emptyFile);
      const problem = options.validate?.(raw);
      return problem ? fail(problem) : ok(raw);
    },
    schema: z.string().meta({ format: "binary" }),
  };
}

/** create = POST, replace = PUT, update = PATCH (api.md §1.3). */
export type WriteMode = "create" | "replace" | "update";

export type FieldSpec = Record<string, Field<unknown>>;
export type Values<S extends FieldSpec> = { [K in keyof S]?: S[K] extends Field<infer T> ? T : never };

/**
 * Validates the fields of `spec` in `input`. On create an omitted optional field takes its
 * default; on replace and update it is left out of the result (its stored value is kept).
 * All errors are collected in `errors`, in field order; reference checks run for fields that
 * parsed.
 */
export async function validateFields<S extends FieldSpec>(
  input: RequestInput,
  spec: S,
  mode: WriteMode,
  errors = new ErrorCollector(),
): Promise<Values<S>> {
  const values: Record<string, unknown> = {};
  for (const [name, field] of Object.entries(spec)) {
    if (!input.has(name)) {
      if (mode === "update") continue;
      if (field.required) errors.add(name, field === spec[name] && isFileField(field) ? MSG.noFile : MSG.required);
      else if (mode === "create" && field.default) values[name] = field.default();
      continue;
    }
    const raw = field.list ? input.getAll(name) : input.get(name);
    const parsed = field.parse(raw);
    if (!parsed.ok) {
      errors.add(name, parsed.errors);
      continue;
    }
    if (field.check) {
      const problems = await field.check(parsed.value);
      if (problems.length) {
        errors.add(name, problems);
        continue;
      }
    }
    values[name] = parsed.value;
  }
  return values as Values<S>;
}

/**
 * The values of `spec` in `input` (as validateFields) after `more` checks them further (rules
 * across fields, or that need the database); every error of both in one ValidationFailed.
 */
export async function validatedFields<S extends FieldSpec>(
  input: RequestInput,
  spec: S,
  mode: WriteMode,
  more?: (values: Values<S>, errors: ErrorCollector) => void | Promise<void>,
): Promise<Values<S>> {
  const errors = new ErrorCollector();
  const values = await validateFields(input, spec, mode, errors);
  await more?.(values, errors);
  errors.throwIfAny();
  return values;
}

function isFileField(field: Field<unknown>): boolean {
  return (field.schema.meta() as { format?: string } | undefined)?.format === "binary";
}

/** The zod object schema documenting a field spec (for the OpenAPI document). */
export function specSchema(spec: FieldSpec): z.ZodObject {
  const shape: Record<string, z.ZodType> = {};
  for (const [name, field] of Object.entries(spec)) shape[name] = field.required ? field.schema : field.schema.optional();
  return z.object(shape);
}

/** A parent id that defaults to the one in the path and may never differ from it. */
export function parentField(): Field<number> {
  return { required: false, parse: (raw) => parsePk(raw), schema: z.int() };
}

/**
 * The check of a parent id sent in the body against the path's: `equal` on create when it
 * differs, `fixed` on a change.
 */
export function parentCheck(field: string, equal: string, fixed: string) {
  return (errors: ErrorCollector, sent: number | undefined, path: number, mode: WriteMode): void => {
    if (sent !== undefined && sent !== path) errors.add(field, mode === "create" ? equal : fixed);
  };
}
