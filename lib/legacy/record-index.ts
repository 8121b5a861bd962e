import { db, Prisma } from "@/lib/db";
import { records } from "@/lib/records";
import { DAY } from "@/lib/records/types";
import type { RecordIndex } from "@/lib/legacy/stats";

/**
 * The record index of formats.md §8.2 on the database, without scanning the series: counts
 * come from the series summary and the daily blocks (records().count), neighbours of a target
 * from two index lookups, and the k-th record from the running block counts.
 */
const FAR_FUTURE = 8_640_000_000_000; // the largest Date, in seconds

export function databaseRecordIndex(seriesId: number, summary: { count: number; first: number | null; last: number | null }): RecordIndex {
  return {
    count: summary.count,
    firstTimestamp: summary.first,
    lastTimestamp: summary.last,
    countFrom: (t) => records().count(seriesId, t, FAR_FUTURE),
    async around(t) {
      const [row] = await db().query<{ before_t: number | null; after_t: number | null }>(Prisma.sql`
        SELECT (SELECT MAX(timestamp) FROM timeseries_record WHERE timeseries_id = ${seriesId} AND timestamp < ${t}) AS before_t,
          (SELECT MIN(timestamp) FROM timeseries_record WHERE timeseries_id = ${seriesId} AND timestamp >= ${t}) AS after_t`);
      return { before: toNumber(row?.before_t), after: toNumber(row?.after_t) };
    },
    async timestampAt(k) {
      if (k === 0 && summary.first !== null) return summary.first;
      if (k === summary.count - 1 && summary.last !== null) return summary.last;
      const [block] = await db().query<{ block_start: number; before_count: number }>(Prisma.sql`
        SELECT block_start, cum - count AS before_count FROM (
          SELECT block_start, count, SUM(count) OVER (ORDER BY block_start) AS cum FROM timeseries_block WHERE timeseries_id = ${seriesId}
        ) x WHERE cum > ${k} ORDER BY block_start LIMIT 1`);
      if (!block) throw new Error(`time series ${seriesId} has no record ${k}`);
      const start = Number(block.block_start);
      const [row] = await db().query<{ timestamp: number }>(Prisma.sql`
        SELECT timestamp FROM timeseries_record WHERE timeseries_id = ${seriesId} AND timestamp >= ${start} AND timestamp < ${start + DAY}
        ORDER BY timestamp LIMIT 1 OFFSET ${k - Number(block.before_count)}`);
      if (!row) throw new Error(`time series ${seriesId} has no record ${k}`);
      return Number(row.timestamp);
    },
  };
}

function toNumber(value: unknown): number | null {
  return value === null || value === undefined ? null : Number(value);
}
