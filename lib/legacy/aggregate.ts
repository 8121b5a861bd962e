import { db, Prisma } from "@/lib/db";
import { records, RecordsChangedDuringRead } from "@/lib/records";
import { blockStart } from "@/lib/records/types";
import { bucketEnds, bucketStep, extremeBuckets, resultFromBuckets, type BucketAggregate, type Extremes, type Interval, type LegacyResult } from "@/lib/legacy/stats";

/**
 * Whether a down-sampled interval of `len` records (no vector statistics) is aggregated in the
 * database: always on SQLite; on PostgreSQL, whose round trips cost more, from 8,000 records
 * (below that, reading the records is as fast).
 */
export function aggregateInDatabase(len: number): boolean {
  return bucketStep(len) > 1 && (db().dialect === "sqlite" || len > 8000);
}

/**
 * A down-sampled interval (formats.md §8.3–8.4, len > 400, no vector statistics) computed from
 * the daily blocks, so that only the records of the days at the buckets' edges are decoded, in
 * several statements (one read snapshot on PostgreSQL; on SQLite, a write may come between two:
 * what no longer fits throws RecordsChangedDuringRead, and the caller reads again):
 *
 * 1. the buckets' time ranges: the timestamps of their last records, from the daily block
 *    counts and the records of the day holding each;
 * 2. count, sum, min and max of each bucket's range (whole daily blocks where they fit);
 * 3. the timestamps of the extreme and last values, each looked up inside its bucket (the
 *    days whose summaries can hold it, latest first).
 */
export async function aggregatedResult(seriesId: number, interval: Interval, precision: number): Promise<LegacyResult> {
  const { a, b, from, to } = interval as { a: number; b: number; from: number; to: number };
  const ends = bucketEnds(a, b);
  const his = await timestampsAt(seriesId, { from, to, a }, ends.slice(0, -1));
  his.push(to);
  const los = his.map((_, j) => (j === 0 ? from : his[j - 1] + 1));
  const aggregates = await rangeAggregates(seriesId, los, his);
  const buckets: BucketAggregate[] = his.map((hi, j) => ({ hi, end: ends[j], ...aggregates[j] }));
  const ext = extremeBuckets(buckets);
  let extremes: Extremes | null = null;
  if (ext) {
    const [minT, maxT, last] = await Promise.all([
      latestWithValue(seriesId, los[ext.minBucket], his[ext.minBucket], ext.min),
      latestWithValue(seriesId, los[ext.maxBucket], his[ext.maxBucket], ext.max),
      lastValue(seriesId, los[ext.lastBucket], his[ext.lastBucket]),
    ]);
    extremes = { minT, maxT, lastT: last.t, lastV: last.v };
  }
  return resultFromBuckets(buckets, extremes, precision);
}

/**
 * The timestamps of the records with the given indices (ascending, in [a, b]), where `from` and
 * `to` are the timestamps of records a and b: the daily block counts place each index in its
 * day, and an indexed lookup with an offset inside that day finds the record.
 */
export async function timestampsAt(seriesId: number, range: { from: number; to: number; a: number }, indices: number[]): Promise<number[]> {
  const { from, to, a } = range;
  if (indices.length === 0) return [];
  const first = blockStart(from);
  const [before, blocks] = await Promise.all([
    from > first ? records().count(seriesId, first, from - 1) : Promise.resolve(0),
    db().query<{ block_start: number; count: number }>(Prisma.sql`
      SELECT block_start, count FROM timeseries_block
      WHERE timeseries_id = ${seriesId} AND block_start >= ${first} AND block_start <= ${blockStart(to)}
      ORDER BY block_start`),
  ]);
  const days: number[] = [];
  const offsets: number[] = [];
  let start = a - before; // index of the first record of the current block
  let k = 0;
  for (const block of blocks) {
    const count = Number(block.count);
    while (k < indices.length && indices[k] < start + count) {
      days.push(Number(block.block_start));
      offsets.push(indices[k] - start);
      k++;
    }
    if (k === indices.length) break;
    start += count;
  }
  // The blocks hold fewer records than the interval was chosen from: they changed under this read.
  if (k < indices.length) throw new RecordsChangedDuringRead(seriesId);
  return nthInDays(seriesId, days, offsets);
}

/** The timestamp of the offsets[i]-th record (0-based) of the UTC day starting at days[i], for every i. */
async function nthInDays(seriesId: number, days: number[], offsets: number[]): Promise<number[]> {
  const distinct = [...new Set(days)];
  const chunks = new Map((await records().readDays(seriesId, distinct)).map((chunk, k) => [distinct[k], chunk]));
  return days.map((d, i) => {
    const chunk = chunks.get(d);
    if (chunk === undefined || offsets[i] >= chunk.length) throw new RecordsChangedDuringRead(seriesId);
    return chunk.timestamps[offsets[i]];
  });
}

type RangeAggregate = Pick<BucketAggregate, "count" | "sum" | "min" | "max">;

/**
 * Count, sum, min and max of the non-null values of each range [los[j], his[j]] (contiguous and
 * increasing): the daily blocks that lie wholly inside a range are taken whole, the rest of each
 * range (at most two pieces of partial days) from its records (records().aggregateRanges).
 */
async function rangeAggregates(seriesId: number, los: number[], his: number[]): Promise<RangeAggregate[]> {
  return records().aggregateRanges(seriesId, los.map((lo, j) => [lo, his[j]] as const));
}

/** The latest timestamp in [lo, hi] whose value is exactly v. */
async function latestWithValue(seriesId: number, lo: number, hi: number, v: number): Promise<number> {
  const found = await records().latest(seriesId, lo, hi, { value: v });
  if (!found) throw new RecordsChangedDuringRead(seriesId);
  return found.timestamp;
}

/** The last non-null value in [lo, hi] and its timestamp. */
async function lastValue(seriesId: number, lo: number, hi: number): Promise<{ t: number; v: number }> {
  const found = await records().latest(seriesId, lo, hi, { valued: true });
  if (!found || found.value === null) throw new RecordsChangedDuringRead(seriesId);
  return { t: found.timestamp, v: found.value };
}
