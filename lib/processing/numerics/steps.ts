/**
 * Durations of processing configurations: a rate-of-change `delta_t`, an aggregation's
 * `target_time_step`, a source series' `time_step` (formats.md §4 strings), and an
 * aggregation's `resulting_timestamp_offset`.
 */
import { timeStepToMinutesMonths } from "@/lib/formats/time-step";

export type Seconds = { seconds: number; reason?: undefined } | { seconds: null; reason: string };

/**
 * Seconds of a fixed time step: `10min`, `1h`/`1H`, `1D`, a bare unit meaning 1 of it. Months
 * and years are not fixed durations, so the libraries cannot use them.
 */
export function stepSeconds(text: string): Seconds {
  if (text === "") return { seconds: null, reason: "The time step is empty." };
  const minutesMonths = timeStepToMinutesMonths(text);
  if (minutesMonths === null) return { seconds: null, reason: `"${text}" is not a valid time step.` };
  const [minutes, months] = minutesMonths;
  if (months !== 0) {
    return { seconds: null, reason: `"${text}" is in months or years; only minutes, hours and days are supported.` };
  }
  return { seconds: minutes * 60 };
}

const OFFSET = /^(-?)([1-9][0-9]*)min$/;

/**
 * Seconds that `resulting_timestamp_offset` takes off the aggregated timestamps: `""` → 0,
 * `1min` → 60 (daily values stamped 23:59), `-30min` → −1800 (stamped 30 minutes later).
 */
export function timestampOffsetSeconds(text: string): Seconds {
  if (text === "") return { seconds: 0 };
  const m = OFFSET.exec(text);
  if (m === null || !Number.isSafeInteger(Number(m[2]) * 60)) {
    return { seconds: null, reason: `"${text}" is not a valid resulting timestamp offset.` };
  }
  return { seconds: (m[1] === "-" ? -60 : 60) * Number(m[2]) };
}
