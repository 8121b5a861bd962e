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

/** "UTC+02:00 (Etc/GMT-2)": a display zone as a choice, its offset first (Etc/GMT's sign is POSIX's, the reverse of what people expect). */
export function zoneChoiceLabel(zone: string): string {
  return `${offsetLabel(zoneOffsetMinutes(zone) ?? 0)} (${zone})`;
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

/** The fixed-offset zones the data endpoint accepts for every format (formats.md §3.3). */
export function fixedOffsetZones(): { name: string; label: string }[] {
  const zones = [{ name: "UTC", label: "UTC" }];
  for (let h = -12; h <= 14; h++) {
    if (h === 0) continue;
    const name = `Etc/GMT${h > 0 ? "-" : "+"}${Math.abs(h)}`;
    zones.push({ name, label: `${offsetLabel(h * 60)} (${name})` });
  }
  return zones;
}
