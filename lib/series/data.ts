import { namedCache } from "@/lib/runtime/cache";
import { chartPoints, chartRange } from "@/lib/formats/chart";
import { MAX_INSTANT, MIN_INSTANT } from "@/lib/formats/date-param";
import { htsHeader } from "@/lib/formats/hts";
import { bottomLine, recordLinesBytes } from "@/lib/formats/records";
import { makeTimestampFormatter, makeTimestampWriter } from "@/lib/formats/timestamp";
import type { TimeZone } from "@/lib/formats/timezone";
import { records } from "@/lib/records";
import type { SeriesContext } from "@/lib/series/context";

/**
 * The read side of the data endpoints (api.md §8, formats.md §2, §5, §7): the streamed CSV/HTS
 * body, bottom and chart of a series the caller may read (series-context.ts readableSeries),
 * for parameters already read (lib/series/data-params.ts).
 */
export type OutputFormat = "csv" | "hts" | "hts2";

/** What GET data/ returns: the format, the zone of the timestamps and the range (null: unbounded). */
export interface DataSelection {
  fmt: OutputFormat;
  output: TimeZone;
  start: number | null;
  end: number | null;
}

/**
 * Streams record lines of [from, to] after an optional prefix (the HTS header); memory stays
 * bounded. The read begins at once, where the stream is made: within the handler's read snapshot
 * (lib/db: withReadSnapshot), so that the records are those of the state the handler read the
 * series in (its version, its count), and the snapshot is let go once they are fetched.
 */
export function recordLinesStream(seriesId: number, from: number, to: number, precision: number, zone: TimeZone, prefix = ""): ReadableStream<Uint8Array> {
  const timestamp = makeTimestampWriter(zone);
  type Chunks = AsyncGenerator<{ timestamps: Float64Array; values: Float64Array; flags: string[]; length: number }>;
  const chunks: Chunks = records().read(seriesId, from, to);
  // The first chunk, asked for now (a failure waits for the first pull, or goes with a cancel).
  let first: ReturnType<Chunks["next"]> | null = chunks.next();
  first.catch(() => undefined);
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (prefix) {
        controller.enqueue(Buffer.from(prefix, "utf8"));
        prefix = "";
        return;
      }
      const next = first ?? chunks.next();
      first = null;
      const { done, value } = await next;
      if (done) controller.close();
      else controller.enqueue(recordLinesBytes(value.timestamps, value.values, value.flags, value.length, precision, timestamp));
    },
    async cancel() {
      await chunks.return(undefined);
    },
  }, { highWaterMark: 1 });
}

/** The body of GET data/: record lines, after the HTS header for hts/hts2. */
export async function dataBody(s: SeriesContext, r: DataSelection): Promise<ReadableStream<Uint8Array>> {
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
export function bottomBody(s: SeriesContext, output: TimeZone): string {
  if (s.lastTimestamp === null) return "";
  return bottomLine(s.lastTimestamp, s.lastValue, s.lastFlags ?? "", s.group.precision, makeTimestampFormatter(output));
}

/** What GET chart/ returns: the range (null: the series' own) and the number of points. */
export interface ChartSelection {
  start: number | null;
  end: number | null;
  points: number;
}

const chartCache = () => namedCache("chart", 32 * 1024 * 1024);

/** The chart JSON cached under `key`, if any. */
export function cachedChart(key: string): string | undefined {
  return chartCache().get(key);
}

/**
 * The chart JSON (formats.md §7.2), computed from the stored blocks and cached under `key`,
 * which names the series version and the selection (the response's ETag).
 */
export async function chartBody(s: SeriesContext, r: ChartSelection, key: string): Promise<string> {
  const cached = chartCache().get(key);
  if (cached !== undefined) return cached;
  const range = chartRange(r.start, r.end, s.firstTimestamp, s.lastTimestamp);
  let body = "[]";
  if (range) {
    const aggregates = await records().aggregate(s.id, range.S, range.E, r.points);
    body = JSON.stringify(chartPoints(range.S, range.E, r.points, aggregates, s.group.precision));
  }
  chartCache().set(key, body);
  return body;
}
