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

/** A record as the workbench shows it: its time (epoch seconds), value, the value's text as stored, flags. */
export interface Rec {
  t: number;
  v: number | null;
  text: string;
  flags: string;
}

/** Epoch seconds of a UTC time as the API writes it: "2010-01-01 00:00" (read by position), or any ISO 8601 text. */
export function epoch(text: string): number {
  if (text.length === 16 && text[4] === "-" && text[10] === " " && text[13] === ":") {
    return Date.UTC(+text.slice(0, 4), +text.slice(5, 7) - 1, +text.slice(8, 10), +text.slice(11, 13), +text.slice(14, 16)) / 1000;
  }
  return Date.parse(text.replace(" ", "T") + (/[Zz]|[+-]\d\d:?\d\d$/.test(text) ? "" : "Z")) / 1000;
}

/**
 * The records of a range in columns: times and values in typed arrays (a null value is NaN), and
 * where each value's text and flags lie in the CSV they were read from. A year of 10-minute
 * records is 52,560 of them, read before the page is usable: columns cost no object per record,
 * and a record's texts are cut out only when it is shown (`at`).
 */
export class RecordColumns {
  constructor(
    private readonly csv: string,
    readonly length: number,
    /** Epoch seconds, ascending. */
    readonly t: Float64Array,
    /** The values; NaN where a record has none. */
    readonly v: Float64Array,
    /** Start and end (exclusive) in the CSV of each value's text, then of its flags. */
    private readonly spans: Uint32Array,
    /** The indexes of the records with flags, ascending. */
    readonly flagged: Uint32Array,
  ) {}

  static readonly empty = new RecordColumns("", 0, new Float64Array(0), new Float64Array(0), new Uint32Array(0), new Uint32Array(0));

  /** The columns read from `csv`. */
  static of(csv: string, c: ParsedColumns): RecordColumns {
    return new RecordColumns(csv, c.length, c.t, c.v, c.spans, c.flagged);
  }

  at(i: number): Rec {
    const [vs, ve, fs, fe] = this.spans.subarray(i * 4, i * 4 + 4);
    const v = this.v[i];
    return { t: this.t[i], v: Number.isNaN(v) ? null : v, text: this.csv.slice(vs, ve), flags: this.csv.slice(fs, fe) };
  }

  /** The first index whose time is ≥ `time` (or > `time`, when `after`); the length when none is. */
  lowerBound(time: number, after = false): number {
    let lo = 0;
    let hi = this.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.t[mid] < time || (after && this.t[mid] === time)) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /** The indexes [from, to) of the records from `start` to `end`, both included. */
  between(start: number, end: number): [number, number] {
    return [this.lowerBound(start), this.lowerBound(end, true)];
  }

  /** The record at exactly `time`, if there is one. */
  find(time: number): Rec | undefined {
    const i = this.lowerBound(time);
    return i < this.length && this.t[i] === time ? this.at(i) : undefined;
  }

  /** Records [from, to) as objects (a page of the table, a preview's rows). */
  slice(from: number, to: number): Rec[] {
    const out: Rec[] = [];
    for (let i = Math.max(0, from); i < Math.min(to, this.length); i++) out.push(this.at(i));
    return out;
  }
}

const POWERS_OF_TEN = Array.from({ length: 23 }, (_, k) => 10 ** k);

/**
 * A value's text as a number, exactly as Number() reads it. The common form ("-12.345", at most
 * 15 digits) is read from its digits: the digits make an integer below 2^53, and one division by
 * an exact power of ten is rounded correctly, as Number() is (the fast path of strtod). Anything
 * else (an exponent, more digits) goes to Number().
 */
function valueAt(text: string, start: number, end: number): number {
  let i = start;
  const negative = text.charCodeAt(i) === 45;
  if (negative || text.charCodeAt(i) === 43) i++;
  let mantissa = 0;
  let digits = 0;
  let decimals = -1;
  for (; i < end; i++) {
    const c = text.charCodeAt(i);
    if (c >= 48 && c <= 57) {
      mantissa = mantissa * 10 + (c - 48);
      digits++;
      if (decimals >= 0) decimals++;
    } else if (c === 46 && decimals < 0) decimals = 0;
    else return Number(text.slice(start, end));
  }
  if (digits === 0 || digits > 15) return Number(text.slice(start, end));
  const value = decimals > 0 ? mantissa / POWERS_OF_TEN[decimals] : mantissa;
  return negative ? -value : value;
}

/** The columns parseRecords reads, before they become a RecordColumns (what the records worker sends back). */
export interface ParsedColumns {
  length: number;
  t: Float64Array;
  v: Float64Array;
  spans: Uint32Array;
  flagged: Uint32Array;
}

/**
 * The records of data/'s CSV read with timezone=UTC, in columns. Scanned by hand, each date's
 * epoch worked out once and each value read from its digits.
 */
export function readColumns(text: string): ParsedColumns {
  let capacity = 1024;
  let t = new Float64Array(capacity);
  let v = new Float64Array(capacity);
  let spans = new Uint32Array(capacity * 4);
  const flagged: number[] = [];
  let n = 0;
  let day = "";
  let dayEpoch = 0;
  for (let i = 0; i < text.length;) {
    let end = text.indexOf("\n", i);
    if (end < 0) end = text.length;
    const lineEnd = text.charCodeAt(end - 1) === 13 ? end - 1 : end;
    if (lineEnd > i) {
      if (n === capacity) {
        capacity *= 2;
        const [t2, v2, s2] = [new Float64Array(capacity), new Float64Array(capacity), new Uint32Array(capacity * 4)];
        t2.set(t);
        v2.set(v);
        s2.set(spans);
        [t, v, spans] = [t2, v2, s2];
      }
      let c1 = text.indexOf(",", i);
      if (c1 < 0 || c1 > lineEnd) c1 = lineEnd;
      let c2 = c1 < lineEnd ? text.indexOf(",", c1 + 1) : lineEnd;
      if (c2 < 0 || c2 > lineEnd) c2 = lineEnd;
      if (c1 - i === 16 && text.charCodeAt(i + 10) === 32 && text.charCodeAt(i + 13) === 58) {
        if (day === "" || !text.startsWith(day, i)) {
          day = text.slice(i, i + 10);
          dayEpoch = epoch(`${day} 00:00`);
        }
        t[n] = dayEpoch + (digit(text, i + 11) * 10 + digit(text, i + 12)) * 3600 + (digit(text, i + 14) * 10 + digit(text, i + 15)) * 60;
      } else t[n] = epoch(text.slice(i, c1));
      const valueStart = Math.min(c1 + 1, lineEnd);
      v[n] = c2 > valueStart ? valueAt(text, valueStart, c2) : NaN;
      const flagsStart = Math.min(c2 + 1, lineEnd);
      spans[n * 4] = valueStart;
      spans[n * 4 + 1] = c2;
      spans[n * 4 + 2] = flagsStart;
      spans[n * 4 + 3] = lineEnd;
      if (lineEnd > flagsStart) flagged.push(n);
      n++;
    }
    i = end + 1;
  }
  // Copies of exactly the records' size: the worker hands their buffers over whole.
  return { length: n, t: t.slice(0, n), v: v.slice(0, n), spans: spans.slice(0, n * 4), flagged: Uint32Array.from(flagged) };
}

/** The records of data/'s CSV read with timezone=UTC (readColumns), with their texts. */
export function parseRecords(text: string): RecordColumns {
  return RecordColumns.of(text, readColumns(text));
}

const digit = (text: string, i: number) => text.charCodeAt(i) - 48;
