import { db, Prisma } from "@/lib/db";
import { records, type RecordBatch } from "@/lib/records";

/**
 * Records as plain rows, and what the records store shows of a series (its summary, blocks,
 * counts, chart aggregates and records): tests compare a series after a sequence of writes with
 * one written once with the final records, computed from scratch.
 */
export type Rec = [timestamp: number, value: number, flags: string];

export const batchOf = (rows: readonly Rec[]): RecordBatch => ({
  timestamps: Float64Array.from(rows, (r) => r[0]), values: Float64Array.from(rows, (r) => r[1]), flags: rows.map((r) => r[2]),
});

export const rowsOf = (batch: RecordBatch): Rec[] => Array.from(batch.timestamps, (t, i) => [t, batch.values[i], batch.flags[i]]);

export const append = (tid: number, rows: readonly Rec[]) => records().write(tid, batchOf(rows), { mode: "append", validate: () => [] });

export const blocks = async (tid: number) => (await db().query(Prisma.sql`SELECT block_start, count, value_count, min, max, sum
  FROM timeseries_block WHERE timeseries_id = ${tid} ORDER BY block_start`)).map((b) => Object.values(b).map((v) => (v === null ? null : Number(v))));

export async function readAllOf(tid: number): Promise<[number, number | null, string][]> {
  const rows: [number, number | null, string][] = [];
  for await (const c of records().read(tid, -1e12, 1e12)) for (let i = 0; i < c.length; i++) rows.push([c.timestamps[i], Number.isNaN(c.values[i]) ? null : c.values[i], c.flags[i]]);
  return rows;
}

/** What the store shows of a series, but its version; `ranges` of counts and chart aggregates drawn by `rand` in [lo, hi]. */
export async function observed(tid: number, rand: () => number, lo: number, hi: number) {
  const { version: _, ...summary } = (await records().summary(tid))!;
  const ranges = Array.from({ length: 4 }, () => [lo + rand() * (hi - lo), lo + rand() * (hi - lo)].map(Math.floor).sort((x, y) => x - y));
  return {
    summary,
    blocks: await blocks(tid),
    counts: await Promise.all(ranges.map(([a, b]) => records().count(tid, a, b))),
    aggregates: await Promise.all(ranges.map(([a, b], k) => records().aggregate(tid, a, b, [1, 3, 7, 50][k]))),
    records: (await readAllOf(tid)).map((r) => r.join()),
  };
}
