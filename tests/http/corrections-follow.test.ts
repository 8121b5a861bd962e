/**
 * What follows a correction (corrections.md §2), over HTTP on the dialect under test:
 * processes recompute from the earliest changed timestamp (deletions and changes in the past
 * included) and their targets equal a run from scratch; synoptic alarms are raised only for
 * records newer than the last evaluated one (correcting the past e-mails nobody); ETags, the
 * legacy cached statistics, chart/, bottom/, the station export and the activity log reflect
 * the change.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { db } from "@/lib/db";
import { api, type TestResponse } from "@/tests/support/http";
import * as f from "@/tests/support/fixtures";
import { csv, processesApi, processesSettled, recordLines, seriesApi, seriesId, upload } from "@/tests/support/processes";
import { processKey } from "@/lib/processing/state";
import { startServer, type TestServer } from "@/tests/support/server";
import { startSmtp, type SmtpListener } from "@/tests/support/smtp";
import { until } from "@/tests/support/wait";

let smtp: SmtpListener;
let server: TestServer;
let http: ReturnType<typeof api>;
let editor: f.TestUser;
let variableId: number;
let unitId: number;

beforeAll(async () => {
  smtp = await startSmtp();
  server = await startServer({ env: { ENHYDRIS_EMAIL_HOST: "127.0.0.1", ENHYDRIS_EMAIL_PORT: String(smtp.port), ENHYDRIS_EMAIL_FROM: "alarms@example.org" } });
  http = api(server.url);
  editor = await f.user();
  variableId = await f.variable("Temperature");
  unitId = await f.unit("°C", [variableId]);
});
afterAll(async () => {
  await server?.stop();
  await smtp?.close();
});

function ok(r: TestResponse, status = 200) {
  expect(r.status, r.text).toBe(status);
  return r.json;
}

const auth = () => ({ token: editor.token });

/**
 * The last runs of the processes, for a failure's message: which ran, when, from where, with
 * what result, beside the time the targets were read.
 */
async function runsTrace(ids: number[], readAt: Date): Promise<string> {
  const time = (d: Date | null) => d?.toISOString().slice(11, 23) ?? "-";
  const jobs = await db().prisma.job.findMany({ where: { key: { in: ids.map(processKey) } }, orderBy: { id: "desc" }, take: 6 });
  return `targets read at ${time(readAt)}: ${jobs.reverse().map((j) => `#${j.id} ${j.key} ${j.status} queued ${time(j.queuedAt)} started ${time(j.startedAt)} finished ${time(j.finishedAt)} ${j.result ?? ""}`).join("; ")}`;
}

