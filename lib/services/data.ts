import { namedCache } from "@/lib/cache";
import { settings } from "@/lib/config";
import { chartPoints, chartRange, DEFAULT_CHART_POINTS, MAX_CHART_POINTS } from "@/lib/formats/chart";
import { DATETIME_FORMAT_MESSAGE, MAX_INSTANT, MIN_INSTANT, parseDateParam } from "@/lib/formats/date-param";
import { htsHeader, HTS_CONTENT_TYPE } from "@/lib/formats/hts";
import { bottomLine, formatRecordLines } from "@/lib/formats/records";
import { makeTimestampFormatter } from "@/lib/formats/timestamp";
import { invalidTimeZoneMessage, isFixedOffset, noFixedOffsetMessage, resolveTimeZone, type TimeZone } from "@/lib/formats/timezone";
import { makeEtag, type Validators } from "@/lib/http/conditional";
import { ErrorCollector } from "@/lib/http/errors";
import { MSG } from "@/lib/http/fields";
import { records } from "@/lib/records";
import { latestModification, type SeriesContext } from "@/lib/services/series-context";

/**
 * The read side of the data endpoints (api.md §8, formats.md §2, §5, §7, §9): parameters,
 * validators, the streamed CSV/HTS body, bottom and chart.
 */
export type OutputFormat = "csv" | "hts" | "hts2";

/**
 * Reads a `timezone` parameter (formats.md §3.1); the default is the station's display zone.
 * The zone keeps the name as the client sent it (or as the station stores it): HTS echoes it.
 */
export function readZone(value: string | null | undefined, s: SeriesContext, errors: ErrorCollector, field = "timezone"): TimeZone {
  const fallback = resolveTimeZone(s.station.displayTimezone)!;
  if (value === null || value === undefined || value === "") return fallback;
  // A "+" sent unencoded arrives as a space (Etc/GMT+5 → "Etc/GMT 5").
  const zone = resolveTimeZone(value) ?? (value.includes(" ") ? resolveTimeZone(value.replace(/ /g, "+")) : null);
  if (!zone) errors.add(field, invalidTimeZoneMessage(value));
  return zone ?? fallback;
}

/** `start_date`/`end_date` (formats.md §3.4): naive values in the display zone; clamped; null when absent. */
export function readRange(params: URLSearchParams, s: SeriesContext, errors: ErrorCollector): { start: number | null; end: number | null } {
  const displayZone = resolveTimeZone(s.station.displayTimezone)!;
  const read = (name: "start_date" | "end_date", bound: "start" | "end") => {
    const value = params.get(name);
    if (value === null || value === "") return null;
    const instant = parseDateParam(value, displayZone, bound);
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

export interface DataRequest {
  fmt: OutputFormat;
  output: TimeZone;
  start: number | null;
  end: number | null;
  validators: Validators;
}

/** The parameters of GET data/ (formats.md §2.2); every problem is reported in one 400. */
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

/** Streams record lines of [from, to] after an optional prefix (the HTS header); memory stays bounded. */
export function recordLinesStream(seriesId: number, from: number, to: number, precision: number, zone: TimeZone, prefix = ""): ReadableStream<Uint8Array> {
  const format = makeTimestampFormatter(zone);
  let chunks: AsyncGenerator<{ timestamps: Float64Array; values: Float64Array; flags: string[]; length: number }> | null = null;
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (!chunks) {
        chunks = records().read(seriesId, from, to);
        if (prefix) {
          controller.enqueue(Buffer.from(prefix, "utf8"));
          return;
        }
      }
      const { done, value } = await chunks.next();
      if (done) controller.close();
      else controller.enqueue(Buffer.from(formatRecordLines(value.timestamps, value.values, value.flags, value.length, precision, format), "utf8"));
    },
    async cancel() {
      await chunks?.return(undefined);
    },
  }, { highWaterMark: 1 });
}

/** The body of GET data/: record lines, after the HTS header for hts/hts2. */
export async function dataBody(s: SeriesContext, r: DataRequest): Promise<ReadableStream<Uint8Array>> {
  const from = r.start ?? MIN_INSTANT;
  const to = r.end ?? MAX_INSTANT;
  let prefix = "";
  if (r.fmt !== "csv") {
    const count = to < from ? 0 : r.start === null && r.end === null ? s.recordCount : await records().count(s.id, from, to);
    prefix = htsHeader(r.fmt === "hts" ? 1 : 2, {
      count, groupName: s.group.name, variableDescr: s.variable.descr, stationName: s.station.name, groupRemarks: s.group.remarks,
      zone: r.output, timeStep: s.timeStep, precision: s.group.precision,
      lon: s.station.lon, lat: s.station.lat, altitude: s.station.altitude,
    });
  }
  return recordLinesStream(s.id, from, to < from ? from - 1 : to, s.group.precision, r.output, prefix);
}

/** GET bottom/ (formats.md §2.3): the last record's line without CR LF; any zone. */
export function bottomRequest(params: URLSearchParams, s: SeriesContext): { output: TimeZone; validators: Validators } {
  const errors = new ErrorCollector();
  const output = readZone(params.get("timezone"), s, errors);
  errors.throwIfAny();
  return { output, validators: validators(s, "bottom", [output.name]) };
}

export function bottomBody(s: SeriesContext, output: TimeZone): string {
  if (s.lastTimestamp === null) return "";
  return bottomLine(s.lastTimestamp, s.lastValue, s.lastFlags ?? "", s.group.precision, makeTimestampFormatter(output));
}

export interface ChartRequest {
  start: number | null;
  end: number | null;
  points: number;
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

const chartCache = () => namedCache("chart", 32 * 1024 * 1024);

/** The chart JSON (formats.md §7.2), computed from the stored blocks and cached per version. */
export async function chartBody(s: SeriesContext, r: ChartRequest): Promise<string> {
  const cached = chartCache().get(r.validators.etag);
  if (cached !== undefined) return cached;
  const range = chartRange(r.start, r.end, s.firstTimestamp, s.lastTimestamp);
  let body = "[]";
  if (range) {
    const aggregates = await records().aggregate(s.id, range.S, range.E, r.points);
    body = JSON.stringify(chartPoints(range.S, range.E, r.points, aggregates, s.group.precision));
  }
  chartCache().set(r.validators.etag, body);
  return body;
}
