/**
 * The processes/ resource (processing.md §1–§2) as a client sees it: the objects and their
 * series, list and detail for everyone, writes and runs for editors (401 for anonymous, 403
 * for other users, 404 first), every validation message, and that a refused request changes
 * nothing.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { db } from "@/lib/db";
import { api, type TestResponse } from "@/tests/support/http";
import * as f from "@/tests/support/fixtures";
import { csv, groupApi, processesApi, recordLines, runsSettled, upload, type Http } from "@/tests/support/processes";
import { DIALECT, startServer, type TestServer } from "@/tests/support/server";
import { siteLogin } from "@/tests/support/site-session";

let server: TestServer;
let http: Http;
const users = {} as Record<"creator" | "maintainer" | "other" | "superuser", f.TestUser>;
let variableId: number;
let unitId: number;

beforeAll(async () => {
  server = await startServer();
  http = api(server.url);
  users.creator = await f.user();
  users.maintainer = await f.user();
  users.other = await f.user();
  users.superuser = await f.user({ superuser: true });
  variableId = await f.variable("Temperature");
  unitId = await f.unit("°C", [variableId]);
});
afterAll(() => server?.stop());

const UNAUTHENTICATED = { detail: "Authentication credentials were not provided." };
const FORBIDDEN = { detail: "You do not have permission to perform this action." };
const NOT_FOUND = { detail: "Not found." };
const COMMON_KEYS = ["id", "type", "timeseries_group", "enabled", "source_timeseries", "target_timeseries", "last_run"];
const RUN_KEYS = ["id", "status", "queued_at", "started_at", "finished_at", "from", "records_written", "error"];
const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

const RANGE = { lower_bound: 0, upper_bound: 40, soft_lower_bound: 2, soft_upper_bound: 38 };
const ROC = { symmetric: true, remove_failing_values: false, thresholds: [{ delta_t: "10min", allowed_diff: 5 }] };
const CHECKS = { type: "checks", range_check: RANGE, rate_of_change_check: ROC };
const HOURLY = { type: "aggregation", target_time_step: "1h", method: "mean", max_missing: 2 };
const PERIODS = [{ start_date: "2020-01-01", end_date: "2020-12-31", points: [[1, 10], [0, 0], [3, 40]] }];

interface World { sid: number; gid: number; tid: number; path: string }

/** A station (creator and maintainer) with a group whose Initial series has a 10-minute step and is private. */
async function world(options: { initial?: boolean } = {}): Promise<World> {
  const sid = await f.station({ maintainers: [users.maintainer.id] }, users.creator.id);
  const gid = await f.group(sid, { variableId, unitId });
  const tid = options.initial === false ? 0 : await f.series(gid, { type: "Initial", timeStep: "10min", publiclyAvailable: false });
  return { sid, gid, tid, path: processesApi(sid, gid) };
}

const as = (role: keyof typeof users | "anonymous") => (role === "anonymous" ? undefined : users[role].token);

async function create(path: string, body: unknown, role: keyof typeof users = "creator"): Promise<TestResponse> {
  return http.post(path, { token: as(role), json: body });
}

async function created(path: string, body: unknown): Promise<Record<string, unknown> & { id: number }> {
  const r = await create(path, body);
  expect(r.status, r.text).toBe(201);
  return r.json;
}

async function seriesOf(gid: number) {
  return db().prisma.timeseries.findMany({ where: { groupId: gid }, orderBy: { id: "asc" } });
}

/** What a refused request must leave as it was: the group's processes and series, and the queued runs (once the runs going on are done). */
async function snapshot(gid: number) {
  await runsSettled();
  return {
    processes: await db().prisma.process.findMany({ where: { groupId: gid }, orderBy: { id: "asc" } }),
    series: await seriesOf(gid),
    jobs: await db().prisma.job.count(),
  };
}

function expect400(r: TestResponse, body: unknown) {
  expect(r.status, r.text).toBe(400);
  expect(r.json).toEqual(body);
}

