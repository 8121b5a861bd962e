/**
 * The upload parser (formats.md §6.2–6.5) and the storage checks of §6.4.
 *
 * `parseUpload` scans the text in place (char codes, no split, no regular expressions on
 * record lines) and returns either the records sorted by time or the first 10 messages in
 * line order. The storage checks (`appendErrors`, `insertErrors`) run only on a successful
 * parse.
 */
import { MAX_INSTANT as MAX_T, MIN_INSTANT as MIN_T } from "@/lib/formats/date-param";
import { scanDateTime, scanned } from "@/lib/formats/datetime-scan";
import { formatInstantWithOffset, formatUtcSeconds } from "@/lib/formats/timestamp";
import { fixedOffsetZone, resolveTimeZone, type TimeZone } from "@/lib/formats/timezone";

export interface UploadParsed {
  ok: true;
  /** UTC epoch seconds, strictly ascending. */
  timestamps: Float64Array;
  /** Values; NaN encodes null. -0 is stored as 0. */
  values: Float64Array;
  /** Normalized flags (words joined by single spaces), "" for none. */
  flags: string[];
  /** The original line number of each record. */
  lines: Int32Array;
  /** The effective upload zone: the HTS header zone if present, else the zone passed in. */
  zone: TimeZone;
}

export interface UploadFailed {
  ok: false;
  /** At most 10 messages, in line order. */
  errors: string[];
}

export type UploadParseResult = UploadParsed | UploadFailed;

export const MAX_UPLOAD_ERRORS = 10;

// Module bindings may compile to getters (CommonJS interop): read them once.
const MIN_INSTANT = MIN_T;
const MAX_INSTANT = MAX_T;
const SC = scanned;
const scan = scanDateTime;

// ---------------------------------------------------------------------------------------
// Character classes

/** The whitespace of String.prototype.trim (WhiteSpace and LineTerminator). */
function isWs(c: number): boolean {
  if (c <= 32) return c === 32 || (c >= 9 && c <= 13);
  if (c < 0xa0) return false;
  return isWideWs(c);
}

function isWideWs(c: number): boolean {
  return (
    c === 0xa0 || c === 0x1680 || (c >= 0x2000 && c <= 0x200a) || c === 0x2028 || c === 0x2029 ||
    c === 0x202f || c === 0x205f || c === 0x3000 || c === 0xfeff
  );
}

/** `"<text>"`, cut to 40 characters followed by `...` when longer (§6.5). */
function quoted(s: string): string {
  if (s.length > 40) {
    const cps = Array.from(s);
    if (cps.length > 40) s = cps.slice(0, 40).join("") + "...";
  }
  return `"${s}"`;
}

// ---------------------------------------------------------------------------------------
// Values

const POW10: number[] = [];
for (let i = 0, v = 1; i <= 22; i++, v *= 10) POW10.push(v);

let valueBad = false;

/**
 * The value of s[a, b) (already trimmed): NaN for null ("" or nan), the nearest double of a
 * number. Sets `valueBad` on a grammar error or an overflow.
 */
