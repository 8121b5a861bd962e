import { db, Prisma } from "@/lib/db";
import type { Dialect } from "@/lib/db/url";
import { sourceWrittenStatements } from "@/lib/processing/state";

/**
 * The one place where a write of records into a series causes background work: every records
 * writer (the API upload, the legacy tsdata append, a process writing its target) runs these
 * statements in its write's transaction (records' `also`), so that the work is queued exactly
 * when the records commit, and then calls notifyJobsQueued(). Each consumer adds its
 * statements here: processing now (processing.md §2: the processes that read the series run
 * from `firstTimestamp` on); the synoptic alarms and replication later.
 */
export function seriesWrittenStatements(seriesId: number, firstTimestamp: number, dialect: Dialect = db().dialect): Prisma.Sql[] {
  return [...sourceWrittenStatements(seriesId, firstTimestamp, dialect)];
}