describe(`creating processes (${DIALECT})`, () => {
  it("checks: the object in order, the Checked series created from the Initial one, the first run queued", async () => {
    const w = await world();
    const p = await created(w.path, CHECKS);
    expect(Object.keys(p)).toEqual([...COMMON_KEYS, "range_check", "rate_of_change_check"]);
    const series = await seriesOf(w.gid);
    expect(series.map((s) => [s.type, s.timeStep, s.publiclyAvailable])).toEqual([[1, "10min", false], [2, "10min", false]]);
    expect(p).toEqual({
      id: p.id, type: "checks", timeseries_group: w.gid, enabled: true, source_timeseries: w.tid, target_timeseries: series[1].id,
      last_run: p.last_run, range_check: RANGE, rate_of_change_check: ROC,
    });
    expect(Object.keys(p.last_run as object)).toEqual(RUN_KEYS);
    expect(p.last_run).toMatchObject({ records_written: 0, error: null });
    expect((p.last_run as { queued_at: string }).queued_at).toMatch(ISO);
    expect((await http.get(`${w.path}${p.id}/`)).json).toMatchObject({ ...p, last_run: expect.any(Object) });
  });

  it("checks from a form body (nested objects as JSON text), defaults filled in, and a group without series", async () => {
    const w = await world({ initial: false });
    const r = await http.post(w.path, { token: as("maintainer"), form: {
      type: "checks", enabled: "off", range_check: JSON.stringify({ lower_bound: "-5", upper_bound: 50 }), rate_of_change_check: "",
    } });
    expect(r.status, r.text).toBe(201);
    expect(r.json).toMatchObject({
      enabled: false, range_check: { lower_bound: -5, upper_bound: 50, soft_lower_bound: null, soft_upper_bound: null }, rate_of_change_check: null,
    });
    const series = await seriesOf(w.gid);
    expect(series.map((s) => [s.type, s.timeStep, s.publiclyAvailable])).toEqual([[1, "", true], [2, "", true]]);
    expect(r.json.source_timeseries).toBe(series[0].id);
    expect(r.json.target_timeseries).toBe(series[1].id);
    // A disabled process is not run.
    expect(r.json.last_run).toBeNull();
  });

  it("checks without symmetric: a rise and a fall bound for the same delta_t (issue 36 item 6); a run flags the rise above the one and the fall below the other", async () => {
    const w = await world();
    const roc = { symmetric: false, remove_failing_values: false, thresholds: [{ delta_t: "10min", allowed_diff: 2 }, { delta_t: "10min", allowed_diff: -3 }] };
    const p = await created(w.path, { type: "checks", rate_of_change_check: roc });
    expect(p.rate_of_change_check).toEqual(roc);
    await runsSettled();
    // +1 passes, +2.5 fails the rise bound; 11 passes (the failed 13.5 is skipped); −4 fails the fall bound; 5 passes (−6 over 20 min from 11, the fall bound summed twice)
    await upload(http, users.creator.token, `${groupApi(w.sid, w.gid)}timeseries/${w.tid}/`, recordLines("2020-01-01T00:00Z", [10, 11, 13.5, 11, 7, 5]));
    await runsSettled();
    const checked = await csv(http, `${groupApi(w.sid, w.gid)}timeseries/${p.target_timeseries}/`, users.creator.token);
    expect(checked.trimEnd().split("\r\n").map((line) => [line.slice(11, 16), line.endsWith(",TEMPORAL")])).toEqual([
      ["00:00", false], ["00:10", false], ["00:20", true], ["00:30", false], ["00:40", true], ["00:50", false],
    ]);
  });

  it("an aggregation: the Aggregated series of its step named after its method; the Checked series is the source once there is one", async () => {
    const w = await world();
    const p = await created(w.path, HOURLY);
    expect(Object.keys(p)).toEqual([...COMMON_KEYS, "target_time_step", "method", "max_missing", "resulting_timestamp_offset"]);
    expect(p).toMatchObject({ target_time_step: "1h", method: "mean", max_missing: 2, resulting_timestamp_offset: "", source_timeseries: w.tid });
    const daily = await created(w.path, { type: "aggregation", target_time_step: "1D", method: "sum" });
    expect(daily).toMatchObject({ max_missing: 0, resulting_timestamp_offset: "" });
    let series = await seriesOf(w.gid);
    expect(series.map((s) => [s.type, s.timeStep, s.name])).toEqual([[1, "10min", ""], [4, "1h", "Mean"], [4, "1D", "Sum"]]);
    expect(p.target_timeseries).toBe(series[1].id);
    await created(w.path, CHECKS);
    series = await seriesOf(w.gid);
    const checked = series.find((s) => s.type === 2)!;
    expect((await http.get(`${w.path}${p.id}/`)).json.source_timeseries).toBe(checked.id);
  });

  it("a curve interpolation into another group: that group's Initial series, with the source's step", async () => {
    const w = await world();
    const target = await f.group(w.sid, { variableId, unitId });
    const p = await created(w.path, { type: "curve_interpolation", target_timeseries_group: target, periods: PERIODS });
    expect(Object.keys(p)).toEqual([...COMMON_KEYS, "target_timeseries_group", "periods"]);
    // Points are stored sorted by x.
    expect(p.periods).toEqual([{ start_date: "2020-01-01", end_date: "2020-12-31", points: [[0, 0], [1, 10], [3, 40]] }]);
    const [initial] = await seriesOf(target);
    expect([initial.type, initial.timeStep, initial.publiclyAvailable]).toEqual([1, "10min", false]);
    expect(p).toMatchObject({ source_timeseries: w.tid, target_timeseries: initial.id, target_timeseries_group: target });
  });

  it("refuses a second checks process and a second aggregation of the same step and method", async () => {
    const w = await world();
    await created(w.path, CHECKS);
    await created(w.path, HOURLY);
    const before = await snapshot(w.gid);
    expect400(await create(w.path, { type: "checks", range_check: RANGE }), { non_field_errors: ["This group already has checks."] });
    expect400(await create(w.path, { ...HOURLY, max_missing: 5 }), { non_field_errors: ["This group already has an aggregation with this target_time_step and method."] });
    expect(await snapshot(w.gid)).toEqual(before);
    await created(w.path, { ...HOURLY, method: "max" });
  });
});

