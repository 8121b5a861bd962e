/**
 * What the process types' site forms share: reading typed fields, text areas line by line, and
 * spreadsheet rows (management.md §2). Nothing is checked here: the API's reader says what is
 * wrong, in the API's words.
 */

/** A field's value, trimmed (the last one of a repeated key). */
export const text = (form: FormData, name: string) => {
  const v = form.getAll(name).at(-1);
  return typeof v === "string" ? v.trim() : "";
};

/** A text area's value as typed (line numbers count its empty lines too). */
export const typedText = (form: FormData, name: string) => {
  const v = form.getAll(name).at(-1);
  return typeof v === "string" ? v : "";
};

/** A member typed as a number: the number, or the text as typed (the API then says it is not a number). */
export function numberOrText(value: string): number | string {
  const n = Number(value);
  return value !== "" && Number.isFinite(n) ? n : value;
}

/** The lines of a text area, without empty ones. */
export const lines = (value: string) => value.split(/\r?\n/).map((l) => l.trim()).filter(Boolean);

/** The line numbers (from 1, as typed) of the lines that `lines` keeps, in order. */
export function lineNumbers(value: string): number[] {
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

/** A number as the form shows it. */
export const shown = (n: number | null | undefined) => (n === null || n === undefined ? "" : String(n));
