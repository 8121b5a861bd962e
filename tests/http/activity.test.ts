import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { api, type TestResponse } from "@/tests/support/http";
import * as f from "@/tests/support/fixtures";
import { startServer, type TestServer } from "@/tests/support/server";

/**
 * The activity log (management.md §3): every change through the API and the legacy interface is
 * recorded by the services, and `GET api/stations/{sid}/activity/` gives a station's entries,
 * newest first, to its editors only (404, then 401/403, as api.md §1.7).
 */
let server: TestServer;
let http: ReturnType<typeof api>;
let adder: f.TestUser;
let admin: f.TestUser;
let other: f.TestUser;
let owner: number;
let variable: number;
let unit: number;
let eventType: number;

beforeAll(async () => {
  server = await startServer();
  http = api(server.url);
  adder = await f.user({ canAddStations: true, password: "adder-password-1" });
  admin = await f.user({ superuser: true });
  other = await f.user();
  owner = await f.organization();
  variable = await f.variable("Water level");
  unit = await f.unit("m", [variable]);
  eventType = await f.eventType("Maintenance");
});
afterAll(() => server?.stop());

const KEYS = ["id", "time", "user", "action", "object_type", "object_id", "summary"];

function ok(r: TestResponse, status = 200) {
  expect(r.status, r.text).toBe(status);
  return r.json;
}

interface Entry { id: number; time: string; user: string | null; action: string; object_type: string; object_id: number; summary: string }

async function activity(sid: number, token = adder.token): Promise<Entry[]> {
  const body = ok(await http.get(`/api/stations/${sid}/activity/`, { token }));
  return body.results;
}

/** A station of the adder, made through the API. */
async function newStation(name: string): Promise<number> {
  return ok(await http.post("/api/stations/", { token: adder.token, json: { name, geom: "POINT (21 39)", owner } }), 201).id;
}

