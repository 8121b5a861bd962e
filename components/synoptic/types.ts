/** `latest/` (synoptic.md §1) as the synoptic pages read it (types only: nothing of the server reaches the browser). */
import { decimalIn } from "@/lib/i18n/format";
import type { Locale } from "@/lib/i18n/locales";
import type { LatestStationJson, LatestStatus } from "@/lib/synoptic";

export type { LatestStatus };
export type LatestStation = LatestStationJson;
export type LatestValue = LatestStationJson["values"][number];

/** The key in the "synoptic" catalogue of the words for a status, for people and screen readers. */
export const STATUS_KEYS = {
  ok: "statusOk",
  low: "statusLow",
  high: "statusHigh",
  error: "statusError",
  hidden: "statusHidden",
} as const satisfies Record<LatestStatus, string>;

/**
 * A value with its group's precision (the value is already rounded to it), and its unit, in the
 * page's language (its decimal separator); `hidden` is the word for a value the user may not see.
 */
export function valueText(v: LatestValue, precision: number | undefined, words: { locale: Locale; hidden: string } = { locale: "en", hidden: "hidden" }): string {
  if (v.status === "hidden") return words.hidden;
  if (v.value === null) return "—";
  const text = decimalIn(words.locale, precision !== undefined && precision > 0 ? v.value.toFixed(precision) : String(v.value));
  return v.unit ? `${text} ${v.unit}` : text;
}

/** A duration in its largest whole unit (a key of the "synoptic" catalogue, a plural): 1 hour, 90 minutes, 2 days, 45 seconds. */
export function durationParts(seconds: number): { unit: "day" | "hour" | "minute" | "second"; count: number } {
  const units = [[86400, "day"], [3600, "hour"], [60, "minute"], [1, "second"]] as const;
  const [size, unit] = units.find(([u]) => seconds % u === 0)!;
  return { unit, count: seconds / size };
}
