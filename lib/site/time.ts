/**
 * Display time zones of stations (api.md §4.1: `UTC`, `Etc/GMT`, `Etc/GMT±N`, POSIX sign) as
 * fixed offsets, and the formatting the site needs. Client-safe: no server imports.
 */

/** Minutes east of UTC of a display zone; null for a name that is not a fixed-offset zone. */
export function zoneOffsetMinutes(zone: string): number | null {
  if (zone === "UTC" || zone === "Etc/GMT" || zone === "Etc/UTC" || zone === "GMT") return 0;
  const m = /^Etc\/GMT([+-])(\d{1,2})$/.exec(zone);
  if (!m) return null;
  const hours = Number(m[2]);
  // POSIX style: Etc/GMT-2 is two hours east of Greenwich.
  return (m[1] === "-" ? 1 : -1) * hours * 60;
}

const pad = (n: number) => String(n).padStart(2, "0");

/** "+02:00" */
export function offsetText(minutes: number): string {
  const sign = minutes < 0 ? "-" : "+";
  const a = Math.abs(minutes);
  return `${sign}${pad(Math.floor(a / 60))}:${pad(a % 60)}`;
}

/** "UTC+02:00" (or "UTC" for zero). */
export function offsetLabel(minutes: number): string {
  return minutes === 0 ? "UTC" : `UTC${offsetText(minutes)}`;
}

/**
 * "UTC+02:00 (Etc/GMT-2)": a display zone as a choice, its offset first (Etc/GMT's sign is
 * POSIX's, the reverse of what people expect); "UTC" for UTC itself, "UTC (Etc/GMT)" for its twin.
 */
export function zoneChoiceLabel(zone: string): string {
  const offset = zoneOffsetMinutes(zone);
  if (offset === null) return zone;
  return zone === "UTC" ? "UTC" : `${offsetLabel(offset)} (${zone})`;
}

/** Zones with summer time that an upload may name (formats.md §3.1), beside the fixed ones. */
const SUMMER_TIME_ZONES = ["Europe/Athens", "Europe/London", "Europe/Berlin"];

export interface ZoneChoice {
  value: string;
  label: string;
}

/** The words of the zone choices' labels, in the page's language (the catalogue's manageZones). */
export interface ZoneWords {
  /** "Europe/Athens (with summer time)" */
  summerTime(zone: string): string;
  /** "UTC+02:00 (Etc/GMT-2), the station's" */
  station(label: string): string;
}

const ENGLISH_ZONE_WORDS: ZoneWords = { summerTime: (zone) => `${zone} (with summer time)`, station: (label) => `${label}, the station's` };

/**
 * The time zones the site's forms offer, one list for every form (station, synoptic group,
 * download, upload), each label distinct: the station's zone first when given ("…, the
 * station's"), then UTC and the fixed offsets from west to east (the display zones of api.md
 * §4.1), then, for uploads, a few zones with summer time. `words` writes the labels in another
 * language: `{ summerTime: (zone) => t("summerTime", { zone }), station: (label) => t("station", { label }) }`.
 */
export function zoneChoices(options: { station?: string; summerTime?: boolean; words?: ZoneWords } = {}): ZoneChoice[] {
  const words = options.words ?? ENGLISH_ZONE_WORDS;
  const fixed = ["UTC", "Etc/GMT", ...Array.from({ length: 12 }, (_, i) => `Etc/GMT+${12 - i}`), ...Array.from({ length: 14 }, (_, i) => `Etc/GMT-${i + 1}`)]
    .sort((a, b) => (zoneOffsetMinutes(a) ?? 0) - (zoneOffsetMinutes(b) ?? 0));
  const rest = [...fixed, ...(options.summerTime ? SUMMER_TIME_ZONES : [])].filter((z) => z !== options.station);
  const label = (z: string) => (SUMMER_TIME_ZONES.includes(z) ? words.summerTime(z) : zoneChoiceLabel(z));
  return [
    ...(options.station ? [{ value: options.station, label: words.station(label(options.station)) }] : []),
    ...rest.map((z) => ({ value: z, label: label(z) })),
  ];
}

function civil(epochSeconds: number, offsetMinutes: number): Date {
  return new Date((epochSeconds + offsetMinutes * 60) * 1000);
}

/** "2025-03-01" in the zone. */
export function formatDate(epochSeconds: number, offsetMinutes: number): string {
  const d = civil(epochSeconds, offsetMinutes);
  return `${String(d.getUTCFullYear()).padStart(4, "0")}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())}`;
}

/** "2025-03-01 14:00" in the zone. */
export function formatDateTime(epochSeconds: number, offsetMinutes: number): string {
  const d = civil(epochSeconds, offsetMinutes);
  return `${formatDate(epochSeconds, offsetMinutes)} ${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}`;
}

/** "2025-03-01T14:00" (the value of an <input type="datetime-local">) in the zone. */
export function formatLocalInput(epochSeconds: number, offsetMinutes: number): string {
  return formatDateTime(epochSeconds, offsetMinutes).replace(" ", "T");
}

/** "2025-03-01T14:00:00+02:00": an instant written in the zone, as the chart and data endpoints read it. */
export function isoWithOffset(epochSeconds: number, offsetMinutes: number): string {
  const d = civil(epochSeconds, offsetMinutes);
  return `${formatDate(epochSeconds, offsetMinutes)}T${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())}${offsetText(offsetMinutes)}`;
}

/**
 * Reads "YYYY-MM-DD", "YYYY-MM-DDThh:mm[:ss]" (read in the zone) or either followed by an offset
 * or "Z"; null when malformed.
 */
export function parseInstant(text: string, offsetMinutes: number): number | null {
  const m = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2}))?(?:\.\d+)?)?\s*(Z|[+-]\d{2}(?::?\d{2})?)?$/i.exec(text.trim());
  if (!m) return null;
  const [, y, mo, d, h = "0", mi = "0", s = "0", off] = m;
  const date = new Date(0);
  date.setUTCFullYear(Number(y), Number(mo) - 1, Number(d));
  date.setUTCHours(Number(h), Number(mi), Number(s), 0);
  if (date.getUTCMonth() !== Number(mo) - 1 || Number(h) > 23 || Number(mi) > 59 || Number(s) > 59) return null;
  let offset = offsetMinutes;
  if (off) {
    if (off.toUpperCase() === "Z") offset = 0;
    else {
      const om = /^([+-])(\d{2}):?(\d{2})?$/.exec(off)!;
      offset = (om[1] === "-" ? -1 : 1) * (Number(om[2]) * 60 + Number(om[3] ?? 0));
    }
  }
  return Math.floor(date.getTime() / 1000) - offset * 60;
}