describe(`validation messages (${DIALECT})`, () => {
  let w: World;
  beforeAll(async () => {
    w = await world();
  });

  async function refused(body: unknown, expected: unknown, kind: "json" | "form" = "json") {
    const before = await snapshot(w.gid);
    const r = kind === "json" ? await create(w.path, body) : await http.post(w.path, { token: as("creator"), form: body as Record<string, string> });
    expect400(r, expected);
    expect(await snapshot(w.gid)).toEqual(before);
  }

  it("of the common fields", async () => {
    await refused({}, { type: ["This field is required."] });
    await refused({ type: "regularization", enabled: "maybe" }, { type: ['"regularization" is not a valid choice.'], enabled: ["Must be a valid boolean."] });
    await refused([1], { non_field_errors: ["Invalid data. Expected a dictionary, but got list."] });
  });

  it.each([
    [{ type: "checks" }, { non_field_errors: ["At least one of range_check and rate_of_change_check is required."] }],
    [{ type: "checks", range_check: null, rate_of_change_check: null }, { non_field_errors: ["At least one of range_check and rate_of_change_check is required."] }],
    [{ type: "checks", range_check: [1] }, { range_check: ["Invalid data. Expected a dictionary, but got list."] }],
    [{ type: "checks", range_check: {} }, { range_check: ["lower_bound: This field is required.", "upper_bound: This field is required."] }],
    [{ type: "checks", range_check: { lower_bound: "x", upper_bound: null } }, { range_check: ["lower_bound: A valid number is required.", "upper_bound: This field may not be null."] }],
    [{ type: "checks", range_check: { lower_bound: 0, upper_bound: 40, soft_lower_bound: 41 } },
      { range_check: ["The bounds must be in the order lower_bound ≤ soft_lower_bound ≤ soft_upper_bound ≤ upper_bound."] }],
    [{ type: "checks", range_check: { lower_bound: 10, upper_bound: 0 } },
      { range_check: ["The bounds must be in the order lower_bound ≤ soft_lower_bound ≤ soft_upper_bound ≤ upper_bound."] }],
    [{ type: "checks", rate_of_change_check: {} }, { rate_of_change_check: ["thresholds: This field is required."] }],
    [{ type: "checks", rate_of_change_check: { thresholds: [] } }, { rate_of_change_check: ["thresholds: At least one threshold is required."] }],
    [{ type: "checks", rate_of_change_check: { thresholds: "10min 5" } }, { rate_of_change_check: ['thresholds: Expected a list of items but got type "str".'] }],
    [{ type: "checks", rate_of_change_check: { symmetric: "sometimes", thresholds: [{}] } },
      { rate_of_change_check: ["symmetric: Must be a valid boolean.", "thresholds[0].delta_t: This field is required.", "thresholds[0].allowed_diff: This field is required."] }],
    [{ type: "checks", rate_of_change_check: { thresholds: [{ delta_t: "10min", allowed_diff: 1 }, 7] } },
      { rate_of_change_check: ["thresholds[1]: Invalid data. Expected a dictionary, but got int."] }],
    [{ type: "checks", rate_of_change_check: { thresholds: [{ delta_t: "1M", allowed_diff: 1 }, { delta_t: "2x", allowed_diff: 1 }, { delta_t: "0min", allowed_diff: 1 }] } },
      { rate_of_change_check: [
        'thresholds[0].delta_t: "1M" is in months or years; only minutes, hours and days are supported.',
        'thresholds[1].delta_t: "2x" is not a valid time step.',
        'thresholds[2].delta_t: "0min" is not a valid time step.'] }],
    [{ type: "checks", rate_of_change_check: { thresholds: [{ delta_t: "10min", allowed_diff: 1 }, { delta_t: "10min", allowed_diff: 2 }] } },
      { rate_of_change_check: ['thresholds: Each delta_t may have one rise bound and one fall bound ("10min" has two rise bounds (allowed_diff > 0)).'] }],
    [{ type: "checks", rate_of_change_check: { thresholds: [{ delta_t: "1h", allowed_diff: -1 }, { delta_t: "60min", allowed_diff: -2 }] } },
      { rate_of_change_check: ['thresholds: Each delta_t may have one rise bound and one fall bound ("1h" and "60min" are the same duration, both fall bounds (allowed_diff < 0)).'] }],
    [{ type: "checks", rate_of_change_check: { symmetric: true, thresholds: [{ delta_t: "1h", allowed_diff: 1 }, { delta_t: "60min", allowed_diff: 2 }] } },
      { rate_of_change_check: ['thresholds: Each delta_t may appear only once ("1h" and "60min" are the same duration).'] }],
    [{ type: "checks", rate_of_change_check: { thresholds: [{ delta_t: "10min", allowed_diff: 0 }] } },
      { rate_of_change_check: ["thresholds[0].allowed_diff: Without symmetric thresholds an allowed_diff must not be 0 (a positive one bounds rises, a negative one falls)."] }],
    [{ type: "checks", rate_of_change_check: { symmetric: true, thresholds: [{ delta_t: "10min", allowed_diff: 0 }, { delta_t: "1h", allowed_diff: -3 }] } },
      { rate_of_change_check: [
        "thresholds[0].allowed_diff: With symmetric thresholds every allowed_diff must be greater than 0.",
        "thresholds[1].allowed_diff: With symmetric thresholds every allowed_diff must be greater than 0."] }],
  ])("of checks: %j", async (body, expected) => {
    await refused(body, expected);
  });

  it("of checks sent as form fields", async () => {
    await refused({ type: "checks", range_check: "{lower_bound: 1}" }, { range_check: ["Value must be valid JSON."] }, "form");
    await refused({ type: "checks", range_check: "null", rate_of_change_check: "" },
      { non_field_errors: ["At least one of range_check and rate_of_change_check is required."] }, "form");
  });

  it.each([
    [{ type: "curve_interpolation" }, { target_timeseries_group: ["This field is required."], periods: ["This field is required."] }],
    [{ type: "curve_interpolation", target_timeseries_group: 99999999, periods: PERIODS }, { target_timeseries_group: ['Invalid pk "99999999" - object does not exist.'] }],
    [{ type: "curve_interpolation", target_timeseries_group: "x", periods: {} },
      { target_timeseries_group: ["Incorrect type. Expected pk value, received str."], periods: ['Expected a list of items but got type "dict".'] }],
    [{ type: "curve_interpolation", periods: [] }, { target_timeseries_group: ["This field is required."], periods: ["At least one period is required."] }],
    [{ type: "curve_interpolation", periods: [{ start_date: "2020-13-01", points: [[0, 1], "x"] }] }, {
      target_timeseries_group: ["This field is required."],
      periods: [
        "periods[0].start_date: Date has wrong format. Use one of these formats instead: YYYY-MM-DD.",
        "periods[0].end_date: This field is required.",
        "periods[0].points[1]: A point is a pair of numbers [x, y].",
      ],
    }],
    [{ type: "curve_interpolation", periods: [
      { start_date: "2020-02-01", end_date: "2020-01-01", points: [[0, 1]] },
      { start_date: "2021-01-01", end_date: "2021-12-31", points: [[0, 1], [2, 3], [0, 5]] },
      { start_date: "2021-12-31", end_date: "2022-06-30", points: [[0, 1], [1, 2]] },
    ] }, {
      target_timeseries_group: ["This field is required."],
      periods: [
        "periods[0]: start_date must not be after end_date.",
        "periods[0].points: At least two points are required.",
        "periods[1].points: Each x may appear only once (0 appears twice).",
        "periods[2] overlaps periods[1].",
      ],
    }],
  ])("of curve interpolations: %j", async (body, expected) => {
    await refused(body, expected);
  });

  it("of a curve interpolation's target group: another group, one the user may edit, and no loop", async () => {
    await refused({ type: "curve_interpolation", target_timeseries_group: w.gid, periods: PERIODS },
      { target_timeseries_group: ["The target group must be another group than the process's own."] });
    const foreign = await f.group(await f.station({}, users.other.id), { variableId, unitId });
    const before = await snapshot(w.gid);
    const r = await create(w.path, { type: "curve_interpolation", target_timeseries_group: foreign, periods: PERIODS });
    expect(r.status, r.text).toBe(403);
    expect(r.json).toEqual({ detail: "You do not have permission to edit the station of target_timeseries_group." });
    expect(await snapshot(w.gid)).toEqual(before);
    expect(await seriesOf(foreign)).toEqual([]);
    // A superuser may edit every station.
    expect((await create(w.path, { type: "curve_interpolation", target_timeseries_group: foreign, periods: PERIODS }, "superuser")).status).toBe(201);

    // a → b → c, then c → a closes a loop; so does b → a.
    const [a, b, c] = [await world(), await world(), await world()];
    await created(a.path, { type: "curve_interpolation", target_timeseries_group: b.gid, periods: PERIODS });
    await created(b.path, { type: "curve_interpolation", target_timeseries_group: c.gid, periods: PERIODS });
    for (const [from, to] of [[c, a], [b, a]]) {
      const kept = await snapshot(from.gid);
      expect400(await create(from.path, { type: "curve_interpolation", target_timeseries_group: to.gid, periods: PERIODS }),
        { non_field_errors: ["This process would make a cycle."] });
      expect(await snapshot(from.gid)).toEqual(kept);
    }
    await created(c.path, { type: "curve_interpolation", target_timeseries_group: (await world()).gid, periods: PERIODS });
  });

  it.each([
    [{ type: "aggregation" }, { target_time_step: ["This field is required."], method: ["This field is required."] }],
    [{ type: "aggregation", target_time_step: "1M", method: "avg" },
      { target_time_step: ['"1M" is in months or years; only minutes, hours and days are supported.'], method: ['"avg" is not a valid choice.'] }],
    [{ type: "aggregation", target_time_step: "Y", method: "sum" }, { target_time_step: ['"Y" is in months or years; only minutes, hours and days are supported.'] }],
    [{ type: "aggregation", target_time_step: "1 hour", method: "sum" }, { target_time_step: ['"1 hour" is not a valid time step.'] }],
    [{ type: "aggregation", target_time_step: "12345678min", method: "sum" }, { target_time_step: ["Ensure this field has no more than 7 characters."] }],
    [{ type: "aggregation", target_time_step: "", method: "sum" }, { target_time_step: ["This field may not be blank."] }],
    [{ type: "aggregation", target_time_step: "1h", method: "sum", max_missing: -1, resulting_timestamp_offset: "1h" },
      { max_missing: ["Ensure this value is greater than or equal to 0."], resulting_timestamp_offset: ['"1h" is not a valid resulting timestamp offset.'] }],
    [{ type: "aggregation", target_time_step: "1h", method: "sum", max_missing: 32768 }, { max_missing: ["Ensure this value is less than or equal to 32767."] }],
    [{ type: "aggregation", target_time_step: "1h", method: "sum", max_missing: 1.5 }, { max_missing: ["A valid integer is required."] }],
  ])("of aggregations: %j", async (body, expected) => {
    await refused(body, expected);
  });
});

