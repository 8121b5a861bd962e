import { formatValue } from "@/lib/formats/value";
import type { RecordBatch } from "@/lib/records";

/**
 * The operations of `POST …/data/transform/` (corrections.md §1) on the records of a range:
 * pure functions from the stored records to the records as the operation leaves them (the
 * records store keeps only those that differ). Values are NaN for null.
 */
export type TransformOperation = "offset" | "scale" | "set" | "interpolate" | "flag" | "unflag";
export const TRANSFORM_OPERATIONS: readonly TransformOperation[] = ["offset", "scale", "set", "interpolate", "flag", "unflag"];

/** The decimal places of a double's shortest decimal form (20.45 → 2, 1e-7 → 7, 1.5e21 → 0). */
export function decimalsOf(v: number): number {
  if (!Number.isFinite(v)) return 0;
  const s = String(Math.abs(v));
  const e = s.indexOf("e");
  const mantissa = e < 0 ? s : s.slice(0, e);
  const exponent = e < 0 ? 0 : Number(s.slice(e + 1));
  const dot = mantissa.indexOf(".");
  return Math.max(0, (dot < 0 ? 0 : mantissa.length - dot - 1) - exponent);
}

/** Significant digits that a double always gives back exactly (15). */
const EXACT_DIGITS = 1e15;

/**
 * `x` rounded to `d` decimal places: the result of decimal arithmetic on operands of at most
 * that many places, which the double `x` (the binary result) is within a few units in the last
 * place of. 20.45 + 0.1 is 20.549999999999997 in binary, 20.55 here, as a person expects and as
 * an upload of "20.55" would store. A result of more than 15 significant digits stays binary:
 * a double cannot tell its decimals apart.
 */
function decimal(x: number, d: number): number {
  if (!Number.isFinite(x) || d > 100 || Math.abs(x) * 10 ** d >= EXACT_DIGITS) return x;
  const r = Number(x.toFixed(d));
  return r === 0 ? 0 : r;
}

export function offsetValue(v: number, amount: number): number {
  return v !== v ? v : decimal(v + amount, Math.max(decimalsOf(v), decimalsOf(amount)));
}

export function scaleValue(v: number, amount: number): number {
  return v !== v ? v : decimal(v * amount, decimalsOf(v) + decimalsOf(amount));
}

/** Words of flags (stored as words joined by single spaces). */
function words(flags: string): string[] {
  return flags === "" ? [] : flags.split(" ");
}

/** The flags with `add`'s words appended where missing, in their order. */
export function addFlags(flags: string, add: string): string {
  const have = words(flags);
  for (const w of words(add)) if (!have.includes(w)) have.push(w);
  return have.join(" ");
}

/** The flags without `remove`'s words. */
export function removeFlags(flags: string, remove: string): string {
  const drop = new Set(words(remove));
  return words(flags).filter((w) => !drop.has(w)).join(" ");
}

/** A record that bounds an interpolation: the nearest one with a value before or after the range. */
export interface Bound {
  readonly t: number;
  readonly v: number;
}

export type TransformSpec =
  | { readonly operation: "offset" | "scale"; readonly amount: number }
  | { readonly operation: "set"; readonly amount: number | null }
  | { readonly operation: "interpolate"; readonly before: Bound; readonly after: Bound; readonly precision: number }
  | { readonly operation: "flag" | "unflag"; readonly flags: string };

/**
 * The value on the line from `before` to `after` at t, rounded to the group's precision as the
 * data are shown (formats.md §1: the exact binary value, ties to even).
 */
export function interpolatedValue(t: number, before: Bound, after: Bound, precision: number): number {
  const v = before.v + ((after.v - before.v) * (t - before.t)) / (after.t - before.t);
  const r = Number(formatValue(v, precision));
  return r === 0 ? 0 : r;
}

/** The records as the operation leaves them (the same timestamps). */
export function transformRecords(current: RecordBatch, spec: TransformSpec): RecordBatch {
  const { timestamps, flags } = current;
  const n = timestamps.length;
  const values = Float64Array.from(current.values);
  let newFlags = flags;
  switch (spec.operation) {
    case "offset":
      for (let i = 0; i < n; i++) values[i] = offsetValue(values[i], spec.amount);
      break;
    case "scale":
      for (let i = 0; i < n; i++) values[i] = scaleValue(values[i], spec.amount);
      break;
    case "set":
      values.fill(spec.amount === null ? NaN : spec.amount);
      break;
    case "interpolate":
      for (let i = 0; i < n; i++) values[i] = interpolatedValue(timestamps[i], spec.before, spec.after, spec.precision);
      break;
    case "flag":
      newFlags = flags.map((f) => addFlags(f, spec.flags));
      break;
    case "unflag":
      newFlags = flags.map((f) => removeFlags(f, spec.flags));
      break;
  }
  return { timestamps, values, flags: newFlags };
}

/** How the history and the activity log name the operation: "offset 0.5", "set empty", "flag SUSPECT". */
export function describeTransform(spec: TransformSpec): string {
  switch (spec.operation) {
    case "offset":
    case "scale":
      return `${spec.operation} ${spec.amount}`;
    case "set":
      return `set ${spec.amount === null ? "empty" : spec.amount}`;
    case "interpolate":
      return "interpolate";
    case "flag":
    case "unflag":
      return `${spec.operation} ${spec.flags}`;
  }
}
