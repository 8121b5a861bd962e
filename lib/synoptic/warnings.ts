/**
 * The words of an early warning (synoptic.md §3): one e-mail listing every station and variable
 * in alarm with its value, the limit it crossed (or the change that failed its rate-of-change
 * thresholds) and the time, in the synoptic group's time zone. The lines follow the reference's
 * ("Komboti Air temperature 2015-10-22 15:20 17.0 (low limit 17.1)").
 */
import { formatValue } from "@/lib/formats/value";
import { decimalIn, DEFAULT_LOCALE, translator, type Locale } from "@/lib/i18n";
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

/** What crossed what: "(high limit 4)", or "+1.2 in 10min (> 0.5)"; numbers with the language's decimal separator. */
function reason(item: WarningItem, locale: Locale): string {
  const t = translator(locale, "mailAlarm");
  if (item.kind !== "rate_of_change") {
    const limit = withUnit(decimalIn(locale, String(item.limit)), item.unit);
    return item.kind === "low" ? t("lowLimit", { limit }) : t("highLimit", { limit });
  }
  const c = item.change!;
  const sign = c.diff > 0 ? "+" : "";
  const bound = c.diff < 0 ? -Math.abs(c.allowed) : Math.abs(c.allowed);
  return t("change", {
    diff: `${sign}${decimalIn(locale, formatValue(c.diff, item.precision))}`, over: c.over, comparison: c.diff > 0 ? ">" : "<",
    bound: decimalIn(locale, String(bound)), summed: c.implied ? t("thresholdsSummed") : "",
  });
}

/** One line of the e-mail. */
export function warningLine(item: WarningItem, zone: string, locale: Locale = DEFAULT_LOCALE): string {
  const time = formatDateTime(item.time, zoneOffsetMinutes(zone) ?? 0);
  const value = withUnit(decimalIn(locale, formatValue(item.value, item.precision)), item.unit);
  return item.kind === "rate_of_change"
    ? `${item.station} ${item.variable} ${time} ${value}: ${reason(item, locale)}`
    : `${item.station} ${item.variable} ${time} ${value} ${reason(item, locale)}`;
}

export interface WarningMail {
  subject: string;
  body: string;
}

/**
 * The e-mail of a warning: the new alarms first, then those still in force from earlier warnings.
 * `siteName` names the service in the subject ("Enhydris" when empty); `pageUrl` is the synoptic
 * page, when the site's URL is known. In English unless `locale` says otherwise (public.md §3):
 * the warning as recorded (and as the API shows it) is the English one.
 */
export function warningMail(options: { siteName: string; groupName: string; zone: string; pageUrl: string | null; items: WarningItem[]; locale?: Locale }): WarningMail {
  const locale = options.locale ?? DEFAULT_LOCALE;
  const t = translator(locale, "mailAlarm");
  const fresh = options.items.filter((i) => i.fresh);
  const ongoing = options.items.filter((i) => !i.fresh);
  const stations = [...new Set(fresh.map((i) => i.station))].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  const zone = `${options.zone} (${offsetLabel(zoneOffsetMinutes(options.zone) ?? 0)})`;
  const lines = [
    t("intro", { group: t("groupNamed", { name: options.groupName }), page: options.pageUrl ? ` (${options.pageUrl})` : "", zone }),
    "",
    ...fresh.map((i) => warningLine(i, options.zone, locale)),
  ];
  if (ongoing.length) lines.push("", t("stillOut"), ...ongoing.map((i) => warningLine(i, options.zone, locale)));
  return { subject: t("subject", { site: options.siteName || "Enhydris", stations: stations.join(", ") }), body: `${lines.join("\n")}\n` };
}
