import { beforeAll, describe, expect, it } from "vitest";
import { db, Prisma } from "@/lib/db";
import { random } from "@/lib/demo/data";
import { enqueueSql } from "@/lib/jobs/queue";
import { type RecordChunk, records, RecordsOverlap } from "@/lib/records";
import * as f from "@/tests/support/fixtures";
import { recordPgQueries } from "@/tests/support/pg-queries";
import { DIALECT, inProcessDatabase } from "@/tests/support/server";

/**
 * The records store's streaming reads, in process (no server): chunks of every size give the
 * same records, flags and nulls in order; on SQLite the chunks after the first come from the
 * read-ahead worker thread; a reader that stops early leaves the store usable.
 */
inProcessDatabase();
let seriesId: number;
const N = 45_007;
const T0 = Date.UTC(2020, 0, 1) / 1000;
const flagOf = (i: number) => (i % 997 === 0 ? `F${i} RANGE` : "");
const valueOf = (i: number) => (i % 101 === 0 ? null : (i % 5000) / 10);

beforeAll(async () => {
  seriesId = await f.series(await f.group(await f.station()));
  const result = await records().write(seriesId, {
    timestamps: Float64Array.from({ length: N }, (_, i) => T0 + i * 600),
    values: Float64Array.from({ length: N }, (_, i) => valueOf(i) ?? NaN),
    flags: Array.from({ length: N }, (_, i) => flagOf(i)),
  }, { mode: "append", validate: () => [] });
  expect(result).toEqual({ ok: true, stored: N });
}, 60_000);

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

