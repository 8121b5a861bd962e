/**
 * The `start_date` / `end_date` parameters (formats.md §3.4).
 */
import { scanDateTime, scanned } from "@/lib/formats/datetime-scan";
import type { TimeZone } from "@/lib/formats/timezone";

/** The 400 message for an unparsable date parameter (formats.md §3.4 rule 6). */
export const DATETIME_FORMAT_MESSAGE =
  "Datetime has wrong format. Use one of these formats instead: YYYY-MM-DD, YYYY-MM-DDThh:mm[:ss[.uuuuuu]][+HH:MM|-HH:MM|Z].";

/** 1680-01-01T00:00:00Z */
export const MIN_INSTANT = -9151488000;
/** 2260-01-01T00:00:00Z */
export const MAX_INSTANT = 9151488000;

/**
 * The instant (epoch seconds) of a date parameter, or "invalid". Naive values are read in the
 * station's display zone (never the `timezone` parameter); a space before the offset is read
 * as `+`; a fractional second is rounded up for "start" and down for "end"; the result is
 * clamped to [MIN_INSTANT, MAX_INSTANT]. The caller treats "" as absent.
 */
export function parseDateParam(value: string, displayZone: TimeZone, bound: "start" | "end"): number | "invalid" {
  if (!scanDateTime(value, 0, value.length, true)) return "invalid";
  const fraction = scanned.fraction;
  const local = scanned.local;
  let t: number;
  if (scanned.hasOffset) {
    t = local - scanned.offset;
  } else {
    const u = displayZone.naiveToUtc(local);
    // Display zones are fixed-offset (§3.2), so a skipped local time cannot occur; should one
    // occur anyway, read it with the offset in force a day earlier (the pre-transition one).
    t = u === "nonexistent" ? local - displayZone.offsetSecondsAt(local - 86400) : u;
  }
  if (fraction && bound === "start") t += 1;
  if (t < MIN_INSTANT) t = MIN_INSTANT;
  else if (t > MAX_INSTANT) t = MAX_INSTANT;
  return t;
}
