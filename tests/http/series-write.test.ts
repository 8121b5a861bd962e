import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { db } from "@/lib/db";
import { api, type TestResponse } from "@/tests/support/http";
import * as f from "@/tests/support/fixtures";
import { startServer, type TestServer } from "@/tests/support/server";

/**
 * Time series groups (api.md §5), time series (§6), the older shape and path aliases (§7).
 */
let server: TestServer;
let http: ReturnType<typeof api>;
let admin: f.TestUser;
let v1: number, v2: number, u1: number, u2: number;

beforeAll(async () => {
  server = await startServer();
  http = api(server.url);
  admin = await f.user({ superuser: true });
  v1 = await f.variable("Temperature");
  v2 = await f.variable("Rain");
  u1 = await f.unit("°C", [v1]);
  u2 = await f.unit("mm", [v2]);
});
afterAll(() => server?.stop());

const GROUP_KEYS = ["id", "last_modified", "name", "hidden", "precision", "remarks", "gentity", "variable", "unit_of_measurement"];
const SERIES_KEYS = ["id", "last_modified", "type", "time_step", "timeseries_group", "name", "publicly_available"];
const OLD_KEYS = ["id", "last_modified", "name", "hidden", "precision", "remarks", "gentity", "variable", "unit_of_measurement", "time_step", "timeseries_group"];
const LAST_MODIFIED = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;
const NOT_FOUND = { detail: "Not found." };

function expect400(r: TestResponse, body: Record<string, unknown>) {
  expect(r.status, r.text).toBe(400);
  expect(r.json).toEqual(body);
}
const groups = (sid: number) => `/api/stations/${sid}/timeseriesgroups/`;
const seriesPath = (sid: number, gid: number) => `/api/stations/${sid}/timeseriesgroups/${gid}/timeseries/`;
const groupBody = (extra: Record<string, unknown> = {}) => ({ precision: 2, variable: v1, unit_of_measurement: u1, ...extra });
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function newGroup(sid: number, extra: Record<string, unknown> = {}) {
  const r = await http.post(groups(sid), { json: groupBody(extra), token: admin.token });
  expect(r.status, r.text).toBe(201);
  return r.json;
}
async function newSeries(sid: number, gid: number, extra: Record<string, unknown> = {}) {
  const r = await http.post(seriesPath(sid, gid), { json: { type: "Initial", ...extra }, token: admin.token });
  expect(r.status, r.text).toBe(201);
  return r.json;
}

describe("groups: create (§5)", () => {
  it("creates a group from JSON with defaults, fields in order", async () => {
    const sid = await f.station();
    const r = await http.post(groups(sid), { json: groupBody(), token: admin.token });
    expect(r.status, r.text).toBe(201);
    expect(Object.keys(r.json)).toEqual(GROUP_KEYS);
    expect(r.json).toEqual({ id: r.json.id, last_modified: r.json.last_modified, name: "", hidden: false, precision: 2, remarks: "", gentity: sid, variable: v1, unit_of_measurement: u1 });
    expect(r.json.last_modified).toMatch(LAST_MODIFIED);
    expect((await http.get(`${groups(sid)}${r.json.id}/`)).json).toEqual(r.json);
  });

  it("creates a group from a form body with every field", async () => {
    const sid = await f.station();
    const r = await http.post(groups(sid), { form: { name: " Temperature ", hidden: "on", precision: "-3", remarks: "Line1\nLine2\n", gentity: String(sid), variable: String(v2), unit_of_measurement: String(u2) }, token: admin.token });
    expect(r.status, r.text).toBe(201);
    expect(r.json).toMatchObject({ name: "Temperature", hidden: true, precision: -3, remarks: "Line1\nLine2", gentity: sid, variable: v2, unit_of_measurement: u2 });
  });

  it("answers an empty POST with exactly the three required-field errors", async () => {
    const sid = await f.station();
    const r = await http.post(groups(sid), { json: {}, token: admin.token });
    expect(r.status).toBe(400);
    expect(r.text).toBe('{"precision":["This field is required."],"variable":["This field is required."],"unit_of_measurement":["This field is required."]}');
    const form = await http.post(groups(sid), { form: {}, token: admin.token });
    expect(form.json).toEqual({ precision: ["This field is required."], variable: ["This field is required."], unit_of_measurement: ["This field is required."] });
  });

  it.each([-10, 0, 20, "-10", "+5", "20", " 7 "])("accepts precision %j", async (p) => {
    const sid = await f.station();
    expect((await newGroup(sid, { precision: p })).precision).toBe(Number(p));
  });

  it.each([[-11, "Ensure this value is greater than or equal to -10."], [21, "Ensure this value is less than or equal to 20."], ["-100", "Ensure this value is greater than or equal to -10."],
    ["abc", "A valid integer is required."], [1.5, "A valid integer is required."], ["1.5", "A valid integer is required."], ["1e1", "A valid integer is required."], [true, "A valid integer is required."], ["", "A valid integer is required."], [null, "This field may not be null."]])(
    "refuses precision %j: %s", async (p, message) => {
      const sid = await f.station();
      expect400(await http.post(groups(sid), { json: groupBody({ precision: p }), token: admin.token }), { precision: [message] });
    });

  it("refuses unknown variables and units, and wrong types", async () => {
    const sid = await f.station();
    expect400(await http.post(groups(sid), { json: groupBody({ variable: 999999, unit_of_measurement: 999998 }), token: admin.token }),
      { variable: ['Invalid pk "999999" - object does not exist.'], unit_of_measurement: ['Invalid pk "999998" - object does not exist.'] });
    expect400(await http.post(groups(sid), { json: groupBody({ variable: "abc", unit_of_measurement: true }), token: admin.token }),
      { variable: ["Incorrect type. Expected pk value, received str."], unit_of_measurement: ["Incorrect type. Expected pk value, received bool."] });
  });

  it("accepts { id } objects as references", async () => {
    const sid = await f.station();
    const g = await newGroup(sid, { variable: { id: v2, descr: "x" }, unit_of_measurement: { id: u2 } });
    expect(g).toMatchObject({ variable: v2, unit_of_measurement: u2 });
  });

  it("does not check the unit against the unit's variables", async () => {
    const sid = await f.station();
    const g = await newGroup(sid, { variable: v2, unit_of_measurement: u1 });
    expect(g).toMatchObject({ variable: v2, unit_of_measurement: u1 });
  });

  it("accepts gentity equal to the path station and refuses another", async () => {
    const sid = await f.station();
    const other = await f.station();
    expect((await newGroup(sid, { gentity: sid })).gentity).toBe(sid);
    expect((await newGroup(sid, { gentity: String(sid) })).gentity).toBe(sid);
    const r = await http.post(groups(sid), { json: groupBody({ gentity: other }), token: admin.token });
    expect(r.status).toBe(400);
    expect(r.text).toBe('{"gentity":["Must equal the station id in the URL."]}');
  });

  it("limits the name to 200 characters", async () => {
    const sid = await f.station();
    expect((await newGroup(sid, { name: "n".repeat(200) })).name).toBe("n".repeat(200));
    expect400(await http.post(groups(sid), { json: groupBody({ name: "n".repeat(201) }), token: admin.token }), { name: ["Ensure this field has no more than 200 characters."] });
  });

  it.each([[true, true], [false, false], [1, true], [0, false], ["true", true], ["False", false], ["1", true], ["0", false], ["on", true], ["OFF", false],
    ["yes", true], ["No", false], ["y", true], ["N", false], ["TRUE", true]])("reads hidden %j as %j", async (value, expected) => {
    const sid = await f.station();
    expect((await newGroup(sid, { hidden: value })).hidden).toBe(expected);
  });

  it.each(["maybe", "2", 2, "", "t", null])("refuses hidden %j", async (value) => {
    const sid = await f.station();
    const r = await http.post(groups(sid), { json: groupBody({ hidden: value }), token: admin.token });
    expect(r.status).toBe(400);
    expect(r.json).toEqual({ hidden: [value === null ? "This field may not be null." : "Must be a valid boolean."] });
  });

  it("answers 404 under a missing station", async () => {
    const r = await http.post(groups(999999), { json: groupBody(), token: admin.token });
    expect(r.status).toBe(404);
    expect(r.json).toEqual(NOT_FOUND);
  });
});