describe(`records store replace (${DIALECT})`, () => {
  type Rec = [number, number, string];
  const DAY_S = 86_400;
  const BASE = Date.UTC(2021, 0, 1) / 1000;

  /** Records at 10-minute steps with gaps; values are quarters (their sums are exact) or null. */
  function recordsFrom(rand: () => number, start: number, n: number): Rec[] {
    const out: Rec[] = [];
    let t = start;
    for (let i = 0; i < n; i++) {
      t += 600 * (rand() < 0.05 ? 1 + Math.floor(rand() * 300) : 1);
      out.push([t, rand() < 0.1 ? NaN : Math.round(rand() * 400 - 200) / 4, rand() < 0.2 ? "F" : ""]);
    }
    return out;
  }
  /** What a process run over stored records mostly gives: the same records, a few changed, gone or new. */
  function recomputed(rand: () => number, rows: Rec[], from: number): Rec[] {
    const out: Rec[] = [];
    for (const [t, v, flags] of rows) {
      const r = rand();
      if (r < 0.03) continue;
      if (r < 0.06 && t - 300 >= from && !out.some((o) => o[0] === t - 300)) out.push([t - 300, 1.25, ""]);
      out.push(r < 0.1 ? [t, Math.round(rand() * 400 - 200) / 4, flags] : r < 0.13 ? [t, NaN, flags] : r < 0.16 ? [t, v, flags ? "" : "F G"] : [t, v, flags]);
    }
    return out;
  }
  const batchOf = (rows: Rec[]) => ({
    timestamps: Float64Array.from(rows, (r) => r[0]), values: Float64Array.from(rows, (r) => r[1]), flags: rows.map((r) => r[2]),
  });
  const append = (tid: number, rows: Rec[]) => records().write(tid, batchOf(rows), { mode: "append", validate: () => [] });
  const blocks = (tid: number) => db().query(Prisma.sql`SELECT block_start, count, value_count, min, max, sum
    FROM timeseries_block WHERE timeseries_id = ${tid} ORDER BY block_start`);
  async function observed(tid: number, rand: () => number) {
    const { version: _, ...summary } = (await records().summary(tid))!;
    const lo = BASE - DAY_S;
    const hi = BASE + 40 * DAY_S;
    const ranges = Array.from({ length: 4 }, () => [lo + rand() * (hi - lo), lo + rand() * (hi - lo)].map(Math.floor).sort((x, y) => x - y));
    return {
      summary,
      blocks: (await blocks(tid)).map((b) => Object.values(b).map(Number)),
      counts: await Promise.all(ranges.map(([a, b]) => records().count(tid, a, b))),
      aggregates: await Promise.all(ranges.map(([a, b], k) => records().aggregate(tid, a, b, [1, 3, 7, 50][k]))),
      records: (await readAllOf(tid)).map((r) => r.join()),
    };
  }
  async function readAllOf(tid: number) {
    const rows: [number, number | null, string][] = [];
    for await (const c of records().read(tid, -1e12, 1e12)) for (let i = 0; i < c.length; i++) rows.push([c.timestamps[i], Number.isNaN(c.values[i]) ? null : c.values[i], c.flags[i]]);
    return rows;
  }

  it("keeps the summary, counts, blocks and chart aggregates equal to one write of the final records", async () => {
    const gid = await f.group(await f.station());
    for (let seed = 1; seed <= 30; seed++) {
      const rand = random(seed);
      let current = recordsFrom(rand, BASE, Math.floor(rand() * 3000));
      const replaced = await f.series(gid, { type: "Aggregated", name: `replaced ${seed}` });
      if (current.length) await append(replaced, current);
      // Several replacements in turn: from before the first record, inside, at a record, after the last; empty batches too.
      for (let round = 0; round < 3; round++) {
        const first = current[0]?.[0] ?? BASE;
        const last = current.at(-1)?.[0] ?? BASE;
        const choice = rand();
        const from = choice < 0.15 ? first - 600 * Math.floor(rand() * 500)
          : choice < 0.3 ? last + 600 * Math.floor(1 + rand() * 200)
            : choice < 0.5 && current.length ? current[Math.floor(rand() * current.length)][0]
              : Math.floor(first + rand() * (last - first + DAY_S));
        const kind = rand();
        const batch = kind < 0.15 ? [] : kind < 0.5 ? recomputed(rand, current.filter((r) => r[0] >= from), from)
          : recordsFrom(rand, from - 600 + 600 * Math.floor(rand() * 3), Math.floor(rand() * 2500));
        expect(await records().replace(replaced, from, batchOf(batch))).toBe(batch.length);
        current = [...current.filter((r) => r[0] < from), ...batch];
      }
      const once = await f.series(gid, { type: "Aggregated", name: `once ${seed}` });
      if (current.length) await append(once, current);
      const check = random(seed * 7919);
      const a = await observed(replaced, check);
      const b = await observed(once, random(seed * 7919));
      expect(a, `seed ${seed}`).toEqual(b);
      expect(a.summary.count, `seed ${seed}`).toBe(current.length);
    }
  }, 120_000);

  it("compares with the records stored() read beforehand, and reads them itself when a write came in between or they start later", async () => {
    const gid = await f.group(await f.station());
    for (let seed = 1; seed <= 16; seed++) {
      const rand = random(seed * 31);
      let current = recordsFrom(rand, BASE, 200 + Math.floor(rand() * 2000));
      const replaced = await f.series(gid, { type: "Aggregated", name: `stored ${seed}` });
      await append(replaced, current);
      const from = current[Math.floor(rand() * current.length)][0];
      // Read from `from` or earlier (usable), or from later (not usable: the replacement reads).
      const readFrom = seed % 4 === 3 ? from + 600 : from - 600 * Math.floor(rand() * 50);
      const stored = await records().stored(replaced, readFrom);
      expect(stored!.chunks.reduce((n, c) => n + c.length, 0)).toBe(current.filter((r) => r[0] >= readFrom).length);
      if (seed % 2 === 0) {
        // A write after the read: the stored records are no longer the series' own.
        const more = recordsFrom(rand, current.at(-1)![0], 1 + Math.floor(rand() * 50));
        await append(replaced, more);
        current = [...current, ...more];
      }
      const batch = recomputed(rand, current.filter((r) => r[0] >= from), from);
      expect(await records().replace(replaced, from, batchOf(batch), { stored })).toBe(batch.length);
      current = [...current.filter((r) => r[0] < from), ...batch];
      const once = await f.series(gid, { type: "Aggregated", name: `stored once ${seed}` });
      if (current.length) await append(once, current);
      expect(await observed(replaced, random(seed)), `seed ${seed}`).toEqual(await observed(once, random(seed)));
    }
    expect(await records().stored(999_999, BASE)).toBeNull();
  }, 120_000);

  /** The rows as chunks of random sizes (some empty). */
  async function* chunked(rand: () => number, rows: Rec[]) {
    for (let i = 0; i < rows.length;) {
      const size = rand() < 0.1 ? 0 : 1 + Math.floor(rand() * 700);
      yield batchOf(rows.slice(i, i + size));
      i += size;
    }
  }

  it("writes records that arrive in chunks as one write (or replace) of them all", async () => {
    const gid = await f.group(await f.station());
    for (let seed = 1; seed <= 12; seed++) {
      const rand = random(seed);
      const chunks = await f.series(gid, { type: "Aggregated", name: `chunks ${seed}` });
      let current = recordsFrom(rand, BASE, Math.floor(rand() * 3000));
      expect(await records().writeChunks(chunks, chunked(rand, current))).toBe(current.length);
      const more = recordsFrom(rand, current.at(-1)?.[0] ?? BASE, Math.floor(rand() * 1000));
      expect(await records().writeChunks(chunks, chunked(rand, more))).toBe(more.length);
      current = [...current, ...more];
      const first = current[0]?.[0] ?? BASE;
      const last = current.at(-1)?.[0] ?? BASE;
      const from = Math.floor(first - DAY_S + rand() * (last - first + 2 * DAY_S));
      const batch = rand() < 0.15 ? [] : recordsFrom(rand, from - 600 + 600 * Math.floor(rand() * 3), Math.floor(rand() * 2500));
      const froms: number[] = [];
      const also = (t: number) => {
        froms.push(t);
        return [Prisma.sql`UPDATE timeseries SET name = ${`chunks ${seed} from ${t}`} WHERE id = ${chunks}`];
      };
      expect(await records().writeChunks(chunks, chunked(rand, batch), { replaceFrom: from, also })).toBe(batch.length);
      expect(froms).toEqual([Math.min(from, batch[0]?.[0] ?? Infinity)]);
      expect((await db().prisma.timeseries.findUnique({ where: { id: chunks } }))!.name).toBe(`chunks ${seed} from ${froms[0]}`);
      current = [...current.filter((r) => r[0] < from), ...batch];
      const once = await f.series(gid, { type: "Aggregated", name: `chunks once ${seed}` });
      if (current.length) await append(once, current);
      const a = await observed(chunks, random(seed * 31));
      const b = await observed(once, random(seed * 31));
      expect(a, `seed ${seed}`).toEqual(b);
    }
  }, 120_000);

  it("shows chunks to no reader before the last has come, writes nothing when they fail, and refuses an overlapping append", async () => {
    const tid = await f.series(await f.group(await f.station()));
    await append(tid, [[BASE, 1, ""], [BASE + 600, 2, ""]]);
    const before = { summary: await records().summary(tid), records: await readAllOf(tid), blocks: await blocks(tid) };
    const now = async () => ({ summary: await records().summary(tid), records: await readAllOf(tid), blocks: await blocks(tid) });
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    let reached!: () => void;
    const waiting = new Promise<void>((resolve) => (reached = resolve));
    const failing = (async function* () {
      yield batchOf([[BASE + 1200, 3, ""]]);
      yield batchOf([[BASE + 1800, 4, ""], [BASE + 2400, 5, "X"]]);
      reached();
      await gate;
      throw new Error("the source broke off");
    })();
    const writing = records().writeChunks(tid, failing, { also: () => [Prisma.sql`UPDATE timeseries SET name = 'changed' WHERE id = ${tid}`] });
    await waiting;
    expect(await now()).toEqual(before);
    release();
    await expect(writing).rejects.toThrow("the source broke off");
    expect(await now()).toEqual(before);
    expect((await db().prisma.timeseries.findUnique({ where: { id: tid } }))!.name).not.toBe("changed");

    await expect(records().writeChunks(tid, chunked(random(1), [[BASE + 600, 9, ""], [BASE + 1200, 9, ""]]))).rejects.toThrow(RecordsOverlap);
    expect(await records().writeChunks(tid, chunked(random(1), []))).toBe(0);
    expect(await now()).toEqual(before);
    await expect(records().writeChunks(tid, (async function* () {
      yield batchOf([[BASE + 1200, 3, ""]]);
      yield batchOf([[BASE + 1200, 4, ""]]);
    })())).rejects.toThrow(/not after/);
    expect(await now()).toEqual(before);
  });

  it("raises the version, refuses a batch that starts before `from`, and changes nothing for an empty replacement after the end", async () => {
    const tid = await f.series(await f.group(await f.station()));
    await append(tid, [[BASE, 1, ""], [BASE + 600, 2, ""]]);
    const before = (await records().summary(tid))!;
    expect(await records().replace(tid, BASE + 600, batchOf([[BASE + 600, 5, "X"], [BASE + 1200, 6, ""]]))).toBe(2);
    const after = (await records().summary(tid))!;
    expect(after).toEqual({ count: 3, first: BASE, last: BASE + 1200, lastValue: 6, lastFlags: "", version: before.version + 1 });
    await expect(records().replace(tid, BASE + 1200, batchOf([[BASE + 600, 1, ""]]))).rejects.toThrow(/before/);
    expect(await records().replace(tid, BASE + 6000, batchOf([]))).toBe(0);
    expect(await records().summary(tid)).toEqual(after);
    // Deleting everything leaves an empty summary.
    expect(await records().replace(tid, BASE - 600, batchOf([]))).toBe(0);
    expect(await records().summary(tid)).toEqual({ count: 0, first: null, last: null, lastValue: null, lastFlags: null, version: after.version + 1 });
    expect(await blocks(tid)).toEqual([]);
    await expect(records().replace(999_999, BASE, batchOf([]))).rejects.toThrow(/does not exist/);
  });
});

