/**
 * "Compare with…" (corrections.md §3): other series overlaid on a chart, as the browser's picker
 * and the workbench's address (lib/series/workbench.ts) both name them.
 */

/** Series a chart compares at most. */
export const MAX_COMPARED = 5;

export interface ComparedSeries {
  stationId: number;
  groupId: number;
  seriesId: number;
  /** "Station · series name", as the picker lists it. */
  label: string;
  /** The unit's symbol: a unit of its own gets a value axis of its own. */
  unit: string;
  /** The series' time step in seconds (a month as 31 days), null when irregular: which empty chart intervals are gaps (components/chart/gaps.ts). */
  step: number | null;
}

/** The longest time (seconds) between two records that is not a gap: the step of `time_step` (formats.md §4.2), a month as 31 days. */
export function stepSeconds(minutesMonths: [number, number] | null): number | null {
  if (!minutesMonths) return null;
  const [minutes, months] = minutesMonths;
  return minutes * 60 + months * 31 * 86400;
}
