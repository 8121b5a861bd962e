/**
 * Processing end to end (processing.md §2–§4), through the API of a real server: uploads queue
 * the runs of the processes that read the uploaded series, in the same transaction, and the
 * chain continues from the targets; the targets hold what the numerics compute; and however
 * the source arrived (one upload, many small ones, an insert into the past) or the process
 * changed, the target equals one run over the whole current source.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { random } from "@/lib/demo/data";
import { formatRecordLines } from "@/lib/formats/records";
import { makeTimestampFormatter } from "@/lib/formats/timestamp";
import { resolveTimeZone } from "@/lib/formats/timezone";
import { aggregateSeries } from "@/lib/processing/numerics/aggregation";
import { runChecks } from "@/lib/processing/numerics/checks";
import { runCurveInterpolation } from "@/lib/processing/numerics/curve-interpolation";
import { EMPTY, type RecordBatch } from "@/lib/processing/numerics/series";
import { api } from "@/tests/support/http";
import * as f from "@/tests/support/fixtures";
import { csv, processesApi, recordLines, runsSettled, seriesApi, seriesId, upload, type Http } from "@/tests/support/processes";
import { DIALECT, startServer, type TestServer } from "@/tests/support/server";

let server: TestServer;
let http: Http;
let editor: f.TestUser;
let variableId: number;
let unitId: number;

beforeAll(async () => {
  server = await startServer();
  http = api(server.url);
  editor = await f.user();
  variableId = await f.variable("Temperature");
  unitId = await f.unit("°C", [variableId]);
});
afterAll(() => server?.stop());

async function newGroup(timeStep = "10min", displayTimezone = "Etc/GMT-2") {
  const sid = await f.station({ displayTimezone }, editor.id);
  const gid = await f.group(sid, { precision: 2, variableId, unitId });
  const tid = await f.series(gid, { type: "Initial", timeStep });
  return { sid, gid, tid, initial: seriesApi(sid, gid, tid) };
}

async function createProcess(sid: number, gid: number, body: Record<string, unknown>) {
  const r = await http.post(processesApi(sid, gid), { token: editor.token, json: body });
  expect(r.status, r.text).toBe(201);
  return r.json;
}

const CHECKS = {
  type: "checks",
  range_check: { lower_bound: 0, upper_bound: 40, soft_lower_bound: 2, soft_upper_bound: 38 },
  rate_of_change_check: { symmetric: true, thresholds: [{ delta_t: "10min", allowed_diff: 5 }] },
};
const HOURLY_MEAN = { type: "aggregation", target_time_step: "1h", method: "mean", max_missing: 2 };

/** A day of ten-minute values 10.0, 10.1, … with a spike of 99 at 12:00 UTC. */
function dayWithSpike(): (number | null)[] {
  return Array.from({ length: 144 }, (_, i) => (i === 72 ? 99 : Math.round((10 + 0.1 * i) * 10) / 10));
}

