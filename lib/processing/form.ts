import type { RequestInput } from "@/lib/http/body";
import type { ProcessRow } from "@/lib/processing/state";
import type { FieldErrors } from "@/lib/domain/errors";
import type { FormValues } from "@/lib/site/form-state";
import { withTypedTimeStep } from "@/lib/site/form-words";
import { formInput } from "@/lib/site/manage-form";

/**
 * The process forms of the group page (management.md §2, processing.md §1) keep the reference's
 * habits: a range check as four number fields, rate-of-change thresholds typed one per line as
 * `10min 7.3`, curve points pasted from a spreadsheet. The server turns those fields into the
 * API's body (JSON text for the nested members) and the API's reader (`readProcess`) parses and
 * validates it, so the form says exactly what the API says; nothing is checked here.
 */

const text = (form: FormData, name: string) => {
  const v = form.getAll(name).at(-1);
  return typeof v === "string" ? v.trim() : "";
};

/** A text area's value as typed (line numbers count its empty lines too). */
const typedText = (form: FormData, name: string) => {
  const v = form.getAll(name).at(-1);
  return typeof v === "string" ? v : "";
};

/** A member typed as a number: the number, or the text as typed (the API then says it is not a number). */
function numberOrText(value: string): number | string {
  const n = Number(value);
  return value !== "" && Number.isFinite(n) ? n : value;
}

/** The lines of a text area, without empty ones. */
const lines = (value: string) => value.split(/\r?\n/).map((l) => l.trim()).filter(Boolean);

/** The line numbers (from 1, as typed) of the lines that `lines` keeps, in order. */
function lineNumbers(value: string): number[] {
  return value.split(/\r?\n/).flatMap((l, i) => (l.trim() ? [i + 1] : []));
}

/**
 * A spreadsheet row: cells split by tabs when there are any, else by semicolons when there are
 * any (in both, a decimal comma is a decimal point: "1,25"), else by commas or spaces.
 */
export function cells(line: string): string[] {
  const decimal = (c: string) => c.trim().replace(",", ".");
  if (line.includes("\t")) return line.split("\t").map(decimal).filter(Boolean);
  if (line.includes(";")) return line.split(";").map(decimal).filter(Boolean);
  return line.split(/[,\s]+/).filter(Boolean);
}

/** `10min 7.3` (or two spreadsheet cells) → a threshold; a line with other than two parts is sent as it is, for the API's message. */
function threshold(line: string): Record<string, unknown> {
  const [delta, diff, ...rest] = cells(withTypedTimeStep(line));
  if (rest.length) return { delta_t: delta, allowed_diff: [diff, ...rest].join(" ") };
  return diff === undefined ? { delta_t: delta } : { delta_t: delta, allowed_diff: numberOrText(diff) };
}

