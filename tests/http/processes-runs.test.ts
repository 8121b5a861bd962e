/**
 * Processing end to end (processing.md §2–§4), through the API of a real server: uploads queue
 * the runs of the processes that read the uploaded series, in the same transaction, and the
 * chain continues from the targets; the targets hold what the numerics compute; and however
 * the source arrived (one upload, many small ones, an insert into the past) or the process
 * changed, the target equals one run over the whole current source.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
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