describe(`the acceptance example: checks and an hourly mean, fed by one upload (${DIALECT})`, () => {
  it("fills a Checked series with the spike emptied and flagged RANGE and an Aggregated one with means and MISSING flags, without run/", async () => {
    const g = await newGroup();
    const checks = await createProcess(g.sid, g.gid, CHECKS);
    const hourly = await createProcess(g.sid, g.gid, HOURLY_MEAN);
    expect(checks.source_timeseries).toBe(g.tid);
    const checkedId = checks.target_timeseries;
    expect(hourly.source_timeseries).toBe(checkedId);
    await runsSettled();
    await upload(http, editor.token, g.initial, recordLines("2024-03-01T00:00Z", dayWithSpike()));
    await runsSettled();

    const checked = (await csv(http, seriesApi(g.sid, g.gid, checkedId))).split("\r\n");
    expect(checked).toHaveLength(145);
    expect(checked[0]).toBe("2024-03-01 00:00,10.00,");
    expect(checked[71]).toBe("2024-03-01 11:50,17.10,");
    expect(checked[72]).toBe("2024-03-01 12:00,,RANGE");
    expect(checked[73]).toBe("2024-03-01 12:10,17.30,");
    expect(checked[143]).toBe("2024-03-01 23:50,24.30,");

    const hourlyId = hourly.target_timeseries;
    expect(await seriesId(http, g.sid, g.gid, "Aggregated", { time_step: "1h", name: "Mean" })).toBe(hourlyId);
    const means = (await csv(http, seriesApi(g.sid, g.gid, hourlyId))).trimEnd().split("\r\n");
    // Intervals (h−1 h, h] labelled h: 01:00 … 24:00; the one of 00:00 alone (5 missing) is dropped.
    expect(means).toHaveLength(24);
    expect(means[0]).toBe("2024-03-01 01:00,10.35,");
    expect(means[11]).toBe("2024-03-01 12:00,16.90,MISSING1");
    expect(means[12]).toBe("2024-03-01 13:00,17.55,");
    expect(means[23]).toBe("2024-03-02 00:00,24.10,MISSING1");

    const after = await http.get(`${processesApi(g.sid, g.gid)}${hourly.id}/`, { token: editor.token });
    expect(after.json.last_run).toMatchObject({ status: "succeeded", error: null });
  });
});

// ---- incremental runs equal one run over the whole source ----

interface Source {
  t: number[];
  v: (number | null)[];
  f: string[];
}

const T0 = Date.UTC(2024, 0, 1) / 1000;

/**
 * Ten-minute records with gaps, records off the grid, empty values, flags, spikes beyond the
 * range and jumps that fail the rate of change.
 */
function generate(seed: number, n: number): Source {
  const rnd = random(seed);
  const out: Source = { t: [], v: [], f: [] };
  let slot = 0;
  let level = 15;
  while (out.t.length < n) {
    slot += rnd() < 0.03 ? 2 + Math.floor(rnd() * 30) : 1;
    const t = T0 + slot * 600 + (rnd() < 0.02 ? 180 : 0);
    level += (rnd() - 0.5) * 2;
    level = Math.min(35, Math.max(3, level));
    const r = rnd();
    const v = r < 0.02 ? null : r < 0.03 ? 60 + Math.floor(rnd() * 10) : r < 0.04 ? -5 : r < 0.06 ? level + 8 : Math.round(level * 100) / 100;
    out.t.push(t);
    out.v.push(v);
    out.f.push(rnd() < 0.03 ? "MAN" : "");
  }
  return out;
}

function lines(s: Source, from = 0, to = s.t.length): string {
  let text = "";
  for (let i = from; i < to; i++) {
    const d = new Date(s.t[i] * 1000).toISOString();
    text += `${d.slice(0, 10)} ${d.slice(11, 16)},${s.v[i] ?? ""},${s.f[i]}\n`;
  }
  return text;
}

function batchOf(s: Source): RecordBatch {
  return { timestamps: Float64Array.from(s.t), values: Float64Array.from(s.v, (v) => v ?? NaN), flags: [...s.f] };
}

const SCENARIO_CHECKS = {
  type: "checks",
  range_check: { lower_bound: 0, upper_bound: 40, soft_lower_bound: 4, soft_upper_bound: 34 },
  rate_of_change_check: { symmetric: true, remove_failing_values: true, thresholds: [{ delta_t: "10min", allowed_diff: 4 }, { delta_t: "1h", allowed_diff: 9 }] },
};
const AGGREGATIONS = [
  { type: "aggregation", target_time_step: "1h", method: "mean", max_missing: 2 },
  { type: "aggregation", target_time_step: "1D", method: "sum", max_missing: 40, resulting_timestamp_offset: "1min" },
  { type: "aggregation", target_time_step: "3h", method: "max", max_missing: 1, resulting_timestamp_offset: "-30min" },
];
const CURVE = { type: "curve_interpolation", periods: [
  { start_date: "2024-01-01", end_date: "2024-01-06", points: [[0, 0], [10, 2], [20, 7], [40, 30]] },
  { start_date: "2024-01-09", end_date: "2024-02-29", points: [[5, 1], [25, 9], [35, 20]] },
] };