describe(`reading, changing and deleting (${DIALECT})`, () => {
  it("lists a group's processes by id, paginated, for everyone; 404 for a wrong path", async () => {
    const w = await world();
    const ids = [(await created(w.path, HOURLY)).id, (await created(w.path, CHECKS)).id, (await created(w.path, { ...HOURLY, method: "min" })).id];
    const page = await http.get(`${w.path}?page_size=2`);
    expect(page.status).toBe(200);
    expect(page.json.count).toBe(3);
    expect(page.json.results.map((p: { id: number }) => p.id)).toEqual(ids.slice(0, 2));
    expect(page.json.next).toContain("page=2");
    expect((await http.get(`${w.path}?page=2&page_size=2`)).json.results.map((p: { id: number }) => p.id)).toEqual(ids.slice(2));
    const other = await world();
    expect((await http.get(other.path)).json).toEqual({ count: 0, next: null, previous: null, results: [] });
    // A process is found only under its own station and group.
    for (const path of [`${other.path}${ids[0]}/`, `${processesApi(other.sid, w.gid)}${ids[0]}/`, `${processesApi(w.sid, other.gid)}`, `${w.path}99999999/`]) {
      const r = await http.get(path);
      expect([r.status, r.json], path).toEqual([404, NOT_FOUND]);
    }
    // The singular alias of the group path serves them too.
    expect((await http.get(`/api/stations/${w.sid}/timeseriesgroup/${w.gid}/processes/${ids[1]}/`)).json.id).toBe(ids[1]);
  });

  it("PUT replaces the type's fields (the type must be repeated and cannot change); PATCH changes the fields sent; both rerun from scratch", async () => {
    const w = await world();
    const p = await created(w.path, CHECKS);
    const url = `${w.path}${p.id}/`;
    await runsSettled();
    expect400(await http.put(url, { token: as("creator"), json: { range_check: RANGE } }), { type: ["This field is required."] });
    expect400(await http.patch(url, { token: as("creator"), json: { type: "aggregation", target_time_step: "1h" } }), { type: ["The type of a process cannot change."] });
    expect400(await http.patch(url, { token: as("creator"), json: { range_check: null, rate_of_change_check: null } }),
      { non_field_errors: ["At least one of range_check and rate_of_change_check is required."] });
    const put = await http.put(url, { token: as("maintainer"), json: { type: "checks", rate_of_change_check: null } });
    expect(put.status, put.text).toBe(200);
    // Omitted fields keep their values on PUT too (api.md §1.3).
    expect(put.json).toMatchObject({ range_check: RANGE, rate_of_change_check: null, enabled: true });
    expect(put.json.last_run).toMatchObject({ from: null });
    expect(put.json.last_run.status).toMatch(/queued|running|succeeded/);
    const patched = await http.patch(url, { token: as("creator"), form: { enabled: "false" } });
    expect(patched.json).toMatchObject({ enabled: false, range_check: RANGE });
    expect({ ...(await http.get(url)).json, last_run: null }).toEqual({ ...patched.json, last_run: null });
  });

  it("DELETE removes the process; its target series and records stay", async () => {
    const w = await world();
    const p = await created(w.path, CHECKS);
    await upload(http, users.creator.token, `${groupApi(w.sid, w.gid)}timeseries/${w.tid}/`, recordLines("2024-01-01T00:00Z", [1, 2, 3]));
    await runsSettled();
    const r = await http.delete(`${w.path}${p.id}/`, { token: as("maintainer") });
    expect(r.status).toBe(204);
    expect(r.text).toBe("");
    expect((await http.get(`${w.path}${p.id}/`)).status).toBe(404);
    const checked = await db().prisma.timeseries.findUniqueOrThrow({ where: { id: p.target_timeseries as number } });
    expect(checked.recordCount).toBe(3);
    // Uploads to the source no longer queue anything for it.
    await upload(http, users.creator.token, `${groupApi(w.sid, w.gid)}timeseries/${w.tid}/`, recordLines("2024-01-02T00:00Z", [4]));
    expect(await db().prisma.job.count({ where: { key: `process:${p.id}`, status: "queued" } })).toBe(0);
  });

  it("OPTIONS and 405 name the methods of each path", async () => {
    const w = await world();
    const p = await created(w.path, CHECKS);
    const allow = async (path: string) => (await http.options(path)).headers.get("allow");
    expect(await allow(w.path)).toBe("GET, HEAD, POST, OPTIONS");
    expect(await allow(`${w.path}${p.id}/`)).toBe("GET, HEAD, PUT, PATCH, DELETE, OPTIONS");
    expect(await allow(`${w.path}${p.id}/runs/`)).toBe("GET, HEAD, OPTIONS");
    expect(await allow(`${w.path}${p.id}/run/`)).toBe("POST, OPTIONS");
    const r = await http.get(`${w.path}${p.id}/run/`, { token: as("creator") });
    expect([r.status, r.json]).toEqual([405, { detail: 'Method "GET" not allowed.' }]);
  });
});

