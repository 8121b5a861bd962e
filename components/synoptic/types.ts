/** `latest/` (synoptic.md §1) as the synoptic pages read it (types only: nothing of the server reaches the browser). */
import type { LatestStationJson, LatestStatus } from "@/lib/synoptic";

export type { LatestStatus };
export type LatestStation = LatestStationJson;
export type LatestValue = LatestStationJson["values"][number];

/** The words for a status, for people and screen readers. */
export const STATUS_WORDS: Record<LatestStatus, string> = {
  ok: "within limits",
  low: "below the low limit",
  high: "above the high limit",
  error: "no value at the last common date",
  hidden: "not public",
};

/** A value with its group's precision (the value is already rounded to it), and its unit. */
export function valueText(v: LatestValue, precision: number | undefined): string {
  if (v.status === "hidden") return "hidden";
  if (v.value === null) return "—";
  const text = precision !== undefined && precision > 0 ? v.value.toFixed(precision) : String(v.value);
  return v.unit ? `${text} ${v.unit}` : text;
}

/** "1 hour", "90 minutes", "2 days", "45 seconds". */
export function durationWords(seconds: number): string {
  const units: [number, string][] = [[86400, "day"], [3600, "hour"], [60, "minute"], [1, "second"]];
  const [size, word] = units.find(([u]) => seconds % u === 0)!;
  const n = seconds / size;
  return `${n} ${word}${n === 1 ? "" : "s"}`;
}
