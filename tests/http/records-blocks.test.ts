import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { backup, restore } from "@/lib/db/backup";
import { db, Prisma } from "@/lib/db";
import { parseDatabaseUrl } from "@/lib/db/url";
import { random } from "@/lib/demo/data";
import { formatRecordLines } from "@/lib/formats/records";
import { type CorrectionChange, type RecordBatch, records, type RecordsStore } from "@/lib/records";
import { convertRecords } from "@/lib/records/convert";
import { PostgresRecordsStore } from "@/lib/records/postgres-store";
import { SqliteRecordsStore } from "@/lib/records/sqlite-store";
import { blockStart, DAY } from "@/lib/records/types";
import * as f from "@/tests/support/fixtures";
import { recordPgQueries } from "@/tests/support/pg-queries";
import { batchOf, randomChange, type Rec, recordsFrom } from "@/tests/support/records-oracle";
import { connectFixtures, DIALECT, inProcessDatabase, scratchDatabase } from "@/tests/support/server";

/**
 * The records store on day blocks (docs/decisions/0019) against the row store it replaced, kept
 * as the oracle: any sequence of appends, inserts, replacements, chunked writes, corrections and
 * deletions leaves a series whose records (so the bytes of `data/`), summary, version, daily
 * summaries, counts, chart aggregates and lookups are those of the same sequence on the row
 * store; a series stored as rows is read as such, and converted in place with nothing changed.
 */
const database = inProcessDatabase();
let group: number;
const BASE = Date.UTC(2019, 0, 1) / 1000;

/** The row store of ADR 4 on the same database (its series are its own: the blocks store never writes them). */
let rows: RecordsStore;

beforeAll(async () => {
  group = await f.group(await f.station());
  rows = db().sqlite ? new SqliteRecordsStore(db(), db().sqlite!) : new PostgresRecordsStore(db().pool!, db().reads!);
}, 60_000);

afterAll(() => {
  rows?.close?.();
});

const newSeries = (name: string) => f.series(group, { type: "Aggregated", name: `${name} ${Math.random()}` });
const iso = (t: number) => new Date(t * 1000).toISOString().slice(0, 16).replace("T", " ");

type Values = (rand: () => number) => number;

/** Values of the three paths of the codec whose sums are exact in any order: quarters, binary fractions (not short decimals), nulls. */
const exact: Values = (rand) => {
  const r = rand();
  return r < 0.08 ? NaN : r < 0.2 ? Math.round(rand() * 4096 - 2048) / 1024 + 0 : Math.round(rand() * 800 - 400) / 4 + 0;
};

/** Readings with two decimals (and nulls): their sums depend on the order and manner of adding. */
const readings: Values = (rand) => (rand() < 0.08 ? NaN : Math.round(rand() * 20_000 - 10_000) / 100 + 0);

let valueOf: Values = exact;

function randomRecords(rand: () => number, start: number, n: number): Rec[] {
  return recordsFrom(rand, start, n).map(([t, , fl]) => [t, valueOf(rand), fl === "" ? "" : rand() < 0.5 ? "F" : "RANGE SUSPECT"]);
}