describe(`permissions (${DIALECT})`, () => {
  type Role = keyof typeof users | "anonymous";
  const ROLES: Role[] = ["anonymous", "other", "creator", "maintainer", "superuser"];
  const expected = (role: Role, ok: number) => (role === "anonymous" ? 401 : role === "other" ? 403 : ok);

  it.each(ROLES)("writes and runs as %s: editors only (401 without credentials, 403 for other users)", async (role) => {
    const w = await world();
    const existing = await created(w.path, CHECKS);
    const url = `${w.path}${existing.id}/`;
    const check = (r: TestResponse, ok: number) => {
      expect(r.status, r.text).toBe(expected(role, ok));
      if (r.status === 401) {
        expect(r.json).toEqual(UNAUTHENTICATED);
        expect(r.headers.get("www-authenticate")).toBe("Token");
      }
      if (r.status === 403) expect(r.json).toEqual(FORBIDDEN);
    };
    // Everyone reads the processes.
    expect((await http.get(w.path, { token: as(role) })).status).toBe(200);
    expect((await http.get(url, { token: as(role) })).status).toBe(200);
    // An invalid body is refused for its author only after the permission (api.md §1.7).
    check(await http.post(w.path, { token: as(role), json: { type: "nonsense" } }), 400);
    check(await http.post(w.path, { token: as(role), json: HOURLY }), 201);
    check(await http.patch(url, { token: as(role), json: { enabled: true } }), 200);
    check(await http.put(url, { token: as(role), json: CHECKS }), 200);
    check(await http.get(`${url}runs/`, { token: as(role) }), 200);
    check(await http.post(`${url}run/`, { token: as(role), json: {} }), 202);
    check(await http.delete(url, { token: as(role) }), 204);
  });

  it("404 comes before 401 and 403", async () => {
    const w = await world();
    for (const role of ["anonymous", "other"] as Role[]) {
      for (const [method, path] of [["delete", `${w.path}99999999/`], ["post", `${processesApi(w.sid, 99999999)}`], ["get", `${w.path}99999999/runs/`], ["post", `${w.path}99999999/run/`]] as const) {
        const r = await http.request(method.toUpperCase(), path, { token: as(role), ...(method === "get" ? {} : { json: {} }) });
        expect([r.status, r.json], `${role} ${method} ${path}`).toEqual([404, NOT_FOUND]);
      }
    }
  });

  it("a failed run's error is shown to editors only", async () => {
    // An aggregation of a source without a time step cannot run (processing.md §3).
    const w = await world({ initial: false });
    await f.series(w.gid, { type: "Initial", timeStep: "" });
    const p = await created(w.path, HOURLY);
    const run = await http.post(`${w.path}${p.id}/run/`, { token: as("creator"), json: { from_scratch: "yes", wait: "true" } });
    expect(run.status, run.text).toBe(200);
    const message = "The source time series has no time step, so it cannot be regularized and aggregated.";
    // The attempt failed: the run waits for its retry, with the error.
    expect(run.json).toMatchObject({ status: "queued", from: null, records_written: 0, error: message });
    expect((await http.get(`${w.path}${p.id}/`, { token: as("maintainer") })).json.last_run.error).toBe(message);
    for (const role of ["anonymous", "other"] as Role[]) {
      const seen = await http.get(`${w.path}${p.id}/`, { token: as(role) });
      expect(seen.json.last_run).toMatchObject({ status: "queued", error: null });
      expect((await http.get(w.path, { token: as(role) })).json.results[0].last_run.error).toBeNull();
    }
    const runs = await http.get(`${w.path}${p.id}/runs/`, { token: as("superuser") });
    expect(runs.json.results[0]).toMatchObject({ id: run.json.id, error: message });
  });
});