function rangeCheck(form: FormData): string {
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

function rateOfChangeCheck(form: FormData): string {
  const typed = lines(text(form, "rate_thresholds"));
  if (typed.length === 0) return "";
  return JSON.stringify({
    symmetric: text(form, "rate_symmetric") === "true",
    remove_failing_values: text(form, "rate_remove_failing_values") === "true",
    thresholds: typed.map(threshold),
  });
}

/** The numbers of the periods present in the form (`period_0_…`, `period_1_…`). */
function periodNumbers(form: FormData): number[] {
  const seen = new Set<number>();
  for (const key of form.keys()) {
    const m = /^period_(\d{1,3})_/.exec(key);
    if (m) seen.add(Number(m[1]));
  }
  return [...seen].sort((a, b) => a - b);
}

function periods(form: FormData): string {
  const out = [];
  for (const n of periodNumbers(form)) {
    const [start, end, points] = ["start_date", "end_date", "points"].map((f) => text(form, `period_${n}_${f}`));
    if (start === "" && end === "" && points === "") continue;
    const period: Record<string, unknown> = { points: lines(points).map((l) => cells(l).map(numberOrText)) };
    if (start !== "") period.start_date = start;
    if (end !== "") period.end_date = end;
    out.push(period);
  }
  return JSON.stringify(out);
}

/** The form as the API's body of a process of its `type` (a hidden field). */
export function processInput(form: FormData): RequestInput {
  const extra: Record<string, string> = {};
  switch (text(form, "type")) {
    case "checks":
      extra.range_check = rangeCheck(form);
      extra.rate_of_change_check = rateOfChangeCheck(form);
      break;
    case "curve_interpolation":
      extra.periods = periods(form);
      break;
  }
  const input = new FormData();
  for (const [key, value] of form.entries()) {
    if (/^(range_|rate_|period_)/.test(key)) continue;
    input.append(key, value);
  }
  return formInput(input, extra);
}

/**
 * The API's messages of the nested members typed as lines, told by the line they concern
 * ("thresholds[1].delta_t: …" → "Line 2: delta_t: …"; "periods[0].points[2]: …" → "Period 1,
 * line 3: …"), counting lines as the user sees them (empty ones too). Other messages are the
 * API's as they are.
 */
export function lineMessages(errors: FieldErrors, form: FormData): FieldErrors {
  const out: FieldErrors = { ...errors };
  const thresholdLines = lineNumbers(typedText(form, "rate_thresholds"));
  if (errors.rate_of_change_check) {
    out.rate_of_change_check = errors.rate_of_change_check.map((m) => {
      const match = /^thresholds\[(\d+)\](?:\.(\w+))?: (.*)$/.exec(m);
      const line = match && thresholdLines[Number(match[1])];
      return line ? `Line ${line}: ${match[2] ? `${match[2]}: ` : ""}${match[3]}` : m;
    });
  }
  if (errors.periods) {
    // The API's period k is the k-th block that is not empty.
    const blocks = periodNumbers(form).filter((n) => ["start_date", "end_date", "points"].some((f) => text(form, `period_${n}_${f}`) !== ""));
    const shown = (k: string) => (blocks[Number(k)] === undefined ? undefined : blocks[Number(k)] + 1);
    // Each block's line numbers once: a message per bad point line must not re-read the text area.
    const pointLines = new Map<number, number[]>();
    const pointLine = (block: number, k: number) => {
      if (!pointLines.has(block)) pointLines.set(block, lineNumbers(typedText(form, `period_${block}_points`)));
      return pointLines.get(block)![k];
    };
    out.periods = errors.periods.map((m) => {
      const overlap = /^periods\[(\d+)\] overlaps periods\[(\d+)\]\.$/.exec(m);
      if (overlap && shown(overlap[1]) && shown(overlap[2])) return `Period ${shown(overlap[1])} overlaps period ${shown(overlap[2])}.`;
      const match = /^periods\[(\d+)\](?:\.points\[(\d+)\]|\.(\w+))?: (.*)$/.exec(m);
      const block = match ? blocks[Number(match[1])] : undefined;
      if (!match || block === undefined) return m;
      const period = `Period ${block + 1}`;
      if (match[2] !== undefined) {
        const line = pointLine(block, Number(match[2]));
        return `${period}, line ${line}: ${match[4]}`;
      }
      return `${period}${match[3] ? `, ${match[3]}` : ""}: ${match[4]}`;
    });
  }
  return out;
}

/** A number as the form shows it. */
const shown = (n: number | null | undefined) => (n === null || n === undefined ? "" : String(n));

/** A stored process as its form's values (and one empty period more, to add one). */
export function processValues(p: ProcessRow): FormValues {
  const common: FormValues = { type: p.definition.type, enabled: p.enabled ? "true" : "false", last_modified: p.lastModified.toISOString() };
  const d = p.definition;
  switch (d.type) {
    case "checks": {
      const range = d.config.range_check;
      const rate = d.config.rate_of_change_check;
      return {
        ...common,
        range_lower_bound: shown(range?.lower_bound), range_upper_bound: shown(range?.upper_bound),
        range_soft_lower_bound: shown(range?.soft_lower_bound), range_soft_upper_bound: shown(range?.soft_upper_bound),
        rate_thresholds: rate ? rate.thresholds.map((t) => `${t.delta_t} ${t.allowed_diff}`).join("\n") : "",
        rate_symmetric: rate?.symmetric ? "true" : "false", rate_remove_failing_values: rate?.remove_failing_values ? "true" : "false",
      };
    }
    case "curve_interpolation": {
      const values: FormValues = { ...common, target_timeseries_group: String(d.targetGroupId) };
      d.config.periods.forEach((period, i) => {
        values[`period_${i}_start_date`] = period.start_date;
        values[`period_${i}_end_date`] = period.end_date;
        values[`period_${i}_points`] = period.points.map(([x, y]) => `${x}\t${y}`).join("\n");
      });
      return values;
    }
    case "aggregation":
      return {
        ...common, target_time_step: d.config.target_time_step, method: d.config.method, max_missing: String(d.config.max_missing),
        resulting_timestamp_offset: d.config.resulting_timestamp_offset,
      };
  }
}

/** How many period blocks a curve form shows: those typed or stored, and an empty one. */
export function periodCount(values: FormValues): number {
  let max = -1;
  for (const key of Object.keys(values)) {
    const m = /^period_(\d{1,3})_/.exec(key);
    if (m) max = Math.max(max, Number(m[1]));
  }
  return max + 2;
}