describe("processing after corrections", () => {
  it("recomputes from the earliest changed timestamp, deletions and past changes included, equal to a run from scratch", async () => {
    const sid = await f.station({ name: "Processed" }, editor.id);
    const gid = await f.group(sid, { precision: 2, variableId, unitId, name: "Air" });
    const initial = await f.series(gid, { type: "Initial", timeStep: "10min" });
    const path = seriesApi(sid, gid, initial);
    const processes = processesApi(sid, gid);
    const checks = ok(await http.post(processes, { ...auth(), json: {
      type: "checks", range_check: { lower_bound: -10, upper_bound: 40, soft_lower_bound: 0, soft_upper_bound: 35 },
      rate_of_change_check: { symmetric: true, thresholds: [{ delta_t: "10min", allowed_diff: 3 }, { delta_t: "1h", allowed_diff: 6 }] },
    } }), 201);
    const hourly = ok(await http.post(processes, { ...auth(), json: { type: "aggregation", target_time_step: "1h", method: "mean", max_missing: 2 } }), 201);
    // Three days of ten-minute records: a daily wave, a few spikes and gaps.
    const values = Array.from({ length: 432 }, (_, i) => (i % 97 === 50 ? 45 : i % 61 === 7 ? null : Math.round((15 + 10 * Math.sin(i / 23)) * 100) / 100));
    await upload(http, editor.token, path, recordLines("2025-05-01T00:00:00Z", values));
    const settled = () => processesSettled([checks.id, hourly.id]);
    await settled();
    const checked = await seriesId(http, sid, gid, "Checked");
    const aggregated = await seriesId(http, sid, gid, "Aggregated");
    const targets = () => Promise.all([csv(http, seriesApi(sid, gid, checked)), csv(http, seriesApi(sid, gid, aggregated))]);
    const lastRun = async (pid: number) => ok(await http.get(`${processes}${pid}/runs/`, auth())).results[0];

    const corrections: [string, () => Promise<TestResponse>, string][] = [
      ["a deletion in the past", () => http.delete(`${path}data/?start_date=2025-05-02T05:00:00Z&end_date=2025-05-02T09:30:00Z`, auth()), "2025-05-02T05:00:00Z"],
      ["an edit in the past", () => http.patch(`${path}data/`, { ...auth(), json: { records: [{ timestamp: "2025-05-01T03:10:00Z", value: 38 }], timezone: "UTC" } }), "2025-05-01T03:10:00Z"],
      ["a transform", () => http.post(`${path}data/transform/`, { ...auth(), json: { operation: "offset", amount: 12, start_date: "2025-05-01T20:00:00Z", end_date: "2025-05-01T23:50:00Z" } }), "2025-05-01T20:00:00Z"],
      ["a deletion of the last records", () => http.delete(`${path}data/?start_date=2025-05-03T18:00:00Z`, auth()), "2025-05-03T18:00:00Z"],
      ["a deletion of the first records", () => http.delete(`${path}data/?end_date=2025-05-01T01:00:00Z`, auth()), "2025-05-01T00:00:00Z"],
    ];
    for (const [what, correct, first] of corrections) {
      const before = await targets();
      const c = ok(await correct()).correction;
      expect(c, what).toEqual(expect.any(Number));
      await settled();
      const readAt = new Date();
      const incremental = await targets();
      const trace = await runsTrace([checks.id, hourly.id], readAt);
      expect(incremental, what).not.toEqual(before);
      // Each run was incremental, from no later than the earliest changed timestamp (from
      // the first record on is from scratch: null).
      for (const pid of [checks.id, hourly.id]) {
        const run = await lastRun(pid);
        expect(run.status, what).toBe("succeeded");
        if (first !== "2025-05-01T00:00:00Z") expect(run.from, what).not.toBeNull();
        if (run.from !== null) expect(Date.parse(run.from), what).toBeLessThanOrEqual(Date.parse(first));
      }
      for (const pid of [checks.id, hourly.id]) expect(ok(await http.post(`${processes}${pid}/run/`, { ...auth(), json: { from_scratch: true, wait: true } })).status).toBe("succeeded");
      await settled();
      // The message says what had run when the incremental targets were read.
      expect(await targets(), `${what}; the runs then: ${trace}`).toEqual(incremental);
    }
    // A revert is a correction too: the targets follow it back.
    const history = ok(await http.get(`${path}corrections/?page_size=100`, auth())).results;
    for (const c of history.filter((x: { kind: string }) => x.kind !== "upload")) ok(await http.post(`${path}corrections/${c.id}/revert/`, auth()));
    await settled();
    const reverted = await targets();
    for (const pid of [checks.id, hourly.id]) ok(await http.post(`${processes}${pid}/run/`, { ...auth(), json: { from_scratch: true, wait: true } }));
    expect(await targets()).toEqual(reverted);
  }, 180_000);
});