interface Setup {
  /** The series whose records the scenarios compare, by name. */
  targets: Record<string, string>;
  initial: string;
  checksPath: string;
}

/** A group with the checks, three aggregations and a curve interpolation into a second group that aggregates again. */
async function setup(checks: Record<string, unknown> = SCENARIO_CHECKS): Promise<Setup> {
  const g = await newGroup();
  const other = await f.group(g.sid, { precision: 3, variableId, unitId });
  const c = await createProcess(g.sid, g.gid, checks);
  const aggregations = [];
  for (const a of AGGREGATIONS) aggregations.push(await createProcess(g.sid, g.gid, a));
  const curve = await createProcess(g.sid, g.gid, { ...CURVE, target_timeseries_group: other });
  const downstream = await createProcess(g.sid, other, { type: "aggregation", target_time_step: "1h", method: "min", max_missing: 3 });
  const targets: Record<string, string> = {
    checked: seriesApi(g.sid, g.gid, c.target_timeseries),
    curve: seriesApi(g.sid, other, curve.target_timeseries),
    downstream: seriesApi(g.sid, other, downstream.target_timeseries),
  };
  aggregations.forEach((a, i) => (targets[`aggregation ${i}`] = seriesApi(g.sid, g.gid, a.target_timeseries)));
  return { targets, initial: g.initial, checksPath: `${processesApi(g.sid, g.gid)}${c.id}/` };
}

async function targetsOf(s: Setup): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const [name, path] of Object.entries(s.targets)) out[name] = await csv(http, path, editor.token);
  return out;
}