function parseValue(s: string, a: number, b: number): number {
  valueBad = false;
  if (a === b) return NaN;
  let p = a;
  let c = s.charCodeAt(p);
  if (
    b - a === 3 && (c | 32) === 110 && (s.charCodeAt(a + 1) | 32) === 97 && (s.charCodeAt(a + 2) | 32) === 110
  ) {
    return NaN;
  }
  let neg = false;
  if (c === 43 || c === 45) {
    neg = c === 45;
    p++;
  }
  let m = 0; // significant digits, at most 15 (exact)
  let sig = 0;
  let exp10 = 0;
  let digits = 0;
  let exact = true;
  while (p < b) {
    const d = s.charCodeAt(p) - 48;
    if (d < 0 || d > 9) break;
    if (sig < 15) {
      if (m !== 0 || d !== 0) {
        m = m * 10 + d;
        sig++;
      }
    } else if (d === 0) {
      exp10++;
    } else {
      exact = false;
    }
    digits++;
    p++;
  }
  if (p < b && s.charCodeAt(p) === 46) {
    p++;
    while (p < b) {
      const d = s.charCodeAt(p) - 48;
      if (d < 0 || d > 9) break;
      if (sig < 15) {
        if (m !== 0 || d !== 0) {
          m = m * 10 + d;
          sig++;
        }
        exp10--;
      } else if (d !== 0) {
        exact = false;
      }
      digits++;
      p++;
    }
  }
  if (digits === 0) {
    valueBad = true;
    return 0;
  }
  if (p < b && (s.charCodeAt(p) | 32) === 101) {
    p++;
    let eneg = false;
    if (p < b) {
      c = s.charCodeAt(p);
      if (c === 43 || c === 45) {
        eneg = c === 45;
        p++;
      }
    }
    let e = 0;
    let edigits = 0;
    while (p < b) {
      const d = s.charCodeAt(p) - 48;
      if (d < 0 || d > 9) break;
      if (e < 100000) e = e * 10 + d;
      edigits++;
      p++;
    }
    if (edigits === 0) {
      valueBad = true;
      return 0;
    }
    exp10 += eneg ? -e : e;
  }
  if (p !== b) {
    valueBad = true;
    return 0;
  }
  let v: number;
  if (exact && exp10 >= -22 && exp10 <= 22) {
    // Clinger's fast path: m and 10^|exp10| are exact, one correctly rounded operation.
    v = exp10 >= 0 ? m * POW10[exp10] : m / POW10[-exp10];
    if (neg) v = -v;
  } else {
    v = Number(s.slice(a, b));
    if (!Number.isFinite(v)) {
      valueBad = true;
      return 0;
    }
  }
  return v === 0 ? 0 : v; // -0 → 0
}

// ---------------------------------------------------------------------------------------
// Flags

/** The longest flags a record may have, in characters (normalized): a guard against huge values. */
export const MAX_FLAGS_LENGTH = 1000;

/** Whether flags are longer than MAX_FLAGS_LENGTH characters. */
export function flagsTooLong(flags: string): boolean {
  // Characters are code points; a string of at most MAX_FLAGS_LENGTH code units has no more.
  return flags.length > MAX_FLAGS_LENGTH && [...flags].length > MAX_FLAGS_LENGTH;
}

/** Normalized flags of s[a, b) (trimmed), or null for an invalid character. */
function parseFlags(s: string, a: number, b: number): string | null {
  if (a === b) return "";
  let simple = true;
  let prevSep = false;
  for (let k = a; k < b; k++) {
    const c = s.charCodeAt(k);
    if (c === 32) {
      if (prevSep) simple = false;
      prevSep = true;
      continue;
    }
    if (c === 9) {
      simple = false;
      prevSep = true;
      continue;
    }
    prevSep = false;
    if (c < 32 || c === 127 || c === 34 || c === 44) return null;
    if (c >= 0xa0 && isWideWs(c)) return null;
  }
  const text = s.slice(a, b);
  return simple ? text : text.split(/[ \t]+/).join(" ");
}

// ---------------------------------------------------------------------------------------
// HTS header lines

const TRAILING_OFFSET = /\((?:UTC)?([+-])(\d\d)(\d\d)\)$/i;
const BARE_OFFSET = /^(?:UTC)?([+-])(\d\d)(\d\d)$/i;

/** The zone of an HTS `Timezone` value (§5.6), or null. */
export function parseHtsTimezone(value: string): TimeZone | null {
  const m = TRAILING_OFFSET.exec(value) ?? BARE_OFFSET.exec(value);
  if (m !== null) {
    const hh = Number(m[2]);
    const mm = Number(m[3]);
    if (hh > 23 || mm > 59) return null;
    const minutes = (m[1] === "-" ? -1 : 1) * (hh * 60 + mm);
    return fixedOffsetZone(minutes, `UTC${minutes < 0 ? "-" : "+"}${m[2]}${m[3]}`);
  }
  return resolveTimeZone(value);
}

function isLetter(c: number): boolean {
  return (c >= 65 && c <= 90) || (c >= 97 && c <= 122);
}

