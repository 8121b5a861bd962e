/**
 * What runs read of the records store: a span of a series as one batch, the stored target a
 * run's replacement compares with, and the last record before a time.
 */
import { MAX_INSTANT, MIN_INSTANT } from "@/lib/formats/date-param";
import { records, type RecordBatch, type StoredRecords } from "@/lib/records";
import type { SeriesInfo } from "./series";

/** The records of a series with from ≤ timestamp ≤ to, in one batch. */
export async function readRecords(seriesId: number, from: number, to: number): Promise<RecordBatch> {
  const chunks = [];
  let n = 0;
  for await (const chunk of records().read(seriesId, Math.max(from, MIN_INSTANT), Math.min(to, MAX_INSTANT))) {
    chunks.push(chunk);
    n += chunk.length;
  }
  if (chunks.length === 1 && chunks[0].timestamps.length === n) return chunks[0];
  const timestamps = new Float64Array(n);
  const values = new Float64Array(n);
  const flags: string[] = new Array(n);
  let at = 0;
  for (const c of chunks) {
    timestamps.set(c.timestamps.subarray(0, c.length), at);
    values.set(c.values.subarray(0, c.length), at);
    for (let i = 0; i < c.length; i++) flags[at + i] = c.flags[i];
    at += c.length;
  }
  return { timestamps, values, flags };
}

/** The source's records from `from` to its end. */
export function readSourceFrom(source: SeriesInfo, from: number): Promise<RecordBatch> {
  return readRecords(source.id, from, MAX_INSTANT);
}

/** The timestamp of the series' last record before `t` (with a value, if `valued`), if any. */
export async function lastRecordBefore(seriesId: number, t: number, valued: boolean): Promise<number | null> {
  if (t === -Infinity) return null;
  return (await records().latest(seriesId, -Infinity, Math.ceil(t) - 1, { valued }))?.timestamp ?? null;
}

/** The stored target records from `from` on, read now for the replacement's comparison; null on any failure (the replacement then reads them). */
export function storedTarget(target: SeriesInfo, from: number): Promise<StoredRecords | null> {
  return records().stored(target.id, from === -Infinity ? MIN_INSTANT : from).catch(() => null);
}