describe("groups: replace, update, delete (§5, §1.3)", () => {
  it("requires the same fields on PUT", async () => {
    const sid = await f.station();
    const g = await newGroup(sid);
    expect400(await http.put(`${groups(sid)}${g.id}/`, { json: { name: "x" }, token: admin.token }),
      { precision: ["This field is required."], variable: ["This field is required."], unit_of_measurement: ["This field is required."] });
  });

  it("keeps omitted optional fields on PUT, booleans included (form)", async () => {
    const sid = await f.station();
    const g = await newGroup(sid, { name: "Kept", hidden: true, remarks: "kept remarks" });
    const r = await http.put(`${groups(sid)}${g.id}/`, { form: { precision: "4", variable: String(v2), unit_of_measurement: String(u2) }, token: admin.token });
    expect(r.status, r.text).toBe(200);
    expect(r.json).toEqual({ ...g, last_modified: r.json.last_modified, precision: 4, variable: v2, unit_of_measurement: u2 });
  });

  it("PATCHes only the fields sent and moves last_modified", async () => {
    const sid = await f.station();
    const g = await newGroup(sid, { name: "P" });
    await sleep(15);
    const r = await http.patch(`${groups(sid)}${g.id}/`, { json: { hidden: "yes", remarks: "  new\nremarks  " }, token: admin.token });
    expect(r.status, r.text).toBe(200);
    expect(r.json).toEqual({ ...g, last_modified: r.json.last_modified, hidden: true, remarks: "new\nremarks" });
    expect(Date.parse(r.json.last_modified)).toBeGreaterThan(Date.parse(g.last_modified));
  });

  it("validates PATCHed fields", async () => {
    const sid = await f.station();
    const g = await newGroup(sid);
    expect400(await http.patch(`${groups(sid)}${g.id}/`, { json: { precision: 21 }, token: admin.token }), { precision: ["Ensure this value is less than or equal to 20."] });
    expect400(await http.patch(`${groups(sid)}${g.id}/`, { json: { variable: null }, token: admin.token }), { variable: ["This field may not be null."] });
  });

  it("refuses to change gentity by PUT or PATCH, accepting the same value", async () => {
    const sid = await f.station();
    const other = await f.station();
    const g = await newGroup(sid);
    const msg = '{"gentity":["It is not allowed to change the gentity of a time series group."]}';
    const a = await http.patch(`${groups(sid)}${g.id}/`, { json: { gentity: other }, token: admin.token });
    expect(a.status).toBe(400);
    expect(a.text).toBe(msg);
    const b = await http.put(`${groups(sid)}${g.id}/`, { json: groupBody({ gentity: other }), token: admin.token });
    expect(b.status).toBe(400);
    expect(b.text).toBe(msg);
    expect((await http.patch(`${groups(sid)}${g.id}/`, { json: { gentity: sid }, token: admin.token })).status).toBe(200);
    expect((await http.put(`${groups(sid)}${g.id}/`, { json: groupBody({ gentity: sid }), token: admin.token })).status).toBe(200);
    expect((await http.get(`${groups(sid)}${g.id}/`)).json.gentity).toBe(sid);
  });

  it("deletes a group with its time series and their records", async () => {
    const sid = await f.station();
    const g = await newGroup(sid);
    const keep = await newGroup(sid);
    const t1 = await newSeries(sid, g.id, { type: "Initial" });
    const t2 = await newSeries(sid, g.id, { type: "Checked" });
    const t3 = await newSeries(sid, keep.id, { type: "Initial" });
    await f.addRecords(t1.id, [["2020-01-01T00:00:00Z", 1]]);
    await f.addRecords(t3.id, [["2020-01-01T00:00:00Z", 1]]);
    const r = await http.delete(`${groups(sid)}${g.id}/`, { token: admin.token });
    expect(r.status).toBe(204);
    expect(r.text).toBe("");
    expect((await http.get(`${groups(sid)}${g.id}/`)).status).toBe(404);
    expect((await http.get(`${seriesPath(sid, g.id)}${t1.id}/`)).status).toBe(404);
    expect(await db().prisma.timeseries.count({ where: { id: { in: [t1.id, t2.id] } } })).toBe(0);
    expect(await f.storedRecordCount(t1.id)).toBe(0);
    expect(await f.storedRecordCount(t3.id)).toBe(1);
    expect((await http.get(`/api/stations/${sid}/`)).status).toBe(200);
  });

  it("answers 404 for a group of another station, for every method", async () => {
    const sid = await f.station();
    const other = await f.station();
    const g = await newGroup(sid);
    for (const [method, options] of [["get", {}], ["put", { json: groupBody() }], ["patch", { json: { name: "x" } }], ["delete", {}]] as const) {
      const r = await http[method](`${groups(other)}${g.id}/`, { ...options, token: admin.token });
      expect(r.status, method).toBe(404);
      expect(r.json).toEqual(NOT_FOUND);
    }
    expect((await http.get(`${groups(sid)}${g.id}/`)).json.name).toBe("");
  });
});