/** What a store shows of a series, `rand` drawing the ranges and keys asked about. */
async function stateOf(store: RecordsStore, tid: number, rand: () => number) {
  const all: RecordBatch & { length: number } = { timestamps: new Float64Array(0), values: new Float64Array(0), flags: [], length: 0 };
  const chunks = [];
  for await (const c of store.read(tid, -1e12, 1e12, 1 + Math.floor(rand() * 3000))) chunks.push(c);
  const timestamps = chunks.flatMap((c) => Array.from(c.timestamps.subarray(0, c.length)));
  const values = chunks.flatMap((c) => Array.from(c.values.subarray(0, c.length)));
  const flags = chunks.flatMap((c) => c.flags.slice(0, c.length));
  Object.assign(all, { timestamps, values, flags, length: timestamps.length });
  const first = timestamps[0] ?? BASE;
  const last = timestamps.at(-1) ?? BASE;
  const t = () => Math.floor(first - DAY + rand() * (last - first + 2 * DAY));
  const range = (): [number, number] => [t(), t()].sort((a, b) => a - b) as [number, number];
  const ranges = Array.from({ length: 5 }, range);
  const stored = (k: number) => timestamps[Math.floor(rand() * timestamps.length)] ?? k;
  const value = values.find((v, k) => v === v && rand() < 0.1 && k > 0);
  return {
    summary: await store.summary(tid),
    blocks: await db().queryArrays(Prisma.sql`SELECT block_start, count, value_count, min, max, sum FROM timeseries_block
      WHERE timeseries_id = ${tid} ORDER BY block_start`),
    data: formatRecordLines(timestamps, values, flags, timestamps.length, 3, iso),
    bits: Array.from(new BigUint64Array(Float64Array.from(values, (v) => (v === v ? v : NaN)).buffer)),
    counts: await Promise.all(ranges.map(([a, b]) => store.count(tid, a, b))),
    aggregates: await Promise.all([
      ...ranges.map(([a, b], k) => store.aggregate(tid, a, b, [1, 2, 9, 40, 400][k])),
      store.aggregate(tid, first, last, 300),
    ]),
    ranges: await store.aggregateRanges(tid, ranges),
    lookups: await Promise.all([
      ...ranges.map(([a, b]) => store.latest(tid, a, b)),
      ...ranges.map(([a, b]) => store.earliest(tid, a, b)),
      ...ranges.map(([a, b]) => store.latest(tid, a, b, { valued: true })),
      value === undefined ? null : store.latest(tid, first, last, { value }),
    ]),
    days: await store.readDays(tid, [blockStart(stored(0)), blockStart(t()), blockStart(last)]),
    at: await store.recordsAt([[tid, stored(0)], [tid, stored(1)], [tid, t()], [tid + 1_000_000, first]]),
  };
}

type Op = (store: RecordsStore, tid: number) => Promise<unknown>;

/** A random operation on a series whose records are `current` (the same on both stores), and the records after it. */
function randomOp(rand: () => number, current: Rec[]): { op: Op; after: Rec[]; name: string } {
  const first = current[0]?.[0] ?? BASE;
  const last = current.at(-1)?.[0] ?? BASE;
  const stored = new Set(current.map((r) => r[0]));
  const pick = rand();
  if (pick < 0.2) {
    // Append, sometimes into the last stored day.
    const batch = randomRecords(rand, last + (rand() < 0.5 ? 0 : DAY), Math.floor(rand() * 800));
    return { name: "append", op: (s, tid) => s.write(tid, batchOf(batch), { mode: "append", validate: () => [] }), after: [...current, ...batch] };
  }
  if (pick < 0.32) {
    // Insert at free timestamps anywhere.
    const batch = [...new Map(Array.from({ length: Math.floor(rand() * 60) }, (): Rec => {
      const t = Math.floor(first - 3 * DAY + rand() * (last - first + 6 * DAY));
      return [t, valueOf(rand), rand() < 0.2 ? "NEW" : ""];
    }).filter((r) => !stored.has(r[0])).map((r) => [r[0], r])).values()].sort((a, b) => a[0] - b[0]);
    return {
      name: "insert", op: (s, tid) => s.write(tid, batchOf(batch), { mode: "insert", validate: () => [] }),
      after: [...current, ...batch].sort((a, b) => a[0] - b[0]),
    };
  }
  if (pick < 0.5) {
    const from = rand() < 0.2 ? first - 600 * Math.floor(rand() * 500) : Math.floor(first + rand() * (last - first + DAY));
    const kind = rand();
    // Mostly what a process run gives: the stored records again, a few changed.
    const batch = kind < 0.15 ? [] : kind < 0.6
      ? current.filter((r) => r[0] >= from).filter(() => rand() > 0.02).map(([t, v, fl]): Rec => (rand() < 0.05 ? [t, valueOf(rand), fl] : [t, v, fl]))
      : randomRecords(rand, from - 600 + 600 * Math.floor(rand() * 3), Math.floor(rand() * 1500));
    return { name: "replace", op: (s, tid) => s.replace(tid, from, batchOf(batch)), after: [...current.filter((r) => r[0] < from), ...batch] };
  }
  if (pick < 0.65) {
    const replacing = rand() < 0.5;
    const from = Math.floor(first + rand() * (last - first + DAY));
    const batch = randomRecords(rand, replacing ? from - 600 : last + (rand() < 0.5 ? 0 : DAY), Math.floor(rand() * 1500));
    const sizes = batch.map(() => 1 + Math.floor(rand() * 400));
    const chunked = async function* () {
      for (let i = 0, k = 0; i < batch.length; i += sizes[k++]) yield batchOf(batch.slice(i, i + sizes[k]));
    };
    return replacing
      ? {
        name: "writeChunks replace", op: (s, tid) => s.writeChunks(tid, chunked(), { replaceFrom: from }),
        after: [...current.filter((r) => r[0] < Math.min(from, batch[0]?.[0] ?? Infinity)), ...batch],
      }
      : { name: "writeChunks append", op: (s, tid) => s.writeChunks(tid, chunked()), after: [...current, ...batch] };
  }
  // A correction: deletions, changes, insertions of a range (or every record).
  const a = Math.floor(first - DAY / 2 + rand() * (last - first + DAY));
  const [from, to] = rand() < 0.1 ? [-Infinity, Infinity] : [a, Math.floor(a + rand() * rand() * (last - first + DAY))];
  const inRange = current.filter((r) => r[0] >= from && r[0] <= to);
  const change = randomChange(rand, inRange, Math.max(from, first - DAY), Math.min(to, last + DAY));
  const removed = new Set(change.remove);
  const upserted = new Map(Array.from(change.upsert.timestamps, (t, k): [number, Rec] => [t, [t, change.upsert.values[k] + 0, change.upsert.flags[k]]]));
  const after = [...current.filter((r) => !removed.has(r[0]) && !upserted.has(r[0])), ...upserted.values()].sort((x, y) => x[0] - y[0]);
  return { name: "correct", op: (s, tid) => s.correct(tid, { from, to, change: (): CorrectionChange => change }), after };
}

