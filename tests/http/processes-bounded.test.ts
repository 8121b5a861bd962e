/**
 * Processes are bounded (issue 36, item 2), through a real server on both databases: the
 * limits of a process's configuration are 400s naming the field (the API and the site's form),
 * the probe's repros run in bounded time with the right result while /api/health/ keeps
 * answering, and a run that would write records outside the times records may have fails with
 * a logged error and writes nothing.
 */
import { describe, expect, it } from "vitest";
import { db } from "@/lib/db";
import * as f from "@/tests/support/fixtures";
import { csv, processesApi, recordLines, runsSettled, seriesApi, upload } from "@/tests/support/processes";
import { DIALECT } from "@/tests/support/server";
import { CookieJar, siteLogin } from "@/tests/support/site-session";
import { fieldMessages, siteForms } from "@/tests/support/site-forms";
import { suiteServer } from "@/tests/support/suite";

const s = suiteServer();

const OFFSET_TOO_LONG = "Ensure the offset is at most 305049600min either way: records are stamped from 1680-01-01 to 2260-01-01.";
const STEP_TOO_LONG = "Ensure the time step is at most 211840D: records are stamped from 1680-01-01 to 2260-01-01.";

async function newGroup(editor: f.TestUser, timeStep: string) {
  const sid = await f.station({ displayTimezone: "Etc/GMT" }, editor.id);
  const variableId = await f.variable();
  const gid = await f.group(sid, { precision: 2, variableId, unitId: await f.unit(undefined, [variableId]) });
  const tid = await f.series(gid, { type: "Initial", timeStep });
  return { sid, gid, tid, processes: processesApi(sid, gid), initial: seriesApi(sid, gid, tid) };
}

/** The group's processes and series, and the queue's jobs: what a refused request must leave as it was. */
async function state(gid: number) {
  return {
    processes: await db().prisma.process.count({ where: { groupId: gid } }),
    series: await db().prisma.timeseries.count({ where: { groupId: gid } }),
    jobs: await db().prisma.job.count(),
  };
}

const thresholds = (n: number) => Array.from({ length: n }, (_, i) => ({ delta_t: `${i + 1}min`, allowed_diff: 5 + i }));
const period = (year: number, points: number) => ({
  start_date: `${year}-01-01`, end_date: `${year}-12-31`, points: Array.from({ length: points }, (_, i) => [i, i * 2]),
});

/**
 * The longest /api/health/ may take while a run goes on: generous, for a loaded machine of two
 * shared cores; the unbounded runs these replace held the server for minutes.
 */
const HEALTH_MS = 5_000;