describe("time series: create (§6)", () => {
  let sid: number;
  let gid: number;
  beforeAll(async () => {
    sid = await f.station();
    gid = await f.group(sid);
  });

  it("answers an empty POST with only the type error", async () => {
    const r = await http.post(seriesPath(sid, gid), { json: {}, token: admin.token });
    expect(r.status).toBe(400);
    expect(r.text).toBe('{"type":["This field is required."]}');
  });

  it("creates a time series with defaults, fields in order", async () => {
    const s = await f.station();
    const g = await f.group(s);
    const r = await http.post(seriesPath(s, g), { form: { type: "Regularized" }, token: admin.token });
    expect(r.status, r.text).toBe(201);
    expect(Object.keys(r.json)).toEqual(SERIES_KEYS);
    expect(r.json).toEqual({ id: r.json.id, last_modified: r.json.last_modified, type: "Regularized", time_step: "", timeseries_group: g, name: "", publicly_available: true });
    expect(r.json.last_modified).toMatch(LAST_MODIFIED);
  });

  it.each(["Raw", "initial", "INITIAL", "Aggregate", "Initial-1"])("refuses the type %j", async (type) => {
    const r = await http.post(seriesPath(sid, gid), { json: { type }, token: admin.token });
    expect(r.status).toBe(400);
    expect(r.text).toBe(`{"type":["\\"${type}\\" is not a valid time series type"]}`);
  });

  it("refuses a null type", async () => {
    expect400(await http.post(seriesPath(sid, gid), { json: { type: null }, token: admin.token }), { type: ["This field may not be null."] });
  });

  it.each(["", "10min", "5min", "H", "1h", "3h", "2H", "D", "2D", "M", "3M", "Y", "2Y", "1440min", "min", "  30min "])("accepts the time step %j", async (step) => {
    const g = await f.group(sid);
    const r = await http.post(seriesPath(sid, g), { json: { type: "Aggregated", time_step: step }, token: admin.token });
    expect(r.status, r.text).toBe(201);
    expect(r.json.time_step).toBe(step.trim());
  });

  it.each(["0min", "10 min", "T", "W", "A", "ME", "1Q", "01min", "-1h", "1.5h", "10MIN", "10m", "1d", "h1", "0H"])("refuses the time step %j", async (step) => {
    const r = await http.post(seriesPath(sid, gid), { json: { type: "Aggregated", time_step: step }, token: admin.token });
    expect(r.status).toBe(400);
    expect(r.json).toEqual({ time_step: [`"${step}" is not a valid time step.`] });
  });

  it.each(["100000min", "12345678", "1000000H"])("gives only the length message for the time step %j", async (step) => {
    const r = await http.post(seriesPath(sid, gid), { json: { type: "Aggregated", time_step: step }, token: admin.token });
    expect(r.status).toBe(400);
    expect(r.text).toBe('{"time_step":["Ensure this field has no more than 7 characters."]}');
  });

  it("accepts a 7-character time step", async () => {
    const g = await f.group(sid);
    const r = await http.post(seriesPath(sid, g), { json: { type: "Aggregated", time_step: "9999min" }, token: admin.token });
    expect(r.status, r.text).toBe(201);
  });

  it("accepts timeseries_group equal to the path group and refuses another", async () => {
    const g = await f.group(sid);
    const other = await f.group(sid);
    const ok = await http.post(seriesPath(sid, g), { json: { type: "Initial", timeseries_group: g }, token: admin.token });
    expect(ok.status, ok.text).toBe(201);
    const r = await http.post(seriesPath(sid, g), { json: { type: "Checked", timeseries_group: other }, token: admin.token });
    expect(r.status).toBe(400);
    expect(r.text).toBe('{"timeseries_group":["Must equal the time series group id in the URL."]}');
  });

  it("limits the name to 100 characters", async () => {
    const g = await f.group(sid);
    expect((await newSeries(sid, g, { type: "Aggregated", name: "n".repeat(100) })).name).toBe("n".repeat(100));
    expect400(await http.post(seriesPath(sid, g), { json: { type: "Aggregated", name: "n".repeat(101) }, token: admin.token }),
      { name: ["Ensure this field has no more than 100 characters."] });
  });

  it("reads publicly_available as a boolean", async () => {
    const g = await f.group(sid);
    expect((await newSeries(sid, g, { type: "Initial", publicly_available: "false" })).publicly_available).toBe(false);
    expect((await newSeries(sid, g, { type: "Checked", publicly_available: 1 })).publicly_available).toBe(true);
    expect400(await http.post(seriesPath(sid, g), { json: { type: "Regularized", publicly_available: "perhaps" }, token: admin.token }),
      { publicly_available: ["Must be a valid boolean."] });
  });

  it("reports all field errors together", async () => {
    const r = await http.post(seriesPath(sid, gid), { json: { type: "Raw", time_step: "1Q", name: "n".repeat(101), publicly_available: "x" }, token: admin.token });
    expect400(r, { type: ['"Raw" is not a valid time series type'], time_step: ['"1Q" is not a valid time step.'], name: ["Ensure this field has no more than 100 characters."],
      publicly_available: ["Must be a valid boolean."] });
  });

  it("answers 404 under a missing group or a group of another station", async () => {
    const other = await f.station();
    for (const path of [seriesPath(sid, 999999), seriesPath(other, gid), seriesPath(999999, gid)]) {
      const r = await http.post(path, { json: { type: "Initial" }, token: admin.token });
      expect(r.status, path).toBe(404);
      expect(r.json).toEqual(NOT_FOUND);
    }
  });
});

