/**
 * Search normalization (api.md §4.5): NFD, combining marks U+0300–U+036F removed, lower-cased
 * independently of the locale. Stored `*_norm` columns hold it, so both databases compare the
 * same text with a plain substring test.
 */
export function normalizeSearch(text: string): string {
  return text.normalize("NFD").replace(/[\u0300-\u036f]/g, "").toLowerCase();
}

/** Several fields in one column; terms never contain whitespace, so none spans two fields. */
export function searchColumn(...fields: string[]): string {
  return fields.map(normalizeSearch).join("\n");
}
