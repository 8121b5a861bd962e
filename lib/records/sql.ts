import { Prisma } from "@/lib/db";
import { DAY } from "@/lib/records/types";

/**
 * A condition (SQL, both databases) that is true when the series whose id is `seriesId` has a
 * record with lo ≤ timestamp < hi (expressions of the enclosing query, integer seconds), for a
 * range of a day or more: a day block holds one in it exactly when its first record is before
 * hi and its last at or after lo (a block spans less than a day, the range more); a series not
 * yet converted has rows.
 */
export function recordsExistSql(seriesId: Prisma.Sql, lo: Prisma.Sql, hi: Prisma.Sql): Prisma.Sql {
  return Prisma.sql`(EXISTS (SELECT 1 FROM timeseries_block b WHERE b.timeseries_id = ${seriesId}
      AND b.block_start > ${lo} - ${DAY} AND b.block_start < ${hi} AND b.records IS NOT NULL AND b.last_timestamp >= ${lo} AND b.first_timestamp < ${hi})
    OR EXISTS (SELECT 1 FROM timeseries_record r WHERE r.timeseries_id = ${seriesId} AND r.timestamp >= ${lo} AND r.timestamp < ${hi}))`;
}
