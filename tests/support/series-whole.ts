import { expect } from "vitest";
import { db } from "@/lib/db";
import { readAllOf } from "@/tests/support/records-oracle";

/**
 * Every series' summary (record count, last timestamp) matches its stored records (as the store reads them): what the
 * hostile-input tests check afterwards, since a partial write would leave them apart.
 */
export async function expectEverySeriesWhole(): Promise<void> {
  const series = await db().prisma.timeseries.findMany();
  for (const t of series) {
    const rows = await readAllOf(t.id);
    expect(rows.length, `series ${t.id}`).toBe(t.recordCount);
    expect(rows.at(-1)?.[0] ?? null).toBe(t.lastTimestamp === null ? null : Number(t.lastTimestamp));
  }
}
