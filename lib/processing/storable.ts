/**
 * The times records may have (the records store's span, lib/formats/date-param.ts): a process
 * whose results would certainly lie outside them is refused when saved, and a run that would
 * write a record outside them fails, writing nothing.
 */
import { MAX_INSTANT, MIN_INSTANT } from "@/lib/formats/date-param";
import type { RecordBatch } from "./numerics/series";

const day = (t: number) => new Date(t * 1000).toISOString().slice(0, 10);

/** "records are stamped from 1680-01-01 to 2260-01-01" */
export const STORABLE_TIMES = `records are stamped from ${day(MIN_INSTANT)} to ${day(MAX_INSTANT)}`;
/** Seconds from the first storable time to the last. */
export const STORABLE_SPAN = MAX_INSTANT - MIN_INSTANT;

/** A time in words, ISO 8601 where a date can say it. */
function when(t: number): string {
  return Math.abs(t) <= 8.64e12 ? new Date(t * 1000).toISOString().replace(".000Z", "Z") : `${t} s from 1970-01-01`;
}

/** Why a run's result cannot be stored (its first or last record lies outside the storable times), or null. Timestamps ascend. */
export function unstorable(batch: RecordBatch): string | null {
  const n = batch.timestamps.length;
  if (n === 0) return null;
  const outside = batch.timestamps[0] < MIN_INSTANT ? batch.timestamps[0] : batch.timestamps[n - 1] > MAX_INSTANT ? batch.timestamps[n - 1] : null;
  return outside === null ? null : `The run would write a record stamped ${when(outside)}, but ${STORABLE_TIMES}; nothing was written.`;
}
