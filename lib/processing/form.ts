import type { RequestInput } from "@/lib/http/body";
import type { ProcessRow } from "@/lib/processing/state";
import type { FieldErrors } from "@/lib/domain/errors";
import { DEFAULT_LOCALE, type Locale } from "@/lib/i18n";
import type { FormValues } from "@/lib/site/form-state";
import { formInput } from "@/lib/site/manage-form";
import { kindNamed, kindOf, PROCESS_KINDS, PROCESS_TYPES, type ProcessConfig, type ProcessType } from "@/lib/processing/types";
import { text } from "@/lib/processing/types/form-kit";
import type { AddForm } from "@/lib/processing/types/kind";

/**
 * The process forms of the group page (management.md §2, processing.md §1) keep the reference's
 * habits: a range check as four number fields, rate-of-change thresholds typed one per line as
 * `10min 7.3`, curve points pasted from a spreadsheet (each type's bits are in its module). The
 * server turns those fields into the API's body (JSON text for the nested members) and the API's
 * reader (`readProcess`) parses and validates it, so the form says exactly what the API says;
 * nothing is checked here.
 */

export { cells } from "@/lib/processing/types/form-kit";
export { periodCount } from "@/lib/processing/types/curve-interpolation";

/** The form as the API's body of a process of its `type` (a hidden field). */
export function processInput(form: FormData): RequestInput {
  const type = text(form, "type");
  const extra = PROCESS_TYPES.includes(type as ProcessType) ? kindNamed(type as ProcessType).form.toApi(form) : {};
  const input = new FormData();
  for (const [key, value] of form.entries()) {
    if (PROCESS_KINDS.some((k) => k.form.ownKeys?.test(key))) continue;
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
export function lineMessages(errors: FieldErrors, form: FormData, locale: Locale = DEFAULT_LOCALE): FieldErrors {
  let out: FieldErrors = { ...errors };
  for (const kind of PROCESS_KINDS) if (kind.form.lineMessages) out = kind.form.lineMessages(out, form, locale);
  return out;
}

/** A stored process as its form's values (and one empty period more, to add one). */
export function processValues(p: ProcessRow): FormValues {
  const common: FormValues = { type: p.definition.type, enabled: p.enabled ? "true" : "false", last_modified: p.lastModified.toISOString() };
  return { ...common, ...kindOf(p.definition).form.values(p.definition) };
}

/** An add form of the group page: its type and how it reads. */
export interface ProcessAddForm extends AddForm {
  type: ProcessType;
  /** "New aggregation process" */
  label: string;
}

/**
 * The add forms the group page offers, in its order: one per type, but none for a type of which
 * the group may have only one and has it (checks).
 */
export function processAddForms(existing: readonly ProcessConfig[]): ProcessAddForm[] {
  return PROCESS_KINDS
    .filter((k) => !(k.onePerGroup && existing.some((d) => d.type === k.type)))
    .map((k) => ({ type: k.type, label: `New ${k.form.label} process`, ...k.form.add, initial: { type: k.type, enabled: "true", ...k.form.add.initial } }))
    .sort((a, b) => a.rank - b.rank);
}
