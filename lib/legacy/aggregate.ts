import type { Statement } from "better-sqlite3";
import { db, Prisma } from "@/lib/db";
import type { SqliteDatabase as SqliteConnection } from "@/lib/db/sqlite";
import { records } from "@/lib/records";
import { blockStart, DAY } from "@/lib/records/types";
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
 * A down-sampled interval (formats.md §8.3–8.4, len > 400, no vector statistics) computed in
 * the database, so that the records never travel to JavaScript one by one:
 *
 * 1. the buckets' time ranges: the timestamps of their last records, from the daily block
 *    counts and one indexed lookup per bucket inside its day;
 * 2. count, sum, min and max of each bucket's range (whole daily blocks where they fit);
 * 3. the timestamps of the extreme and last values, each looked up inside its bucket.
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
  if (k < indices.length) throw new Error(`time series ${seriesId}: the blocks do not hold record ${indices[k]}`);
  return nthInDays(seriesId, days, offsets);
}

/** The timestamp of the offsets[i]-th record (0-based) of the UTC day starting at days[i], for every i. */
async function nthInDays(seriesId: number, days: number[], offsets: number[]): Promise<number[]> {
  const d = db();
  if (d.dialect === "postgres") {
    const rows = await d.query<{ t: number }>(Prisma.sql`
      SELECT (SELECT r.timestamp FROM timeseries_record r
          WHERE r.timeseries_id = ${seriesId} AND r.timestamp >= x.d AND r.timestamp < x.d + ${DAY}
          ORDER BY r.timestamp OFFSET x.o LIMIT 1) AS t
      FROM unnest(${days}::bigint[], ${offsets}::bigint[]) WITH ORDINALITY AS x(d, o, k) ORDER BY x.k`);
    return rows.map((r) => Number(r.t));
  }
  // SQLite cannot take the offset from an outer row. Its statements run synchronously in
  // microseconds: per day, one indexed lookup with an offset, or the day's timestamps when the
  // day holds several of the wanted records.
  const { one, day } = sqliteStatements(d.sqlite!);
  const out: number[] = new Array(days.length);
  for (let i = 0; i < days.length;) {
    let j = i + 1;
    while (j < days.length && days[j] === days[i]) j++;
    if (j - i === 1) {
      out[i] = one.get(seriesId, days[i], days[i] + DAY, offsets[i]) as number;
    } else {
      const stamps = day.all(seriesId, days[i], days[i] + DAY) as number[];
      for (let k = i; k < j; k++) out[k] = stamps[offsets[k]];
    }
    i = j;
  }
  return out;
}

interface SqliteStatements {
  one: Statement;
  day: Statement;
  aggregate: Statement;
  blocks: Statement;
}
const statements = new WeakMap<SqliteConnection, SqliteStatements>();

function sqliteStatements(conn: SqliteConnection): SqliteStatements {
  let s = statements.get(conn);
  if (!s) {
    s = {
      one: conn.prepare(`SELECT timestamp FROM timeseries_record WHERE timeseries_id = ? AND timestamp >= ? AND timestamp < ?
        ORDER BY timestamp LIMIT 1 OFFSET ?`).pluck(),
      day: conn.prepare("SELECT timestamp FROM timeseries_record WHERE timeseries_id = ? AND timestamp >= ? AND timestamp < ? ORDER BY timestamp").pluck(),
      aggregate: conn.prepare(`SELECT COUNT(value), SUM(value), MIN(value), MAX(value) FROM timeseries_record
        WHERE timeseries_id = ? AND timestamp >= ? AND timestamp <= ?`).raw(true),
      blocks: conn.prepare(`SELECT SUM(value_count), SUM(sum), MIN(min), MAX(max) FROM timeseries_block
        WHERE timeseries_id = ? AND block_start >= ? AND block_start <= ?`).raw(true),
    };
    statements.set(conn, s);
  }
  return s;
}

type RangeAggregate = Pick<BucketAggregate, "count" | "sum" | "min" | "max">;


type AggregateRow = { k: number; n: number; s: number | null; lo: number | null; hi: number | null };
type Quad = [number, number | null, number | null, number | null];

/**
 * Count, sum, min and max of the non-null values of each range [los[j], his[j]] (contiguous and
 * increasing). The daily blocks that lie wholly inside a range are taken whole; the rest of each
 * range (at most two pieces of partial days) is aggregated from the records.
 */