describe("time series: one per type, Aggregated uniqueness (§6)", () => {
  it.each(["Initial", "Checked", "Regularized"])("allows one %s per group", async (type) => {
    const sid = await f.station();
    const gid = await f.group(sid);
    await newSeries(sid, gid, { type, time_step: "10min" });
    const r = await http.post(seriesPath(sid, gid), { json: { type, time_step: "H", name: "other" }, token: admin.token });
    expect(r.status).toBe(400);
    expect(r.text).toBe(`{"non_field_errors":["A time series with timeseries_group_id=${gid} and type=${type} already exists"]}`);
    const other = await f.group(sid);
    expect((await http.post(seriesPath(sid, other), { json: { type }, token: admin.token })).status).toBe(201);
  });

  it("refuses a PATCH or PUT that changes the type to one already present, but not the object itself", async () => {
    const sid = await f.station();
    const gid = await f.group(sid);
    const initial = await newSeries(sid, gid, { type: "Initial" });
    const checked = await newSeries(sid, gid, { type: "Checked" });
    const a = await http.patch(`${seriesPath(sid, gid)}${checked.id}/`, { json: { type: "Initial" }, token: admin.token });
    expect(a.status).toBe(400);
    expect(a.text).toBe(`{"non_field_errors":["A time series with timeseries_group_id=${gid} and type=Initial already exists"]}`);
    const b = await http.put(`${seriesPath(sid, gid)}${checked.id}/`, { json: { type: "Initial", time_step: "D" }, token: admin.token });
    expect(b.status).toBe(400);
    expect(b.json).toEqual({ non_field_errors: [`A time series with timeseries_group_id=${gid} and type=Initial already exists`] });
    expect((await http.patch(`${seriesPath(sid, gid)}${initial.id}/`, { json: { type: "Initial", name: "same" }, token: admin.token })).status).toBe(200);
    expect((await http.put(`${seriesPath(sid, gid)}${initial.id}/`, { json: { type: "Initial" }, token: admin.token })).status).toBe(200);
    expect((await http.patch(`${seriesPath(sid, gid)}${checked.id}/`, { json: { type: "Regularized" }, token: admin.token })).status).toBe(200);
    expect((await http.patch(`${seriesPath(sid, gid)}${checked.id}/`, { json: { type: "Checked" }, token: admin.token })).status).toBe(200);
  });

  it("allows several Aggregated series differing in time_step or name", async () => {
    const sid = await f.station();
    const gid = await f.group(sid);
    await newSeries(sid, gid, { type: "Aggregated", time_step: "30min" });
    await newSeries(sid, gid, { type: "Aggregated", time_step: "2H" });
    await newSeries(sid, gid, { type: "Aggregated", time_step: "D", name: "mean" });
    await newSeries(sid, gid, { type: "Aggregated", time_step: "D", name: "max" });
    const list = await http.get(`${seriesPath(sid, gid)}?page_size=100`);
    expect(list.json.count).toBe(4);
  });

  it("refuses a duplicate Aggregated (group, type, time_step, name), on create and by PATCH", async () => {
    const sid = await f.station();
    const gid = await f.group(sid);
    await newSeries(sid, gid, { type: "Aggregated", time_step: "D", name: "mean" });
    const other = await newSeries(sid, gid, { type: "Aggregated", time_step: "D", name: "max" });
    const msg = '{"non_field_errors":["The fields timeseries_group, type, time_step, name must make a unique set."]}';
    const a = await http.post(seriesPath(sid, gid), { json: { type: "Aggregated", time_step: "D", name: "mean" }, token: admin.token });
    expect(a.status).toBe(400);
    expect(a.text).toBe(msg);
    const b = await http.patch(`${seriesPath(sid, gid)}${other.id}/`, { json: { name: "mean" }, token: admin.token });
    expect(b.status).toBe(400);
    expect(b.text).toBe(msg);
    const empty1 = await http.post(seriesPath(sid, gid), { json: { type: "Aggregated" }, token: admin.token });
    expect(empty1.status).toBe(201);
    const empty2 = await http.post(seriesPath(sid, gid), { form: { type: "Aggregated", time_step: "", name: "" }, token: admin.token });
    expect(empty2.status).toBe(400);
    expect(empty2.text).toBe(msg);
  });

  it("lets an Initial share time_step and name with an Aggregated", async () => {
    const sid = await f.station();
    const gid = await f.group(sid);
    await newSeries(sid, gid, { type: "Aggregated", time_step: "D" });
    expect((await newSeries(sid, gid, { type: "Initial", time_step: "D" })).type).toBe("Initial");
  });

  it("orders the list by type then id", async () => {
    const sid = await f.station();
    const gid = await f.group(sid);
    const a = await newSeries(sid, gid, { type: "Aggregated", time_step: "H" });
    const r = await newSeries(sid, gid, { type: "Regularized" });
    const a2 = await newSeries(sid, gid, { type: "Aggregated", time_step: "D" });
    const i = await newSeries(sid, gid, { type: "Initial" });
    const c = await newSeries(sid, gid, { type: "Checked" });
    const list = await http.get(`${seriesPath(sid, gid)}?page_size=100`);
    expect(list.json.results.map((x: { id: number }) => x.id)).toEqual([i.id, c.id, r.id, a.id, a2.id]);
  });
});

