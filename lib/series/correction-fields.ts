import { z } from "zod";
import type { RequestInput } from "@/lib/http/body";
import { boolean, choice, integer, MSG, number, text, type Field, type Parsed } from "@/lib/http/fields";
import { listOf, nestedField } from "@/lib/http/nested-fields";
import { DATETIME_FORMAT_MESSAGE, parseDateParam } from "@/lib/formats/date-param";
import { formatInstantWithOffset } from "@/lib/formats/timestamp";
import { parseFlagsField, parseTimestampField } from "@/lib/formats/upload";
import { pythonTypeName } from "@/lib/http/body";
import { ErrorCollector, ValidationFailed } from "@/lib/domain/errors";
import { displayZone, type SeriesContext } from "@/lib/series/context";
import type { DeleteValues, EditValues, RecordEdit, RecordRange, RevertValues, TransformValues } from "@/lib/series/correct";
import { MAX_COMMENT_LENGTH } from "@/lib/series/corrections";
import { readZone } from "@/lib/series/data-params";
import { TRANSFORM_OPERATIONS, type TransformOperation } from "@/lib/series/transform";

/**
 * The fields of the correction calls (corrections.md §1), with their DRF-style messages, and
 * their specs for the OpenAPI document. Every problem of a request is reported in one 400.
 */

export const commentField = (): Field<string> => ({
  ...text({ max: MAX_COMMENT_LENGTH }),
  schema: z.string().max(MAX_COMMENT_LENGTH).meta({ description: "Why: kept in the history of corrections (at most 1,000 characters)" }),
});

const dryRunField = (): Field<boolean> => ({ ...boolean(), schema: z.boolean().meta({ description: "Compute the outcome, change nothing" }) });

const rangeFields = () => ({
  start_date: { ...text(), schema: z.string().meta({ description: "YYYY-MM-DD[Thh:mm[:ss][offset]]; naive values are in the station's display time zone; inclusive" }) },
  end_date: { ...text(), schema: z.string().meta({ description: "As start_date; inclusive" }) },
  all: { ...boolean(), schema: z.boolean().meta({ description: "Every record (instead of start_date and end_date)" }) },
});

/** DELETE …/data/: its query parameters. */
export const deleteFields = () => ({ ...rangeFields(), comment: commentField(), dry_run: dryRunField() });

const editItemSchema = z.object({
  timestamp: z.string().meta({ description: "As a record line's (formats.md §6.3); naive in `timezone`" }),
  value: z.number().nullable().optional().meta({ description: "The new value; null empties it; omitted keeps it" }),
  flags: z.string().optional().meta({ description: "The new flags (words separated by spaces); omitted keeps them" }),
});

/** One item of PATCH's `records`, its timestamp still text (the zone is another field). */
interface RawEdit {
  timestamp: string;
  value?: number | null;
  flags?: string;
}

function editItem(value: unknown, at: string): Parsed<RawEdit> {
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    return { ok: false, errors: [`${at}: Invalid data. Expected a dictionary, but got ${pythonTypeName(value)}.`] };
  }
  const item = value as Record<string, unknown>;
  const errors: string[] = [];
  const out: RawEdit = { timestamp: "" };
  if (!("timestamp" in item)) errors.push(`${at}.timestamp: ${MSG.required}`);
  else if (typeof item.timestamp !== "string") errors.push(`${at}.timestamp: ${item.timestamp === null ? MSG.null : MSG.string}`);
  else out.timestamp = item.timestamp;
  if ("value" in item) {
    const parsed = number({ nullable: true }).parse(item.value);
    if (parsed.ok) out.value = parsed.value;
    else errors.push(...parsed.errors.map((e) => `${at}.value: ${e}`));
  }
  if ("flags" in item) {
    if (typeof item.flags !== "string") errors.push(`${at}.flags: ${item.flags === null ? MSG.null : MSG.string}`);
    else {
      const parsed = flagsOf(item.flags);
      if (parsed.ok) out.flags = parsed.value;
      else errors.push(...parsed.errors.map((e) => `${at}.flags: ${e}`));
    }
  }
  if (!("value" in item) && !("flags" in item) && errors.length === 0) errors.push(`${at}: Give value, flags or both.`);
  return errors.length ? { ok: false, errors } : { ok: true, value: out };
}