/** The longest a /api/health/ request took while `work` ran (ms), and what `work` gave. */
async function healthWhile<T>(work: Promise<T>): Promise<{ result: T; slowest: number }> {
  let done = false;
  let slowest = 0;
  const polling = (async () => {
    while (!done) {
      const started = performance.now();
      const r = await fetch(`${s.server.url}/api/health/`);
      await r.text();
      slowest = Math.max(slowest, performance.now() - started);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  })();
  try {
    return { result: await work, slowest };
  } finally {
    done = true;
    await polling;
  }
}

describe(`limits of a process's configuration (${DIALECT})`, () => {
  it.each([
    ["an aggregation's resulting_timestamp_offset of −10¹⁴ minutes", { type: "aggregation", target_time_step: "1D", method: "sum", resulting_timestamp_offset: "-100000000000000min" },
      { resulting_timestamp_offset: [OFFSET_TOO_LONG] }],
    ["an offset of the whole span of the records' times and a minute", { type: "aggregation", target_time_step: "1D", method: "sum", resulting_timestamp_offset: "305049601min" },
      { resulting_timestamp_offset: [OFFSET_TOO_LONG] }],
    ["a target time step longer than that span", { type: "aggregation", target_time_step: "999999D", method: "sum" }, { target_time_step: [STEP_TOO_LONG] }],
    ["9,999 rate-of-change thresholds", { type: "checks", rate_of_change_check: { thresholds: thresholds(9_999) } },
      { rate_of_change_check: ["thresholds: Ensure this field has no more than 50 elements."] }],
    ["51 rate-of-change thresholds", { type: "checks", rate_of_change_check: { symmetric: true, thresholds: thresholds(51) } },
      { rate_of_change_check: ["thresholds: Ensure this field has no more than 50 elements."] }],
    ["1,001 periods", { type: "curve_interpolation", periods: Array.from({ length: 1_001 }, (_, i) => period(1700 + i, 2)) },
      { periods: ["Ensure this field has no more than 1000 elements."] }],
    ["10,001 points in all", { type: "curve_interpolation", periods: [period(2020, 5_000), period(2021, 5_001)] },
      { periods: ["Ensure the periods have no more than 10000 points in all (they have 10001)."] }],
  ])("refuses %s with a 400 naming the field, and changes nothing", async (_what, body, expected) => {
    const editor = await f.user();
    const g = await newGroup(editor, "10min");
    const target = await f.group(g.sid, {});
    const sent = body.type === "curve_interpolation" ? { ...body, target_timeseries_group: target } : body;
    await runsSettled();
    const before = await state(g.gid);
    const r = await s.http.post(g.processes, { token: editor.token, json: sent });
    expect(r.status, r.text.slice(0, 300)).toBe(400);
    expect(r.json).toEqual(expected);
    expect(await state(g.gid)).toEqual(before);
  });

  it("accepts 50 thresholds, 1,000 periods and 10,000 points, and the longest offset and time step", async () => {
    const editor = await f.user();
    const g = await newGroup(editor, "10min");
    const target = await f.group(g.sid, {});
    for (const body of [
      { type: "checks", rate_of_change_check: { thresholds: thresholds(50) } },
      { type: "curve_interpolation", target_timeseries_group: target, periods: Array.from({ length: 1_000 }, (_, i) => period(1700 + i, i < 10 ? 1_000 - 99 * 2 : 2)) },
      { type: "aggregation", target_time_step: "211840D", method: "sum", resulting_timestamp_offset: "-305049600min" },
    ]) {
      const r = await s.http.post(g.processes, { token: editor.token, json: body });
      expect(r.status, r.text.slice(0, 300)).toBe(201);
    }
  });

  it("refuses the offset on the site's aggregation form too, the message under the field; nothing is saved", async () => {
    const editor = await f.user();
    const g = await newGroup(editor, "10min");
    const { jar, error } = await siteLogin(s.server.url, editor.username, editor.password, new CookieJar());
    expect(error).toBeNull();
    const cookie = jar.header();
    const page = `/manage/stations/${g.sid}/timeseriesgroups/${g.gid}/`;
    const token = /name="csrfmiddlewaretoken" value="([^"]+)"/.exec((await siteForms(s.server.url).page(page, cookie)).text)![1];
    const form = await siteForms(s.server.url).form(page, cookie, "New aggregation process");
    const r = await siteForms(s.server.url).submit(form, [
      ["target_time_step", "1D"], ["method", "sum"], ["resulting_timestamp_offset", "-100000000000000min"], ["csrfmiddlewaretoken", token],
    ], cookie);
    expect(r.status).toBe(200);
    expect(fieldMessages(r.text)).toEqual([OFFSET_TOO_LONG]);
    expect(await db().prisma.process.count({ where: { groupId: g.gid } })).toBe(0);
  });
});

/** The newest run of a process (as its editor sees it). */
async function lastRun(processes: string, pid: number, token: string) {
  const r = await s.http.get(`${processes}${pid}/runs/`, { token });
  expect(r.status, r.text).toBe(200);
  return r.json.results[0] as { status: string; error: string | null; started_at: string; finished_at: string };
}