describe(`runs (${DIALECT})`, () => {
  it("run/ queues a run (202), waits for it on request (200), and runs/ lists them newest first", async () => {
    const w = await world();
    await upload(http, users.creator.token, `${groupApi(w.sid, w.gid)}timeseries/${w.tid}/`, recordLines("2024-01-01T00:00Z", [1, 2, 99, 4]));
    const p = await created(w.path, CHECKS);
    await runsSettled();
    const url = `${w.path}${p.id}/`;
    const queued = await http.post(`${url}run/`, { token: as("creator"), json: { from_scratch: true } });
    expect(queued.status, queued.text).toBe(202);
    expect(Object.keys(queued.json)).toEqual(RUN_KEYS);
    expect(queued.json).toMatchObject({ from: null, records_written: 0, error: null, finished_at: null });
    expect(queued.json.status).toMatch(/queued|running/);
    await runsSettled();
    const waited = await http.post(`${url}run/`, { token: as("maintainer"), form: { from_scratch: "true", wait: "on" } });
    expect(waited.status, waited.text).toBe(200);
    expect(waited.json).toMatchObject({ status: "succeeded", from: null, records_written: 4, error: null });
    expect(waited.json.finished_at).toMatch(ISO);
    // Without from_scratch a run does what is pending: nothing here.
    const idle = await http.post(`${url}run/`, { token: as("creator"), json: { wait: true } });
    expect(idle.json).toMatchObject({ status: "succeeded", records_written: 0 });
    await upload(http, users.creator.token, `${groupApi(w.sid, w.gid)}timeseries/${w.tid}/`, recordLines("2024-01-01T00:40Z", [5]));
    await runsSettled();
    const runs = await http.get(`${url}runs/`, { token: as("creator") });
    expect(runs.status).toBe(200);
    const ids = runs.json.results.map((r: { id: number }) => r.id);
    expect(ids).toEqual([...ids].sort((a: number, b: number) => b - a));
    expect(runs.json.results[0]).toMatchObject({ status: "succeeded", from: "2024-01-01T00:40:00Z", records_written: 1 });
    expect(runs.json.results).toContainEqual(waited.json);
    expect((await http.get(url)).json.last_run).toEqual(runs.json.results[0]);
    expect(runs.json.count).toBe(runs.json.results.length);
  });

  it("run/ refuses a disabled process and a bad body; nothing is queued", async () => {
    const w = await world();
    const p = await created(w.path, { ...CHECKS, enabled: false });
    const jobs = await db().prisma.job.count();
    expect400(await http.post(`${w.path}${p.id}/run/`, { token: as("creator"), json: { wait: "perhaps" } }), { wait: ["Must be a valid boolean."] });
    expect400(await http.post(`${w.path}${p.id}/run/`, { token: as("creator"), json: {} }), { non_field_errors: ["The process is disabled; enable it to run it."] });
    expect(await db().prisma.job.count()).toBe(jobs);
  });
});