describe("time series: replace, update, delete (§6)", () => {
  it("requires type on PUT and keeps omitted optional fields, publicly_available included (form)", async () => {
    const sid = await f.station();
    const gid = await f.group(sid);
    const t = await newSeries(sid, gid, { type: "Initial", time_step: "10min", name: "raw", publicly_available: false });
    expect400(await http.put(`${seriesPath(sid, gid)}${t.id}/`, { json: { name: "x" }, token: admin.token }), { type: ["This field is required."] });
    const r = await http.put(`${seriesPath(sid, gid)}${t.id}/`, { form: { type: "Checked" }, token: admin.token });
    expect(r.status, r.text).toBe(200);
    expect(r.json).toEqual({ ...t, last_modified: r.json.last_modified, type: "Checked" });
    expect(r.json.publicly_available).toBe(false);
  });

  it("PATCHes only the fields sent, and moves last_modified", async () => {
    const sid = await f.station();
    const gid = await f.group(sid);
    const t = await newSeries(sid, gid, { type: "Initial", time_step: "10min" });
    await sleep(15);
    const r = await http.patch(`${seriesPath(sid, gid)}${t.id}/`, { json: { publicly_available: false }, token: admin.token });
    expect(r.json).toEqual({ ...t, last_modified: r.json.last_modified, publicly_available: false });
    expect(Date.parse(r.json.last_modified)).toBeGreaterThan(Date.parse(t.last_modified));
    expect400(await http.patch(`${seriesPath(sid, gid)}${t.id}/`, { json: { time_step: "1Q" }, token: admin.token }), { time_step: ['"1Q" is not a valid time step.'] });
  });

  it("moves last_modified when records are added", async () => {
    const sid = await f.station();
    const gid = await f.group(sid);
    const t = await newSeries(sid, gid);
    await sleep(15);
    const up = await http.post(`${seriesPath(sid, gid)}${t.id}/data/`, { form: { timeseries_records: "2020-01-01 00:00,1\n" }, token: admin.token });
    expect([200, 201, 204]).toContain(up.status);
    const after = await http.get(`${seriesPath(sid, gid)}${t.id}/`);
    expect(Date.parse(after.json.last_modified)).toBeGreaterThan(Date.parse(t.last_modified));
  });

  it("refuses to change timeseries_group, accepting the same value", async () => {
    const sid = await f.station();
    const gid = await f.group(sid);
    const other = await f.group(sid);
    const t = await newSeries(sid, gid);
    const msg = '{"timeseries_group":["It is not allowed to change the timeseries_group of a time series."]}';
    const a = await http.patch(`${seriesPath(sid, gid)}${t.id}/`, { json: { timeseries_group: other }, token: admin.token });
    expect(a.status).toBe(400);
    expect(a.text).toBe(msg);
    const b = await http.put(`${seriesPath(sid, gid)}${t.id}/`, { json: { type: "Initial", timeseries_group: other }, token: admin.token });
    expect(b.status).toBe(400);
    expect(b.text).toBe(msg);
    expect((await http.patch(`${seriesPath(sid, gid)}${t.id}/`, { json: { timeseries_group: gid }, token: admin.token })).status).toBe(200);
  });

  it("deletes a time series with its records, keeping the group", async () => {
    const sid = await f.station();
    const gid = await f.group(sid);
    const t = await newSeries(sid, gid);
    await f.addRecords(t.id, [["2020-01-01T00:00:00Z", 1], ["2020-01-02T00:00:00Z", 2]]);
    const r = await http.delete(`${seriesPath(sid, gid)}${t.id}/`, { token: admin.token });
    expect(r.status).toBe(204);
    expect(r.text).toBe("");
    expect((await http.get(`${seriesPath(sid, gid)}${t.id}/`)).status).toBe(404);
    expect(await f.storedRecordCount(t.id)).toBe(0);
    expect((await http.get(`${groups(sid)}${gid}/`)).status).toBe(200);
    expect((await http.get(`/api/stations/${sid}/`)).json.last_update).toBeNull();
  });

  it("answers 404 for a series through the wrong group or station, for every method", async () => {
    const sid = await f.station();
    const other = await f.station();
    const gid = await f.group(sid);
    const g2 = await f.group(sid);
    const gOther = await f.group(other);
    const t = await newSeries(sid, gid);
    for (const path of [`${seriesPath(sid, g2)}${t.id}/`, `${seriesPath(other, gid)}${t.id}/`, `${seriesPath(other, gOther)}${t.id}/`, `${seriesPath(sid, gid)}999999/`]) {
      for (const [method, options] of [["get", {}], ["put", { json: { type: "Checked" } }], ["patch", { json: { name: "x" } }], ["delete", {}]] as const) {
        const r = await http[method](path, { ...options, token: admin.token });
        expect(r.status, `${method} ${path}`).toBe(404);
        expect(r.json).toEqual(NOT_FOUND);
      }
    }
    expect((await http.get(`${seriesPath(sid, gid)}${t.id}/`)).json).toEqual(t);
  });
});