describe("synoptic alarms after corrections", () => {
  const jobsOf = (groupId: number) => db().prisma.job.findMany({ where: { key: `synoptic:${groupId}` }, orderBy: { id: "asc" } });

  /** Runs a write, then waits until the evaluations it queued have run. */
  async function evaluated(groupId: number, write: () => Promise<TestResponse>, status = 200): Promise<TestResponse> {
    const before = Math.max(0, ...(await jobsOf(groupId)).map((j) => j.id));
    const r = await write();
    expect(r.status, r.text).toBe(status);
    const jobs = await until(() => jobsOf(groupId), (js) => js.some((j) => j.id > before && j.status === "succeeded") && !js.some((j) => j.status === "queued" || j.status === "running"));
    expect(jobs.at(-1)!.status).toBe("succeeded");
    return r;
  }

  it("raise an alarm only for a record newer than the last one evaluated: a correction of the past e-mails nobody", async () => {
    const sid = await f.station({ name: "Gauge" }, editor.id);
    const gid = await f.group(sid, { precision: 2, variableId, unitId, name: "Stage" });
    const tid = await f.series(gid, { type: "Initial", timeStep: "10min" });
    const path = seriesApi(sid, gid, tid);
    const group = ok(await http.post("/api/synopticgroups/", { ...auth(), json: {
      name: "Watch", slug: "watch-corrections", display_timezone: "Etc/GMT", fresh_time_limit: 3600, early_warning_emails: ["duty@example.com"],
      stations: [{ station: sid, timeseries_groups: [{ timeseries_group: gid, high_limit: 3, rate_of_change: { symmetric: true, thresholds: [{ delta_t: "10min", allowed_diff: 5 }] } }] }],
    } }), 201);
    const warnings = () => db().prisma.synopticWarning.count({ where: { synopticGroupId: group.id } });
    const post = (text: string) => () => http.post(`${path}data/`, { ...auth(), form: { timeseries_records: text, timezone: "UTC" } });
    await evaluated(group.id, post("2025-06-01 10:00,2.0,\n2025-06-01 10:10,2.5,\n"), 204);
    expect(await warnings()).toBe(0);
    // The past record above the limit, and a jump the rate-of-change check would catch at the last one: nothing is sent.
    await evaluated(group.id, () => http.patch(`${path}data/`, { ...auth(), json: { records: [{ timestamp: "2025-06-01 10:00", value: -4 }], timezone: "UTC" } }));
    // The latest record deleted: the last common date goes back to a value above the limit, evaluated before.
    await evaluated(group.id, () => http.patch(`${path}data/`, { ...auth(), json: { records: [{ timestamp: "2025-06-01 10:00", value: 5 }], timezone: "UTC" } }));
    await evaluated(group.id, () => http.delete(`${path}data/?start_date=2025-06-01T10:10Z`, auth()));
    expect((await http.get(`/api/synopticgroups/${group.id}/latest/`)).json[0]).toMatchObject({ last_common_date: "2025-06-01T10:00:00Z", values: [{ value: 5, status: "high" }] });
    expect(await warnings()).toBe(0);
    // A new record above the limit warns, once.
    await evaluated(group.id, post("2025-06-01 10:20,3.5,\n"), 204);
    const [mail] = await smtp.waitFor(1);
    expect(mail.text).toContain("Gauge Stage 2025-06-01 10:20 3.50 °C (high limit 3 °C)");
    expect(await warnings()).toBe(1);
    // Corrected below the limit, the alarm ends (no e-mail); raised back in the past, it stays quiet.
    await evaluated(group.id, () => http.patch(`${path}data/`, { ...auth(), json: { records: [{ timestamp: "2025-06-01 10:20", value: 2.9 }], timezone: "UTC" } }));
    expect(await db().prisma.synopticAlarm.count({ where: { synopticTimeseriesGroup: { synopticGroupStation: { synopticGroupId: group.id } } } })).toBe(0);
    await evaluated(group.id, () => http.patch(`${path}data/`, { ...auth(), json: { records: [{ timestamp: "2025-06-01 10:20", value: 3.9 }], timezone: "UTC" } }));
    expect(await warnings()).toBe(1);
    // The next new record above the limit warns again.
    await evaluated(group.id, post("2025-06-01 10:30,4.0,\n"), 204);
    expect(await smtp.waitFor(2)).toHaveLength(2);
    expect(smtp.messages[1].text).toContain("Gauge Stage 2025-06-01 10:30 4.00 °C (high limit 3 °C)");
    expect(await warnings()).toBe(2);
  });
});