describe(`the group page (${DIALECT})`, () => {
  /** The page's text, tags and React's text separators removed. */
  async function pageText(sid: number, gid: number, cookie?: string): Promise<string> {
    const r = await fetch(`${server.url}/stations/${sid}/timeseriesgroups/${gid}/`, { headers: cookie ? { Cookie: cookie } : {} });
    expect(r.status).toBe(200);
    return (await r.text()).replace(/<!-- -->/g, "").replace(/<[^>]+>/g, " ").replace(/\s+/g, " ");
  }

  it("lists the processes in words with their last successful run; a failed run's error is for editors", async () => {
    const w = await world();
    const target = await f.group(w.sid, { name: "Discharge", variableId, unitId });
    await created(w.path, CHECKS);
    await created(w.path, HOURLY);
    await created(w.path, { type: "aggregation", target_time_step: "1D", method: "sum", resulting_timestamp_offset: "1min", enabled: false });
    await created(w.path, { type: "curve_interpolation", target_timeseries_group: target, periods: PERIODS });
    await runsSettled();
    // A source without a time step: the hourly mean of another group fails.
    const broken = await world({ initial: false });
    await f.series(broken.gid, { type: "Initial" });
    const failing = await created(broken.path, HOURLY);
    await http.post(`${broken.path}${failing.id}/run/`, { token: as("creator"), json: { wait: true } });

    const text = await pageText(w.sid, w.gid);
    expect(text).toContain("Automatic processing");
    expect(text).toMatch(/Checked: range 0…40 °C, soft 2…38; rate of change 10min 5 °C · last successful run \d{4}-\d\d-\d\d \d\d:\d\d \(UTC\+02:00\)/);
    expect(text).toMatch(/Hourly mean, at most 2 missing · last successful run /);
    expect(text).toContain("Daily sum, no missing values allowed, stamped 1 min earlier (disabled) · not run successfully yet");
    expect(text).toContain("Curve interpolation into Discharge: 1 period, 2020-01-01 to 2020-12-31");
    // In Greek (the language cookie), with the same arguments.
    const greek = await pageText(w.sid, w.gid, "enhydris_language=el");
    for (const words of ["Έλεγχοι: όρια 0…40 °C, χαλαρά όρια 2…38; ρυθμός μεταβολής 10min 5 °C", "Μέσος όρος ανά ώρα, το πολύ 2 ελλείπουσες τιμές",
      "Άθροισμα ανά ημέρα, χωρίς ελλείπουσες τιμές, χρονοσφραγίδα 1 λεπτό νωρίτερα", "Παρεμβολή καμπύλης προς Discharge: 1 περίοδος, 2020-01-01 έως 2020-12-31"]) {
      expect(greek).toContain(words);
    }
    expect(greek).not.toMatch(/Checked:|Hourly mean|Curve interpolation/);

    const error = "The last run failed: The source time series has no time step, so it cannot be regularized and aggregated.";
    expect(await pageText(broken.sid, broken.gid)).toContain("Hourly mean, at most 2 missing · not run successfully yet");
    expect(await pageText(broken.sid, broken.gid)).not.toContain(error);
    const other = await siteLogin(server.url, users.other.username, users.other.password);
    expect(await pageText(broken.sid, broken.gid, other.jar.header())).not.toContain(error);
    const editor = await siteLogin(server.url, users.maintainer.username, users.maintainer.password);
    expect(await pageText(broken.sid, broken.gid, editor.jar.header())).toContain(error);
    // Stored in English, shown in the page's language.
    expect(await pageText(broken.sid, broken.gid, `${editor.jar.header()}; enhydris_language=el`))
      .toContain("Η τελευταία εκτέλεση απέτυχε: Η χρονοσειρά-πηγή δεν έχει χρονικό βήμα, οπότε δεν μπορεί να κανονικοποιηθεί και να συναθροιστεί.");
    // A group without processes has no such section.
    const empty = await world();
    expect(await pageText(empty.sid, empty.gid)).not.toContain("Automatic processing");
  });
});
