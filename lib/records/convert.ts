import { setTimeout as sleep } from "node:timers/promises";
import { db, Prisma } from "@/lib/db";
import type { Job } from "@/lib/jobs/queue";
import { enqueue } from "@/lib/jobs/queue";
import { logError } from "@/lib/observability/log";
import { records } from "@/lib/records";

/**
 * The online conversion of records stored as rows (before migration 0016) into day blocks
 * (docs/decisions/0019-records-in-blocks.md): a job of the queue that converts the series that
 * still have rows one at a time, each in a transaction of its own that holds the series' lock
 * (its writes wait for it; reads see the rows or the blocks, never both or neither). It can stop
 * anywhere and start again: a converted series has no rows left, so a new run goes on with those
 * that still have some. Migration 0016 queues it; start-up queues it again while rows remain.
 */
export const CONVERT_KIND = "records.convert";
export const CONVERT_KEY = "records.convert";

/** Between two series: the service's own writes get the write lock (SQLite) in between. */
const PAUSE_MS = 20;

interface ConvertContext {
  readonly signal: AbortSignal;
  progress(fraction?: number): void;
}

/** The next series (by id) after `after` that still has rows, or null. */
async function nextSeries(after: number): Promise<number | null> {
  const [row] = await db().queryArrays<[number]>(Prisma.sql`SELECT timeseries_id FROM timeseries_record WHERE timeseries_id > ${after}
    ORDER BY timeseries_id LIMIT 1`);
  return row ? Number(row[0]) : null;
}

/**
 * The job's handler: converts every series that has rows, in order of id. A series that fails is
 * logged and left as rows (it is still read and written correctly; its next write converts it);
 * the result counts what was done.
 */
export async function convertRecords(_job: Job, ctx: ConvertContext): Promise<{ series: number; records: number; failed: number[] }> {
  const done = { series: 0, records: 0, failed: [] as number[] };
  const [last] = await db().queryArrays<[number | null]>(Prisma.sql`SELECT MAX(id) FROM timeseries`);
  const maxId = Math.max(1, Number(last?.[0] ?? 1));
  for (let after = 0; ;) {
    ctx.progress(Math.min(1, after / maxId));
    const id = await nextSeries(after);
    if (id === null) return done;
    try {
      done.records += (await records().convert?.(id)) ?? 0;
      done.series++;
    } catch (e) {
      logError(`converting the records of time series ${id} into day blocks`, e);
      done.failed.push(id);
    }
    after = id;
    await sleep(PAUSE_MS, undefined, { signal: ctx.signal }).catch(() => undefined);
  }
}

/** The series whose records are still rows, and how many records those are. */
export async function rowsLeftToConvert(): Promise<{ series: number; records: number }> {
  const [row] = await db().queryArrays<[number, number | null]>(Prisma.sql`SELECT COUNT(*), SUM(record_count) FROM timeseries t
    WHERE EXISTS (SELECT 1 FROM timeseries_record r WHERE r.timeseries_id = t.id)`);
  return { series: Number(row[0]), records: Number(row[1] ?? 0) };
}

/** Queues the conversion when records stored as rows remain (at start-up: a run that stopped or failed is taken up again). */
export async function queueConversionIfNeeded(): Promise<boolean> {
  if ((await nextSeries(-1)) === null) return false;
  await enqueue({ kind: CONVERT_KIND, key: CONVERT_KEY });
  return true;
}
