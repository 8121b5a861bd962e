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

/** A record as the workbench holds it: its time (epoch seconds), value, the value's text as stored, flags. */
export interface Rec {
  t: number;
  v: number | null;
  text: string;
  flags: string;
}

/** Epoch seconds of a UTC time as the API writes it: "2010-01-01 00:00" (read by position: a year of records is 52,560 of them), or any ISO 8601 text. */
export function epoch(text: string): number {
  if (text.length === 16 && text[4] === "-" && text[10] === " " && text[13] === ":") {
    return Date.UTC(+text.slice(0, 4), +text.slice(5, 7) - 1, +text.slice(8, 10), +text.slice(11, 13), +text.slice(14, 16)) / 1000;
  }
  return Date.parse(text.replace(" ", "T") + (/[Zz]|[+-]\d\d:?\d\d$/.test(text) ? "" : "Z")) / 1000;
}

const digit = (text: string, i: number) => text.charCodeAt(i) - 48;

/**
 * Records of the CSV of data/ read with timezone=UTC. Scanned by hand, each date's epoch worked
 * out once: a year of records is 52,560 lines, and this runs before the page is usable.
 */
export function parseCsv(text: string): Rec[] {
  const out: Rec[] = [];
  let day = "";
  let dayEpoch = 0;
  for (let i = 0; i < text.length;) {
    let end = text.indexOf("\n", i);
    if (end < 0) end = text.length;
    const lineEnd = text.charCodeAt(end - 1) === 13 ? end - 1 : end;
    if (lineEnd > i) {
      let c1 = text.indexOf(",", i);
      if (c1 < 0 || c1 > lineEnd) c1 = lineEnd;
      let c2 = c1 < lineEnd ? text.indexOf(",", c1 + 1) : lineEnd;
      if (c2 < 0 || c2 > lineEnd) c2 = lineEnd;
      let t: number;
      if (c1 - i === 16 && text[i + 10] === " " && text[i + 13] === ":") {
        const date = text.slice(i, i + 10);
        if (date !== day) {
          day = date;
          dayEpoch = epoch(`${date} 00:00`);
        }
        t = dayEpoch + (digit(text, i + 11) * 10 + digit(text, i + 12)) * 3600 + (digit(text, i + 14) * 10 + digit(text, i + 15)) * 60;
      } else t = epoch(text.slice(i, c1));
      const value = c1 < lineEnd ? text.slice(c1 + 1, c2) : "";
      out.push({ t, v: value === "" ? null : Number(value), text: value, flags: c2 < lineEnd ? text.slice(c2 + 1, lineEnd) : "" });
    }
    i = end + 1;
  }
  return out;
}
