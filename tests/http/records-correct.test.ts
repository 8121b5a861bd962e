import { beforeAll, describe, expect, it } from "vitest";
import { db, Prisma } from "@/lib/db";
import { random } from "@/lib/demo/data";
import { MAX_INSTANT } from "@/lib/formats/date-param";
import { enqueueSql } from "@/lib/jobs/queue";
import { type CorrectionChange, type CorrectionOutcome, type RecordBatch, records } from "@/lib/records";
import * as f from "@/tests/support/fixtures";
import { append, batchOf, blocks, expectedOutcome, observed, randomChange, readAllOf, type Rec, recordsFrom, rowsOf } from "@/tests/support/records-oracle";
import { DIALECT, inProcessDatabase } from "@/tests/support/server";

/**
 * The records store's corrections (RecordsStore.correct), in process on the dialect under test:
 * what a correction reports it changed is what an independent model of the records says, and
 * the series afterwards (summary, daily blocks, counts, chart aggregates, records) equals one
 * written once with the final records; the version rises only when a record changed.
 */
inProcessDatabase();
let group: number;
const DAY = 86_400;
const BASE = Date.UTC(2021, 0, 1) / 1000;

beforeAll(async () => {
  group = await f.group(await f.station());
}, 60_000);

const imagesOf = (outcome: CorrectionOutcome) => ({
  before: rowsOf(outcome.before), written: rowsOf(outcome.written), first: outcome.first, last: outcome.last,
});

async function fromScratch(rows: Rec[], name: string) {
  const once = await f.series(group, { type: "Aggregated", name });
  if (rows.length) expect(await append(once, rows)).toEqual({ ok: true, stored: rows.length });
  return once;
}

const look = (tid: number, seed: number) => observed(tid, random(seed), BASE - DAY, BASE + 60 * DAY);