const editsField = () => nestedField("records", (v) => listOf(v, editItem), (list) => (list.length ? [] : ["This list may not be empty."]),
  z.array(editItemSchema).min(1).meta({ description: "The records to change, each named by its timestamp" }), { required: true });

/** PATCH …/data/ */
export const editFields = () => ({
  records: editsField(),
  timezone: { ...text(), schema: z.string().meta({ description: "IANA zone of naive timestamps; default the station's display time zone" }) },
  comment: commentField(),
  dry_run: dryRunField(),
});

/** Flags as stored (words joined by single spaces), with DRF-style messages. */
function flagsOf(raw: string): Parsed<string> {
  const parsed = parseFlagsField(raw);
  if (parsed.ok) return { ok: true, value: parsed.flags };
  return { ok: false, errors: [parsed.error.startsWith("invalid") ? "Flags may not contain commas, double quotes or control characters." : MSG.maxLength(1000)] };
}

/** POST …/data/transform/ */
export const transformFields = () => ({
  ...rangeFields(),
  operation: { ...choice(TRANSFORM_OPERATIONS, { required: true }), schema: z.enum(TRANSFORM_OPERATIONS as [TransformOperation, ...TransformOperation[]]).meta({
    description: "offset: add amount; scale: multiply by amount; set: amount (null empties the values); interpolate: linearly between the nearest records "
      + "with a value before and after the range (rounded to the group's precision); flag, unflag: add or remove the words of flags",
  }) },
  amount: { ...number({ nullable: true }), schema: z.number().nullable().meta({ description: "offset, scale, set" }) },
  flags: { ...text(), schema: z.string().meta({ description: "flag, unflag: words separated by spaces" }) },
  comment: commentField(),
  dry_run: dryRunField(),
});

/** POST …/corrections/{cid}/revert/ */
export const revertFields = () => ({ comment: commentField(), dry_run: dryRunField() });

/** A field's value read into `errors`; undefined when absent or invalid. */
function read<T>(field: Field<T>, name: string, raw: unknown, errors: ErrorCollector): T | undefined {
  if (raw === undefined) return undefined;
  const parsed = field.parse(raw);
  if (parsed.ok) return parsed.value;
  errors.add(name, parsed.errors);
  return undefined;
}

/** start_date/end_date (api.md §8.1, inclusive) or all=true; at least one of them; the end not before the start. */
function readRange(get: (name: string) => unknown, s: SeriesContext, errors: ErrorCollector, options: { bothBounds?: boolean } = {}): RecordRange {
  const fields = rangeFields();
  const bound = (name: "start_date" | "end_date", which: "start" | "end"): number | null => {
    const value = read(fields[name], name, get(name), errors);
    if (value === undefined || value === "") return null;
    const t = parseDateParam(value, displayZone(s), which);
    if (t === "invalid") {
      errors.add(name, DATETIME_FORMAT_MESSAGE);
      return null;
    }
    return t;
  };
  const start = bound("start_date", "start");
  const end = bound("end_date", "end");
  const all = read(fields.all, "all", get("all"), errors) ?? false;
  const given = (name: string) => { const v = get(name); return v !== undefined && v !== null && v !== ""; };
  if (options.bothBounds) {
    for (const name of ["start_date", "end_date"] as const) if (!given(name) && !errors.has(name)) errors.add(name, MSG.required);
    if (all) errors.add("all", "Give start_date and end_date instead: this operation needs a bounded range.");
  } else if (all && (given("start_date") || given("end_date"))) {
    errors.add("all", "Give either all=true or start_date and end_date, not both.");
  } else if (!all && !errors.has("all") && !given("start_date") && !given("end_date")) {
    errors.add("non_field_errors", "Give start_date, end_date or both, or all=true for every record.");
  }
  if (start !== null && end !== null && end < start) errors.add("end_date", "Must not be earlier than start_date.");
  return { start, end };
}

function readOptions(get: (name: string) => unknown, errors: ErrorCollector): { comment: string; dryRun: boolean } {
  return {
    comment: read(commentField(), "comment", get("comment"), errors) ?? "",
    dryRun: read(dryRunField(), "dry_run", get("dry_run"), errors) ?? false,
  };
}