function isNameChar(c: number): boolean {
  return isLetter(c) || (c >= 48 && c <= 57) || c === 95;
}

// ---------------------------------------------------------------------------------------
// The parser

class ErrorList {
  readonly lines: number[] = [];
  readonly messages: string[] = [];

  add(line: number, message: string): void {
    this.lines.push(line);
    this.messages.push(`line ${line}: ${message}`);
  }

  get full(): boolean {
    return this.lines.length >= MAX_UPLOAD_ERRORS;
  }
}

/**
 * Parses an upload body (formats.md §6.2–6.5). `zone` is the `timezone` field or the
 * station's display zone; an HTS header `Timezone` overrides it. `firstLine` numbers the
 * text's first line, for a text that continues an earlier one (a stream read in pieces).
 */
export function parseUpload(text: string, zone: TimeZone, firstLine = 1): UploadParseResult {
  const n = text.length;
  let pos = n > 0 && text.charCodeAt(0) === 0xfeff ? 1 : 0;
  const errors = new ErrorList();

  // One record per line at most: count the lines so that the arrays never grow.
  let cap = 1;
  for (let k = text.indexOf("\n", pos); k >= 0; k = text.indexOf("\n", k + 1)) cap++;
  const ts = new Float64Array(cap);
  const vs = new Float64Array(cap);
  const ln = new Int32Array(cap);
  const fl: string[] = [];
  let count = 0;
  let sorted = true;
  let prevT = -Infinity;

  let state = 0; // 0: before the first non-blank line, 1: header, 2: records
  let lastHeaderLine = 0;
  let headerZone: TimeZone | null = null;
  let recZone = zone;
  let fixedOffset = zone.fixedOffsetMinutes === null ? NaN : zone.fixedOffsetMinutes * 60;

  let lineNo = firstLine - 1;
  while (pos < n) {
    lineNo++;
    let e = text.indexOf("\n", pos);
    if (e < 0) e = n;
    let le = e;
    while (le > pos && text.charCodeAt(le - 1) === 13) le--;
    let i = pos;
    pos = e + 1;
    while (i < le && isWs(text.charCodeAt(i))) i++;
    if (i === le) {
      // a blank line
      if (state === 1) {
        state = 2;
        if (headerZone !== null) {
          recZone = headerZone;
          fixedOffset = recZone.fixedOffsetMinutes === null ? NaN : recZone.fixedOffsetMinutes * 60;
        }
      }
      continue;
    }
    if (state === 0) {
      const c = text.charCodeAt(i);
      state = c >= 48 && c <= 57 ? 2 : 1;
    }
    let r = le;
    while (isWs(text.charCodeAt(r - 1))) r--; // r > i: the line has a non-blank character

    if (state === 1) {
      // ---- header line: Name = Value
      lastHeaderLine = lineNo;
      let j = i;
      if (isLetter(text.charCodeAt(j))) {
        j++;
        while (j < r && isNameChar(text.charCodeAt(j))) j++;
      }
      const nameEnd = j;
      while (j < r && (text.charCodeAt(j) === 32 || text.charCodeAt(j) === 9)) j++;
      if (nameEnd === i || j >= r || text.charCodeAt(j) !== 61) {
        errors.add(lineNo, `invalid header line ${quoted(text.slice(i, r))}`);
      } else if (text.slice(i, nameEnd).toLowerCase() === "timezone") {
        j++;
        while (j < r && isWs(text.charCodeAt(j))) j++;
        if (j < r) {
          const value = text.slice(j, r);
          const z = parseHtsTimezone(value);
          if (z === null) errors.add(lineNo, `invalid Timezone ${quoted(value)}`);
          else headerZone = z;
        }
      }
      if (errors.full) break;
      continue;
    }

    // ---- record line: timestamp "," value [ "," flags ]
    // (indexOf is much faster than a char loop; a search that runs past the line stops at
    // the next line's first comma)
    let commas = 0;
    const c1 = text.indexOf(",", i);
    let c2 = -1;
    if (c1 >= 0 && c1 < r) {
      commas = 1;
      c2 = text.indexOf(",", c1 + 1);
      if (c2 >= 0 && c2 < r) {
        commas = 2;
        for (let k = text.indexOf(",", c2 + 1); k >= 0 && k < r; k = text.indexOf(",", k + 1)) commas++;
      }
    }
    if (commas < 1 || commas > 2) {
      errors.add(lineNo, `expected 2 or 3 fields, found ${commas + 1}`);
      if (errors.full) break;
      continue;
    }
    // timestamp [i, tb)
    let tb = c1;
    while (tb > i && isWs(text.charCodeAt(tb - 1))) tb--;
    if (!scan(text, i, tb, false)) {
      errors.add(lineNo, `invalid timestamp ${quoted(text.slice(i, tb))}`);
      if (errors.full) break;
      continue;
    }
    let t: number;
    if (SC.hasOffset) {
      t = SC.local - SC.offset;
    } else if (fixedOffset === fixedOffset) {
      t = SC.local - fixedOffset;
    } else {
      const u = recZone.naiveToUtc(SC.local);
      if (u === "nonexistent") {
        errors.add(lineNo, `${quoted(text.slice(i, tb))} does not exist in time zone ${recZone.name}`);
        if (errors.full) break;
        continue;
      }
      t = u;
    }
    if (t < MIN_INSTANT || t > MAX_INSTANT) {
      errors.add(lineNo, `timestamp ${quoted(text.slice(i, tb))} is outside 1680-01-01 to 2260-01-01`);
      if (errors.full) break;
      continue;
    }
    // value [va, vb)
    let va = c1 + 1;
    let vb = commas === 2 ? c2 : r;
    while (va < vb && isWs(text.charCodeAt(va))) va++;
    while (vb > va && isWs(text.charCodeAt(vb - 1))) vb--;
    const v = parseValue(text, va, vb);
    if (valueBad) {
      errors.add(lineNo, `invalid value ${quoted(text.slice(va, vb))}`);
      if (errors.full) break;
      continue;
    }
    // flags [fa, r)
    let flags = "";
    if (commas === 2) {
      let fa = c2 + 1;
      while (fa < r && isWs(text.charCodeAt(fa))) fa++;
      const f = parseFlags(text, fa, r);
      if (f === null) {
        errors.add(lineNo, "invalid character in flags");
        if (errors.full) break;
        continue;
      }
      if (flagsTooLong(f)) {
        errors.add(lineNo, `flags longer than ${MAX_FLAGS_LENGTH} characters`);
        if (errors.full) break;
        continue;
      }
      flags = f;
    }
    ts[count] = t;
    vs[count] = v;
    ln[count] = lineNo;
    fl.push(flags);
    count++;
    if (t <= prevT) sorted = false;
    prevT = t;
  }
  if (state === 1 && !errors.full) {
    errors.add(lastHeaderLine, "the header must be followed by a blank line");
  }
  if (headerZone !== null) recZone = headerZone;

  // ---- duplicates (§6.4 item 1) and order
  let perm: ArrayLike<number> | null = null;
  const dupIdx: number[] = [];
  const dupFirst: number[] = [];
  if (!sorted) {
    perm = sortOrder(ts, count);
    let groupStart = 0;
    for (let k = 1; k < count; k++) {
      if (ts[perm[k]] === ts[perm[k - 1]]) {
        dupIdx.push(perm[k]);
        dupFirst.push(perm[groupStart]);
      } else {
        groupStart = k;
      }
    }
  }

  if (errors.lines.length > 0 || dupIdx.length > 0) {
    return { ok: false, errors: mergeErrors(errors, dupIdx, dupFirst, ts, ln, recZone) };
  }

  let timestamps: Float64Array;
  let values: Float64Array;
  let lines: Int32Array;
  let flags: string[];
  if (perm === null) {
    // a view when little is unused (blank and header lines), a copy otherwise
    const view = cap - count <= (cap >> 3) + 1;
    timestamps = view ? ts.subarray(0, count) : ts.slice(0, count);
    values = view ? vs.subarray(0, count) : vs.slice(0, count);
    lines = view ? ln.subarray(0, count) : ln.slice(0, count);
    flags = fl;
  } else {
    timestamps = new Float64Array(count);
    values = new Float64Array(count);
    lines = new Int32Array(count);
    flags = new Array<string>(count);
    for (let k = 0; k < count; k++) {
      const idx = perm[k];
      timestamps[k] = ts[idx];
      values[k] = vs[idx];
      lines[k] = ln[idx];
      flags[k] = fl[idx];
    }
  }
  return { ok: true, timestamps, values, flags, lines, zone: recZone };
}

