import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { closeDb } from "@/lib/db";
import { migrate } from "@/lib/db/migrate";
import { parseDatabaseUrl } from "@/lib/db/url";
import { records, type RecordChunk } from "@/lib/records";
import * as f from "@/tests/support/fixtures";
import { connectFixtures, DIALECT, scratchDatabase, type ScratchDatabase } from "@/tests/support/server";

/**
 * The records store's streaming reads, in process (no server): chunks of every size give the
 * same records, flags and nulls in order; on SQLite the chunks after the first come from the
 * read-ahead worker thread; a reader that stops early leaves the store usable.
 */
let database: ScratchDatabase;
let seriesId: number;
const N = 45_007;
const T0 = Date.UTC(2020, 0, 1) / 1000;
const flagOf = (i: number) => (i % 997 === 0 ? `F${i} RANGE` : "");
const valueOf = (i: number) => (i % 101 === 0 ? null : (i % 5000) / 10);

beforeAll(async () => {
  database = await scratchDatabase();
  await migrate(parseDatabaseUrl(database.url));
  await connectFixtures(database.url);
  seriesId = await f.series(await f.group(await f.station()));
  const result = await records().write(seriesId, {
    timestamps: Float64Array.from({ length: N }, (_, i) => T0 + i * 600),
    values: Float64Array.from({ length: N }, (_, i) => valueOf(i) ?? NaN),
    flags: Array.from({ length: N }, (_, i) => flagOf(i)),
  }, { mode: "append", validate: () => [] });
  expect(result).toEqual({ ok: true, stored: N });
}, 60_000);

afterAll(async () => {
  records().close?.();
  await closeDb();
  await database?.dispose();
});

async function readAll(from: number, to: number, chunkSize?: number) {
  const lengths: number[] = [];
  const rows: [number, number | null, string][] = [];
  for await (const chunk of records().read(seriesId, from, to, chunkSize)) {
    lengths.push(chunk.length);
    for (let i = 0; i < chunk.length; i++) rows.push([chunk.timestamps[i], Number.isNaN(chunk.values[i]) ? null : chunk.values[i], chunk.flags[i]]);
  }
  return { lengths, rows };
}

const expected = (first: number, last: number) =>
  Array.from({ length: last - first + 1 }, (_, k) => [T0 + (first + k) * 600, valueOf(first + k), flagOf(first + k)]);

describe(`records store reads (${DIALECT})`, () => {
  it.each([undefined, 97, 997, 20_000, 45_007, 100_000])("gives every record once, in order, with chunks of %s", async (chunkSize) => {
    const { lengths, rows } = await readAll(-1e12, 1e12, chunkSize);
    expect(rows).toEqual(expected(0, N - 1));
    if (chunkSize) {
      expect(lengths.slice(0, -1).every((n) => n === chunkSize)).toBe(true);
      expect(lengths.at(-1)).toBe(N % chunkSize || Math.min(chunkSize, N));
    }
  });

  it("keeps to the range, both ends included", async () => {
    const { rows } = await readAll(T0 + 3 * 600, T0 + 30_000 * 600, 4_000);
    expect(rows).toEqual(expected(3, 30_000));
    expect((await readAll(T0 + 1, T0 + 599, 10)).rows).toEqual([]);
    expect((await readAll(T0 + (N + 5) * 600, 1e12)).rows).toEqual([]);
  });

  it("serves readers that run at once, and readers that stop early", async () => {
    const stopped: RecordChunk[] = [];
    for await (const chunk of records().read(seriesId, -1e12, 1e12, 1_000)) {
      stopped.push(chunk);
      if (stopped.length === 3) break;
    }
    expect(stopped.map((c) => c.length)).toEqual([1_000, 1_000, 1_000]);
    const [a, b, c] = await Promise.all([readAll(-1e12, 1e12, 3_000), readAll(T0, T0 + 9_999 * 600, 1_111), readAll(-1e12, 1e12)]);
    expect(a.rows).toEqual(expected(0, N - 1));
    expect(b.rows).toEqual(expected(0, 9_999));
    expect(c.rows).toEqual(a.rows);
  });

  it.runIf(DIALECT === "sqlite")("finishes a read whose reader thread stops, and starts another thread for the next read", async () => {
    const reading = readAll(-1e12, 1e12, 500);
    await new Promise((r) => setTimeout(r, 1));
    records().close?.();
    expect((await reading).rows).toEqual(expected(0, N - 1));
    expect((await readAll(-1e12, 1e12, 2_000)).rows).toEqual(expected(0, N - 1));
  });

  it("sees records written after a reader thread has started", async () => {
    await readAll(-1e12, 1e12, 5_000);
    const later = T0 + N * 600;
    const result = await records().write(seriesId, { timestamps: Float64Array.of(later, later + 600), values: Float64Array.of(1.5, NaN), flags: ["", "X"] },
      { mode: "append", validate: () => [] });
    expect(result).toEqual({ ok: true, stored: 2 });
    const { rows } = await readAll(T0 + (N - 2) * 600, 1e12, 1);
    expect(rows).toEqual([...expected(N - 2, N - 1), [later, 1.5, ""], [later + 600, null, "X"]]);
  });
});