describe(`records store writes with their \`also\` statements (${DIALECT})`, () => {
  const BASE = Date.UTC(2022, 0, 1) / 1000;
  const batch = (n: number, start = BASE) => ({
    timestamps: Float64Array.from({ length: n }, (_, i) => start + i * 600),
    values: Float64Array.from({ length: n }, (_, i) => i / 4),
    flags: Array.from({ length: n }, () => ""),
  });
  const jobs = async (key: string) => (await db().query(Prisma.sql`SELECT payload FROM job WHERE key = ${key}`)).length;
  const stored = async (tid: number) => (await records().summary(tid))!.count;

  it("runs them in the write's transaction: their values arrive intact, and one that fails rolls everything back", async () => {
    const tid = await f.series(await f.group(await f.station()));
    const name = "it's a \\ name; with \"quotes\" -- and $1 ? Ώρα";
    expect(await records().write(tid, batch(10), {
      mode: "append", validate: () => [],
      also: [enqueueSql({ kind: "test", key: `also ok ${tid}`, payload: { n: 1.5, s: name } }), Prisma.sql`UPDATE timeseries SET name = ${name} WHERE id = ${tid}`],
    })).toEqual({ ok: true, stored: 10 });
    expect((await db().prisma.timeseries.findUnique({ where: { id: tid } }))!.name).toBe(name);
    expect(await db().query(Prisma.sql`SELECT payload FROM job WHERE key = ${`also ok ${tid}`}`)).toEqual([{ payload: JSON.stringify({ n: 1.5, s: name }) }]);

    const failing = [
      enqueueSql({ kind: "test", key: `also failing ${tid}` }),
      // The day just written again: a unique violation, after the job was queued.
      Prisma.sql`INSERT INTO timeseries_block (timeseries_id, block_start, count, value_count) VALUES (${tid}, ${BASE}, ${1}, ${1})`,
      Prisma.sql`UPDATE timeseries SET name = ${"after the failure"} WHERE id = ${tid}`,
    ];
    await expect(records().write(tid, batch(1, BASE + 6000), { mode: "append", validate: () => [], also: failing })).rejects.toThrow();
    await expect(records().replace(tid, BASE + 6000, batch(1, BASE + 6000), { also: failing })).rejects.toThrow();
    await expect(records().writeChunks(tid, (async function* () { yield batch(1, BASE + 6000); })(), { also: () => failing })).rejects.toThrow();
    expect(await stored(tid)).toBe(10);
    expect(await jobs(`also failing ${tid}`)).toBe(0);
    expect((await db().prisma.timeseries.findUnique({ where: { id: tid } }))!.name).toBe(name);
    // The connections are usable after the failures.
    expect(await records().write(tid, batch(2, BASE + 6000), { mode: "append", validate: () => [], also: failing.slice(0, 1) })).toEqual({ ok: true, stored: 2 });
    expect(await jobs(`also failing ${tid}`)).toBe(1);
  });

  it.runIf(DIALECT === "postgres")("takes three round trips for a small write and its statements: BEGIN with the lock, the write, the statements with COMMIT", async () => {
    const tid = await f.series(await f.group(await f.station()));
    const also = [0, 1, 2].map((k) => enqueueSql({ kind: "test", key: `trips ${tid} ${k}` }));
    const { sent, stop } = recordPgQueries();
    try {
      expect(await records().write(tid, batch(10), { mode: "append", validate: () => [], also })).toEqual({ ok: true, stored: 10 });
    } finally {
      stop();
    }
    expect(sent.length, sent.join("\n---\n")).toBe(3);
    expect(sent[0]).toMatch(/^BEGIN; SELECT last_timestamp\b.* FOR UPDATE$/);
    expect(sent[2]).toMatch(/;\nCOMMIT$/);
    for (let k = 0; k < 3; k++) expect(await jobs(`trips ${tid} ${k}`)).toBe(1);
  });
});
