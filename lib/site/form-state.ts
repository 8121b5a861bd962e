import type { FieldErrors } from "@/lib/domain/errors";

/**
 * What a management form shows after an answer (shared by its server action and its client
 * component): the values as the user typed them, the API's messages by field (`form` and
 * `non_field_errors` for the whole form), and, when the object changed since the form was opened,
 * its current values beside the user's (management.md §1). No server-only imports here.
 */
export type FormValues = Record<string, string | string[]>;

export interface FormState {
  values: FormValues;
  errors: FieldErrors;
  /** The object's stored values, when someone else changed it since the form was opened. */
  current?: FormValues;
  /** A short confirmation for forms that stay on their page (a sent e-mail, say). */
  message?: string;
  /** Counts the answers, so that the fields take the new values. */
  seq: number;
}

export function initialFormState(values: FormValues): FormState {
  return { values, errors: {}, seq: 0 };
}

/** One value of a field as text (the last one of a repeated key). */
export function valueText(values: FormValues | undefined, name: string): string {
  const v = values?.[name];
  return Array.isArray(v) ? (v[v.length - 1] ?? "") : (v ?? "");
}

/** Every value of a field (lists: the ids chosen), without the empty marker that keeps an empty list. */
export function valueList(values: FormValues | undefined, name: string): string[] {
  const v = values?.[name];
  return (Array.isArray(v) ? v : v === undefined ? [] : [v]).filter((x) => x !== "");
}
