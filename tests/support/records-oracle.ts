import { db, Prisma } from "@/lib/db";
import { random } from "@/lib/demo/data";
import { records, type CorrectionChange, type RecordBatch, type RecordsStore } from "@/lib/records";

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

/**
 * Records at 10-minute steps with gaps; values are quarters, some null, some flagged. Quarters
 * sum exactly in any order: PostgreSQL's SUM of a chart interval adds in the order of the rows
 * on disk, which differs between a corrected series and one written once.
 */
export function recordsFrom(rand: () => number, start: number, n: number): Rec[] {
  const out: Rec[] = [];
  let t = start;
  for (let i = 0; i < n; i++) {
    t += 600 * (rand() < 0.03 ? 1 + Math.floor(rand() * 300) : 1);
    out.push([t, rand() < 0.08 ? NaN : Math.round(rand() * 800 - 400) / 4 + 0, rand() < 0.15 ? "F" : ""]);
  }
  return out;
}

const sameValue = (a: number, b: number) => a === b || (a !== a && b !== b);

/** The model: the records of [from, to] after `change`, and what changed (each image sorted). */
export function expectedOutcome(current: Rec[], from: number, to: number, change: CorrectionChange) {
  const old = new Map(current.filter((r) => r[0] >= from && r[0] <= to).map((r) => [r[0], r]));
  const after = new Map(old);
  for (const t of change.remove) after.delete(t);
  rowsOf(change.upsert).forEach(([t, v, fl]) => after.set(t, [t, v === 0 ? 0 : v, fl]));
  const differs = (a: Rec | undefined, b: Rec | undefined) => !a || !b || !sameValue(a[1], b[1]) || a[2] !== b[2];
  const sorted = (rows: Rec[]) => rows.sort((x, y) => x[0] - y[0]);
  const before = sorted([...old.values()].filter((r) => differs(r, after.get(r[0]))));
  const written = sorted([...after.values()].filter((r) => differs(r, old.get(r[0]))));
  const stamps = [...before, ...written].map((r) => r[0]);
  return {
    before, written,
    first: stamps.length ? Math.min(...stamps) : null,
    last: stamps.length ? Math.max(...stamps) : null,
    records: sorted([...current.filter((r) => r[0] < from || r[0] > to), ...after.values()]),
  };
}

/** A random change of the records of a range: deletions, changes, insertions, records left or rewritten as they are. */
export function randomChange(rand: () => number, inRange: Rec[], from: number, to: number): CorrectionChange {
  const kind = rand();
  const remove: number[] = [];
  const upsert: Rec[] = [];
  const stored = new Set(inRange.map((r) => r[0]));
  for (const [t, v, fl] of inRange) {
    const r = rand();
    if (kind < 0.2) remove.push(t); // delete the range
    else if (kind < 0.4) upsert.push([t, v === v ? v + 0.25 : v, fl]); // offset
    else if (kind < 0.5) upsert.push([t, v, fl ? "" : "SUSPECT"]); // flag
    else if (kind < 0.6) upsert.push([t, v, fl]); // rewritten as it is
    else if (r < 0.15) remove.push(t);
    else if (r < 0.3) upsert.push([t, r < 0.2 ? NaN : Math.round(rand() * 400) / 4, fl]);
    else if (r < 0.4) upsert.push([t, v, fl]);
  }
  if (kind >= 0.5) {
    // Insertions at free timestamps of the range.
    for (let k = Math.floor(rand() * 30); k > 0; k--) {
      const t = Math.floor(from + rand() * (to - from + 1));
      if (!stored.has(t)) {
        stored.add(t);
        upsert.push([t, rand() < 0.1 ? NaN : Math.round(rand() * 400) / 4, rand() < 0.3 ? "NEW" : ""]);
      }
    }
  }
  upsert.sort((x, y) => x[0] - y[0]);
  return { remove: Float64Array.from(remove), upsert: batchOf(upsert) };
}


/** A write of the crash test, and the series' records once it is done. */
export interface CrashWrite {
  readonly op: (store: RecordsStore, tid: number) => Promise<unknown>;
  readonly after: Rec[];
}

/**
 * Writes that take a while, from an empty series (the same for a seed): bulk appends, appends
 * into the last stored day, replacements that rewrite many days, chunked writes, corrections.
 */
export function crashWrites(seed: number): CrashWrite[] {
  const rand = random(seed);
  const BASE = Date.UTC(2015, 0, 1) / 1000;
  const out: CrashWrite[] = [];
  let current: Rec[] = [];
  const add = (op: CrashWrite["op"], after: Rec[]) => {
    out.push({ op, after });
    current = after;
  };
  const append = (rows: Rec[]) => add((s, tid) => s.write(tid, batchOf(rows), { mode: "append", validate: () => [] }), [...current, ...rows]);
  const chunked = (rows: Rec[]) => async function* () {
    for (let i = 0; i < rows.length; i += 997) yield batchOf(rows.slice(i, i + 997));
  };
  append(recordsFrom(rand, BASE, 40_000));
  for (let k = 0; k < 4; k++) append(recordsFrom(rand, current.at(-1)![0], 3));
  {
    const from = current[15_000][0];
    const batch = current.filter((r) => r[0] >= from).map(([t, v, f]): Rec => [t, rand() < 0.1 ? v + 0.25 : v, f]);
    add((s, tid) => s.replace(tid, from, batchOf(batch)), [...current.filter((r) => r[0] < from), ...batch]);
  }
  {
    const rows = recordsFrom(rand, current.at(-1)![0], 30_000);
    const after = [...current, ...rows];
    add((s, tid) => s.writeChunks(tid, chunked(rows)()), after);
  }
  {
    const from = current[5_000][0];
    const to = current[9_000][0];
    const after = current.map(([t, v, f]): Rec => [t, t >= from && t <= to && v === v ? v + 1 : v, f]);
    add((s, tid) => s.correct(tid, {
      from, to,
      change: (c) => ({ remove: new Float64Array(0), upsert: { timestamps: c.timestamps, values: c.values.map((v) => v + 1), flags: c.flags } }),
    }), after);
  }
  {
    const from = current[20_000][0];
    const rows = recordsFrom(rand, from - 600, 25_000);
    add((s, tid) => s.writeChunks(tid, chunked(rows)(), { replaceFrom: from }), [...current.filter((r) => r[0] < from), ...rows]);
  }
  return out;
}
