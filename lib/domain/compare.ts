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
}
