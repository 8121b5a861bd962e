import type { z } from "zod";
import { jsonTooDeepAt, pythonTypeName } from "@/lib/http/body";
import { MSG, type Field, type FieldSpec, type Parsed, type Values } from "@/lib/http/fields";

/**
 * Fields whose value is a nested object or list (api.md §1.2 extended): a JSON value in a JSON
 * body, JSON text in a form body (or in a JSON string). Their messages name the member they
 * concern, indexes from 0: "stations[1].timeseries_groups[0].high_limit: A valid number is
 * required."
 */
const ok = <T>(value: T): Parsed<T> => ({ ok: true, value });
const fail = <T>(...errors: string[]): Parsed<T> => ({ ok: false, errors });

export const INVALID_JSON = "Value must be valid JSON.";

/**
 * A nested value: itself, or parsed from JSON text; "" is null. Text nested deeper than a body may
 * be (MAX_JSON_DEPTH) is refused before it is parsed, as invalid.
 */
export function jsonValue(raw: unknown): Parsed<unknown> {
  if (typeof raw !== "string") return ok(raw);
  if (raw.trim() === "") return ok(null);
  if (jsonTooDeepAt(raw) >= 0) return fail(INVALID_JSON);
  try {
    return ok(JSON.parse(raw));
  } catch {
    return fail(INVALID_JSON);
  }
}

/** Messages of a member under its path: "path: message", or "path[1].x: message" for those of its items. */
export function under(path: string, errors: readonly string[]): string[] {
  return errors.map((e) => (e.startsWith("[") || e.startsWith(".") ? `${path}${e}` : `${path}: ${e}`));
}

/**
 * The members of an object by a field spec, read as validateFields reads a body on create
 * (required members, defaults); `at` names the object in messages ("[1]"), relative to its
 * parent.
 */
export function objectOf<S extends FieldSpec>(value: unknown, spec: S, at = ""): Parsed<Values<S>> {
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    return fail(`${at ? `${at}: ` : ""}Invalid data. Expected a dictionary, but got ${pythonTypeName(value)}.`);
  }
  const object = value as Record<string, unknown>;
  const errors: string[] = [];
  const out: Record<string, unknown> = {};
  for (const [name, field] of Object.entries(spec)) {
    // A member's path is relative to the object's: "[1].title", or ".title" for an object
    // that is itself a member (its parent puts its own path in front).
    const path = `${at}.${name}`;
    if (!Object.prototype.hasOwnProperty.call(object, name)) {
      if (field.required) errors.push(`${path}: ${MSG.required}`);
      else if (field.default) out[name] = field.default();
      continue;
    }
    const parsed = field.parse(object[name]);
    if (parsed.ok) out[name] = parsed.value;
    else errors.push(...under(path, parsed.errors));
  }
  return errors.length ? fail(...errors) : ok(out as Values<S>);
}

/** A list whose items `item` parses, given each item's path ("[1]" after `at`). */
export function listOf<T>(value: unknown, item: (v: unknown, at: string) => Parsed<T>, at = ""): Parsed<T[]> {
  if (!Array.isArray(value)) return fail(`${at ? `${at}: ` : ""}${MSG.notAList(pythonTypeName(value))}`);
  const errors: string[] = [];
  const out: T[] = [];
  value.forEach((v, i) => {
    const parsed = item(v, `${at}[${i}]`);
    if (parsed.ok) out.push(parsed.value);
    else errors.push(...parsed.errors);
  });
  return errors.length ? fail(...errors) : ok(out);
}

/**
 * A top-level field holding a nested value (JSON, or JSON text in a form). `parse` reads the
 * value with messages relative to the field ("[0].station: …"), which then start with the
 * field's name ("stations[0].station: …"); `rules` checks a parsed value, its messages whole.
 */
export function nestedField<T>(name: string, parse: (value: unknown) => Parsed<T>, rules: (value: T) => string[], schema: z.ZodType,
  options: { required?: boolean; default?: () => T } = {}): Field<T> {
  return {
    required: options.required ?? false,
    default: options.default,
    parse(raw) {
      const value = jsonValue(raw);
      if (!value.ok) return value;
      if (value.value === null) return fail(MSG.null);
      const parsed = parse(value.value);
      if (!parsed.ok) return fail(...parsed.errors.map((e) => (e.startsWith("[") || e.startsWith(".") ? `${name}${e}` : e)));
      const problems = rules(parsed.value);
      return problems.length ? fail(...problems) : parsed;
    },
    schema,
  };
}

/**
 * A nested object's field spec, built on first use and then shared: building the fields (and
 * their schemas) again for each item of a long list cost far more than parsing the items.
 */
export function sharedSpec<S>(build: () => S): () => S {
  let spec: S | undefined;
  return () => (spec ??= build());
}
