import { describe, expect, it } from "vitest";
import { db } from "@/lib/db";
import { startJobRunner } from "@/lib/jobs/runner";
import { processKey, SCRATCH } from "@/lib/processing/state";
import * as f from "@/tests/support/fixtures";
import { processesApi, runsSettled } from "@/tests/support/processes";
import { DIALECT } from "@/tests/support/server";
import { CookieJar, siteLogin } from "@/tests/support/site-session";
import { siteForms } from "@/tests/support/site-forms";
import { suiteServer } from "@/tests/support/suite";

/**
 * Creating a process queues its first run (processing.md §1) and nothing the new process does
 * not need: a new aggregation's Aggregated series is no other process's source or target, so
 * the group's checks, already run, are not queued again from scratch. The server runs no jobs;
 * this process runs the checks' first run, then inspects the queue.
 */
const s = suiteServer({ env: { ENHYDRIS_JOB_RUNNER: "false" } });

const CHECKS = { type: "checks", range_check: { lower_bound: 0, upper_bound: 40 } };

/** A process's pending state: its queued jobs and its from-scratch mark. */
async function pending(pid: number) {
  const [queued, row] = await Promise.all([
    db().prisma.job.count({ where: { key: processKey(pid), status: "queued" } }),
    db().prisma.process.findUniqueOrThrow({ where: { id: pid } }),
  ]);
  return { queued, fromScratch: row.dirtyFrom !== null && Number(row.dirtyFrom) === SCRATCH };
}

/** Runs the queued process runs here, until none is left. */
async function runQueued(): Promise<void> {
  const runner = startJobRunner({ backoff: () => 0, pollMs: 20, maintenance: false });
  try {
    await runsSettled();
  } finally {
    await runner.stop();
  }
}

/** A group of `editor`'s station whose Initial series has records and whose checks have run. */
async function groupWithChecksRun(editor: f.TestUser) {
  const sid = await f.station({ maintainers: [editor.id] });
  const gid = await f.group(sid);
  const tid = await f.series(gid, { type: "Initial", timeStep: "10min" });
  await f.addRecords(tid, [["2024-01-01T00:00:00Z", 1], ["2024-01-01T00:10:00Z", 2], ["2024-01-01T00:20:00Z", 50]]);
  const checks = await s.http.post(processesApi(sid, gid), { token: editor.token, json: CHECKS });
  expect(checks.status, checks.text).toBe(201);
  await runQueued();
  const checksId = checks.json.id as number;
  expect(await pending(checksId)).toEqual({ queued: 0, fromScratch: false });
  return { sid, gid, checksId };
}

describe(`creating an aggregation in a group with checks (${DIALECT})`, () => {
  it("through the API: the aggregation's first run is queued; the checks are not queued again", async () => {
    const editor = await f.user();
    const g = await groupWithChecksRun(editor);
    const r = await s.http.post(processesApi(g.sid, g.gid), { token: editor.token, json: { type: "aggregation", target_time_step: "1h", method: "mean" } });
    expect(r.status, r.text).toBe(201);
    expect(await pending(r.json.id as number)).toEqual({ queued: 1, fromScratch: true });
    expect(await pending(g.checksId)).toEqual({ queued: 0, fromScratch: false });
  });

  it("through the management page's form: the same", async () => {
    const editor = await f.user();
    const g = await groupWithChecksRun(editor);
    const { jar, error } = await siteLogin(s.server.url, editor.username, editor.password, new CookieJar());
    expect(error).toBeNull();
    const site = siteForms(s.server.url);
    const groupPage = `/manage/stations/${g.sid}/timeseriesgroups/${g.gid}/`;
    const form = await site.form(groupPage, jar.header(), "New aggregation process");
    const r = await site.submit(form, { target_time_step: "1D", method: "sum", max_missing: "0" }, jar.header());
    expect(r.status, r.text.slice(0, 500)).toBe(303);
    const pid = Number(/\/processes\/(\d+)\//.exec(r.headers.get("location") ?? "")?.[1]);
    expect(await pending(pid)).toEqual({ queued: 1, fromScratch: true });
    expect(await pending(g.checksId)).toEqual({ queued: 0, fromScratch: false });
  });

  it("a new Checked series still reruns the group's aggregations: checks added after an aggregation mark it from scratch", async () => {
    const editor = await f.user();
    const sid = await f.station({ maintainers: [editor.id] });
    const gid = await f.group(sid);
    await f.series(gid, { type: "Initial", timeStep: "10min" });
    const aggregation = await s.http.post(processesApi(sid, gid), { token: editor.token, json: { type: "aggregation", target_time_step: "1h", method: "mean" } });
    expect(aggregation.status, aggregation.text).toBe(201);
    await runQueued();
    expect(await pending(aggregation.json.id as number)).toEqual({ queued: 0, fromScratch: false });
    const checks = await s.http.post(processesApi(sid, gid), { token: editor.token, json: CHECKS });
    expect(checks.status, checks.text).toBe(201);
    expect(await pending(aggregation.json.id as number)).toEqual({ queued: 1, fromScratch: true });
  });
});
