/**
 * Legacy authentication and writes (legacy.md §1, §4): HTTP Basic, token, session + CSRF;
 * station create/replace/update/delete and time series create/delete with the spec's examples.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { db } from "@/lib/db";
import { api, type TestResponse } from "@/tests/support/http";
import * as f from "@/tests/support/fixtures";
import { startServer, type TestServer } from "@/tests/support/server";
import { siteLogin } from "@/tests/support/site-session";

let server: TestServer;
let http: ReturnType<typeof api>;

const basic = (user: string, password: string) => ({ Authorization: `Basic ${Buffer.from(`${user}:${password}`).toString("base64")}` });
const NO_CREDENTIALS = '{"detail":"Authentication credentials were not provided."}';
const FORBIDDEN = '{"detail":"You do not have permission to perform this action."}';

function expectJson(r: TestResponse, status: number, body: string) {
  expect({ status: r.status, type: r.headers.get("content-type"), body: r.text }).toEqual({ status, type: "application/json", body });
}

let alice: f.TestUser;

let owner: number;
let variable: number;
let unit: number;

beforeAll(async () => {
  server = await startServer();
  http = api(server.url);
  alice = await f.user({ username: "alice", password: "topsecret", email: "alice@example.com", canAddStations: true });
  await f.user({ username: "bob", password: "bobsecret" });
  owner = await f.organization("National Technical University of Athens");
  variable = await f.variable("Temperature");
  unit = await f.unit("°C", [variable]);
});
afterAll(() => server?.stop());

describe("authentication (§1.1) with the examples of §1.3", () => {
  let station: number;
  beforeAll(async () => {
    station = await f.station({ ownerId: owner });
  });

  it("DELETE /api/Station/1/ without credentials → 401 with the Basic challenge", async () => {
    const r = await http.delete(`/api/Station/${station}/`);
    expectJson(r, 401, NO_CREDENTIALS);
    expect(r.headers.get("www-authenticate")).toBe('Basic realm="api"');
  });

  it("wrong Basic credentials → 401 Invalid username/password.", async () => {
    const r = await http.delete(`/api/Station/${station}/`, { headers: { Authorization: "Basic YWxpY2U6d3Jvbmc=" } });
    expectJson(r, 401, '{"detail":"Invalid username/password."}');
    expect(r.headers.get("www-authenticate")).toBe('Basic realm="api"');
  });

  it("a malformed Basic header and an inactive user", async () => {
    expectJson(await http.get("/api/Variable/", { headers: { Authorization: "Basic !!!" } }), 401, '{"detail":"Invalid basic header."}');
    expectJson(await http.get("/api/Variable/", { headers: { Authorization: `Basic ${Buffer.from("nocolon").toString("base64")}` } }), 401,
      '{"detail":"Invalid basic header."}');
    const inactive = await f.user({ active: false });
    expectJson(await http.get("/api/Variable/", { headers: basic(inactive.username, inactive.password) }), 401, '{"detail":"User inactive or deleted."}');
  });

  it("alice:topsecret, not a maintainer → 403; a maintainer → 204", async () => {
    expect(basic("alice", "topsecret").Authorization).toBe("Basic YWxpY2U6dG9wc2VjcmV0");
    expectJson(await http.delete(`/api/Station/${station}/`, { headers: { Authorization: "Basic YWxpY2U6dG9wc2VjcmV0" } }), 403, FORBIDDEN);
    await db().write((tx) => tx.stationMaintainer.create({ data: { stationId: station, userId: alice.id } }));
    const r = await http.delete(`/api/Station/${station}/`, { headers: { Authorization: "Basic YWxpY2U6dG9wc2VjcmV0" } });
    expect([r.status, r.text]).toEqual([204, ""]);
    expectJson(await http.get(`/api/Station/${station}/`), 404, '{"detail":"Not found."}');
  });

  it("DELETE /api/Station/999/ anonymous → 404", async () => {
    expectJson(await http.delete("/api/Station/999999/"), 404, '{"detail":"Not found."}');
  });

  it("Basic accepts the e-mail address as the name; a token works too", async () => {
    const mine = await f.station({ ownerId: owner, maintainers: [alice.id] });
    expect((await http.patch(`/api/Station/${mine}/`, { headers: basic("alice@example.com", "topsecret"), form: { name: "By e-mail" } })).json.name).toBe("By e-mail");
    expect((await http.patch(`/api/Station/${mine}/`, { token: alice.token, form: { name: "By token" } })).json.name).toBe("By token");
  });

  it("an Authorization header alone decides, even with a valid session", async () => {
    const { jar } = await siteLogin(server.url, "alice", "topsecret");
    const r = await http.get("/api/Variable/", { headers: { Cookie: jar.header(), Authorization: "Basic YWxpY2U6d3Jvbmc=" } });
    expect(r.status).toBe(401);
  });
});

describe("session + CSRF (§1.2)", () => {
  it("POST /api/Station/ with the session and csrftoken cookies but no X-CSRFToken → 403", async () => {
    const { jar } = await siteLogin(server.url, "alice", "topsecret");
    const form = { name: "Session station", owner: String(owner), geom: "POINT(20.94565 39.12102)" };
    expectJson(await http.post("/api/Station/", { headers: { Cookie: jar.header() }, form }), 403, '{"detail":"CSRF Failed: CSRF cookie not set."}');
    // the cookie as a legacy GET sets it
    const get = await http.get("/api/Station/", { headers: { Cookie: jar.header() } });
    const token = /csrftoken=([A-Za-z0-9]{32})/.exec(get.headers.getSetCookie().join("\n"))![1];
    jar.set("csrftoken", token);
    expectJson(await http.post("/api/Station/", { headers: { Cookie: jar.header() }, form }), 403, '{"detail":"CSRF Failed: CSRF token missing."}');
    expectJson(await http.post("/api/Station/", { headers: { Cookie: jar.header(), "X-CSRFToken": "x".repeat(32) }, form }), 403,
      '{"detail":"CSRF Failed: CSRF token incorrect."}');
    const ok = await http.post("/api/Station/", { headers: { Cookie: jar.header(), "x-csrftoken": token }, form });
    expect([ok.status, ok.json.name]).toEqual([201, "Session station"]);
    const field = await http.post("/api/Station/", { headers: { Cookie: jar.header() }, form: { ...form, name: "Field", csrfmiddlewaretoken: token } });
    expect([field.status, field.json.name]).toEqual([201, "Field"]);
  });

  it("an anonymous write gets 401, not a CSRF error", async () => {
    const r = await http.post("/api/Station/", { form: { name: "x" } });
    expectJson(r, 401, NO_CREDENTIALS);
  });
});

describe("stations (§4.2)", () => {
  let created: number;

  it("POST /api/Station/ (form, Basic) → 201; unknown fields ignored; the creator recorded", async () => {
    const r = await http.post("/api/Station/", {
      headers: { Authorization: "Basic YWxpY2U6dG9wc2VjcmV0", "Content-Type": "application/x-www-form-urlencoded" },
      body: `name=Hobbiton&owner=${owner}&geom=POINT(20.94565 39.12102)&copyright_holder=Joe`,
    });
    expect(r.status).toBe(201);
    created = r.json.id;
    expect(r.text).toBe(`{"id":${created},"last_update":null,"last_modified":"${r.json.last_modified}","name":"Hobbiton","code":"","remarks":"",` +
      `"original_srid":4326,"altitude":null,"geom":"SRID=4326;POINT (20.94565 39.12102)","display_timezone":"Etc/GMT","start_date":null,` +
      `"end_date":null,"owner":${owner},"overseer":"","maintainers":[],"stype":[],"data_viewers":[]}`);
    expect(r.json.last_modified).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    expect((await db().prisma.station.findUnique({ where: { id: created } }))!.creatorId).toBe(alice.id);
  });

  it("POST /api/Station/ with name=X only → 400 geom and owner", async () => {
    expectJson(await http.post("/api/Station/", { headers: basic("alice", "topsecret"), form: { name: "X" } }), 400,
      '{"geom":["This field is required."],"owner":["This field is required."]}');
  });

  it("POST /api/Station/ needs the add permission → 403 for bob", async () => {
    expectJson(await http.post("/api/Station/", { headers: basic("bob", "bobsecret"), form: { name: "X" } }), 403, FORBIDDEN);
  });

  it("PATCH /api/Station/42/ with name=New name (the creator) → 200", async () => {
    const r = await http.patch(`/api/Station/${created}/`, { headers: basic("alice", "topsecret"), form: { name: "New name" } });
    expect([r.status, r.json.name, r.json.geom]).toEqual([200, "New name", "SRID=4326;POINT (20.94565 39.12102)"]);
  });

  it("PUT needs the required fields and keeps omitted optional ones; JSON bodies", async () => {
    expectJson(await http.put(`/api/Station/${created}/`, { headers: basic("alice", "topsecret"), json: { name: "Only" } }), 400,
      '{"geom":["This field is required."],"owner":["This field is required."]}');
    const r = await http.put(`/api/Station/${created}/`, { headers: basic("alice", "topsecret"),
      json: { name: "Replaced", owner, geom: "SRID=4326;POINT (20 39)", display_timezone: "Etc/GMT-2" } });
    expect([r.status, r.json.name, r.json.display_timezone, r.json.geom]).toEqual([200, "Replaced", "Etc/GMT-2", "SRID=4326;POINT (20 39)"]);
    expect((await http.put(`/api/Station/${created}/`, { headers: basic("alice", "topsecret"), json: { name: "Again", owner, geom: "POINT (20 39)" } })).json.display_timezone)
      .toBe("Etc/GMT-2");
  });

  it("bob may not change it → 403", async () => {
    expectJson(await http.patch(`/api/Station/${created}/`, { headers: basic("bob", "bobsecret"), form: { name: "Mine" } }), 403, FORBIDDEN);
  });

  it("DELETE /api/Station/42/ → 204, then 404", async () => {
    const r = await http.delete(`/api/Station/${created}/`, { headers: basic("alice", "topsecret") });
    expect([r.status, r.text]).toEqual([204, ""]);
    expect((await http.get(`/api/Station/${created}/`)).status).toBe(404);
  });
});

describe("time series (§4.3)", () => {
  let station: number;
  let seriesId: number;
  let groupId: number;
  const body = () => ({ gentity: station, variable, unit_of_measurement: unit, precision: 1, name: "Air temperature", time_step: "10min" });

  beforeAll(async () => {
    station = await f.station({ ownerId: owner, maintainers: [alice.id] });
  });

  it("POST /api/Timeseries/ → 201 with the older shape; a group plus an Initial series", async () => {
    const r = await http.post("/api/Timeseries/", { headers: basic("alice", "topsecret"), json: body() });
    expect(r.status).toBe(201);
    seriesId = r.json.id;
    groupId = r.json.timeseries_group;
    expect(r.text).toBe(`{"id":${seriesId},"last_modified":"${r.json.last_modified}","name":"Air temperature","hidden":false,"precision":1,"remarks":"",` +
      `"gentity":${station},"variable":${variable},"unit_of_measurement":${unit},"time_step":"10min","timeseries_group":${groupId}}`);
    const list = await http.get(`/api/stations/${station}/timeseriesgroups/${groupId}/timeseries/`);
    expect(list.json.results.map((t: { id: number; type: string }) => [t.id, t.type])).toEqual([[seriesId, "Initial"]]);
    expect((await http.get(`/api/Timeseries/${seriesId}/`)).text).toBe(r.text);
  });

  it("a form body works too; timeseries_group is ignored on input", async () => {
    const r = await http.post("/api/Timeseries/", { headers: basic("alice", "topsecret"), form: {
      gentity: String(station), variable: String(variable), unit_of_measurement: String(unit), precision: "2", hidden: "true", timeseries_group: "999999",
    } });
    expect([r.status, r.json.hidden, r.json.precision, r.json.time_step, r.json.name]).toEqual([201, true, 2, "", ""]);
    expect(r.json.timeseries_group).not.toBe(999999);
  });

  it("the same body without gentity → 400", async () => {
    const { gentity: _, ...rest } = body();
    expectJson(await http.post("/api/Timeseries/", { headers: basic("alice", "topsecret"), json: rest }), 400, '{"gentity":["This field is required."]}');
  });

  it("time_step 1Q → 400; an unknown station → 400 Invalid pk", async () => {
    expectJson(await http.post("/api/Timeseries/", { headers: basic("alice", "topsecret"), json: { ...body(), time_step: "1Q" } }), 400,
      '{"time_step":["\\"1Q\\" is not a valid time step."]}');
    expectJson(await http.post("/api/Timeseries/", { headers: basic("alice", "topsecret"), json: { ...body(), gentity: 99999 } }), 400,
      '{"gentity":["Invalid pk \\"99999\\" - object does not exist."]}');
    const area = await f.garea("Area", "A", [0, 0, 1, 1]);
    expectJson(await http.post("/api/Timeseries/", { headers: basic("alice", "topsecret"), json: { ...body(), gentity: area } }), 400,
      `{"gentity":["Invalid pk \\"${area}\\" - object does not exist."]}`);
  });

  it("checks in order: anonymous 401, body 400, then permission 403", async () => {
    expectJson(await http.post("/api/Timeseries/", { json: {} }), 401, NO_CREDENTIALS);
    expectJson(await http.post("/api/Timeseries/", { headers: basic("bob", "bobsecret"), json: { ...body(), gentity: 99999 } }), 400,
      '{"gentity":["Invalid pk \\"99999\\" - object does not exist."]}');
    expectJson(await http.post("/api/Timeseries/", { headers: basic("bob", "bobsecret"), json: body() }), 403, FORBIDDEN);
  });

  it("DELETE /api/Timeseries/57/: 401, 403, then 204; the group goes with its last series", async () => {
    expectJson(await http.delete(`/api/Timeseries/${seriesId}/`), 401, NO_CREDENTIALS);
    expectJson(await http.delete(`/api/Timeseries/${seriesId}/`, { headers: basic("bob", "bobsecret") }), 403, FORBIDDEN);
    const r = await http.delete(`/api/Timeseries/${seriesId}/`, { headers: basic("alice", "topsecret") });
    expect([r.status, r.text]).toEqual([204, ""]);
    expect((await http.get(`/api/Timeseries/${seriesId}/`)).status).toBe(404);
    expect((await http.get(`/api/TimeseriesGroup/${groupId}/`)).status).toBe(404);
    expectJson(await http.delete("/api/Timeseries/999999/"), 404, '{"detail":"Not found."}');
  });

  it("a group that keeps other series stays", async () => {
    const created = await http.post("/api/Timeseries/", { headers: basic("alice", "topsecret"), json: body() });
    const gid = created.json.timeseries_group;
    const other = await f.series(gid, { type: "Checked" });
    expect((await http.delete(`/api/Timeseries/${created.json.id}/`, { headers: basic("alice", "topsecret") })).status).toBe(204);
    expect((await http.get(`/api/TimeseriesGroup/${gid}/`)).status).toBe(200);
    expect((await http.get(`/api/Timeseries/${other}/`)).status).toBe(200);
  });
});

describe("the login throttle counts failed Basic authentications (§1.1, api.md §12.1)", () => {
  let throttled: TestServer;
  let t: ReturnType<typeof api>;

  beforeAll(async () => {
    throttled = await startServer({ env: { ENHYDRIS_LOGIN_MAX_FAILURES: "2", ENHYDRIS_LOGIN_FAILURE_WINDOW: "60" } });
    t = api(throttled.url);
    await f.user({ username: "carol", password: "carol-pass" });
  });
  afterAll(async () => {
    await throttled?.stop();
    const { connectFixtures } = await import("@/tests/support/server");
    await connectFixtures(server.databaseUrl, server.mediaDir);
  });

  it("answers 429 with Retry-After once the name has too many failures, before checking the credentials", async () => {
    for (let i = 0; i < 2; i++) {
      expectJson(await t.get("/api/Variable/", { headers: basic("carol", "wrong") }), 401, '{"detail":"Invalid username/password."}');
    }
    const r = await t.get("/api/Variable/", { headers: basic("carol", "carol-pass") });
    expect(r.status).toBe(429);
    const seconds = Number(r.headers.get("retry-after"));
    expect(seconds).toBeGreaterThanOrEqual(1);
    expect(r.json).toEqual({ detail: `Request was throttled. Expected available in ${seconds} seconds.` });
    expect((await t.put("/api/tsdata/", { headers: basic("carol", "carol-pass"), form: { timeseries_id: "1" } })).status).toBe(429);
  });
});