describe("GET stations/{sid}/activity/", () => {
  it("lists what the API and the legacy interface changed, newest first, each entry with its fields in order", async () => {
    const started = Date.now();
    // Two hours east of UTC: an upload's range is in the station's zone, as its pages show the data.
    const sid = ok(await http.post("/api/stations/", { token: adder.token, json: { name: "Komboti", geom: "POINT (21 39)", owner, display_timezone: "Etc/GMT-2" } }), 201).id as number;
    ok(await http.patch(`/api/stations/${sid}/`, { token: adder.token, json: { name: "Komboti bridge", altitude: 219 } }));
    const gid = ok(await http.post(`/api/stations/${sid}/timeseriesgroups/`, {
      token: adder.token, json: { name: "Stage", variable, unit_of_measurement: unit, precision: 2 },
    }), 201).id;
    const series = `/api/stations/${sid}/timeseriesgroups/${gid}/timeseries/`;
    const tid = ok(await http.post(series, { token: adder.token, json: { type: "Initial", time_step: "10min" } }), 201).id;
    // A dry run and a refused upload change nothing, so they are not recorded.
    ok(await http.post(`${series}${tid}/data/`, { token: adder.token, form: { timeseries_records: "2025-03-01 00:00,1.5,\n", dry_run: "true" } }));
    expect((await http.post(`${series}${tid}/data/`, { token: adder.token, form: { timeseries_records: "2025-03-01 00:00,x,\n" } })).status).toBe(400);
    expect((await http.post(`${series}${tid}/data/`, { token: adder.token, form: { timeseries_records: "2025-03-01 00:00,1.5,\n2025-03-01 00:10,1.6,\n" } })).status).toBe(204);
    // The legacy append (legacy.md §5), authenticated with HTTP Basic.
    const basic = { Authorization: `Basic ${Buffer.from(`${adder.username}:adder-password-1`).toString("base64")}` };
    const legacy = await http.put(`/api/tsdata/${tid}/`, { headers: basic, form: { timeseries_records: "2025-03-01 00:20,1.7,\n" } });
    expect(legacy.status, legacy.text).toBe(200);
    const eid = ok(await http.post(`/api/stations/${sid}/events/`, { token: adder.token, json: { date: "2025-03-02", type: eventType, report: "Cleaned" } }), 201).id;
    expect((await http.delete(`/api/stations/${sid}/events/${eid}/`, { token: adder.token })).status).toBe(204);

    const body = ok(await http.get(`/api/stations/${sid}/activity/`, { token: adder.token }));
    expect(body.count).toBe(8);
    // Each upload is a correction (corrections.md §1), which the entry names.
    const [legacyCorrection, firstCorrection] = ok(await http.get(`${series}${tid}/corrections/`, { token: adder.token })).results.map((c: { id: number }) => c.id);
    const entries: Entry[] = body.results;
    for (const e of entries) {
      expect(Object.keys(e)).toEqual(KEYS);
      expect(e.time).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
      expect(Date.parse(e.time)).toBeGreaterThanOrEqual(started - 1000);
      expect(e.user).toBe(adder.username);
    }
    expect(entries.map((e) => e.id)).toEqual([...entries.map((e) => e.id)].sort((a, b) => b - a));
    expect(entries.map(({ action, object_type, object_id, summary }) => ({ action, object_type, object_id, summary }))).toEqual([
      { action: "delete", object_type: "event", object_id: eid, summary: `Deleted event #${eid} of 2025-03-02` },
      { action: "create", object_type: "event", object_id: eid, summary: `Added event #${eid} of 2025-03-02` },
      { action: "upload", object_type: "timeseries", object_id: tid, summary: `Uploaded 1 record (2025-03-01 00:20 to 2025-03-01 00:20 UTC+02:00, append) to time series #${tid} of time series group "Stage" (correction #${legacyCorrection})` },
      { action: "upload", object_type: "timeseries", object_id: tid, summary: `Uploaded 2 records (2025-03-01 00:00 to 2025-03-01 00:10 UTC+02:00, append) to time series #${tid} of time series group "Stage" (correction #${firstCorrection})` },
      { action: "create", object_type: "timeseries", object_id: tid, summary: `Created time series Initial 10min #${tid} of time series group "Stage"` },
      { action: "create", object_type: "timeseries_group", object_id: gid, summary: 'Created time series group "Stage"' },
      { action: "change", object_type: "station", object_id: sid, summary: 'Changed station "Komboti bridge": name, altitude' },
      { action: "create", object_type: "station", object_id: sid, summary: 'Created station "Komboti"' },
    ]);
  });

  it("records process writes and run requests with the same call", async () => {
    const sid = await newStation("Processed");
    const gid = ok(await http.post(`/api/stations/${sid}/timeseriesgroups/`, {
      token: adder.token, json: { name: "Rain", variable, unit_of_measurement: unit, precision: 1 },
    }), 201).id;
    const processes = `/api/stations/${sid}/timeseriesgroups/${gid}/processes/`;
    const pid = ok(await http.post(processes, { token: adder.token, json: { type: "aggregation", target_time_step: "1h", method: "sum" } }), 201).id;
    expect((await http.post(`${processes}${pid}/run/`, { token: adder.token, json: { from_scratch: true } })).status).toBe(202);
    ok(await http.patch(`${processes}${pid}/`, { token: adder.token, json: { enabled: false } }));
    // A disabled process is not run, and a refused request is not recorded.
    expect((await http.post(`${processes}${pid}/run/`, { token: adder.token, json: {} })).status).toBe(400);
    expect((await http.delete(`${processes}${pid}/`, { token: adder.token })).status).toBe(204);
    const entries = (await activity(sid)).filter((e) => e.object_type === "process");
    expect(entries.map((e) => [e.action, e.object_id, e.summary])).toEqual([
      ["delete", pid, `Deleted process aggregation 1h sum #${pid} of time series group "Rain"`],
      ["change", pid, `Changed process aggregation 1h sum #${pid} of time series group "Rain" (disabled)`],
      ["run", pid, `Queued a run from scratch of process aggregation 1h sum #${pid} of time series group "Rain"`],
      ["create", pid, `Created process aggregation 1h sum #${pid} of time series group "Rain"`],
    ]);
  });

  it("answers 404 for a missing station before anything else, 401 to anonymous users, 403 to others; editors and superusers read it", async () => {
    const sid = await newStation("Guarded");
    expect((await http.get("/api/stations/999999/activity/")).status).toBe(404);
    expect((await http.get("/api/stations/999999/activity/", { token: other.token })).status).toBe(404);
    const anonymous = await http.get(`/api/stations/${sid}/activity/`);
    expect(anonymous.status).toBe(401);
    expect(anonymous.json).toEqual({ detail: "Authentication credentials were not provided." });
    const forbidden = await http.get(`/api/stations/${sid}/activity/`, { token: other.token });
    expect(forbidden.status).toBe(403);
    expect(forbidden.json).toEqual({ detail: "You do not have permission to perform this action." });
    expect((await activity(sid, admin.token)).map((e) => e.summary)).toEqual(['Created station "Guarded"']);
    // A maintainer is an editor too.
    ok(await http.patch(`/api/stations/${sid}/`, { token: adder.token, json: { maintainers: [other.id] } }));
    expect((await activity(sid, other.token)).map((e) => e.action)).toEqual(["change", "create"]);
    // Only GET: writing the log is not an API operation.
    expect((await http.post(`/api/stations/${sid}/activity/`, { token: admin.token, json: {} })).status).toBe(405);
  });

  it("pages like every list (newest first across pages)", async () => {
    const sid = await newStation("Paged");
    for (let i = 0; i < 3; i++) ok(await http.patch(`/api/stations/${sid}/`, { token: adder.token, json: { remarks: `r${i}` } }));
    const first = ok(await http.get(`/api/stations/${sid}/activity/?page_size=2`, { token: adder.token }));
    expect(first.count).toBe(4);
    expect(first.results).toHaveLength(2);
    expect(first.next).toMatch(/page=2/);
    const second = ok(await http.get(`/api/stations/${sid}/activity/?page=2&page_size=2`, { token: adder.token }));
    expect(second.results.map((e: Entry) => e.action)).toEqual(["change", "create"]);
    expect(first.results[1].id).toBeGreaterThan(second.results[0].id);
  });
});
