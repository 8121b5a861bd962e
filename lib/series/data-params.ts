import { settings } from "@/lib/config";
import { DEFAULT_CHART_POINTS, MAX_CHART_POINTS } from "@/lib/formats/chart";
import { DATETIME_FORMAT_MESSAGE, parseDateParam } from "@/lib/formats/date-param";
import { HTS_CONTENT_TYPE } from "@/lib/formats/hts";
import { invalidTimeZoneMessage, isFixedOffset, noFixedOffsetMessage, resolveTimeZone, type TimeZone } from "@/lib/formats/timezone";
import { makeEtag, type Validators } from "@/lib/http/conditional";
import { MSG } from "@/lib/http/fields";
import type { ChartSelection, DataSelection, OutputFormat } from "@/lib/series/data";
import { ErrorCollector } from "@/lib/domain/errors";
import { displayZone, latestModification, type SeriesContext } from "@/lib/series/context";

/**
 * The parameters and validators of the data endpoints (api.md §8, formats.md §2.2, §3, §7.1,
 * §9), read from the query string; every problem of a request is reported in one 400.
 */

/**
 * Reads a `timezone` parameter (formats.md §3.1); the default is the station's display zone.
 * The zone keeps the name as the client sent it (or as the station stores it): HTS echoes it.
 */
export function readZone(value: string | null | undefined, s: SeriesContext, errors: ErrorCollector, field = "timezone"): TimeZone {
  const fallback = displayZone(s);
  if (value === null || value === undefined || value === "") return fallback;
  // A "+" sent unencoded arrives as a space (Etc/GMT+5 → "Etc/GMT 5").
  const zone = resolveTimeZone(value) ?? (value.includes(" ") ? resolveTimeZone(value.replace(/ /g, "+")) : null);
  if (!zone) errors.add(field, invalidTimeZoneMessage(value));
  return zone ?? fallback;
}

/** `start_date`/`end_date` (formats.md §3.4): naive values in the display zone; clamped; null when absent. */
export function readRange(params: URLSearchParams, s: SeriesContext, errors: ErrorCollector): { start: number | null; end: number | null } {
  const zone = displayZone(s);
  const read = (name: "start_date" | "end_date", bound: "start" | "end") => {
    const value = params.get(name);
    if (value === null || value === "") return null;
    const instant = parseDateParam(value, zone, bound);
    if (instant === "invalid") {
      errors.add(name, DATETIME_FORMAT_MESSAGE);
      return null;
    }
    return instant;
  };
  return { start: read("start_date", "start"), end: read("end_date", "end") };
}

/** The validators of a data response of `kind` with its effective parameters (formats.md §9). */
export function validators(s: SeriesContext, kind: string, effective: unknown[]): Validators {
  const stamp = (d: Date | null) => d?.getTime() ?? null;
  const etag = makeEtag(s.id, s.version, [kind, ...effective, stamp(s.group.lastModified), stamp(s.station.lastModified),
    stamp(s.variable.lastModified), stamp(s.unit.lastModified)]);
  const open = s.publiclyAvailable && !settings().authenticationRequired;
  return { etag, lastModified: latestModification(s), cacheControl: `${open ? "public" : "private"}, no-cache` };
}

export interface DataRequest extends DataSelection {
  validators: Validators;
}

/** The parameters of GET data/ (formats.md §2.2). */
export function dataRequest(params: URLSearchParams, s: SeriesContext): DataRequest {
  const errors = new ErrorCollector();
  const rawFmt = params.get("fmt") ?? "";
  const fmt = (rawFmt === "" ? "csv" : rawFmt.toLowerCase()) as OutputFormat;
  if (!["csv", "hts", "hts2"].includes(fmt)) errors.add("fmt", MSG.choice(rawFmt));
  const output = readZone(params.get("timezone"), s, errors);
  if (fmt !== "csv" && !errors.has("timezone") && !isFixedOffset(output)) errors.add("timezone", noFixedOffsetMessage(output.name));
  const { start, end } = readRange(params, s, errors);
  errors.throwIfAny();
  return { fmt, output, start, end, validators: validators(s, "data", [fmt, output.name, start, end]) };
}

export function dataHeaders(s: SeriesContext, fmt: OutputFormat): Record<string, string> {
  return fmt === "csv"
    ? { "Content-Type": "text/csv; charset=utf-8", "Content-Disposition": `inline; filename="${s.id}.csv"` }
    : { "Content-Type": HTS_CONTENT_TYPE, "Content-Disposition": `inline; filename="${s.id}.hts"` };
}

/** The parameters of GET bottom/ (formats.md §2.3). */
export function bottomRequest(params: URLSearchParams, s: SeriesContext): { output: TimeZone; validators: Validators } {
  const errors = new ErrorCollector();
  const output = readZone(params.get("timezone"), s, errors);
  errors.throwIfAny();
  return { output, validators: validators(s, "bottom", [output.name]) };
}

export interface ChartRequest extends ChartSelection {
  validators: Validators;
}

/** The parameters of GET chart/ (formats.md §7.1). */
export function chartRequest(params: URLSearchParams, s: SeriesContext): ChartRequest {
  const errors = new ErrorCollector();
  const { start, end } = readRange(params, s, errors);
  const raw = params.get("points");
  let points = DEFAULT_CHART_POINTS;
  if (raw !== null && raw !== "") {
    if (!/^\s*[+-]?\d+\s*$/.test(raw)) errors.add("points", MSG.integer);
    else if (Number(raw) < 1) errors.add("points", MSG.minValue(1));
    else if (Number(raw) > MAX_CHART_POINTS) errors.add("points", MSG.maxValue(MAX_CHART_POINTS));
    else points = Number(raw);
  }
  errors.throwIfAny();
  return { start, end, points, validators: validators(s, "chart", [start, end, points]) };
}
