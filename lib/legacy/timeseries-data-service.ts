import { namedCache } from "@/lib/runtime/cache";
import { LegacyAccumulator, legacyJson, selectInterval, type Selection } from "@/lib/legacy/stats";
import { records } from "@/lib/records";
import { aggregatedResult, aggregateInDatabase } from "@/lib/legacy/aggregate";
import { databaseRecordIndex } from "@/lib/legacy/record-index";
import { displayZone, type SeriesContext } from "@/lib/series";

/**
 * The statistics and down-sampled points of an interval of a series (formats.md §8, served at
 * {site}/timeseries/data/, legacy.md §7), cached per series version and parameters in a
 * bounded LRU.
 */
export interface LegacyDataRequest {
  selection: Selection;
  /** With the vector statistics (formats.md §8.5). */
  vector: boolean;
}

const cache = () => namedCache("legacy-timeseries-data", 32 * 1024 * 1024);

/** The JSON text cached under `key`, if any. */
export function cachedLegacyJson(key: string): string | undefined {
  return cache().get(key);
}

/** The JSON text of the result (`null` when exact times are missing), computed or from the cache. */
export async function legacyDataJson(s: SeriesContext, p: LegacyDataRequest, key: string): Promise<string> {
  const cached = cache().get(key);
  if (cached !== undefined) return cached;
  const index = databaseRecordIndex(s.id, { count: s.recordCount, first: s.firstTimestamp, last: s.lastTimestamp });
  const interval = await selectInterval(p.selection, index, displayZone(s));
  let body: string;
  if (interval === null) {
    body = legacyJson(null);
  } else if (!p.vector && aggregateInDatabase(interval.b - interval.a + 1)) {
    // Down-sampled without vector statistics: aggregated in the database.
    body = legacyJson(await aggregatedResult(s.id, interval, s.group.precision));
  } else {
    // Short intervals, or vector statistics (which need every value): read the records.
    const acc = new LegacyAccumulator(interval.a, interval.b, s.group.precision, p.vector);
    if (interval.b >= interval.a && interval.from !== null && interval.to !== null) {
      for await (const chunk of records().read(s.id, interval.from, interval.to)) acc.add(chunk.timestamps, chunk.values, chunk.length);
    }
    body = legacyJson(acc.result());
  }
  cache().set(key, body);
  return body;
}
