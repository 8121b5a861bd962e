import { expect } from "vitest";
import { db, Prisma } from "@/lib/db";

/**
 * Every series' summary (record count, last timestamp) matches its stored records: what the
 * hostile-input tests check afterwards, since a partial write would leave them apart.
 */
export async function expectEverySeriesWhole(): Promise<void> {
  const series = await db().prisma.timeseries.findMany();
  for (const t of series) {
    const [{ n, last }] = await db().query<{ n: number; last: number | null }>(Prisma.sql`
      SELECT COUNT(*) AS n, MAX(timestamp) AS last FROM timeseries_record WHERE timeseries_id = ${t.id}`);
    expect(Number(n), `series ${t.id}`).toBe(t.recordCount);
    expect(last === null ? null : Number(last)).toBe(t.lastTimestamp === null ? null : Number(t.lastTimestamp));
  }
}
