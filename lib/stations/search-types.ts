/** The search types of `q` (api.md §4.5); a typed term of any other type is ignored. */
export const SEARCH_TYPES: ReadonlySet<string> = new Set(["owner", "type", "variable", "bbox", "in", "ts_only", "ts_has_years"]);

/** The terms of `q` that are ignored because their type is not a search type ("varible:rain"), for the site to say so. */
export function unknownTypeTerms(q: string): string[] {
  return [...new Set(q.split(/\s+/).filter((term) => {
    const colon = term.indexOf(":");
    return colon >= 0 && !SEARCH_TYPES.has(term.slice(0, colon));
  }))];
}
