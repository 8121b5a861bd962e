/**
 * Timestamp texts: the record-line timestamp `YYYY-MM-DD HH:MM` (formats.md §2.1), instants
 * with an offset for upload messages (§6.5) and UTC instants for JSON (§6.6).
 */
import { PAD2, civilFromDaysInto, formatCivilDate, pad4, type Civil } from "@/lib/formats/civil";
import type { TimeZone } from "@/lib/formats/timezone";

export { civilFromDays, civilFromDaysInto, daysFromCivil, daysInMonth, isLeapYear } from "@/lib/formats/civil";

/** "00:00" … "23:59", indexed by minute of the day. */
const HHMM: string[] = [];
for (let h = 0; h < 24; h++) for (let m = 0; m < 60; m++) HHMM.push(PAD2[h] + ":" + PAD2[m]);

/**
 * Epoch seconds → local seconds in `zone` (seconds floored, also for negative epochs), keeping
 * the current offset segment so that consecutive instants cost a comparison.
 */
function makeLocalClock(zone: TimeZone): (epochSeconds: number) => number {
  let segStart = 0;
  let segEnd = 0;
  let offset = 0;
  const fixed = zone.fixedOffsetMinutes;
  if (fixed !== null) {
    segStart = -Infinity;
    segEnd = Infinity;
    offset = fixed * 60;
  }
  return (epochSeconds: number): number => {
    const t = Math.floor(epochSeconds);
    if (!(t >= segStart && t < segEnd)) {
      const seg = zone.segmentAt(t);
      segStart = seg.start;
      segEnd = seg.end;
      offset = seg.offset;
    }
    return t + offset;
  };
}

/**
 * A formatter of instants (epoch seconds) as `YYYY-MM-DD HH:MM` in `zone`, seconds
 * truncated (floored, also for negative epochs). Keeps the current offset segment and the
 * text of the current local day, so consecutive calls cost a few arithmetic operations and
 * one string concatenation.
 */
export function makeTimestampFormatter(zone: TimeZone): (epochSeconds: number) => string {
  const localSeconds = makeLocalClock(zone);
  let lastDay = NaN;
  let datePart = "";
  return (epochSeconds: number): string => {
    const local = localSeconds(epochSeconds);
    const day = Math.floor(local / 86400);
    if (day !== lastDay) {
      lastDay = day;
      datePart = formatCivilDate(day) + " ";
    }
    return datePart + HHMM[Math.floor((local - day * 86400) / 60)];
  };
}

/** "00:00" … "23:59" as ASCII bytes, 5 per minute of the day. */
const HHMM_BYTES = Buffer.from(HHMM.join(""), "latin1");

/**
 * makeTimestampFormatter's text written as ASCII bytes into a buffer: `write(buf, at, t)` puts
 * `YYYY-MM-DD HH:MM` at `at` and returns the offset after it. The buffer must have room for
 * MAX_TIMESTAMP_BYTES. The text of the current local day is kept as bytes.
 */
export interface TimestampWriter {
  write(buf: Uint8Array, at: number, epochSeconds: number): number;
}

/** The longest timestamp text: years beyond ±9999 get more digits (and a sign). */
export const MAX_TIMESTAMP_BYTES = 32;

export function makeTimestampWriter(zone: TimeZone): TimestampWriter {
  const localSeconds = makeLocalClock(zone);
  let lastDay = NaN;
  let dateBytes = new Uint8Array(0);
  let d0 = 0, d1 = 0, d2 = 0, d3 = 0, d4 = 0, d5 = 0, d6 = 0, d7 = 0, d8 = 0, d9 = 0;
  let usual = true;
  return {
    write(buf: Uint8Array, at: number, epochSeconds: number): number {
      const local = localSeconds(epochSeconds);
      const day = Math.floor(local / 86400);
      if (day !== lastDay) {
        lastDay = day;
        dateBytes = Buffer.from(formatCivilDate(day), "latin1");
        usual = dateBytes.length === 10;
        if (usual) [d0, d1, d2, d3, d4, d5, d6, d7, d8, d9] = dateBytes;
      }
      if (usual) {
        buf[at] = d0; buf[at + 1] = d1; buf[at + 2] = d2; buf[at + 3] = d3; buf[at + 4] = d4;
        buf[at + 5] = d5; buf[at + 6] = d6; buf[at + 7] = d7; buf[at + 8] = d8; buf[at + 9] = d9;
        at += 10;
      } else {
        buf.set(dateBytes, at);
        at += dateBytes.length;
      }
      buf[at] = 32;
      const m = 5 * Math.floor((local - day * 86400) / 60);
      buf[at + 1] = HHMM_BYTES[m];
      buf[at + 2] = HHMM_BYTES[m + 1];
      buf[at + 3] = 58;
      buf[at + 4] = HHMM_BYTES[m + 3];
      buf[at + 5] = HHMM_BYTES[m + 4];
      return at + 6;
    },
  };
}

const SCRATCH: Civil = { year: 0, month: 0, day: 0 };

function localDateTime(local: number, sep: string): string {
  const day = Math.floor(local / 86400);
  const sod = local - day * 86400;
  const c = civilFromDaysInto(day, SCRATCH);
  const h = Math.floor(sod / 3600);
  const mi = Math.floor((sod - h * 3600) / 60);
  const s = sod - h * 3600 - mi * 60;
  return pad4(c.year) + "-" + PAD2[c.month] + "-" + PAD2[c.day] + sep + PAD2[h] + ":" + PAD2[mi] + ":" + PAD2[s];
}

/** "+02:00", "-05:00", "+00:00"; "+01:34:52" for an offset with seconds. */
export function formatOffset(offsetSeconds: number): string {
  const a = Math.abs(offsetSeconds);
  const h = Math.floor(a / 3600);
  const m = Math.floor((a - h * 3600) / 60);
  const s = a - h * 3600 - m * 60;
  return (offsetSeconds < 0 ? "-" : "+") + PAD2[h] + ":" + PAD2[m] + (s !== 0 ? ":" + PAD2[s] : "");
}

/** `YYYY-MM-DDThh:mm:ss±hh:mm` in `zone`, never `Z` (formats.md §6.5). */
export function formatInstantWithOffset(epochSeconds: number, zone: TimeZone): string {
  const t = Math.floor(epochSeconds);
  const offset = zone.offsetSecondsAt(t);
  return localDateTime(t + offset, "T") + formatOffset(offset);
}

/** `YYYY-MM-DDTHH:MM:SSZ` (JSON `last_update`, dry-run dates). */
export function formatUtcSeconds(epochSeconds: number): string {
  return localDateTime(Math.floor(epochSeconds), "T") + "Z";
}
