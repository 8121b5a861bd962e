/**
 * The workbench's first requests, named the same way by the page (which asks the browser to start
 * them while the scripts load: a `<link rel="preload" as="fetch">` each) and by the workbench
 * (whose fetch() then finds the answer already there or on its way).
 */

const DAY = 86400;

/** An instant as the workbench's requests and address write it: UTC, to the second. */
export const isoInstant = (t: number) => new Date(t * 1000).toISOString().replace(".000Z", "Z");

/** The range the workbench opens on: the address's, else the series' last 30 days; null for a series without records and no range asked. */
export function workbenchRange(asked: { start: number; end: number } | null | undefined, first: number | null, last: number | null): { start: number; end: number } | null {
  if (asked) return asked;
  if (last === null) return null;
  return { start: Math.max(first ?? last - 30 * DAY, last - 30 * DAY), end: last };
}

/** The records of a range, as CSV with UTC times. */
export function workbenchRecordsUrl(apiPath: string, range: { start: number; end: number }): string {
  const query = new URLSearchParams({ start_date: isoInstant(range.start), end_date: isoInstant(range.end), timezone: "UTC" });
  return `${apiPath}data/?${query}`;
}