describe("older shape (§7.1)", () => {
  const old = (sid: number) => `/api/stations/${sid}/timeseries/`;

  it("lists every series of the station by group name, group id, type, id", async () => {
    const sid = await f.station();
    const gB = await f.group(sid, { name: "B" });
    const gA1 = await f.group(sid, { name: "A" });
    const gA2 = await f.group(sid, { name: "A" });
    const b = await f.series(gB, { type: "Initial" });
    const a1r = await f.series(gA1, { type: "Regularized" });
    const a1i = await f.series(gA1, { type: "Initial" });
    const a2c = await f.series(gA2, { type: "Checked" });
    const other = await f.station();
    await f.series(await f.group(other), { type: "Initial" });
    const r = await http.get(`${old(sid)}?page_size=100`);
    expect(r.status).toBe(200);
    expect(r.json.count).toBe(4);
    expect(r.json.results.map((x: { id: number }) => x.id)).toEqual([a1i, a1r, a2c, b]);
    expect(Object.keys(r.json.results[0])).toEqual(OLD_KEYS);
  });

  it("creates a group and an Initial series in it", async () => {
    const sid = await f.station();
    const r = await http.post(old(sid), { json: { name: "Temperature", hidden: true, precision: 1, remarks: "R", variable: v1, unit_of_measurement: u1, time_step: "10min" }, token: admin.token });
    expect(r.status, r.text).toBe(201);
    expect(Object.keys(r.json)).toEqual(OLD_KEYS);
    expect(r.json).toMatchObject({ name: "Temperature", hidden: true, precision: 1, remarks: "R", gentity: sid, variable: v1, unit_of_measurement: u1, time_step: "10min" });
    expect(r.json.last_modified).toMatch(LAST_MODIFIED);
    const gid = r.json.timeseries_group;
    const g = await http.get(`${groups(sid)}${gid}/`);
    expect(g.json).toMatchObject({ name: "Temperature", hidden: true, precision: 1, remarks: "R", gentity: sid, variable: v1, unit_of_measurement: u1 });
    const t = await http.get(`${seriesPath(sid, gid)}${r.json.id}/`);
    expect(t.json).toMatchObject({ type: "Initial", time_step: "10min", timeseries_group: gid, name: "", publicly_available: true });
    expect((await http.get(`${old(sid)}${r.json.id}/`)).json).toEqual(r.json);
  });

  it("creates with defaults from a form body", async () => {
    const sid = await f.station();
    const r = await http.post(old(sid), { form: { precision: "2", variable: String(v1), unit_of_measurement: String(u1) }, token: admin.token });
    expect(r.status, r.text).toBe(201);
    expect(r.json).toMatchObject({ name: "", hidden: false, remarks: "", time_step: "" });
  });

  it("answers an empty POST with the group's required fields", async () => {
    const sid = await f.station();
    const r = await http.post(old(sid), { json: {}, token: admin.token });
    expect400(r, { precision: ["This field is required."], variable: ["This field is required."], unit_of_measurement: ["This field is required."] });
    expect(await db().prisma.timeseriesGroup.count({ where: { stationId: sid } })).toBe(0);
  });

  it("reports group and time_step errors together, creating nothing", async () => {
    const sid = await f.station();
    const r = await http.post(old(sid), { json: { precision: 99, variable: 999999, unit_of_measurement: u1, time_step: "1Q", name: "n".repeat(201) }, token: admin.token });
    expect400(r, { precision: ["Ensure this value is less than or equal to 20."], variable: ['Invalid pk "999999" - object does not exist.'], time_step: ['"1Q" is not a valid time step.'],
      name: ["Ensure this field has no more than 200 characters."] });
    expect(await db().prisma.timeseriesGroup.count({ where: { stationId: sid } })).toBe(0);
  });

  it("refuses a gentity other than the path station", async () => {
    const sid = await f.station();
    const other = await f.station();
    const r = await http.post(old(sid), { json: groupBody({ gentity: other }), token: admin.token });
    expect400(r, { gentity: ["Must equal the station id in the URL."] });
    expect((await http.post(old(sid), { json: groupBody({ gentity: sid }), token: admin.token })).status).toBe(201);
  });

  it("ignores timeseries_group sent by the client", async () => {
    const sid = await f.station();
    const r = await http.post(old(sid), { json: groupBody({ timeseries_group: 999999 }), token: admin.token });
    expect(r.status, r.text).toBe(201);
    expect(r.json.timeseries_group).not.toBe(999999);
  });

  it("PUT requires the group fields and writes each field where it lives", async () => {
    const sid = await f.station();
    const gid = await f.group(sid, { name: "G", hidden: true, precision: 2, variableId: v1, unitId: u1 });
    const t = await f.series(gid, { type: "Checked", timeStep: "H", name: "keep", publiclyAvailable: false });
    expect400(await http.put(`${old(sid)}${t}/`, { json: { name: "x" }, token: admin.token }),
      { precision: ["This field is required."], variable: ["This field is required."], unit_of_measurement: ["This field is required."] });
    const r = await http.put(`${old(sid)}${t}/`, { form: { precision: "3", variable: String(v2), unit_of_measurement: String(u2), time_step: "D", remarks: "new" }, token: admin.token });
    expect(r.status, r.text).toBe(200);
    expect(r.json).toMatchObject({ id: t, name: "G", hidden: true, precision: 3, remarks: "new", gentity: sid, variable: v2, unit_of_measurement: u2, time_step: "D", timeseries_group: gid });
    const series = await http.get(`${seriesPath(sid, gid)}${t}/`);
    expect(series.json).toMatchObject({ type: "Checked", time_step: "D", name: "keep", publicly_available: false });
    const group = await http.get(`${groups(sid)}${gid}/`);
    expect(group.json).toMatchObject({ name: "G", hidden: true, precision: 3, remarks: "new", variable: v2, unit_of_measurement: u2 });
  });

  it("PUT keeps an omitted time_step and omitted group fields", async () => {
    const sid = await f.station();
    const gid = await f.group(sid, { name: "Keep", hidden: true, remarks: "rem", precision: 2, variableId: v1, unitId: u1 });
    const t = await f.series(gid, { type: "Initial", timeStep: "H" });
    const r = await http.put(`${old(sid)}${t}/`, { json: { precision: 5, variable: v1, unit_of_measurement: u1 }, token: admin.token });
    expect(r.status, r.text).toBe(200);
    expect(r.json).toMatchObject({ name: "Keep", hidden: true, remarks: "rem", precision: 5, time_step: "H" });
  });

  it("PATCH changes a group field for every series of the group", async () => {
    const sid = await f.station();
    const gid = await f.group(sid, { name: "Shared", precision: 2 });
    const a = await f.series(gid, { type: "Initial" });
    const b = await f.series(gid, { type: "Aggregated", timeStep: "H" });
    await sleep(15);
    const before = (await http.get(`${old(sid)}${b}/`)).json;
    const r = await http.patch(`${old(sid)}${a}/`, { json: { precision: 5, name: "Renamed" }, token: admin.token });
    expect(r.status, r.text).toBe(200);
    expect(r.json).toMatchObject({ precision: 5, name: "Renamed", time_step: "" });
    const other = await http.get(`${old(sid)}${b}/`);
    expect(other.json).toMatchObject({ precision: 5, name: "Renamed", time_step: "H" });
    expect(Date.parse(other.json.last_modified)).toBeGreaterThan(Date.parse(before.last_modified));
    const t = await http.patch(`${old(sid)}${b}/`, { json: { time_step: "2H" }, token: admin.token });
    expect(t.json.time_step).toBe("2H");
    expect((await http.get(`${old(sid)}${a}/`)).json.time_step).toBe("");
  });

  it("shows the later last_modified of the series and its group", async () => {
    const sid = await f.station();
    const gid = await f.group(sid);
    const t = await f.series(gid);
    await sleep(15);
    const g = await http.patch(`${groups(sid)}${gid}/`, { json: { remarks: "x" }, token: admin.token });
    expect((await http.get(`${old(sid)}${t}/`)).json.last_modified).toBe(g.json.last_modified);
    await sleep(15);
    const s = await http.patch(`${seriesPath(sid, gid)}${t}/`, { json: { name: "y" }, token: admin.token });
    expect((await http.get(`${old(sid)}${t}/`)).json.last_modified).toBe(s.json.last_modified);
  });

  it("refuses a gentity change on PATCH and PUT", async () => {
    const sid = await f.station();
    const other = await f.station();
    const gid = await f.group(sid);
    const t = await f.series(gid);
    expect400(await http.patch(`${old(sid)}${t}/`, { json: { gentity: other }, token: admin.token }), { gentity: ["It is not allowed to change the gentity of a time series group."] });
    expect400(await http.put(`${old(sid)}${t}/`, { json: groupBody({ gentity: other }), token: admin.token }), { gentity: ["It is not allowed to change the gentity of a time series group."] });
    expect((await http.patch(`${old(sid)}${t}/`, { json: { gentity: sid }, token: admin.token })).status).toBe(200);
  });

  it("DELETE removes the series, and the group with its last series", async () => {
    const sid = await f.station();
    const gid = await f.group(sid);
    const a = await f.series(gid, { type: "Initial" });
    const b = await f.series(gid, { type: "Checked" });
    await f.addRecords(a, [["2020-01-01T00:00:00Z", 1]]);
    const r = await http.delete(`${old(sid)}${a}/`, { token: admin.token });
    expect(r.status).toBe(204);
    expect(r.text).toBe("");
    expect((await http.get(`${old(sid)}${a}/`)).status).toBe(404);
    expect(await f.storedRecordCount(a)).toBe(0);
    expect((await http.get(`${groups(sid)}${gid}/`)).status).toBe(200);
    expect((await http.delete(`${old(sid)}${b}/`, { token: admin.token })).status).toBe(204);
    expect((await http.get(`${groups(sid)}${gid}/`)).status).toBe(404);
    expect((await http.get(`/api/stations/${sid}/`)).status).toBe(200);
  });

  it("answers 404 for a series of another station, for every method", async () => {
    const sid = await f.station();
    const other = await f.station();
    const t = await f.series(await f.group(sid));
    for (const [method, options] of [["get", {}], ["put", { json: groupBody() }], ["patch", { json: { name: "x" } }], ["delete", {}]] as const) {
      const r = await http[method](`${old(other)}${t}/`, { ...options, token: admin.token });
      expect(r.status, method).toBe(404);
      expect(r.json).toEqual(NOT_FOUND);
    }
    expect((await http.get(`${old(sid)}${t}/`)).status).toBe(200);
    expect((await http.post(old(999999), { json: groupBody(), token: admin.token })).status).toBe(404);
  });
});