describe(`the probe's repros run in bounded time, while /api/health/ answers (${DIALECT})`, () => {
  it("aggregates a one-minute series with records in 1700 and 1999 daily: every day between, empty but for the two", async () => {
    const editor = await f.user();
    const g = await newGroup(editor, "1min");
    const created = await s.http.post(g.processes, { token: editor.token, json: { type: "aggregation", target_time_step: "1D", method: "sum", max_missing: 1439 } });
    expect(created.status, created.text).toBe(201);
    await runsSettled();
    const { slowest } = await healthWhile((async () => {
      await upload(s.http, editor.token, g.initial, "1700-03-01 12:00,1.5,\n1700-03-01 12:01,2.5,\n1999-11-01 06:00,7,");
      await runsSettled(120_000);
    })());
    expect(await lastRun(g.processes, created.json.id, editor.token)).toMatchObject({ status: "succeeded", error: null });
    expect(slowest).toBeLessThan(HEALTH_MS);
    const lines = (await csv(s.http, seriesApi(g.sid, g.gid, created.json.target_timeseries), editor.token)).trimEnd().split("\r\n");
    expect(lines).toHaveLength(109_453);
    expect(lines.slice(0, 2)).toEqual(["1700-03-02 00:00,4.00,MISSING1438", "1700-03-03 00:00,,MISSING1440"]);
    expect(lines.slice(-2)).toEqual(["1999-11-01 00:00,,MISSING1440", "1999-11-02 00:00,7.00,MISSING1439"]);
    expect(lines.filter((l) => !l.endsWith(",,MISSING1440"))).toHaveLength(2);
  }, 240_000);

  it("checks 50,000 records against 50 thresholds of up to 50 days fast, and refuses 9,999 of them", async () => {
    const editor = await f.user();
    const g = await newGroup(editor, "10min");
    const refused = await s.http.post(g.processes, { token: editor.token, json: { type: "checks", rate_of_change_check: { thresholds: thresholds(9_999) } } });
    expect(refused.status).toBe(400);
    // wide enough that nothing fails: checked record by record, every record of every window is compared (≈ 10⁹ pairs)
    const wide = Array.from({ length: 50 }, (_, i) => ({ delta_t: `${i + 1}D`, allowed_diff: 100 + i }));
    const created = await s.http.post(g.processes, { token: editor.token, json: { type: "checks", rate_of_change_check: { symmetric: true, thresholds: wide } } });
    expect(created.status, created.text).toBe(201);
    await runsSettled();
    const values = Array.from({ length: 50_000 }, (_, i) => Math.round((15 + 10 * Math.sin(i / 300)) * 100) / 100);
    const { slowest } = await healthWhile((async () => {
      await upload(s.http, editor.token, g.initial, recordLines("2020-01-01T00:00Z", values));
      await runsSettled(120_000);
    })());
    const run = await lastRun(g.processes, created.json.id, editor.token);
    expect(run).toMatchObject({ status: "succeeded", error: null });
    expect(Date.parse(run.finished_at) - Date.parse(run.started_at)).toBeLessThan(20_000);
    expect(slowest).toBeLessThan(HEALTH_MS);
    const checked = (await csv(s.http, seriesApi(g.sid, g.gid, created.json.target_timeseries), editor.token)).trimEnd().split("\r\n");
    expect(checked).toHaveLength(50_000);
    expect(checked.filter((l) => l.includes("TEMPORAL"))).toEqual([]);
  }, 240_000);
});

describe(`a run that would write outside the records' times (${DIALECT})`, () => {
  it("fails with a logged error naming the time, and writes nothing", async () => {
    const editor = await f.user();
    const g = await newGroup(editor, "10min");
    // the day's sum (00:10 to 00:00, closed on the right) is stamped 2260-01-01 00:00, the last time records may have; a day later is beyond
    await upload(s.http, editor.token, g.initial, recordLines("2259-12-31T00:10Z", Array.from({ length: 144 }, () => 1)));
    const created = await s.http.post(g.processes, { token: editor.token, json: { type: "aggregation", target_time_step: "1D", method: "sum", resulting_timestamp_offset: "-1440min" } });
    expect(created.status, created.text).toBe(201);
    await runsSettled();
    const run = await s.http.post(`${g.processes}${created.json.id}/run/`, { token: editor.token, json: { from_scratch: true, wait: true } });
    const message = "The run would write a record stamped 2260-01-02T00:00:00Z, but records are stamped from 1680-01-01 to 2260-01-01; nothing was written.";
    expect(run.json).toMatchObject({ error: message, records_written: 0 });
    expect(s.server.output()).toContain(message);
    expect(await csv(s.http, seriesApi(g.sid, g.gid, created.json.target_timeseries), editor.token)).toBe("");
  }, 120_000);
});
