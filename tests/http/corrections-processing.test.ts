/**
 * Processing after corrections, as a property on the dialect under test, in process with the
 * real services and runner (processing.md §4, corrections.md §2): for random series and random
 * deletions, edits and transforms in the past (through the corrections services, each followed
 * by the incremental runs it queued), the targets of a chain (checks → Checked → aggregation)
 * equal those of the same processes run from scratch over the final source written once.
 */
import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import { db, Prisma } from "@/lib/db";
import { claimJob, completeJob, newOwner } from "@/lib/jobs/queue";
import { createProcess, PROCESS_KIND, processRunHandler } from "@/lib/processing";
import type { ProcessConfig } from "@/lib/processing/config";
import { deleteRecords, editRecords, transformData } from "@/lib/series/correct";
import { uploadRecords } from "@/lib/series";
import { resolveTimeZone } from "@/lib/formats/timezone";
import { type AuthUser, findAuthUser } from "@/lib/auth/users";
import * as f from "@/tests/support/fixtures";
import { readAllOf } from "@/tests/support/records-oracle";
import { DIALECT, inProcessDatabase } from "@/tests/support/server";

inProcessDatabase();
let admin: f.TestUser;
let station: number;
let variableId: number;
let unitId: number;
const UTC = resolveTimeZone("UTC")!;
const owner = newOwner();

beforeAll(async () => {
  admin = await f.user({ superuser: true });
  variableId = await f.variable();
  unitId = await f.unit("mm", [variableId]);
  station = await f.station({ name: "Property" }, admin.id);
  superuser = (await findAuthUser(admin.id))!;
}, 60_000);

/** Runs the queued process runs in this process until none is due (a chain's later runs included). */
async function runQueued(): Promise<void> {
  for (;;) {
    const job = await claimJob(owner, [PROCESS_KIND], 60_000);
    if (!job) return;
    const result = await processRunHandler(job, { signal: new AbortController().signal, owner, progress() {} });
    await completeJob(job, owner, result);
  }
}

let superuser: AuthUser;
const actor = () => superuser;

/** A group with an Initial series and the chain's processes; its series ids. */
async function chain(checks: ProcessConfig, aggregation: ProcessConfig, name: string) {
  const gid = await f.group(station, { precision: 2, variableId, unitId, name });
  const initial = await f.series(gid, { type: "Initial", timeStep: "10min" });
  for (const definition of [checks, aggregation]) await createProcess(actor(), { stationId: station, groupId: gid }, { enabled: true, definition });
  return { gid, initial };
}

async function targetsOf(gid: number) {
  const rows = await db().query<{ id: number; type: number }>(Prisma.sql`SELECT id, type FROM timeseries WHERE timeseries_group_id = ${gid} AND type <> 1 ORDER BY type, id`);
  return Promise.all(rows.map(async (r) => ({ type: r.type, records: await readAllOf(Number(r.id)) })));
}

const T0 = Date.UTC(2024, 2, 30, 20) / 1000;

const sourceArb = fc.array(fc.record({
  skip: fc.oneof({ weight: 20, arbitrary: fc.constant(0) }, { weight: 2, arbitrary: fc.integer({ min: 1, max: 12 }) }, { weight: 1, arbitrary: fc.integer({ min: 13, max: 300 }) }),
  v: fc.oneof({ weight: 1, arbitrary: fc.constant(null) }, { weight: 10, arbitrary: fc.integer({ min: -200, max: 600 }).map((x) => x / 10) }),
}), { minLength: 50, maxLength: 600, size: "max" }).map((items) => {
  const out: [number, number | null][] = [];
  let t = T0;
  for (const { skip, v } of items) {
    t += 600 * (1 + skip);
    out.push([t, v]);
  }
  return out;
});

/** A correction of the past: where (fractions of the series' span) and what. */
const correctionArb = fc.record({
  // fc.double draws the ends of its range often: tenths of a per mille instead.
  a: fc.integer({ min: 0, max: 10_000 }).map((x) => x / 10_000),
  b: fc.integer({ min: 0, max: 10_000 }).map((x) => x / 10_000),
  kind: fc.constantFrom("delete", "delete", "delete", "edit", "offset", "set null"),
  amount: fc.integer({ min: -50, max: 50 }).map((x) => x / 2),
});