describe("path aliases (§7.2)", () => {
  const alias = (sid: number) => `/api/stations/${sid}/timeseriesgroup/`;

  it("serves every group route under the singular alias", async () => {
    const sid = await f.station();
    const c = await http.post(alias(sid), { json: groupBody({ name: "Alias" }), token: admin.token });
    expect(c.status, c.text).toBe(201);
    expect(c.json).toMatchObject({ name: "Alias", gentity: sid });
    const gid = c.json.id;
    expect((await http.get(`${alias(sid)}${gid}/`)).json).toEqual(c.json);
    expect((await http.get(alias(sid))).json.results.map((g: { id: number }) => g.id)).toEqual([gid]);
    const p = await http.patch(`${alias(sid)}${gid}/`, { json: { remarks: "via alias" }, token: admin.token });
    expect(p.json.remarks).toBe("via alias");
    const u = await http.put(`${alias(sid)}${gid}/`, { json: groupBody({ name: "Put" }), token: admin.token });
    expect(u.json.name).toBe("Put");
    const t = await http.post(`${alias(sid)}${gid}/timeseries/`, { json: { type: "Initial" }, token: admin.token });
    expect(t.status, t.text).toBe(201);
    expect((await http.get(`${alias(sid)}${gid}/timeseries/${t.json.id}/`)).json).toEqual(t.json);
    expect((await http.patch(`${alias(sid)}${gid}/timeseries/${t.json.id}/`, { json: { name: "n" }, token: admin.token })).json.name).toBe("n");
    expect((await http.put(`${alias(sid)}${gid}/timeseries/${t.json.id}/`, { json: { type: "Checked" }, token: admin.token })).json.type).toBe("Checked");
    expect((await http.delete(`${alias(sid)}${gid}/timeseries/${t.json.id}/`, { token: admin.token })).status).toBe(204);
    expect((await http.delete(`${alias(sid)}${gid}/`, { token: admin.token })).status).toBe(204);
    expect((await http.get(`${groups(sid)}${gid}/`)).status).toBe(404);
  });

  it("gives the target's errors under the alias", async () => {
    const sid = await f.station();
    const r = await http.post(alias(sid), { json: {}, token: admin.token });
    expect(r.text).toBe('{"precision":["This field is required."],"variable":["This field is required."],"unit_of_measurement":["This field is required."]}');
    const anon = await http.post(alias(sid), { json: groupBody() });
    expect(anon.status).toBe(401);
    expect(anon.headers.get("www-authenticate")).toBe("Token");
  });

  it("keeps the alias path in pagination links", async () => {
    const sid = await f.station();
    const g1 = await f.group(sid, { name: "a" });
    await f.group(sid, { name: "b" });
    const r = await http.get(`${alias(sid)}?page_size=1`);
    expect(r.json.count).toBe(2);
    expect(r.json.next).toBe(`${server.url}${alias(sid)}?page_size=1&page=2`);
    const p2 = await http.get(`${alias(sid)}?page_size=1&page=2`);
    expect(p2.json.previous).toBe(`${server.url}${alias(sid)}?page_size=1`);
    await f.series(g1, { type: "Initial" });
    await f.series(g1, { type: "Checked" });
    const s = await http.get(`${alias(sid)}${g1}/timeseries/?page_size=1`);
    expect(s.json.next).toBe(`${server.url}${alias(sid)}${g1}/timeseries/?page_size=1&page=2`);
    const o = await http.get(`/api/stations/${sid}/timeseries/?page_size=1`);
    expect(o.json.next).toBe(`${server.url}/api/stations/${sid}/timeseries/?page_size=1&page=2`);
  });

  it("serves data/, bottom/ and chart/ under the short path, 404 for a series of another station", async () => {
    const sid = await f.station();
    const other = await f.station();
    const gid = await f.group(sid);
    const t = await f.series(gid);
    await f.addRecords(t, [["2020-01-01T00:00:00Z", 1.5], ["2020-01-01T00:10:00Z", 2.5]]);
    for (const tail of ["data/", "bottom/", "chart/"]) {
      const target = await http.get(`${seriesPath(sid, gid)}${t}/${tail}`);
      const short = await http.get(`/api/stations/${sid}/timeseries/${t}/${tail}`);
      expect(short.status, tail).toBe(target.status);
      expect(target.status, tail).toBe(200);
      expect(short.text, tail).toBe(target.text);
      expect(short.headers.get("content-type")).toBe(target.headers.get("content-type"));
      const wrong = await http.get(`/api/stations/${other}/timeseries/${t}/${tail}`);
      expect(wrong.status, tail).toBe(404);
      const singular = await http.get(`/api/stations/${sid}/timeseriesgroup/${gid}/timeseries/${t}/${tail}`);
      expect(singular.text, tail).toBe(target.text);
      const wrongGroup = await http.get(`/api/stations/${other}/timeseriesgroup/${gid}/timeseries/${t}/${tail}`);
      expect(wrongGroup.status, tail).toBe(404);
    }
  });

  it("answers 404 for writes through mismatched alias paths", async () => {
    const sid = await f.station();
    const other = await f.station();
    const gid = await f.group(sid);
    const t = await f.series(gid);
    expect((await http.put(`${alias(other)}${gid}/`, { json: groupBody(), token: admin.token })).status).toBe(404);
    expect((await http.patch(`${alias(other)}${gid}/`, { json: {}, token: admin.token })).status).toBe(404);
    expect((await http.delete(`${alias(other)}${gid}/`, { token: admin.token })).status).toBe(404);
    expect((await http.post(`${alias(other)}${gid}/timeseries/`, { json: { type: "Checked" }, token: admin.token })).status).toBe(404);
    expect((await http.delete(`${alias(other)}${gid}/timeseries/${t}/`, { token: admin.token })).status).toBe(404);
    expect((await http.post(`/api/stations/${other}/timeseries/${t}/data/`, { form: { timeseries_records: "2020-01-01 00:00,1\n" }, token: admin.token })).status).toBe(404);
    expect((await http.get(`${seriesPath(sid, gid)}${t}/`)).status).toBe(200);
  });
});

