/**
 * The shared scanner of `date [sep time [offset]]` texts: upload timestamps (formats.md §6.3)
 * and the `start_date`/`end_date` parameters (§3.4, with fractions and the unencoded `+`).
 * It reads char codes in place, without slicing or regular expressions, and leaves its result
 * in `scanned` (no allocation per call).
 */
import { daysFromCivil as civilDays, daysInMonth as monthDays } from "@/lib/formats/civil";

export interface Scanned {
  /** Naive seconds since 1970-01-01T00:00 of the wall-clock time. */
  local: number;
  /** Whether an offset (or Z) was given. */
  hasOffset: boolean;
  /** The offset in seconds, east positive (0 when absent). */
  offset: number;
  /** Whether a fractional second with a non-zero digit was given. */
  fraction: boolean;
}

// Initialized with non-integers so that V8 gives the fields a double representation from the
// start (no field generalization in the hot loop).
export const scanned: Scanned = { local: 0.5, hasOffset: false, offset: 0.5, fraction: false };
scanned.local = 0;
scanned.offset = 0;

// Module bindings may compile to getters (CommonJS interop): read them once.
const daysFromCivil = civilDays;
const daysInMonth = monthDays;
const out = scanned;

function d2(s: string, p: number): number {
  const a = s.charCodeAt(p) - 48;
  const b = s.charCodeAt(p + 1) - 48;
  if (a < 0 || a > 9 || b < 0 || b > 9) return -1;
  return a * 10 + b;
}

let lastDateKey = -1;
let lastDays = 0;

/**
 * Scans s[a, b). `extended` enables the date-parameter forms: fractional seconds and a space
 * in place of a `+` before the offset. Returns false on any grammar or calendar error (years
 * 0001–9999, real dates, hh 00–23, mm/ss 00–59, offsets up to ±23:59).
 */
export function scanDateTime(s: string, a: number, b: number, extended: boolean): boolean {
  if (b - a < 10) return false;
  const y1 = d2(s, a);
  const y2 = d2(s, a + 2);
  if (y1 < 0 || y2 < 0 || s.charCodeAt(a + 4) !== 45 || s.charCodeAt(a + 7) !== 45) return false;
  const y = y1 * 100 + y2;
  const mo = d2(s, a + 5);
  const d = d2(s, a + 8);
  if (y === 0 || mo < 1 || mo > 12 || d < 1 || (d > 28 && d > daysInMonth(y, mo))) return false;
  const dateKey = y * 10000 + mo * 100 + d;
  let days: number;
  if (dateKey === lastDateKey) {
    days = lastDays;
  } else {
    days = daysFromCivil(y, mo, d);
    lastDateKey = dateKey;
    lastDays = days;
  }
  let secs = 0;
  let hasOffset = false;
  let offset = 0;
  let fraction = false;
  let p = a + 10;
  if (p < b) {
    const sep = s.charCodeAt(p);
    if (sep !== 84 && sep !== 116 && sep !== 32) return false;
    p++;
    if (b - p < 5 || s.charCodeAt(p + 2) !== 58) return false;
    const h = d2(s, p);
    const mi = d2(s, p + 3);
    if (h < 0 || h > 23 || mi < 0 || mi > 59) return false;
    secs = h * 3600 + mi * 60;
    p += 5;
    if (p < b && s.charCodeAt(p) === 58) {
      if (b - p < 3) return false;
      const se = d2(s, p + 1);
      if (se < 0 || se > 59) return false;
      secs += se;
      p += 3;
      if (extended && p < b && s.charCodeAt(p) === 46) {
        p++;
        const start = p;
        while (p < b) {
          const c = s.charCodeAt(p);
          if (c < 48 || c > 57) break;
          if (c !== 48) fraction = true;
          p++;
        }
        if (p === start) return false;
      }
    }
    if (p < b) {
      const c = s.charCodeAt(p);
      if (c === 90 || c === 122) {
        hasOffset = true;
        p++;
      } else if (c === 43 || c === 45 || (extended && c === 32)) {
        p++;
        if (b - p < 2) return false;
        const oh = d2(s, p);
        if (oh < 0 || oh > 23) return false;
        p += 2;
        let om = 0;
        if (p < b) {
          if (s.charCodeAt(p) === 58) p++;
          if (b - p < 2) return false;
          om = d2(s, p);
          if (om < 0 || om > 59) return false;
          p += 2;
        }
        hasOffset = true;
        offset = (c === 45 ? -1 : 1) * (oh * 3600 + om * 60);
      } else {
        return false;
      }
    }
    if (p !== b) return false;
  }
  out.local = days * 86400 + secs;
  out.hasOffset = hasOffset;
  out.offset = offset;
  out.fraction = fraction;
  return true;
}