const checksArb: fc.Arbitrary<ProcessConfig> = fc.record({
  lower: fc.integer({ min: -20, max: 0 }), upper: fc.integer({ min: 20, max: 60 }), diff: fc.integer({ min: 1, max: 20 }), symmetric: fc.boolean(),
}).map(({ lower, upper, diff, symmetric }) => ({
  type: "checks", config: {
    range_check: { lower_bound: lower, upper_bound: upper, soft_lower_bound: null, soft_upper_bound: null },
    rate_of_change_check: { symmetric, remove_failing_values: false, thresholds: [{ delta_t: "10min", allowed_diff: diff }, { delta_t: "1h", allowed_diff: 3 * diff }] },
  },
}) as ProcessConfig);

const aggregationArb: fc.Arbitrary<ProcessConfig> = fc.record({
  step: fc.constantFrom("1h", "1h", "3h", "1D"), method: fc.constantFrom("mean", "sum", "max", "min"), missing: fc.constantFrom(1, 3, 10, 200),
}).map(({ step, method, missing }) => ({
  type: "aggregation", config: { target_time_step: step, method, max_missing: missing, resulting_timestamp_offset: "" },
}) as ProcessConfig);

const lines = (rows: [number, number | null][]) => rows.map(([t, v]) => `${new Date(t * 1000).toISOString().slice(0, 16)}Z,${v ?? ""},`).join("\n");

describe(`processing after corrections of the past (${DIALECT})`, () => {
  it("an incremental run after each correction equals a run from scratch over the final source", async () => {
    let n = 0;
    await fc.assert(fc.asyncProperty(sourceArb, fc.array(correctionArb, { minLength: 1, maxLength: 3 }), checksArb, aggregationArb, async (source, corrections, checks, aggregation) => {
      n++;
      const corrected = await chain(checks, aggregation, `corrected ${n}`);
      const path = { seriesId: corrected.initial };
      await uploadRecords(actor(), path, { text: lines(source), zone: UTC, mode: "append", dryRun: false });
      await runQueued();
      const first = source[0][0];
      const last = source[source.length - 1][0];
      for (const c of corrections) {
        const from = Math.round(first + Math.min(c.a, c.b) * (last - first));
        const to = Math.round(first + Math.max(c.a, c.b) * (last - first));
        const options = { comment: "", dryRun: false };
        if (c.kind === "delete") await deleteRecords(actor(), path, { range: { start: from, end: to }, ...options });
        else if (c.kind === "offset") await transformData(actor(), path, { range: { start: from, end: to }, operation: { operation: "offset", amount: c.amount }, ...options });
        else if (c.kind === "set null") await transformData(actor(), path, { range: { start: from, end: to }, operation: { operation: "set", amount: null }, ...options });
        else {
          const stored = (await readAllOf(corrected.initial)).filter(([t]) => t >= from && t <= to).slice(0, 5);
          if (stored.length) await editRecords(actor(), path, { records: stored.map(([t]) => ({ timestamp: t, value: c.amount })), zone: UTC, ...options });
        }
        await runQueued();
      }
      const finalSource = (await readAllOf(corrected.initial)) as [number, number | null, string][];
      const once = await chain(checks, aggregation, `once ${n}`);
      if (finalSource.length) await uploadRecords(actor(), { seriesId: once.initial }, { text: lines(finalSource.map(([t, v]) => [t, v])), zone: UTC, mode: "append", dryRun: false });
      await runQueued();
      expect(await targetsOf(corrected.gid)).toEqual(await targetsOf(once.gid));
    }), { numRuns: Number(process.env.CORRECTIONS_PROPERTY_RUNS ?? 25), seed: process.env.FC_SEED === "random" ? undefined : Number(process.env.FC_SEED || 20_260_339) });
  }, 600_000);
});