describe(`records store corrections (${DIALECT})`, () => {
  it("changes what the model says, and leaves the series as one write of its final records would", async () => {
    for (let seed = 1; seed <= 24; seed++) {
      const rand = random(seed);
      let current = recordsFrom(rand, BASE, Math.floor(rand() * 3000));
      const tid = await f.series(group, { type: "Aggregated", name: `corrected ${seed}` });
      if (current.length) await append(tid, current);
      for (let round = 0; round < 3; round++) {
        const first = current[0]?.[0] ?? BASE;
        const last = current.at(-1)?.[0] ?? BASE;
        const a = Math.floor(first - DAY / 2 + rand() * (last - first + DAY));
        const from = rand() < 0.1 ? a - 3 * DAY : a;
        const to = rand() < 0.1 ? Math.max(from, last + 1000) : Math.floor(from + rand() * rand() * (last - first + DAY));
        let seen: Rec[] | null = null;
        let change!: CorrectionChange;
        const { version } = (await records().summary(tid))!;
        const result = await records().correct(tid, {
          from, to,
          change(stored: RecordBatch) {
            seen = rowsOf(stored);
            change = randomChange(rand, seen, from, to);
            return change;
          },
        });
        const inRange = current.filter((r) => r[0] >= from && r[0] <= to);
        expect(seen, `seed ${seed}`).toEqual(inRange);
        const model = expectedOutcome(current, from, to, change);
        expect(result.ok).toBe(true);
        expect(imagesOf(result as CorrectionOutcome), `seed ${seed} round ${round}`).toEqual({ before: model.before, written: model.written, first: model.first, last: model.last });
        current = model.records;
        expect((await records().summary(tid))!.version, `seed ${seed}`).toBe(model.first === null ? version : version + 1);
        const once = await fromScratch(current, `once ${seed} ${round}`);
        expect(await look(tid, seed * 7 + round), `seed ${seed} round ${round}`).toEqual(await look(once, seed * 7 + round));
      }
    }
  }, 240_000);

  it("deletes every record of an unbounded range, leaving an empty summary and no blocks", async () => {
    const rows = recordsFrom(random(5), BASE, 500);
    const tid = await f.series(group, { type: "Aggregated", name: "emptied" });
    await append(tid, rows);
    const result = await records().correct(tid, {
      from: -Infinity, to: Infinity, change: (stored) => ({ remove: stored.timestamps, upsert: batchOf([]) }),
    });
    expect(result.ok && rowsOf(result.before)).toEqual(rows);
    expect(result.ok && [result.written.timestamps.length, result.first, result.last]).toEqual([0, rows[0][0], rows.at(-1)![0]]);
    const summary = (await records().summary(tid))!;
    expect({ ...summary, version: 0 }).toEqual({ count: 0, first: null, last: null, lastValue: null, lastFlags: null, version: 0 });
    expect(await blocks(tid)).toEqual([]);
    // Records can be added again afterwards.
    expect(await append(tid, rows.slice(0, 10))).toEqual({ ok: true, stored: 10 });
    expect(await look(tid, 1)).toEqual(await look(await fromScratch(rows.slice(0, 10), "emptied once"), 1));
  });

  it("reports no change and keeps the version for records rewritten as they are (-0 as 0, any NaN as null)", async () => {
    const tid = await f.series(group, { type: "Aggregated", name: "no-op" });
    await append(tid, [[BASE, 0, ""], [BASE + 600, NaN, "X"], [BASE + 1200, 1.5, ""]]);
    const before = (await records().summary(tid))!;
    const calls: CorrectionOutcome[] = [];
    const result = await records().correct(tid, {
      from: BASE, to: BASE + 1200,
      change: () => ({ remove: new Float64Array(0), upsert: { timestamps: Float64Array.of(BASE, BASE + 600, BASE + 1200), values: Float64Array.of(-0, -NaN, 1.5), flags: ["", "X", ""] } }),
    }, { also: (outcome) => (calls.push(outcome), []) });
    expect(result).toEqual({ ok: true, before: batchOf([]), written: batchOf([]), first: null, last: null });
    expect(calls).toHaveLength(1);
    expect(await records().summary(tid)).toEqual(before);
    // A new -0 is stored as 0.
    const inserted = await records().correct(tid, {
      from: BASE, to: BASE + 3000,
      change: () => ({ remove: new Float64Array(0), upsert: batchOf([[BASE + 1800, -0, ""]]) }),
    });
    expect(inserted.ok && Object.is(inserted.written.values[0], 0)).toBe(true);
    expect(await readAllOf(tid)).toEqual([[BASE, 0, ""], [BASE + 600, null, "X"], [BASE + 1200, 1.5, ""], [BASE + 1800, 0, ""]]);
    expect(Object.is((await readAllOf(tid))[3][1], 0)).toBe(true);
  });

  it("computes a dry run's outcome and changes nothing; runs `also` in the transaction, which a failure rolls back", async () => {
    const rows = recordsFrom(random(11), BASE, 400);
    const tid = await f.series(group, { type: "Aggregated", name: "dry" });
    await append(tid, rows);
    const state = async () => ({ summary: await records().summary(tid), blocks: await blocks(tid), records: await readAllOf(tid) });
    const initial = await state();
    const from = rows[100][0];
    const to = rows[200][0];
    const plan = {
      from, to,
      change: (stored: RecordBatch): CorrectionChange => ({
        remove: stored.timestamps.subarray(0, 10),
        upsert: { timestamps: stored.timestamps.subarray(10), values: stored.values.subarray(10).map((v) => v * 2), flags: stored.flags.slice(10) },
      }),
    };
    let called = 0;
    const dry = await records().correct(tid, plan, { dryRun: true, also: () => (called++, []) });
    expect(called).toBe(0);
    expect(await state()).toEqual(initial);
    const model = expectedOutcome(rows, from, to, plan.change(batchOf(rows.filter((r) => r[0] >= from && r[0] <= to))));
    expect(imagesOf(dry as CorrectionOutcome)).toEqual({ before: model.before, written: model.written, first: model.first, last: model.last });

    const failing = (outcome: CorrectionOutcome) => [
      enqueueSql({ kind: "test", key: `correct failing ${tid}`, payload: { first: outcome.first } }),
      // A day stored already: a unique violation.
      Prisma.sql`INSERT INTO timeseries_block (timeseries_id, block_start, count, value_count) VALUES (${tid}, ${rows[0][0] - (rows[0][0] % DAY)}, ${1}, ${1})`,
    ];
    await expect(records().correct(tid, plan, { also: failing })).rejects.toThrow();
    expect(await state()).toEqual(initial);
    expect(await db().query(Prisma.sql`SELECT 1 FROM job WHERE key = ${`correct failing ${tid}`}`)).toEqual([]);

    const applied = await records().correct(tid, plan, {
      also: (outcome) => [
        enqueueSql({ kind: "test", key: `correct ok ${tid}`, payload: { first: outcome.first, last: outcome.last } }),
        Prisma.sql`UPDATE timeseries SET name = ${`corrected ${outcome.before.timestamps.length}`} WHERE id = ${tid}`,
      ],
    });
    expect(imagesOf(applied as CorrectionOutcome)).toEqual(imagesOf(dry as CorrectionOutcome));
    expect(await db().query(Prisma.sql`SELECT payload FROM job WHERE key = ${`correct ok ${tid}`}`))
      .toEqual([{ payload: JSON.stringify({ first: model.first, last: model.last }) }]);
    expect((await db().prisma.timeseries.findUnique({ where: { id: tid } }))!.name).toBe(`corrected ${model.before.length}`);
    expect(await look(tid, 3)).toEqual(await look(await fromScratch(model.records, "dry once"), 3));
  });

  it("refuses with the plan's errors, a timestamp outside the store's range or a value that is not finite; throws on a broken change", async () => {
    const rows: Rec[] = [[BASE, 1, ""], [BASE + 600, 2, ""], [BASE + 1200, 3, "A"]];
    const tid = await f.series(group, { type: "Aggregated", name: "refused" });
    await append(tid, rows);
    const initial = { summary: await records().summary(tid), blocks: await blocks(tid), records: await readAllOf(tid) };
    const correct = (from: number, to: number, change: (stored: RecordBatch) => CorrectionChange | { errors: string[] }) =>
      records().correct(tid, { from, to, change }, { also: () => { throw new Error("also of a refused correction"); } });
    const none = new Float64Array(0);
    expect(await correct(BASE, BASE + 600, () => ({ errors: ["no such record", "and another"] }))).toEqual({ ok: false, errors: ["no such record", "and another"] });
    expect(await correct(BASE, Infinity, () => ({ remove: none, upsert: batchOf([[BASE + 600, 5, ""], [MAX_INSTANT + 600, 1, ""]]) })))
      .toEqual({ ok: false, errors: ["2260-01-01T00:10:00Z is outside 1680-01-01 to 2260-01-01"] });
    expect(await correct(BASE, BASE + 600, () => ({ remove: none, upsert: batchOf([[BASE, Infinity, ""], [BASE + 600, -Infinity, ""]]) })))
      .toEqual({ ok: false, errors: ["the value at 2021-01-01T00:00:00Z is not a finite number", "the value at 2021-01-01T00:10:00Z is not a finite number"] });
    await expect(correct(BASE, BASE + 600, () => ({ remove: Float64Array.of(BASE + 300), upsert: batchOf([]) }))).rejects.toThrow(/not a stored timestamp/);
    await expect(correct(BASE, BASE + 600, () => ({ remove: Float64Array.of(BASE + 1200), upsert: batchOf([]) }))).rejects.toThrow(/outside/);
    await expect(correct(BASE, BASE + 600, () => ({ remove: Float64Array.of(BASE), upsert: batchOf([[BASE, 1, ""]]) }))).rejects.toThrow(/both removed and upserted/);
    await expect(correct(BASE, BASE + 600, () => ({ remove: none, upsert: batchOf([[BASE + 600, 1, ""], [BASE, 1, ""]]) }))).rejects.toThrow(/not sorted/);
    await expect(correct(BASE, BASE + 600, () => ({ remove: none, upsert: batchOf([[BASE + 1200, 1, ""]]) }))).rejects.toThrow(/outside/);
    await expect(correct(BASE, BASE + 600, () => ({ remove: none, upsert: batchOf([[BASE + 0.5, 1, ""]]) }))).rejects.toThrow(/not an integer/);
    expect({ summary: await records().summary(tid), blocks: await blocks(tid), records: await readAllOf(tid) }).toEqual(initial);
    await expect(records().correct(999_999, { from: BASE, to: BASE, change: () => ({ remove: none, upsert: batchOf([]) }) })).rejects.toThrow(/does not exist/);
    // The store is usable after the failures.
    const deleted = await records().correct(tid, { from: BASE, to: BASE, change: (stored) => ({ remove: stored.timestamps, upsert: batchOf([]) }) });
    expect(deleted.ok && rowsOf(deleted.before)).toEqual([rows[0]]);
    expect(await readAllOf(tid)).toEqual([[BASE + 600, 2, ""], [BASE + 1200, 3, "A"]]);
  });

  it("serializes corrections with uploads to the same series: nothing is lost", async () => {
    const rows = recordsFrom(random(17), BASE, 1000).map(([t, v, fl]): Rec => [t, v === v ? v : 0, fl]);
    const tid = await f.series(group, { type: "Aggregated", name: "concurrent" });
    await append(tid, rows);
    const target = rows[500][0];
    const later = rows.at(-1)![0];
    const uploads = Array.from({ length: 12 }, (_, k) => recordsFrom(random(100 + k), later + k * 10 * DAY, 50));
    // Each correction adds 1 to the same record, reading it in its transaction: a lost update would show.
    const bump = () => records().correct(tid, {
      from: target, to: target,
      change: (stored) => ({ remove: new Float64Array(0), upsert: { timestamps: stored.timestamps, values: stored.values.map((v) => v + 1), flags: stored.flags } }),
    });
    const deletions = rows.slice(0, 12).map(([t]) => () => records().correct(tid, {
      from: t, to: t, change: (stored) => ({ remove: stored.timestamps, upsert: batchOf([]) }),
    }));
    const work = [...uploads.map((u) => () => append(tid, u)), ...Array.from({ length: 12 }, () => bump), ...deletions];
    // Started in a shuffled order, all at once.
    const rand = random(3);
    for (let i = work.length - 1; i > 0; i--) {
      const j = Math.floor(rand() * (i + 1));
      [work[i], work[j]] = [work[j], work[i]];
    }
    const results = await Promise.all(work.map((w) => w()));
    expect(results.every((r) => r.ok)).toBe(true);
    const final: Rec[] = [...rows.slice(12).map(([t, v, fl]): Rec => [t, t === target ? v + 12 : v, fl]), ...uploads.flat()];
    expect(await readAllOf(tid)).toEqual(final.map(([t, v, fl]) => [t, v === v ? v : null, fl]));
    expect(await look(tid, 9)).toEqual(await look(await fromScratch(final, "concurrent once"), 9));
  }, 60_000);
});