/**
 * The sums in a state (daily summaries, chart intervals, ranges) to hundredths, on PostgreSQL:
 * the row store's SUM added in the rows' physical order there, so that its sums of inexact values
 * are not reproducible in their last bits. Every value here (readings, and the corrections' quarters)
 * is a whole number of hundredths, and so is every exact sum; either order's error (below 1e-7 for
 * these sizes) is far from half a hundredth. (Twelve significant digits were not enough: a sum that
 * nearly cancels, 0.01 against 0.00999999999999, kept its error in them.)
 */
function sumsRounded<T>(state: T): T {
  if (DIALECT === "sqlite") return state;
  const round = (v: unknown) => (typeof v === "number" && Number.isFinite(v) ? Math.round(v * 100) / 100 + 0 : v);
  const s = state as unknown as { blocks: unknown[][]; aggregates: { sum: Float64Array }[]; ranges: { sum: number }[] };
  return {
    ...state,
    blocks: s.blocks.map((b) => [...b.slice(0, 5), round(b[5])]),
    aggregates: s.aggregates.map((a) => ({ ...a, sum: Array.from(a.sum, round) })),
    ranges: s.ranges.map((r) => ({ ...r, sum: round(r.sum) })),
  };
}

async function compareWithRowStore(seeds: number, values: Values): Promise<void> {
  valueOf = values;
  try {
    for (let seed = 1; seed <= seeds; seed++) {
      const rand = random(seed);
      const [blocksTid, rowsTid] = [await newSeries("blocks"), await newSeries("rows")];
      let current = randomRecords(rand, BASE, Math.floor(rand() * 2000));
      for (const [store, tid] of [[records(), blocksTid], [rows, rowsTid]] as const) await store.write(tid, batchOf(current), { mode: "append", validate: () => [] });
      for (let step = 0; step < 8; step++) {
        const { op, after, name } = randomOp(rand, current);
        const [a, b] = [await op(records(), blocksTid), await op(rows, rowsTid)];
        expect(a, `seed ${seed} step ${step} ${name}`).toEqual(b);
        current = after;
        const [x, y] = [await stateOf(records(), blocksTid, random(seed * 100 + step)), await stateOf(rows, rowsTid, random(seed * 100 + step))];
        expect(x.summary!.count, `seed ${seed} step ${step} ${name}`).toBe(current.length);
        expect(x.summary!.version - y.summary!.version, `seed ${seed} step ${step} ${name}: versions keep their distance`).toBe(0);
        expect(sumsRounded({ ...x, summary: { ...x.summary, version: 0 } }), `seed ${seed} step ${step} ${name}`)
          .toEqual(sumsRounded({ ...y, summary: { ...y.summary, version: 0 } }));
      }
    }
  } finally {
    valueOf = exact;
  }
}

