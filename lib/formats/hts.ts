/**
 * HTS headers (formats.md §5.2–5.4): `fmt=hts` (version 1) and `fmt=hts2` (version 2).
 */
import { timeStepToMinutesMonths } from "@/lib/formats/time-step";
import { fixedOffsetLabel, type TimeZone } from "@/lib/formats/timezone";
import { formatValue } from "@/lib/formats/value";

export interface HtsMeta {
  /** Number of record lines that follow. */
  count: number;
  /** The group name; the title falls back to `variableDescr` when it is empty. */
  groupName: string;
  /** The descr of the group's variable. */
  variableDescr: string;
  stationName: string;
  /** The group remarks, split into `Comment` lines. */
  groupRemarks: string;
  /** The output zone: must be fixed-offset (§3.3); its name is echoed as given. */
  zone: TimeZone;
  /** The stored time step string ("" = no `Time_step` line). */
  timeStep: string;
  precision: number;
  /** WGS84 longitude and latitude; the `Location` line is omitted when either is null. */
  lon: number | null;
  lat: number | null;
  /** The `Altitude` line is omitted when null. */
  altitude: number | null;
}

export const HTS_CONTENT_TYPE = "text/vnd.openmeteo.timeseries; charset=utf-8";

/** A single-line header value: every CR and every LF becomes one space (§5.4). */
export function singleLine(s: string): string {
  return s.replace(/[\r\n]/g, " ");
}

/** The `Comment` values of §5.4: `<station name>\n\n<remarks>` split at CR LF, LF or CR. */
export function commentLines(stationName: string, remarks: string): string[] {
  const pieces = (stationName + "\n\n" + remarks).split(/\r\n|\n|\r/);
  if (pieces.length > 1 && pieces[pieces.length - 1] === "") pieces.pop();
  return pieces;
}

/** `Timezone` value: `<name> (UTC±hhmm)`. */
export function htsTimezoneValue(zone: TimeZone): string {
  return `${zone.name} (UTC${fixedOffsetLabel(zone)})`;
}

/**
 * The header lines and the empty line that ends the header, every line ending in CR LF.
 * Throws when the zone has no fixed offset (callers answer 400 before, §3.3).
 */
export function htsHeader(version: 1 | 2, meta: HtsMeta): string {
  const lines: string[] = [];
  if (version === 2) lines.push("Version=2");
  lines.push(`Count=${meta.count}`);
  lines.push(`Title=${singleLine(meta.groupName !== "" ? meta.groupName : meta.variableDescr)}`);
  for (const c of commentLines(meta.stationName, meta.groupRemarks)) lines.push(`Comment=${c}`);
  lines.push(`Timezone=${htsTimezoneValue(meta.zone)}`);
  const step = timeStepToMinutesMonths(meta.timeStep);
  if (step !== null) lines.push(`Time_step=${step[0]},${step[1]}`);
  lines.push(`Variable=${singleLine(meta.variableDescr)}`);
  lines.push(`Precision=${meta.precision}`);
  if (version === 1) {
    // Coordinates that are not finite (never stored by the API) are left out, as missing ones.
    if (meta.lon !== null && meta.lat !== null && Number.isFinite(meta.lon) && Number.isFinite(meta.lat)) {
      lines.push(`Location=${formatValue(meta.lon, 6)} ${formatValue(meta.lat, 6)} 4326`);
    }
    if (meta.altitude !== null && Number.isFinite(meta.altitude)) lines.push(`Altitude=${formatValue(meta.altitude, 2)}`);
  }
  lines.push("");
  return lines.join("\r\n") + "\r\n";
}
