import { db, Prisma } from "@/lib/db";
import type { Dialect } from "@/lib/db/url";
import { enqueueSql } from "@/lib/jobs/queue";

/** The job kind that evaluates a synoptic group's alarms (synoptic.md §3). */
export const EVALUATE_KIND = "synoptic.evaluate";

export const evaluationKey = (groupId: number) => `synoptic:${groupId}`;

/**
 * The statements that queue the evaluation of the synoptic groups showing a series (one job per
 * synoptic group, coalesced by key), synoptic's reaction to a "series-written" change. Only Initial and
 * Checked series can be a group's default series, so only their writes matter.
 */
export function synopticWrittenStatements(seriesId: number, dialect: Dialect = db().dialect): Prisma.Sql[] {
  const id = Prisma.sql`CAST(gs.synoptic_group_id AS TEXT)`;
  return [enqueueSql({
    kind: EVALUATE_KIND,
    select: Prisma.sql`SELECT 'synoptic:' || ${id} AS key, '{"group":' || ${id} || '}' AS payload
      FROM timeseries t
        JOIN synoptic_timeseries_group e ON e.timeseries_group_id = t.timeseries_group_id
        JOIN synoptic_group_station gs ON gs.id = e.synoptic_group_station_id
      WHERE t.id = ${seriesId} AND t.type IN (1, 2)`,
  }, dialect)];
}