async function rangeAggregates(seriesId: number, los: number[], his: number[]): Promise<RangeAggregate[]> {
  const out: RangeAggregate[] = los.map(() => ({ count: 0, sum: 0, min: Infinity, max: -Infinity }));
  const merge = (j: number, count: number | null, sum: number | null, min: number | null, max: number | null) => {
    if (!count) return;
    const o = out[j];
    out[j] = { count: o.count + Number(count), sum: o.sum + Number(sum), min: Math.min(o.min, Number(min)), max: Math.max(o.max, Number(max)) };
  };
  const wholeFrom = los.map((lo) => Math.ceil(lo / DAY) * DAY);
  const wholeTo = his.map((hi) => Math.floor((hi + 1) / DAY) * DAY - DAY);
  const pieces: [number, number, number][] = [];
  for (let j = 0; j < los.length; j++) {
    if (wholeFrom[j] > wholeTo[j]) {
      pieces.push([los[j], his[j], j]);
      continue;
    }
    if (los[j] < wholeFrom[j]) pieces.push([los[j], wholeFrom[j] - 1, j]);
    if (his[j] >= wholeTo[j] + DAY) pieces.push([wholeTo[j] + DAY, his[j], j]);
  }
  const d = db();
  if (d.dialect === "sqlite") {
    // Synchronous statements of microseconds each (a grouped join would sort every record).
    const { aggregate, blocks } = sqliteStatements(d.sqlite!);
    for (let j = 0; j < los.length; j++) {
      if (wholeFrom[j] <= wholeTo[j]) merge(j, ...(blocks.get(seriesId, wholeFrom[j], wholeTo[j]) as Quad));
    }
    for (const [lo, hi, j] of pieces) merge(j, ...(aggregate.get(seriesId, lo, hi) as Quad));
    return out;
  }
  const [blockRows, pieceRows] = await Promise.all([
    los.some((_, j) => wholeFrom[j] <= wholeTo[j])
      ? d.query<{ block_start: number; value_count: number; min: number | null; max: number | null; sum: number | null }>(Prisma.sql`
        SELECT block_start, value_count, min, max, sum FROM timeseries_block
        WHERE timeseries_id = ${seriesId} AND block_start >= ${wholeFrom[0]} AND block_start <= ${his[his.length - 1]} ORDER BY block_start`)
      : Promise.resolve([]),
    pieces.length === 0 ? Promise.resolve([]) : postgresPieces(seriesId, pieces),
  ]);
  let j = 0;
  for (const b of blockRows) {
    const start = Number(b.block_start);
    while (j < los.length && wholeTo[j] < start) j++;
    if (j === los.length) break;
    if (start >= wholeFrom[j]) merge(j, b.value_count, b.sum, b.min, b.max);
  }
  for (const r of pieceRows) merge(Number(r.k), r.n, r.s, r.lo, r.hi);
  return out;
}

/** PostgreSQL: the aggregates of each piece [lo, hi], one index range scan each. */
function postgresPieces(seriesId: number, pieces: [number, number, number][]): Promise<AggregateRow[]> {
  return db().query<AggregateRow>(Prisma.sql`
    SELECT e.k AS k, a.n, a.s, a.lo, a.hi
    FROM unnest(${pieces.map((x) => x[0])}::bigint[], ${pieces.map((x) => x[1])}::bigint[], ${pieces.map((x) => x[2])}::int[]) AS e(lo, hi, k)
    CROSS JOIN LATERAL (SELECT COUNT(r.value)::int AS n, SUM(r.value) AS s, MIN(r.value) AS lo, MAX(r.value) AS hi
      FROM timeseries_record r WHERE r.timeseries_id = ${seriesId} AND r.timestamp >= e.lo AND r.timestamp <= e.hi) a`);
}

/** The latest timestamp in [lo, hi] whose value is exactly v. */
async function latestWithValue(seriesId: number, lo: number, hi: number, v: number): Promise<number> {
  const [row] = await db().query<{ t: number }>(Prisma.sql`
    SELECT MAX(timestamp) AS t FROM timeseries_record WHERE timeseries_id = ${seriesId} AND timestamp >= ${lo} AND timestamp <= ${hi} AND value = ${v}`);
  return Number(row.t);
}

/** The last non-null value in [lo, hi] and its timestamp. */
async function lastValue(seriesId: number, lo: number, hi: number): Promise<{ t: number; v: number }> {
  const [row] = await db().query<{ t: number; v: number }>(Prisma.sql`
    SELECT timestamp AS t, value AS v FROM timeseries_record
    WHERE timeseries_id = ${seriesId} AND timestamp >= ${lo} AND timestamp <= ${hi} AND value IS NOT NULL
    ORDER BY timestamp DESC LIMIT 1`);
  return { t: Number(row.t), v: Number(row.v) };
}