/** A query string's values as a body's: the last of a repeated key. */
function fromQuery(params: URLSearchParams): (name: string) => unknown {
  return (name) => {
    const all = params.getAll(name);
    return all.length ? all[all.length - 1] : undefined;
  };
}

/** DELETE …/data/?start_date=&end_date=|all=true[&comment=][&dry_run=] */
export function readDelete(params: URLSearchParams, s: SeriesContext): DeleteValues {
  const errors = new ErrorCollector();
  const get = fromQuery(params);
  const range = readRange(get, s, errors);
  const options = readOptions(get, errors);
  errors.throwIfAny();
  return { range, ...options };
}

/** PATCH …/data/ */
export function readEdit(input: RequestInput, s: SeriesContext): EditValues {
  const errors = new ErrorCollector();
  const get = (name: string) => input.get(name);
  const fields = editFields();
  let raw: RawEdit[] | undefined;
  if (!input.has("records")) errors.add("records", MSG.required);
  else raw = read(fields.records, "records", get("records"), errors);
  const zoneText = read(fields.timezone, "timezone", get("timezone"), errors);
  const zone = readZone(zoneText ?? null, s, errors);
  const options = readOptions(get, errors);
  const edits: RecordEdit[] = [];
  if (raw && !errors.has("timezone")) {
    const seen = new Map<number, number>();
    raw.forEach((item, k) => {
      const parsed = parseTimestampField(item.timestamp, zone);
      if (!parsed.ok) {
        errors.add("records", `records[${k}].timestamp: ${parsed.error[0].toUpperCase()}${parsed.error.slice(1)}.`);
        return;
      }
      const earlier = seen.get(parsed.t);
      if (earlier !== undefined) errors.add("records", `records[${k}].timestamp: ${formatInstantWithOffset(parsed.t, zone)} also appears in records[${earlier}].`);
      else seen.set(parsed.t, k);
      edits.push({ timestamp: parsed.t, ...(item.value !== undefined ? { value: item.value } : {}), ...(item.flags !== undefined ? { flags: item.flags } : {}) });
    });
  }
  errors.throwIfAny();
  return { records: edits, zone, ...options };
}

/** POST …/data/transform/ */
export function readTransform(input: RequestInput, s: SeriesContext): TransformValues {
  const errors = new ErrorCollector();
  const get = (name: string) => input.get(name);
  const fields = transformFields();
  let operation: TransformOperation | undefined;
  if (!input.has("operation")) errors.add("operation", MSG.required);
  else operation = read(fields.operation, "operation", get("operation"), errors);
  const range = readRange(get, s, errors, { bothBounds: operation === "interpolate" });
  const options = readOptions(get, errors);
  let op: TransformValues["operation"] | undefined;
  switch (operation) {
    case "offset":
    case "scale":
    case "set": {
      const amount = input.has("amount") ? read(fields.amount, "amount", get("amount"), errors) : (errors.add("amount", MSG.required), undefined);
      if (amount === null && operation !== "set") errors.add("amount", MSG.null);
      if (amount !== undefined && (amount !== null || operation === "set")) op = operation === "set" ? { operation, amount } : { operation, amount: amount! };
      break;
    }
    case "flag":
    case "unflag": {
      const flags = input.has("flags") ? read(fields.flags, "flags", get("flags"), errors) : (errors.add("flags", MSG.required), undefined);
      if (flags === "") errors.add("flags", MSG.blank);
      else if (flags !== undefined) {
        const parsed = flagsOf(flags);
        if (parsed.ok) op = { operation, flags: parsed.value };
        else errors.add("flags", parsed.errors);
      }
      break;
    }
    case "interpolate":
      op = { operation };
      break;
  }
  errors.throwIfAny();
  return { range, operation: op!, ...options };
}

/** POST …/corrections/{cid}/revert/ */
export function readRevert(input: RequestInput): RevertValues {
  const errors = new ErrorCollector();
  const options = readOptions((name) => input.get(name), errors);
  errors.throwIfAny();
  return options;
}

/** `after` of GET …/corrections/: only corrections with a larger id (a replica follows its source's history). */
export function readAfter(params: URLSearchParams): number | null {
  const raw = params.get("after");
  if (raw === null || raw === "") return null;
  const parsed = integer({ min: 0 }).parse(raw);
  if (!parsed.ok) throw new ValidationFailed({ after: parsed.errors });
  return parsed.value;
}