const TWO53 = 9007199254740992;

/** The permutation that sorts ts[0, count) by (timestamp, index). */
function sortOrder(ts: Float64Array, count: number): ArrayLike<number> {
  let tmin = Infinity;
  let tmax = -Infinity;
  for (let k = 0; k < count; k++) {
    const t = ts[k];
    if (t < tmin) tmin = t;
    if (t > tmax) tmax = t;
  }
  if ((tmax - tmin + 1) * count < TWO53) {
    // Pack (t − tmin, index) into one exact double and use the native numeric sort.
    const keys = new Float64Array(count);
    for (let k = 0; k < count; k++) keys[k] = (ts[k] - tmin) * count + k;
    keys.sort();
    const perm = new Int32Array(count);
    for (let k = 0; k < count; k++) perm[k] = keys[k] % count;
    return perm;
  }
  const idx = Array.from({ length: count }, (_, k) => k);
  idx.sort((a, b) => ts[a] - ts[b] || a - b);
  return idx;
}

function mergeErrors(
  errors: ErrorList, dupIdx: number[], dupFirst: number[], ts: Float64Array, ln: Int32Array, zone: TimeZone,
): string[] {
  // the (up to 10) duplicates with the smallest line numbers, in line order
  const order = Array.from({ length: dupIdx.length }, (_, k) => k);
  order.sort((a, b) => ln[dupIdx[a]] - ln[dupIdx[b]]);
  const out: string[] = [];
  let a = 0;
  let b = 0;
  while (out.length < MAX_UPLOAD_ERRORS && (a < errors.lines.length || b < order.length)) {
    const dupLine = b < order.length ? ln[dupIdx[order[b]]] : Infinity;
    if (a < errors.lines.length && errors.lines[a] <= dupLine) {
      out.push(errors.messages[a++]);
    } else {
      const k = order[b++];
      const t = ts[dupIdx[k]];
      out.push(`line ${dupLine}: timestamp ${formatInstantWithOffset(t, zone)} also appears on line ${ln[dupFirst[k]]}`);
    }
  }
  return out;
}