describe(`incremental runs equal one run over the whole source (${DIALECT})`, () => {
  const source = generate(7, 2_000);
  let whole: Record<string, string>;

  beforeAll(async () => {
    const once = await setup();
    await runsSettled();
    await upload(http, editor.token, once.initial, lines(source));
    await runsSettled();
    whole = await targetsOf(once);
  }, 120_000);

  it("one upload gives what the numerics compute over the whole source", async () => {
    const utc = makeTimestampFormatter(resolveTimeZone("UTC")!);
    const text = (r: RecordBatch, precision = 2) => formatRecordLines(r.timestamps, r.values, r.flags, r.timestamps.length, precision, utc);
    const checked = runChecks(SCENARIO_CHECKS as never, batchOf(source), EMPTY, -Infinity);
    expect(whole.checked).toBe(text(checked));
    expect(whole.checked).toContain(",RANGE\r\n");
    expect(whole.checked).toContain(",TEMPORAL\r\n");
    expect(whole.checked).toContain(",SUSPECT\r\n");
    AGGREGATIONS.forEach((a, i) => {
      const expected = aggregateSeries({ resulting_timestamp_offset: "", ...a } as never, checked, "10min", 7200);
      expect(whole[`aggregation ${i}`], a.target_time_step).toBe(text(expected));
    });
    expect(whole["aggregation 0"]).toMatch(/,MISSING\d+\r\n/);
    const curve = runCurveInterpolation(CURVE as never, checked, -Infinity);
    expect(whole.curve).toBe(text(curve, 3));
    expect(whole.downstream.length).toBeGreaterThan(100);
  });

  it("after uploads in many small pieces, some while the runs of others go on", async () => {
    const pieces = await setup();
    const rnd = random(11);
    for (let i = 0; i < source.t.length;) {
      const n = 1 + Math.floor(rnd() * 80);
      await upload(http, editor.token, pieces.initial, lines(source, i, Math.min(i + n, source.t.length)));
      if (rnd() < 0.3) await runsSettled();
      i += n;
    }
    await runsSettled();
    expect(await targetsOf(pieces)).toEqual(whole);
  }, 120_000);

  it("after inserts into the past", async () => {
    const late = await setup();
    const hole = new Set<number>();
    for (let i = 700; i < 900; i++) hole.add(i);
    for (let i = 50; i < source.t.length; i += 97) hole.add(i);
    const kept = { t: [] as number[], v: [] as (number | null)[], f: [] as string[] };
    const missing = { t: [] as number[], v: [] as (number | null)[], f: [] as string[] };
    source.t.forEach((t, i) => {
      const to = hole.has(i) ? missing : kept;
      to.t.push(t);
      to.v.push(source.v[i]);
      to.f.push(source.f[i]);
    });
    await upload(http, editor.token, late.initial, lines(kept));
    await runsSettled();
    const half = Math.floor(missing.t.length / 2);
    await upload(http, editor.token, late.initial, lines(missing, half), "insert");
    await runsSettled();
    await upload(http, editor.token, late.initial, lines(missing, 0, half), "insert");
    await runsSettled();
    expect(await targetsOf(late)).toEqual(whole);
  }, 120_000);

  it("after a change of a process (PATCH): its target and the chain after it are recomputed from scratch", async () => {
    const edited = await setup({ ...SCENARIO_CHECKS, range_check: { lower_bound: -100, upper_bound: 100, soft_lower_bound: null, soft_upper_bound: null } });
    await upload(http, editor.token, edited.initial, lines(source));
    await runsSettled();
    expect((await targetsOf(edited)).checked).not.toBe(whole.checked);
    const r = await http.patch(edited.checksPath, { token: editor.token, json: { range_check: SCENARIO_CHECKS.range_check } });
    expect(r.status, r.text).toBe(200);
    await runsSettled();
    expect(await targetsOf(edited)).toEqual(whole);
  }, 120_000);

  it("run/ from scratch (waiting for it) gives the same targets", async () => {
    const again = await setup();
    await upload(http, editor.token, again.initial, lines(source, 0, 1200));
    await upload(http, editor.token, again.initial, lines(source, 1200));
    // No run in progress: one that has claimed its job but not yet taken the changes would take
    // the from-scratch mark too, and the run waited for would then find nothing left to do.
    await runsSettled();
    const r = await http.post(`${again.checksPath}run/`, { token: editor.token, json: { from_scratch: true, wait: true } });
    expect(r.status, r.text).toBe(200);
    expect(r.json).toMatchObject({ status: "succeeded", from: null, records_written: source.t.length, error: null });
    await runsSettled();
    expect(await targetsOf(again)).toEqual(whole);
  }, 120_000);
});

describe(`an aggregation's incremental run where the grid's end moves (${DIALECT})`, () => {
  it("a record half a step after a grid point gains its own point when a later one arrives, however far: the interval holding it is recomputed", async () => {
    // 00:25 rounds (half to even) to 00:20, where the regularized grid then ends; once a later
    // record arrives, the point 00:30, whose window [00:25, 00:35) holds it, exists.
    const config = { type: "aggregation", target_time_step: "30min", method: "mean", max_missing: 6 };
    const utc = makeTimestampFormatter(resolveTimeZone("UTC")!);
    for (const later of ["00:35", "05:00"]) {
      const g = await newGroup();
      const a = await createProcess(g.sid, g.gid, config);
      const rows = [["00:04", 1], ["00:15", 2], ["00:25", 3], [later, 4]] as const;
      const text = (from: number, to: number) => rows.slice(from, to).map(([hm, v]) => `2021-03-29 ${hm},${v},\n`).join("");
      await upload(http, editor.token, g.initial, text(0, 3));
      await runsSettled();
      await upload(http, editor.token, g.initial, text(3, 4));
      await runsSettled();
      const source: RecordBatch = {
        timestamps: Float64Array.from(rows, ([hm]) => Date.parse(`2021-03-29T${hm}:00Z`) / 1000),
        values: Float64Array.from(rows, ([, v]) => v),
        flags: rows.map(() => ""),
      };
      const expected = aggregateSeries({ resulting_timestamp_offset: "", ...config } as never, source, "10min", 7200);
      const stored = await csv(http, seriesApi(g.sid, g.gid, a.target_timeseries), editor.token);
      expect(stored, later).toBe(formatRecordLines(expected.timestamps, expected.values, expected.flags, expected.timestamps.length, 2, utc));
      expect(stored, later).toContain("2021-03-29 00:30,2.50,MISSING1\r\n");
    }
  }, 60_000);
});

