import { db, Prisma } from "@/lib/db";
import { records, RecordsChangedDuringRead } from "@/lib/records";
import type { RecordIndex } from "@/lib/legacy/stats";

/**
 * The record index of formats.md §8.2 on the database, without scanning the series: counts
 * come from the series summary and the daily blocks (records().count), neighbours of a target
 * from two lookups of the records store, and the k-th record from the running block counts and
 * the records of its day. The summary was read with the series: a record it counts that the
 * blocks do not hold means that they changed since (RecordsChangedDuringRead; a read snapshot on
 * PostgreSQL rules it out).
 */
const FAR_FUTURE = 8_640_000_000_000; // the largest Date, in seconds

export function databaseRecordIndex(seriesId: number, summary: { count: number; first: number | null; last: number | null }): RecordIndex {
  return {
    count: summary.count,
    firstTimestamp: summary.first,
    lastTimestamp: summary.last,
    countFrom: (t) => records().count(seriesId, t, FAR_FUTURE),
    async around(t) {
      const [before, after] = await Promise.all([records().latest(seriesId, -Infinity, Math.ceil(t) - 1), records().earliest(seriesId, t, Infinity)]);
      return { before: before?.timestamp ?? null, after: after?.timestamp ?? null };
    },
    async timestampAt(k) {
      if (k === 0 && summary.first !== null) return summary.first;
      if (k === summary.count - 1 && summary.last !== null) return summary.last;
      const [block] = await db().query<{ block_start: number; before_count: number }>(Prisma.sql`
        SELECT block_start, cum - count AS before_count FROM (
          SELECT block_start, count, SUM(count) OVER (ORDER BY block_start) AS cum FROM timeseries_block WHERE timeseries_id = ${seriesId}
        ) x WHERE cum > ${k} ORDER BY block_start LIMIT 1`);
      if (!block) throw new RecordsChangedDuringRead(seriesId);
      const [day] = await records().readDays(seriesId, [Number(block.block_start)]);
      const offset = k - Number(block.before_count);
      if (offset >= day.length) throw new RecordsChangedDuringRead(seriesId);
      return day.timestamps[offset];
    },
  };
}

