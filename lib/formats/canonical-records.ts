/**
 * A fast path for the record lines that this service (and the reference system) write in a
 * `data/` CSV: `YYYY-MM-DD HH:MM[:SS],value[,flags]` and a line break, nothing else. Each such
 * line gives exactly what the upload parser (lib/formats/upload.ts) gives for it; any other
 * text (a header, a blank line, spaces around fields, an exponent, records out of order…)
 * makes it answer null, and the caller parses that text with the upload parser, whose
 * messages are the ones to report.
 */
import { daysFromCivil as civilDays, daysInMonth as monthDays } from "@/lib/formats/civil";
import { MAX_INSTANT as MAX_T, MIN_INSTANT as MIN_T } from "@/lib/formats/date-param";
import { MAX_FLAGS_LENGTH as MAX_FLAGS } from "@/lib/formats/upload";

// Module bindings may compile to getters (CommonJS interop): read them once.
const daysFromCivil = civilDays;
const daysInMonth = monthDays;
const MIN_INSTANT = MIN_T;
const MAX_INSTANT = MAX_T;
const MAX_FLAGS_LENGTH = MAX_FLAGS;

const POW10: number[] = [];
for (let i = 0, v = 1; i <= 22; i++, v *= 10) POW10.push(v);

export interface CanonicalRecords {
  timestamps: Float64Array;
  values: Float64Array;
  flags: string[];
  /** Line breaks read (one per record, but for a last line without one). */
  lineBreaks: number;
}

/** A digit's value; anything else makes every sum of digits × powers of ten below 10,000 negative. */
function digit(s: string, p: number): number {
  const d = s.charCodeAt(p) - 48;
  return d >= 0 && d <= 9 ? d : -100_000;
}

/**
 * The records of `text`, every line a canonical record line later than the one before (the
 * first later than `after`), timestamps at the fixed offset `offsetSeconds`; or null.
 */
export function parseCanonicalRecords(text: string, offsetSeconds: number, after: number): CanonicalRecords | null {
  const n = text.length;
  // A record line has at least 18 characters with its line break.
  const cap = Math.floor(n / 18) + 1;
  const timestamps = new Float64Array(cap);
  const values = new Float64Array(cap);
  const flags: string[] = [];
  let count = 0;
  let lineBreaks = 0;
  let prev = after;
  let lastDateKey = -1;
  let lastDays = 0;
  let p = 0;
  while (p < n) {
    // ---- timestamp
    if (n - p < 17) return null;
    const y = digit(text, p) * 1000 + digit(text, p + 1) * 100 + digit(text, p + 2) * 10 + digit(text, p + 3);
    const mo = digit(text, p + 5) * 10 + digit(text, p + 6);
    const d = digit(text, p + 8) * 10 + digit(text, p + 9);
    const h = digit(text, p + 11) * 10 + digit(text, p + 12);
    const mi = digit(text, p + 14) * 10 + digit(text, p + 15);
    if (
      text.charCodeAt(p + 4) !== 45 || text.charCodeAt(p + 7) !== 45 || text.charCodeAt(p + 10) !== 32 || text.charCodeAt(p + 13) !== 58 ||
      y <= 0 || mo < 1 || mo > 12 || d < 1 || (d > 28 && d > daysInMonth(y, mo)) || h < 0 || h > 23 || mi < 0 || mi > 59
    ) {
      return null;
    }
    p += 16;
    let secs = h * 3600 + mi * 60;
    if (text.charCodeAt(p) === 58) {
      const se = digit(text, p + 1) * 10 + digit(text, p + 2);
      if (se < 0 || se > 59) return null;
      secs += se;
      p += 3;
    }
    if (text.charCodeAt(p) !== 44) return null;
    p++;
    const dateKey = y * 10000 + mo * 100 + d;
    if (dateKey !== lastDateKey) {
      lastDays = daysFromCivil(y, mo, d);
      lastDateKey = dateKey;
    }
    const t = lastDays * 86400 + secs - offsetSeconds;
    if (t <= prev || t < MIN_INSTANT || t > MAX_INSTANT) return null;
    prev = t;

    // ---- value: "" (null) or [-]digits[.digits], at most 15 significant digits
    let v: number;
    let c = text.charCodeAt(p);
    if (c === 44 || c === 13 || c === 10 || p === n) {
      v = NaN;
    } else {
      let neg = false;
      if (c === 45) {
        neg = true;
        c = text.charCodeAt(++p);
      }
      let m = 0;
      let sig = 0;
      let exp10 = 0;
      let digits = 0;
      while (c >= 48 && c <= 57) {
        if (m !== 0 || c !== 48) {
          m = m * 10 + (c - 48);
          sig++;
        }
        digits++;
        c = text.charCodeAt(++p);
      }
      if (c === 46) {
        c = text.charCodeAt(++p);
        while (c >= 48 && c <= 57) {
          if (m !== 0 || c !== 48) {
            m = m * 10 + (c - 48);
            sig++;
          }
          exp10--;
          digits++;
          c = text.charCodeAt(++p);
        }
      }
      if (digits === 0 || sig > 15 || exp10 < -22) return null;
      v = m / POW10[-exp10];
      if (neg) v = -v;
      if (v === 0) v = 0; // -0 → 0
    }

    // ---- flags: words of printable ASCII (no quote or comma) joined by single spaces
    let f = "";
    if (c === 44) {
      const a = ++p;
      let prevSpace = true;
      for (;;) {
        c = text.charCodeAt(p);
        if (c === 32) {
          if (prevSpace) return null;
          prevSpace = true;
        } else if (c > 32 && c < 127 && c !== 34 && c !== 44) {
          prevSpace = false;
        } else {
          break;
        }
        p++;
      }
      if (p > a) {
        if (prevSpace || p - a > MAX_FLAGS_LENGTH) return null;
        f = text.slice(a, p);
      }
    }

    // ---- line break
    if (c === 13) c = text.charCodeAt(++p);
    if (c === 10) {
      p++;
      lineBreaks++;
    } else if (p !== n) {
      return null;
    }
    timestamps[count] = t;
    values[count] = v;
    flags.push(f);
    count++;
  }
  return { timestamps: timestamps.subarray(0, count), values: values.subarray(0, count), flags, lineBreaks };
}