describe("reads after corrections", () => {
  it("ETags, bottom/, chart/, the legacy statistics and the station export equal those of a series written once with the same records", async () => {
    const sid = await f.station({ name: "Read" }, editor.id);
    const make = async (name: string) => {
      const gid = await f.group(sid, { precision: 1, variableId, unitId, name });
      return { gid, tid: await f.series(gid, { type: "Initial", timeStep: "10min" }) };
    };
    const corrected = await make("Corrected");
    const path = seriesApi(sid, corrected.gid, corrected.tid);
    const values = Array.from({ length: 1000 }, (_, i) => Math.round(100 * Math.cos(i / 50)) / 10);
    await upload(http, editor.token, path, recordLines("2025-01-01T00:00:00Z", values));
    const etag = (await http.get(`${path}data/`)).headers.get("etag");
    const legacy = `/timeseries/data/?object_id=${corrected.tid}&last=year`;
    const statsBefore = (await http.get(legacy)).text;
    ok(await http.delete(`${path}data/?start_date=2025-01-03T00:00:00Z`, auth()));
    ok(await http.post(`${path}data/transform/`, { ...auth(), json: { operation: "scale", amount: 2, start_date: "2025-01-01T12:00:00Z", end_date: "2025-01-02T00:00:00Z" } }));
    ok(await http.patch(`${path}data/`, { ...auth(), json: { records: [{ timestamp: "2025-01-01T00:00:00Z", value: null, flags: "MISS" }], timezone: "UTC" } }));
    const final = await csv(http, path);
    const written = await make("Written once");
    const once = seriesApi(sid, written.gid, written.tid);
    const r = await http.post(`${once}data/`, { ...auth(), form: { timeseries_records: final.replaceAll("\r\n", "\n"), timezone: "UTC" } });
    expect(r.status, r.text).toBe(204);
    expect(await csv(http, once)).toBe(final);
    // The ETag changed with the records; a request with the old one gets the new body.
    const fresh = await http.get(`${path}data/`, { headers: { "If-None-Match": etag! } });
    expect(fresh.status).toBe(200);
    expect(fresh.headers.get("etag")).not.toBe(etag);
    for (const tail of ["bottom/", "chart/", "chart/?points=37", "chart/?start_date=2025-01-01T10:00:00Z&end_date=2025-01-02T03:00:00Z&points=13", "data/?fmt=hts&timezone=UTC"]) {
      const a = await http.get(`${path}${tail}`);
      const b = await http.get(`${once}${tail}`);
      expect(a.status, tail).toBe(200);
      expect(a.text.replace(/Title=Corrected/g, "Title=Written once"), tail).toBe(b.text);
    }
    const stats = (await http.get(legacy)).text;
    expect(stats).not.toBe(statsBefore);
    expect(stats).toBe((await http.get(`/timeseries/data/?object_id=${written.tid}&last=year`)).text);
    // The export's record counts.
    const counts = await db().prisma.timeseries.findMany({ where: { id: { in: [corrected.tid, written.tid] } }, select: { recordCount: true, firstTimestamp: true, lastTimestamp: true } });
    expect(counts[0]).toEqual(counts[1]);
  });

  it("the activity log names each correction", async () => {
    const sid = await f.station({ name: "Logged", displayTimezone: "Etc/GMT-2" }, editor.id);
    const gid = await f.group(sid, { precision: 2, variableId, unitId, name: "Level" });
    const tid = await f.series(gid, { type: "Initial", timeStep: "10min" });
    const path = seriesApi(sid, gid, tid);
    await upload(http, editor.token, path, recordLines("2025-03-01T00:00:00Z", [1, 2, 3, 4]));
    const deleted = ok(await http.delete(`${path}data/?start_date=2025-03-01T00:10Z&end_date=2025-03-01T00:20Z`, auth())).correction;
    const edited = ok(await http.patch(`${path}data/`, { ...auth(), json: { records: [{ timestamp: "2025-03-01T00:00Z", value: 9 }] } })).correction;
    const transformed = ok(await http.post(`${path}data/transform/`, { ...auth(), json: { operation: "flag", flags: "CHECKED", all: true } })).correction;
    const reverted = ok(await http.post(`${path}corrections/${deleted}/revert/`, auth())).id;
    const replaced = await http.post(`${path}data/`, { ...auth(), form: { timeseries_records: "2025-03-01 00:30,7,\n", timezone: "UTC", mode: "replace" } });
    expect(replaced.status).toBe(204);
    const [upload_, ...rest] = ok(await http.get(`${path}corrections/?page_size=10`, auth())).results.reverse();
    const replacedId = rest.at(-1).id;
    const entries = ok(await http.get(`/api/stations/${sid}/activity/?page_size=6`, auth())).results;
    const of = `of time series #${tid} of time series group "Level"`;
    expect(entries.map((e: { action: string; summary: string }) => [e.action, e.summary])).toEqual([
      ["correct", `Replaced 1 record with 1 record (2025-03-01 02:30 to 2025-03-01 02:30 UTC+02:00) ${of} (correction #${replacedId})`],
      ["correct", `Reverted correction #${deleted} (2025-03-01 02:10 to 2025-03-01 02:20 UTC+02:00) ${of} (correction #${reverted})`],
      ["correct", `Transformed 2 records (flag CHECKED) (2025-03-01 02:00 to 2025-03-01 02:30 UTC+02:00) ${of} (correction #${transformed})`],
      ["correct", `Edited 1 record (2025-03-01 02:00 to 2025-03-01 02:00 UTC+02:00) ${of} (correction #${edited})`],
      ["correct", `Deleted 2 records (2025-03-01 02:10 to 2025-03-01 02:20 UTC+02:00) ${of} (correction #${deleted})`],
      ["upload", `Uploaded 4 records (2025-03-01 02:00 to 2025-03-01 02:30 UTC+02:00, append) to time series #${tid} of time series group "Level" (correction #${upload_.id})`],
    ]);
  });
});
