/**
 * Proleptic Gregorian calendar arithmetic on integers (H. Hinnant's algorithms), valid for
 * any year, including years before 1 and the early years where `Date.UTC` misreads 1–99.
 */

/** Days since 1970-01-01 of the civil date y-m-d (m 1–12, d 1–31). */
export function daysFromCivil(y: number, m: number, d: number): number {
  const yy = m <= 2 ? y - 1 : y;
  const era = Math.floor(yy / 400);
  const yoe = yy - era * 400; // [0, 399]
  const doy = Math.floor((153 * (m > 2 ? m - 3 : m + 9) + 2) / 5) + d - 1; // [0, 365]
  const doe = yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy; // [0, 146096]
  return era * 146097 + doe - 719468;
}

/** Scratch result of `civilFromDaysInto` (avoids an allocation per call). */
export interface Civil {
  year: number;
  month: number;
  day: number;
}

/** The civil date of a day number (days since 1970-01-01), written into `out`. */
export function civilFromDaysInto(z: number, out: Civil): Civil {
  const zz = z + 719468;
  const era = Math.floor(zz / 146097);
  const doe = zz - era * 146097; // [0, 146096]
  const yoe = Math.floor((doe - Math.floor(doe / 1460) + Math.floor(doe / 36524) - Math.floor(doe / 146096)) / 365);
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100)); // [0, 365]
  const mp = Math.floor((5 * doy + 2) / 153); // [0, 11]
  const d = doy - Math.floor((153 * mp + 2) / 5) + 1;
  const m = mp < 10 ? mp + 3 : mp - 9;
  out.year = yoe + era * 400 + (m <= 2 ? 1 : 0);
  out.month = m;
  out.day = d;
  return out;
}

/** The civil date of a day number as `[year, month, day]`. */
export function civilFromDays(z: number): [number, number, number] {
  const c = civilFromDaysInto(z, { year: 0, month: 0, day: 0 });
  return [c.year, c.month, c.day];
}

export function isLeapYear(y: number): boolean {
  return (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0;
}

const MONTH_DAYS = [0, 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

/** Number of days of month m (1–12) of year y. */
export function daysInMonth(y: number, m: number): number {
  return m === 2 && isLeapYear(y) ? 29 : MONTH_DAYS[m];
}

/** "YYYY-MM-DD" for a day number; years outside 0–9999 get a sign / more digits. */
export function formatCivilDate(z: number): string {
  const c = civilFromDaysInto(z, SCRATCH);
  return pad4(c.year) + "-" + PAD2[c.month] + "-" + PAD2[c.day];
}

const SCRATCH: Civil = { year: 0, month: 0, day: 0 };

/** "00" … "99". */
export const PAD2: readonly string[] = Array.from({ length: 100 }, (_, i) => (i < 10 ? "0" : "") + i);

export function pad4(y: number): string {
  if (y >= 1000 && y <= 9999) return String(y);
  if (y >= 0 && y < 1000) return ("000" + y).slice(-4);
  return (y < 0 ? "-" : "+") + ("000" + Math.abs(y)).slice(-Math.max(4, String(Math.abs(y)).length));
}