// ---------------------------------------------------------------------------------------
// Storage checks (§6.4 items 3 and 4) and the dry-run summary (§6.6)

/** Indices of `candidates` with the `limit` smallest line numbers, in line order. */
function firstByLine(parsed: UploadParsed, candidates: Iterable<number>, limit = MAX_UPLOAD_ERRORS): number[] {
  const lines = parsed.lines;
  const best: number[] = [];
  for (const idx of candidates) {
    const line = lines[idx];
    if (best.length === limit && line >= lines[best[limit - 1]]) continue;
    let k = best.length;
    if (k === limit) k--;
    while (k > 0 && lines[best[k - 1]] > line) {
      best[k] = best[k - 1];
      k--;
    }
    best[k] = idx;
  }
  return best;
}

/** Index of the first uploaded instant > t (parsed.timestamps is ascending). */
function upperBound(ts: Float64Array, t: number): number {
  let lo = 0;
  let hi = ts.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (ts[mid] <= t) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * `mode=append`: every uploaded instant must be later than the last stored record. One
 * message per offending line (at most 10, in line order).
 */
export function appendErrors(parsed: UploadParsed, lastStoredEpoch: number | null): string[] {
  return appendCheck(parsed, lastStoredEpoch).messages;
}

/** A storage check's messages (at most 10, in line order) and how many lines it refused in all. */
export interface StorageCheck {
  messages: string[];
  refused: number;
}

/** appendErrors, with the number of lines refused. */
export function appendCheck(parsed: UploadParsed, lastStoredEpoch: number | null): StorageCheck {
  if (lastStoredEpoch === null) return { messages: [], refused: 0 };
  const k = upperBound(parsed.timestamps, lastStoredEpoch);
  if (k === 0) return { messages: [], refused: 0 };
  function* range(): Iterable<number> {
    for (let i = 0; i < k; i++) yield i;
  }
  const last = formatInstantWithOffset(lastStoredEpoch, parsed.zone);
  const messages = firstByLine(parsed, range()).map(
    (idx) =>
      `line ${parsed.lines[idx]}: ${formatInstantWithOffset(parsed.timestamps[idx], parsed.zone)} is not later than the last stored record (${last})`,
  );
  return { messages, refused: k };
}

/**
 * `mode=insert`: no uploaded instant may equal a stored one. `existing` is either the stored
 * instants to compare with (any superset of the relevant ones, e.g. the stored instants
 * between the first and the last uploaded one) or a function that receives the uploaded
 * instants and returns those of them that are already stored.
 */
export function insertErrors(
  parsed: UploadParsed,
  existing: Iterable<number> | ((epochs: Float64Array) => Iterable<number>),
): string[] {
  return insertCheck(parsed, existing).messages;
}

/** insertErrors, with the number of lines refused. */
export function insertCheck(
  parsed: UploadParsed,
  existing: Iterable<number> | ((epochs: Float64Array) => Iterable<number>),
): StorageCheck {
  const ts = parsed.timestamps;
  const stored = typeof existing === "function" ? existing(ts) : existing;
  const hits = new Set<number>();
  for (const s of stored) {
    const k = upperBound(ts, s) - 1;
    if (k >= 0 && ts[k] === s) hits.add(k);
  }
  const messages = firstByLine(parsed, hits).map(
    (idx) => `line ${parsed.lines[idx]}: a record at ${formatInstantWithOffset(ts[idx], parsed.zone)} already exists`,
  );
  return { messages, refused: hits.size };
}

/** The body of a successful dry run (§6.6). */
export function dryRunSummary(parsed: UploadParsed): {
  count: number;
  start_date: string | null;
  end_date: string | null;
} {
  const n = parsed.timestamps.length;
  return {
    count: n,
    start_date: n > 0 ? formatUtcSeconds(parsed.timestamps[0]) : null,
    end_date: n > 0 ? formatUtcSeconds(parsed.timestamps[n - 1]) : null,
  };
}

// ---------------------------------------------------------------------------------------
// One record's fields outside a record line (the PATCH of single records, the flags of a
// transform): the grammar and messages of §6.3, without the line number.

/**
 * The instant of one timestamp field of §6.3 (trimmed) in `zone` (an offset wins), or the
 * problem as a record line's message would give it: invalid, a skipped local time, out of range.
 */
export function parseTimestampField(text: string, zone: TimeZone): { ok: true; t: number } | { ok: false; error: string } {
  const s = text.trim();
  if (!scan(s, 0, s.length, false)) return { ok: false, error: `invalid timestamp ${quoted(s)}` };
  let t: number;
  if (SC.hasOffset) t = SC.local - SC.offset;
  else {
    const u = zone.naiveToUtc(SC.local);
    if (u === "nonexistent") return { ok: false, error: `${quoted(s)} does not exist in time zone ${zone.name}` };
    t = u;
  }
  if (t < MIN_INSTANT || t > MAX_INSTANT) return { ok: false, error: `timestamp ${quoted(s)} is outside 1680-01-01 to 2260-01-01` };
  return { ok: true, t };
}

/** Flags as §6.3 stores them (words joined by single spaces), or the problem: an invalid character, too long. */
export function parseFlagsField(text: string): { ok: true; flags: string } | { ok: false; error: string } {
  const s = text.trim();
  const flags = parseFlags(s, 0, s.length);
  if (flags === null) return { ok: false, error: "invalid character in flags" };
  if (flagsTooLong(flags)) return { ok: false, error: `flags longer than ${MAX_FLAGS_LENGTH} characters` };
  return { ok: true, flags };
}