describe(`records in day blocks against the row store (${DIALECT})`, () => {
  it("gives the same sums of 2-decimal readings as the row store's SQL did (bit for bit on SQLite), after any sequence of writes", async () => {
    await compareWithRowStore(8, readings);
  }, 600_000);

  it("gives the same records, data/ bytes, summaries, counts, chart aggregates and lookups after any sequence of writes", async () => {
    for (let seed = 1; seed <= 14; seed++) {
      const rand = random(seed);
      const [blocksTid, rowsTid] = [await newSeries("blocks"), await newSeries("rows")];
      let current = randomRecords(rand, BASE, Math.floor(rand() * 2000));
      for (const [store, tid] of [[records(), blocksTid], [rows, rowsTid]] as const) await store.write(tid, batchOf(current), { mode: "append", validate: () => [] });
      for (let step = 0; step < 8; step++) {
        const { op, after, name } = randomOp(rand, current);
        const [a, b] = [await op(records(), blocksTid), await op(rows, rowsTid)];
        expect(a, `seed ${seed} step ${step} ${name}`).toEqual(b);
        current = after;
        const look = random(seed * 100 + step);
        const [x, y] = [await stateOf(records(), blocksTid, look), await stateOf(rows, rowsTid, random(seed * 100 + step))];
        expect(x.summary!.count, `seed ${seed} step ${step} ${name}`).toBe(current.length);
        expect({ ...x, summary: { ...x.summary, version: 0 } }, `seed ${seed} step ${step} ${name}`).toEqual({ ...y, summary: { ...y.summary, version: 0 } });
        expect(x.summary!.version - y.summary!.version, `seed ${seed} step ${step} ${name}: versions keep their distance`).toBe(0);
      }
    }
  }, 600_000);

  it("reads a series stored as rows as it is, converts it in place with nothing changed, and writes it afterwards as the row store does", async () => {
    for (let seed = 1; seed <= 6; seed++) {
      const rand = random(seed * 13);
      const [converted, oracle] = [await newSeries("converted"), await newSeries("oracle")];
      // Both series get their history from the row store: the first is the state of a database before migration 0010.
      let current = randomRecords(rand, BASE, 500 + Math.floor(rand() * 3000));
      for (const tid of [converted, oracle]) await rows.write(tid, batchOf(current), { mode: "append", validate: () => [] });
      for (let step = 0; step < 3; step++) {
        const { op, after } = randomOp(rand, current);
        await op(rows, converted);
        await op(rows, oracle);
        current = after;
      }
      const before = await stateOf(rows, oracle, random(seed));
      expect(await stateOf(records(), converted, random(seed)), `seed ${seed}: read as rows`).toEqual(before);
      expect(await records().convert!(converted)).toBe(current.length);
      expect(await records().convert!(converted)).toBe(0);
      expect(await db().query(Prisma.sql`SELECT 1 FROM timeseries_record WHERE timeseries_id = ${converted}`)).toEqual([]);
      expect(await stateOf(records(), converted, random(seed)), `seed ${seed}: converted`).toEqual(before);
      // Then written on: by the blocks store, and the oracle by the row store.
      for (let step = 0; step < 3; step++) {
        const { op, after, name } = randomOp(rand, current);
        expect(await op(records(), converted), `seed ${seed} ${name}`).toEqual(await op(rows, oracle));
        current = after;
        expect(await stateOf(records(), converted, random(step)), `seed ${seed} ${name}`).toEqual(await stateOf(rows, oracle, random(step)));
      }
    }
  }, 300_000);

  it("converts a series stored as rows in the transaction of its first write, whatever the write", async () => {
    const writes: Op[] = [
      (s, tid) => s.write(tid, batchOf([[BASE + 50 * DAY, 1.5, ""]]), { mode: "append", validate: () => [] }),
      (s, tid) => s.write(tid, batchOf([[BASE + 300, 1.5, ""]]), { mode: "insert", validate: () => [] }),
      (s, tid) => s.replace(tid, BASE + DAY, batchOf([[BASE + DAY, 2.5, "X"]])),
      (s, tid) => s.writeChunks(tid, (async function* () { yield batchOf([[BASE + 60 * DAY, 3, ""]]); })()),
      (s, tid) => s.correct(tid, { from: BASE, to: BASE + 2 * DAY, change: (c) => ({ remove: c.timestamps.subarray(0, 3), upsert: batchOf([]) }) }),
    ];
    for (const [k, write] of writes.entries()) {
      const initial = randomRecords(random(k + 50), BASE, 1000);
      const [converted, oracle] = [await newSeries("first write"), await newSeries("first write oracle")];
      for (const tid of [converted, oracle]) await rows.write(tid, batchOf(initial), { mode: "append", validate: () => [] });
      expect(await write(records(), converted)).toEqual(await write(rows, oracle));
      expect(await db().query(Prisma.sql`SELECT 1 FROM timeseries_record WHERE timeseries_id = ${converted}`), `write ${k}`).toEqual([]);
      expect(await stateOf(records(), converted, random(k)), `write ${k}`).toEqual(await stateOf(rows, oracle, random(k)));
    }
    // A dry run or a refused write changes nothing, the form included.
    const untouched = await newSeries("untouched");
    await rows.write(untouched, batchOf(randomRecords(random(7), BASE, 100)), { mode: "append", validate: () => [] });
    expect(await records().write(untouched, batchOf([[BASE + 90 * DAY, 1, ""]]), { mode: "append", dryRun: true, validate: () => [] })).toEqual({ ok: true, stored: 1 });
    expect(await records().write(untouched, batchOf([[BASE + 90 * DAY, 1, ""]]), { mode: "append", validate: () => ["no"] })).toEqual({ ok: false, errors: ["no"] });
    expect((await db().query(Prisma.sql`SELECT COUNT(*) AS n FROM timeseries_record WHERE timeseries_id = ${untouched}`))[0]).toEqual({ n: 100 });
  }, 120_000);

  it("converts every series stored as rows with the job, which can stop anywhere and go on", async () => {
    const series = await Promise.all(Array.from({ length: 5 }, (_, k) => newSeries(`job ${k}`)));
    const expected = new Map<number, Awaited<ReturnType<typeof stateOf>>>();
    for (const [k, tid] of series.entries()) {
      await rows.write(tid, batchOf(randomRecords(random(k + 200), BASE, 300 + 200 * k)), { mode: "append", validate: () => [] });
      expected.set(tid, await stateOf(rows, tid, random(k)));
    }
    const remaining = async () => (await db().queryArrays<[number]>(Prisma.sql`SELECT DISTINCT timeseries_id FROM timeseries_record`)).map((r) => Number(r[0]));
    const stopper = new AbortController();
    let calls = 0;
    const job = { id: 0 } as never;
    const ctx = (signal: AbortSignal) => ({
      signal,
      progress() {
        if (++calls === 3) stopper.abort();
        if (signal.aborted) throw new Error("stopped");
      },
    });
    // The oracle series of the tests before are stored as rows too, and converted first (lower ids).
    const others = (await remaining()).filter((id) => !series.includes(id));
    await expect(convertRecords(job, ctx(stopper.signal))).rejects.toThrow("stopped");
    const left = await remaining();
    const mine = left.filter((id) => series.includes(id));
    expect(left.length).toBe(others.length + series.length - 2);
    expect(mine.length).toBeGreaterThan(0);
    const result = await convertRecords(job, ctx(new AbortController().signal));
    expect(result).toEqual({ series: left.length, records: expect.any(Number), failed: [] });
    expect(await remaining()).toEqual([]);
    for (const [k, tid] of series.entries()) expect(await stateOf(records(), tid, random(k))).toEqual(expected.get(tid));
  }, 120_000);

  it("restores a backup taken before the conversion: the rows as they were, converted again afterwards", async () => {
    const dir = mkdtempSync(join(tmpdir(), "enhydris-blocks-backup-"));
    const restored = await scratchDatabase();
    try {
      const tid = await newSeries("backed up");
      const initial = randomRecords(random(77), BASE, 3000);
      await rows.write(tid, batchOf(initial), { mode: "append", validate: () => [] });
      const before = await stateOf(rows, tid, random(1));
      await backup(parseDatabaseUrl(database.url), join(dir, "before"));
      expect(await records().convert!(tid)).toBe(initial.length);
      expect(await stateOf(records(), tid, random(1))).toEqual(before);
      await restore(parseDatabaseUrl(restored.url), join(dir, "before"));
      await connectFixtures(restored.url);
      try {
        expect((await db().queryArrays<[number]>(Prisma.sql`SELECT COUNT(*) FROM timeseries_record WHERE timeseries_id = ${tid}`))[0].map(Number)).toEqual([3000]);
        expect(await stateOf(records(), tid, random(1))).toEqual(before);
        expect(await records().convert!(tid)).toBe(initial.length);
        expect(await stateOf(records(), tid, random(1))).toEqual(before);
      } finally {
        records().close?.();
        await connectFixtures(database.url);
        rows = db().sqlite ? new SqliteRecordsStore(db(), db().sqlite!) : new PostgresRecordsStore(db().pool!, db().reads!);
      }
    } finally {
      await restored.dispose();
      rmSync(dir, { recursive: true, force: true });
    }
  }, 120_000);

  it("reads chunks of the size asked for, whole and in order, past the first size of a chunk's arrays", async () => {
    const tid = await f.series(group, { name: "chunks" });
    const n = 60_000;
    const batch: RecordBatch = {
      timestamps: Float64Array.from({ length: n }, (_, i) => BASE + i * 600),
      values: Float64Array.from({ length: n }, (_, i) => (i % 97 === 0 ? NaN : i / 100)),
      flags: Array.from({ length: n }, (_, i) => (i % 89 === 0 ? "F" : "")),
    };
    expect(await records().write(tid, batch, { mode: "append", validate: () => [] })).toEqual({ ok: true, stored: n });
    for (const size of [50_000, 5_000, 4_097, 70_000]) {
      const chunks = [];
      for await (const c of records().read(tid, -1e12, 1e12, size)) chunks.push(c);
      expect(chunks.map((c) => c.length), `chunks of ${size}`).toEqual([...Array(Math.floor(n / size)).fill(size), ...(n % size ? [n % size] : [])]);
      const read = chunks.flatMap((c) => Array.from(c.timestamps.subarray(0, c.length)));
      expect(read).toEqual(Array.from(batch.timestamps));
      const values = chunks.flatMap((c) => Array.from(c.values.subarray(0, c.length)));
      expect(values.map((v) => (Number.isNaN(v) ? null : v))).toEqual(Array.from(batch.values, (v) => (Number.isNaN(v) ? null : v)));
      expect(chunks.flatMap((c) => c.flags.slice(0, c.length))).toEqual(batch.flags);
    }
  });

  it("serializes appends into one day that run at once: none is lost", async () => {
    const tid = await newSeries("same day");
    const day = BASE + 10 * DAY;
    await records().write(tid, batchOf([[day, 0, ""]]), { mode: "append", validate: () => [] });
    const writes = Array.from({ length: 40 }, (_, k) => records().write(tid, batchOf([[day + 60 * (k + 1), k + 1, ""]]), { mode: "insert", validate: () => [] }));
    expect(await Promise.all(writes)).toEqual(writes.map(() => ({ ok: true, stored: 1 })));
    const [read] = await records().readDays(tid, [day]);
    expect(Array.from(read.values)).toEqual(Array.from({ length: 41 }, (_, k) => k));
    expect((await records().summary(tid))!.count).toBe(41);
  });

  it.runIf(DIALECT === "postgres")("appends into the last stored day in three round trips", async () => {
    const tid = await newSeries("round trips");
    await records().write(tid, batchOf([[BASE, 1, ""]]), { mode: "append", validate: () => [] });
    const { sent, stop } = recordPgQueries();
    try {
      expect(await records().write(tid, batchOf([[BASE + 600, 2, ""]]), { mode: "append", validate: () => [], also: [Prisma.sql`SELECT 1`] }))
        .toEqual({ ok: true, stored: 1 });
    } finally {
      stop();
    }
    expect(sent.length, sent.join("\n---\n")).toBe(3);
    expect(Array.from((await records().readDays(tid, [BASE]))[0].values)).toEqual([1, 2]);
  });

  it("stores a year of a 10-minute series with 2-decimal values in at most 8 bytes per record, indexes and summaries included", async () => {
    const tid = await newSeries("bytes");
    const n = 144 * 365;
    const start = BASE + 400 * DAY;
    const batch = {
      timestamps: Float64Array.from({ length: n }, (_, i) => start + 600 * i),
      values: Float64Array.from({ length: n }, (_, i) => Number((15 + 10 * Math.sin(i / 4000) + ((i * 7919) % 100) / 100).toFixed(2))),
      flags: new Array<string>(n).fill(""),
    };
    expect(await records().write(tid, batch, { mode: "append", validate: () => [] })).toEqual({ ok: true, stored: n });
    const bytes = db().sqlite
      ? Number((await db().queryArrays<[number]>(Prisma.sql`SELECT SUM(length(records)) + COUNT(*) * 60 FROM timeseries_block WHERE timeseries_id = ${tid}`))[0][0])
      : Number((await db().queryArrays<[number]>(Prisma.sql`SELECT SUM(pg_column_size(b.*)) + COUNT(*) * (4 + 28) FROM timeseries_block b WHERE timeseries_id = ${tid}`))[0][0]);
    expect(bytes / n).toBeLessThan(8);
    expect(bytes / n).toBeGreaterThan(1);
  });
});
