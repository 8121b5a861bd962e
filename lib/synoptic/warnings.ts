/**
 * The words of an early warning (synoptic.md §3): one e-mail listing every station and variable
 * in alarm with its value, the limit it crossed (or the change that failed its rate-of-change
 * thresholds) and the time, in the synoptic group's time zone. The lines follow the reference's
 * ("Komboti Air temperature 2015-10-22 15:20 17.0 (low limit 17.1)").
 */
import { formatValue } from "@/lib/formats/value";
import { formatDateTime, offsetLabel, zoneOffsetMinutes } from "@/lib/site/time";

export type AlarmKind = "low" | "high" | "rate_of_change";
export const ALARM_KINDS: readonly AlarmKind[] = ["low", "high", "rate_of_change"];

/** One alarm as a warning lists it (stored with the warning, as JSON). */
export interface WarningItem {
  station: string;
  /** The variable as the synoptic group names it: title, and subtitle in brackets. */
  variable: string;
  kind: AlarmKind;
  /** UTC seconds: the station's last common date. */
  time: number;
  value: number;
  precision: number;
  unit: string;
  /** The low or high limit crossed. */
  limit?: number;
  /** The change that failed its rate-of-change thresholds. */
  change?: { diff: number; allowed: number; over: string; implied: boolean };
  /** Raised by this evaluation (false: still in alarm since an earlier warning). */
  fresh: boolean;
}

/** "10min", "2h", "1D", "1D 2h 10min": a duration as the thresholds write them. */
export function durationText(seconds: number): string {
  if (seconds <= 0 || seconds % 60 !== 0) return `${seconds}s`;
  const parts: string[] = [];
  let rest = seconds / 60;
  for (const [unit, minutes] of [["D", 1440], ["h", 60], ["min", 1]] as const) {
    const n = Math.floor(rest / minutes);
    if (n > 0) parts.push(`${n}${unit}`);
    rest -= n * minutes;
  }
  return parts.join(" ");
}

const withUnit = (text: string, unit: string) => (unit ? `${text} ${unit}` : text);

/** What crossed what: "(high limit 4)", or "+1.2 in 10min (> 0.5)". */
function reason(item: WarningItem): string {
  if (item.kind !== "rate_of_change") return `(${item.kind} limit ${withUnit(String(item.limit), item.unit)})`;
  const c = item.change!;
  const sign = c.diff > 0 ? "+" : "";
  const bound = c.diff < 0 ? -Math.abs(c.allowed) : Math.abs(c.allowed);
  return `${sign}${formatValue(c.diff, item.precision)} in ${c.over} (${c.diff > 0 ? ">" : "<"} ${bound}${c.implied ? ", thresholds summed" : ""})`;
}

/** One line of the e-mail. */
export function warningLine(item: WarningItem, zone: string): string {
  const time = formatDateTime(item.time, zoneOffsetMinutes(zone) ?? 0);
  const value = withUnit(formatValue(item.value, item.precision), item.unit);
  return item.kind === "rate_of_change"
    ? `${item.station} ${item.variable} ${time} ${value}: ${reason(item)}`
    : `${item.station} ${item.variable} ${time} ${value} ${reason(item)}`;
}

export interface WarningMail {
  subject: string;
  body: string;
}

/**
 * The e-mail of a warning: the new alarms first, then those still in force from earlier warnings.
 * `siteName` names the service in the subject ("Enhydris" when empty); `pageUrl` is the synoptic
 * page, when the site's URL is known.
 */
export function warningMail(options: { siteName: string; groupName: string; zone: string; pageUrl: string | null; items: WarningItem[] }): WarningMail {
  const fresh = options.items.filter((i) => i.fresh);
  const ongoing = options.items.filter((i) => !i.fresh);
  const stations = [...new Set(fresh.map((i) => i.station))].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  const zone = `${options.zone} (${offsetLabel(zoneOffsetMinutes(options.zone) ?? 0)})`;
  const lines = [
    `Early warning of the synoptic group "${options.groupName}"${options.pageUrl ? ` (${options.pageUrl})` : ""}. Times are in ${zone}.`,
    "",
    ...fresh.map((i) => warningLine(i, options.zone)),
  ];
  if (ongoing.length) lines.push("", "Still out of bounds since earlier warnings:", ...ongoing.map((i) => warningLine(i, options.zone)));
  return { subject: `${options.siteName || "Enhydris"} early warning (${stations.join(", ")})`, body: `${lines.join("\n")}\n` };
}