describe(`sources and targets resolved at run time (${DIALECT})`, () => {
  const ZONE_SOURCE = generate(3, 600);
  const DAILY = { type: "aggregation", target_time_step: "1D", method: "sum", max_missing: 100 };
  const utc = makeTimestampFormatter(resolveTimeZone("UTC")!);
  const text = (r: RecordBatch) => formatRecordLines(r.timestamps, r.values, r.flags, r.timestamps.length, 2, utc);
  const checksOf = (s: RecordBatch) => runChecks(SCENARIO_CHECKS as never, s, EMPTY, -Infinity);
  const dailyOf = (s: RecordBatch, zone: number) => text(aggregateSeries({ resulting_timestamp_offset: "", ...DAILY } as never, s, "10min", zone));

  it("a Checked series created later becomes the aggregations' source; deleted, the checks create it again; another zone moves the days", async () => {
    const g = await newGroup();
    const daily = await createProcess(g.sid, g.gid, DAILY);
    const dailyPath = seriesApi(g.sid, g.gid, daily.target_timeseries);
    await upload(http, editor.token, g.initial, lines(ZONE_SOURCE));
    await runsSettled();
    expect(await csv(http, dailyPath, editor.token)).toBe(dailyOf(batchOf(ZONE_SOURCE), 7200));

    const checks = await createProcess(g.sid, g.gid, SCENARIO_CHECKS);
    await runsSettled();
    const checked = checksOf(batchOf(ZONE_SOURCE));
    expect(await csv(http, dailyPath, editor.token)).toBe(dailyOf(checked, 7200));
    expect((await http.get(`${processesApi(g.sid, g.gid)}${daily.id}/`)).json.source_timeseries).toBe(checks.target_timeseries);

    // The Checked series deleted: the checks' next run makes a new one, and the aggregation follows it.
    expect((await http.delete(seriesApi(g.sid, g.gid, checks.target_timeseries), { token: editor.token })).status).toBe(204);
    await runsSettled();
    const again = (await http.get(`${processesApi(g.sid, g.gid)}${checks.id}/`)).json.target_timeseries;
    expect(again).not.toBe(checks.target_timeseries);
    expect(await csv(http, seriesApi(g.sid, g.gid, again), editor.token)).toBe(text(checked));
    expect(await csv(http, dailyPath, editor.token)).toBe(dailyOf(checked, 7200));

    // Days are the station's days: another display zone, other intervals.
    const station = await http.patch(`/api/stations/${g.sid}/`, { token: editor.token, json: { display_timezone: "Etc/GMT+5" } });
    expect(station.status, station.text).toBe(200);
    await runsSettled();
    expect(dailyOf(checked, -18000)).not.toBe(dailyOf(checked, 7200));
    expect(await csv(http, dailyPath, editor.token)).toBe(dailyOf(checked, -18000));
  }, 120_000);

  it("the legacy tsdata append queues the runs too", async () => {
    // Its naive timestamps are in the station's zone.
    const g = await newGroup("10min", "UTC");
    const checks = await createProcess(g.sid, g.gid, SCENARIO_CHECKS);
    const r = await http.put(`/api/tsdata/${g.tid}/`, { token: editor.token, form: { timeseries_records: lines(ZONE_SOURCE).replace(/\n$/, "") } });
    expect([r.status, r.text]).toEqual([200, String(ZONE_SOURCE.t.length)]);
    await runsSettled();
    expect(await csv(http, seriesApi(g.sid, g.gid, checks.target_timeseries), editor.token)).toBe(text(checksOf(batchOf(ZONE_SOURCE))));
  });
});