describe("ENHYDRIS_DEFAULT_PUBLICLY_AVAILABLE=false (§6, §14)", () => {
  let other: TestServer;
  let h: ReturnType<typeof api>;
  let su: f.TestUser;
  beforeAll(async () => {
    other = await startServer({ env: { ENHYDRIS_DEFAULT_PUBLICLY_AVAILABLE: "false" } });
    h = api(other.url);
    su = await f.user({ superuser: true });
  });
  afterAll(() => other?.stop());

  it("makes new series private by default, in both shapes", async () => {
    const sid = await f.station();
    const var1 = await f.variable();
    const unit1 = await f.unit();
    const gid = await f.group(sid, { variableId: var1, unitId: unit1 });
    const a = await h.post(seriesPath(sid, gid), { json: { type: "Initial" }, token: su.token });
    expect(a.status, a.text).toBe(201);
    expect(a.json.publicly_available).toBe(false);
    const b = await h.post(seriesPath(sid, gid), { json: { type: "Checked", publicly_available: true }, token: su.token });
    expect(b.json.publicly_available).toBe(true);
    const c = await h.post(`/api/stations/${sid}/timeseries/`, { json: { precision: 1, variable: var1, unit_of_measurement: unit1 }, token: su.token });
    expect(c.status, c.text).toBe(201);
    const series = await h.get(`${seriesPath(sid, c.json.timeseries_group)}${c.json.id}/`);
    expect(series.json.publicly_available).toBe(false);
  });

  it("keeps a public series public on a form PUT without the field", async () => {
    const sid = await f.station();
    const gid = await f.group(sid);
    const t = await f.series(gid, { publiclyAvailable: true });
    const r = await h.put(`${seriesPath(sid, gid)}${t}/`, { form: { type: "Initial" }, token: su.token });
    expect(r.json.publicly_available).toBe(true);
  });
});
