import { spawn } from "node:child_process";
import { beforeAll, describe, expect, it } from "vitest";
import { db, Prisma } from "@/lib/db";
import { random } from "@/lib/demo/data";
import { records, type RecordsStore } from "@/lib/records";
import { dayRow, daysOf, sliceOf } from "@/lib/records/blocks";
import { PostgresRecordsStore } from "@/lib/records/postgres-store";
import { SqliteRecordsStore } from "@/lib/records/sqlite-store";
import * as f from "@/tests/support/fixtures";
import { batchOf, crashWrites, readAllOf, type Rec, recordsFrom } from "@/tests/support/records-oracle";
import { DIALECT, inProcessDatabase, ROOT } from "@/tests/support/server";

/**
 * kill -9 of a process in the middle of writes to day blocks, or of the conversion of series
 * stored as rows: afterwards every series holds exactly the records of its last committed write
 * (nothing lost, nothing doubled), in one form, with its summary and daily summaries agreeing.
 */
const database = inProcessDatabase();
let group: number;

beforeAll(async () => {
  group = await f.group(await f.station());
}, 60_000);

/** Runs tests/support/records-crash-child.ts and kills it (SIGKILL) `delayMs` after it prints a line matching `at`; returns its output. */
async function runAndKill(env: Record<string, string>, at: RegExp, delayMs: number): Promise<string> {
  const child = spawn(process.execPath, ["--import", "tsx", "tests/support/records-crash-child.ts"], {
    cwd: ROOT, env: { ...process.env, TSX_TSCONFIG_PATH: "tsconfig.json", DATABASE_URL: database.url, ...env }, stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  let armed = false;
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const collect = (d: Buffer) => {
    output += d;
    if (!armed && at.test(output)) {
      armed = true;
      setTimeout(() => child.kill("SIGKILL"), delayMs);
    }
  };
  child.stdout.on("data", collect);
  child.stderr.on("data", collect);
  await exited;
  return output;
}

const plain = (rows: [number, number | null, string][]) => rows.map(([t, v, fl]) => [t, v ?? NaN, fl] as Rec);

/** The series' summary and daily summaries agree with its records, each day's summary computed from them. */
async function expectConsistent(tid: number, rows: Rec[]): Promise<void> {
  const summary = (await records().summary(tid))!;
  expect([summary.count, summary.first, summary.last]).toEqual([rows.length, rows[0]?.[0] ?? null, rows.at(-1)?.[0] ?? null]);
  const stored = await db().queryArrays(Prisma.sql`SELECT block_start, count, value_count, min, max, sum FROM timeseries_block
    WHERE timeseries_id = ${tid} ORDER BY block_start`);
  const batch = batchOf(rows);
  const expected = daysOf(batch).map(({ start, from, to }) => {
    const r = dayRow(start, sliceOf(batch, from, to));
    return [start, r.count, r.valueCount, r.min, r.max, r.sum];
  });
  expect(stored.map((r) => r.map((v) => (v === null ? null : Number(v))))).toEqual(expected);
}

describe(`records store, killed while it writes (${DIALECT})`, () => {
  it("keeps the records of the last committed write, nothing half written, after kill -9 in a block merge or rewrite", async () => {
    // Seeds until four kills have landed inside a write (one that finished first tests less): on a
    // busy machine more kills land between writes, so more seeds are tried, up to 16.
    let interrupted = 0;
    for (let seed = 1; seed <= 16 && interrupted < 4; seed++) {
      const writes = crashWrites(seed);
      const tid = await f.series(group, { type: "Aggregated", name: `crash ${seed}` });
      const rand = random(seed);
      const at = Math.floor(rand() * writes.length);
      const output = await runAndKill({ MODE: "write", SEED: String(seed), SERIES: String(tid) }, new RegExp(`writing ${at}\\n`), Math.floor(rand() * 120));
      const done = [...output.matchAll(/written (\d+)/g)].map((m) => Number(m[1]));
      const last = done.length ? Math.max(...done) : -1;
      const rows = plain(await readAllOf(tid));
      const allowed = [last, last + 1].filter((k) => k < writes.length).map((k) => (k < 0 ? [] : writes[k].after));
      const which = allowed.findIndex((a) => JSON.stringify(a) === JSON.stringify(rows));
      expect(which, `seed ${seed}: killed at write ${at} (last done ${last}), ${rows.length} records\n${output}`).toBeGreaterThanOrEqual(0);
      await expectConsistent(tid, rows);
      if (!output.includes("finished") && output.includes(`writing ${last + 1}`)) interrupted++;
    }
    expect(interrupted).toBeGreaterThanOrEqual(4);
  }, 600_000);

  it("leaves each series stored as rows or as blocks, never both or neither, after kill -9 in its conversion", async () => {
    const rows: RecordsStore = db().sqlite ? new SqliteRecordsStore(db(), db().sqlite!) : new PostgresRecordsStore(db().pool!, db().reads!);
    // Rounds until three kills have landed inside the conversion (up to 10: on a busy machine more land after it).
    let interrupted = 0;
    for (let round = 1; round <= 10 && interrupted < 3; round++) {
      const series: number[] = [];
      const expected = new Map<number, Rec[]>();
      for (let k = 0; k < 4; k++) {
        const tid = await f.series(group, { type: "Aggregated", name: `convert ${round} ${k}` });
        const initial = recordsFrom(random(round * 10 + k), Date.UTC(2012, 0, 1) / 1000, 20_000 + 10_000 * k);
        await rows.write(tid, batchOf(initial), { mode: "append", validate: () => [] });
        series.push(tid);
        expected.set(tid, initial);
      }
      const rand = random(round);
      const victim = series[Math.floor(rand() * series.length)];
      const output = await runAndKill({ MODE: "convert", SERIES: series.join(",") }, new RegExp(`converting ${victim}\\n`), Math.floor(rand() * 150));
      if (!output.includes("finished")) interrupted++;
      for (const tid of series) {
        const [{ rowsLeft, blocksFilled }] = await db().query<{ rowsLeft: number; blocksFilled: number }>(Prisma.sql`SELECT
          (SELECT COUNT(*) FROM timeseries_record WHERE timeseries_id = ${tid}) AS "rowsLeft",
          (SELECT COUNT(*) FROM timeseries_block WHERE timeseries_id = ${tid} AND records IS NOT NULL) AS "blocksFilled"`);
        expect(Number(rowsLeft) === 0 || Number(blocksFilled) === 0, `round ${round} series ${tid}: ${rowsLeft} rows, ${blocksFilled} blocks`).toBe(true);
        expect(Number(rowsLeft) + Number(blocksFilled)).toBeGreaterThan(0);
        expect(plain(await readAllOf(tid))).toEqual(expected.get(tid));
      }
      for (const tid of series) await records().convert!(tid);
      for (const tid of series) {
        expect(plain(await readAllOf(tid))).toEqual(expected.get(tid));
        await expectConsistent(tid, expected.get(tid)!);
      }
    }
    expect(interrupted).toBeGreaterThanOrEqual(3);
    rows.close?.();
  }, 600_000);
});
