import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { api, type TestResponse } from "@/tests/support/http";
import * as f from "@/tests/support/fixtures";
import { connectFixtures, startServer, type TestServer } from "@/tests/support/server";

/**
 * Permission matrix of every metadata write (api.md §15, §1.7).
 */
let server: TestServer;
let http: ReturnType<typeof api>;

type Role = "anonymous" | "other" | "adder" | "viewer" | "maintainer" | "creator" | "superuser";
const ROLES: Role[] = ["anonymous", "other", "adder", "viewer", "maintainer", "creator", "superuser"];
const users = {} as Record<Exclude<Role, "anonymous">, f.TestUser>;
let eventType: number;
let variable: number;
let unit: number;

const UNAUTHENTICATED = { detail: "Authentication credentials were not provided." };
const FORBIDDEN = { detail: "You do not have permission to perform this action." };
const EDITORS: Role[] = ["maintainer", "creator", "superuser"];

beforeAll(async () => {
  server = await startServer();
  http = api(server.url);
  users.other = await f.user();
  users.adder = await f.user({ canAddStations: true });
  users.viewer = await f.user();
  users.maintainer = await f.user();
  users.creator = await f.user();
  users.superuser = await f.user({ superuser: true });
  eventType = await f.eventType();
  variable = await f.variable();
  unit = await f.unit();
});
afterAll(() => server?.stop());

const token = (role: Role) => (role === "anonymous" ? undefined : users[role].token);

interface World { sid: number; gid: number; tid: number; fileId: number; imageId: number; eventId: number; owner: number }
async function world(): Promise<World> {
  const owner = await f.organization();
  const sid = await f.station({ ownerId: owner, maintainers: [users.maintainer.id], dataViewers: [users.viewer.id] }, users.creator.id);
  const gid = await f.group(sid, { variableId: variable, unitId: unit });
  const tid = await f.series(gid, { type: "Initial" });
  const fileId = await f.attachment("files", sid, { fileName: "a.pdf", bytes: "pdf", descr: "File" });
  const imageId = await f.attachment("images", sid, { fileName: "a.png", bytes: "png" });
  const eventId = await f.event(sid, { date: "2020-01-01", typeId: eventType });
  return { sid, gid, tid, fileId, imageId, eventId, owner };
}

function upload(fields: Record<string, string>, name: string): FormData {
  const form = new FormData();
  for (const [k, v] of Object.entries(fields)) form.append(k, v);
  form.append("content", new Blob(["bytes"]), name);
  return form;
}

type Op = [string, number, (w: World, t: string | undefined) => Promise<TestResponse>];
const group = (w: World) => `/api/stations/${w.sid}/timeseriesgroups/${w.gid}/`;
const series = (w: World) => `${group(w)}timeseries/${w.tid}/`;
const OPS: Op[] = [
  ["PUT station", 200, (w, t) => http.put(`/api/stations/${w.sid}/`, { json: { geom: "POINT (21 39)", owner: w.owner, name: "put" }, token: t })],
  ["PATCH station", 200, (w, t) => http.patch(`/api/stations/${w.sid}/`, { json: { name: "patched" }, token: t })],
  ["PATCH station maintainers", 200, (w, t) => http.patch(`/api/stations/${w.sid}/`, { json: { maintainers: [users.maintainer.id, users.other.id] }, token: t })],
  ["PATCH station data_viewers and stype", 200, (w, t) => http.patch(`/api/stations/${w.sid}/`, { json: { data_viewers: [users.other.id], stype: [] }, token: t })],
  ["DELETE station", 204, (w, t) => http.delete(`/api/stations/${w.sid}/`, { token: t })],
  ["POST group", 201, (w, t) => http.post(`/api/stations/${w.sid}/timeseriesgroups/`, { json: { precision: 1, variable, unit_of_measurement: unit }, token: t })],
  ["POST group (alias)", 201, (w, t) => http.post(`/api/stations/${w.sid}/timeseriesgroup/`, { json: { precision: 1, variable, unit_of_measurement: unit }, token: t })],
  ["PUT group", 200, (w, t) => http.put(group(w), { json: { precision: 3, variable, unit_of_measurement: unit }, token: t })],
  ["PATCH group", 200, (w, t) => http.patch(group(w), { json: { name: "g" }, token: t })],
  ["PATCH group (alias)", 200, (w, t) => http.patch(`/api/stations/${w.sid}/timeseriesgroup/${w.gid}/`, { json: { name: "g" }, token: t })],
  ["DELETE group", 204, (w, t) => http.delete(group(w), { token: t })],
  ["POST series", 201, (w, t) => http.post(`${group(w)}timeseries/`, { json: { type: "Checked" }, token: t })],
  ["PUT series", 200, (w, t) => http.put(series(w), { json: { type: "Initial", time_step: "H" }, token: t })],
  ["PATCH series", 200, (w, t) => http.patch(series(w), { json: { publicly_available: false }, token: t })],
  ["DELETE series", 204, (w, t) => http.delete(series(w), { token: t })],
  ["POST data", 204, (w, t) => http.post(`${series(w)}data/`, { form: { timeseries_records: "2020-01-01 00:00,1\n" }, token: t })],
  ["POST data (alias)", 204, (w, t) => http.post(`/api/stations/${w.sid}/timeseries/${w.tid}/data/`, { form: { timeseries_records: "2020-01-01 00:00,1\n" }, token: t })],
  ["POST older shape", 201, (w, t) => http.post(`/api/stations/${w.sid}/timeseries/`, { json: { precision: 1, variable, unit_of_measurement: unit }, token: t })],
  ["PUT older shape", 200, (w, t) => http.put(`/api/stations/${w.sid}/timeseries/${w.tid}/`, { json: { precision: 1, variable, unit_of_measurement: unit }, token: t })],
  ["PATCH older shape", 200, (w, t) => http.patch(`/api/stations/${w.sid}/timeseries/${w.tid}/`, { json: { precision: 4 }, token: t })],
  ["DELETE older shape", 204, (w, t) => http.delete(`/api/stations/${w.sid}/timeseries/${w.tid}/`, { token: t })],
  ["POST file", 201, (w, t) => http.post(`/api/stations/${w.sid}/files/`, { body: upload({ descr: "new" }, "n.pdf"), token: t })],
  ["PUT file", 200, (w, t) => http.put(`/api/stations/${w.sid}/files/${w.fileId}/`, { body: upload({ descr: "put" }, "p.pdf"), token: t })],
  ["PATCH file", 200, (w, t) => http.patch(`/api/stations/${w.sid}/files/${w.fileId}/`, { json: { remarks: "r" }, token: t })],
  ["DELETE file", 204, (w, t) => http.delete(`/api/stations/${w.sid}/files/${w.fileId}/`, { token: t })],
  ["POST image", 201, (w, t) => http.post(`/api/stations/${w.sid}/images/`, { body: upload({}, "n.png"), token: t })],
  ["PUT image", 200, (w, t) => http.put(`/api/stations/${w.sid}/images/${w.imageId}/`, { body: upload({ descr: "put" }, "p.jpg"), token: t })],
  ["PATCH image", 200, (w, t) => http.patch(`/api/stations/${w.sid}/images/${w.imageId}/`, { json: { featured: true }, token: t })],
  ["DELETE image", 204, (w, t) => http.delete(`/api/stations/${w.sid}/images/${w.imageId}/`, { token: t })],
  ["POST event", 201, (w, t) => http.post(`/api/stations/${w.sid}/events/`, { json: { date: "2021-01-01", type: eventType }, token: t })],
  ["PUT event", 200, (w, t) => http.put(`/api/stations/${w.sid}/events/${w.eventId}/`, { json: { date: "2021-01-02", type: eventType }, token: t })],
  ["PATCH event", 200, (w, t) => http.patch(`/api/stations/${w.sid}/events/${w.eventId}/`, { json: { report: "r" }, token: t })],
  ["DELETE event", 204, (w, t) => http.delete(`/api/stations/${w.sid}/events/${w.eventId}/`, { token: t })],
];

function expectDenied(r: TestResponse, role: Role, label: string) {
  if (role === "anonymous") {
    expect(r.status, `${label}: ${r.text}`).toBe(401);
    expect(r.json).toEqual(UNAUTHENTICATED);
    expect(r.headers.get("www-authenticate")).toBe("Token");
  } else {
    expect(r.status, `${label}: ${r.text}`).toBe(403);
    expect(r.json).toEqual(FORBIDDEN);
  }
}

describe("writes under a station (§15.2): editors only", () => {
  // Denied requests change nothing, so they share one station; every allowed write gets a fresh one.
  let shared: World;
  beforeAll(async () => {
    shared = await world();
  });
  const cases = OPS.flatMap(([name, success, run]) => ROLES.map((role) => [name, role, success, run] as const));
  it.each(cases)("%s by %s", async (name, role, success, run) => {
    const w = EDITORS.includes(role) ? await world() : shared;
    const r = await run(w, token(role));
    if (EDITORS.includes(role)) {
      expect(r.status, `${name} by ${role}: ${r.text}`).toBe(success);
    } else {
      expectDenied(r, role, `${name} by ${role}`);
    }
  });

  it("changes nothing when a write is denied", async () => {
    const w = await world();
    const before = await Promise.all([`/api/stations/${w.sid}/`, group(w), series(w), `/api/stations/${w.sid}/files/${w.fileId}/`, `/api/stations/${w.sid}/events/${w.eventId}/`]
      .map(async (p) => (await http.get(p)).json));
    for (const [, , run] of OPS) {
      for (const role of ["anonymous", "other", "adder", "viewer"] as Role[]) await run(w, token(role));
    }
    const after = await Promise.all([`/api/stations/${w.sid}/`, group(w), series(w), `/api/stations/${w.sid}/files/${w.fileId}/`, `/api/stations/${w.sid}/events/${w.eventId}/`]
      .map(async (p) => (await http.get(p)).json));
    expect(after).toEqual(before);
    expect((await http.get(`/api/stations/${w.sid}/files/${w.fileId}/content/`)).text).toBe("pdf");
    expect((await http.get(`${series(w)}data/`)).text).toBe("");
  });
});

describe("station creation (§15.2)", () => {
  const body = async () => ({ geom: "POINT (21 39)", owner: await f.organization() });
  it.each([["anonymous", 401], ["other", 403], ["viewer", 403], ["maintainer", 403], ["creator", 403], ["adder", 201], ["superuser", 201]] as const)(
    "POST stations/ by %s → %d", async (role, status) => {
      const r = await http.post("/api/stations/", { json: await body(), token: token(role) });
      if (status === 201) expect(r.status, r.text).toBe(201);
      else expectDenied(r, role, role);
    });

  it("makes the adder the creator, who may edit, while other adders may not", async () => {
    const r = await http.post("/api/stations/", { json: await body(), token: users.adder.token });
    const sid = r.json.id;
    expect((await http.patch(`/api/stations/${sid}/`, { json: { name: "mine" }, token: users.adder.token })).status).toBe(200);
    expect((await http.post(`/api/stations/${sid}/events/`, { json: { date: "2021-01-01", type: eventType }, token: users.adder.token })).status).toBe(201);
    const otherAdder = await f.user({ canAddStations: true });
    expectDenied(await http.patch(`/api/stations/${sid}/`, { json: { name: "theirs" }, token: otherAdder.token }), "other", "other adder");
  });
});

describe("lookup writes (§11, §15.2): superusers only", () => {
  const LOOKUP_POSTS: [string, () => Promise<Record<string, unknown>>][] = [
    ["stationtypes", async () => ({ descr: "x" })], ["eventtypes", async () => ({ descr: "x" })], ["variables", async () => ({ descr: "x" })],
    ["filetypes", async () => ({ descr: "x" })], ["organizations", async () => ({ name: "x" })], ["persons", async () => ({ last_name: "x" })],
    ["units", async () => ({ symbol: "x" })], ["gareas", async () => ({ geom: "POLYGON ((0 0, 1 0, 1 1, 0 0))" })],
  ];
  const cases = LOOKUP_POSTS.flatMap(([path, make]) => ROLES.map((role) => [path, role, make] as const));
  it.each(cases)("POST %s/ by %s", async (path, role, make) => {
    const r = await http.post(`/api/${path}/`, { json: await make(), token: token(role) });
    if (role === "superuser") expect(r.status, r.text).toBe(201);
    else expectDenied(r, role, `${path} ${role}`);
  });

  const methods = ["PUT", "PATCH", "DELETE"] as const;
  it.each(methods.flatMap((m) => ROLES.map((role) => [m, role] as const)))("%s stationtypes/{id}/ by %s", async (method, role) => {
    const id = await f.stationType();
    const r = await http.request(method, `/api/stationtypes/${id}/`, { ...(method === "DELETE" ? {} : { json: { descr: "changed" } }), token: token(role) });
    if (role === "superuser") expect(r.status, r.text).toBe(method === "DELETE" ? 204 : 200);
    else expectDenied(r, role, `${method} ${role}`);
  });

  it("even the creator and maintainers of a station that uses a lookup may not change it", async () => {
    const t = await f.stationType();
    await f.station({ stype: [t], maintainers: [users.maintainer.id] }, users.creator.id);
    for (const role of ["creator", "maintainer"] as Role[]) {
      expectDenied(await http.patch(`/api/stationtypes/${t}/`, { json: { descr: "x" }, token: token(role) }), role, role);
    }
  });
});

describe("roles in detail (§15.1)", () => {
  it("lets a maintainer change the maintainers, handing over the station", async () => {
    const w = await world();
    const m = users.maintainer.token;
    const a = await http.patch(`/api/stations/${w.sid}/`, { json: { maintainers: [users.maintainer.id, users.other.id] }, token: m });
    expect(a.status, a.text).toBe(200);
    expect(a.json.maintainers).toEqual([users.maintainer.id, users.other.id].sort((x, y) => x - y));
    expect((await http.patch(`/api/stations/${w.sid}/`, { json: { name: "by new maintainer" }, token: users.other.token })).status).toBe(200);
    const b = await http.patch(`/api/stations/${w.sid}/`, { json: { maintainers: [users.other.id] }, token: m });
    expect(b.status).toBe(200);
    expectDenied(await http.patch(`/api/stations/${w.sid}/`, { json: { name: "no longer" }, token: m }), "other", "former maintainer");
  });

  it("lets a maintainer change data viewers and station types", async () => {
    const w = await world();
    const t = await f.stationType();
    const r = await http.patch(`/api/stations/${w.sid}/`, { json: { data_viewers: [], stype: [t] }, token: users.maintainer.token });
    expect(r.status, r.text).toBe(200);
    expect(r.json).toMatchObject({ data_viewers: [], stype: [t] });
  });

  it("does not let a data viewer edit anything, its own access included", async () => {
    const w = await world();
    const v = users.viewer.token;
    expectDenied(await http.patch(`/api/stations/${w.sid}/`, { json: { data_viewers: [users.viewer.id, users.other.id] }, token: v }), "viewer", "viewer");
    expectDenied(await http.patch(`/api/stations/${w.sid}/`, { json: { maintainers: [users.viewer.id] }, token: v }), "viewer", "viewer");
    expectDenied(await http.delete(`/api/stations/${w.sid}/`, { token: v }), "viewer", "viewer");
  });

  it("keeps the creator an editor even when not a maintainer", async () => {
    const w = await world();
    await http.patch(`/api/stations/${w.sid}/`, { json: { maintainers: [] }, token: users.superuser.token });
    expect((await http.patch(`/api/stations/${w.sid}/`, { json: { name: "creator edit" }, token: users.creator.token })).status).toBe(200);
  });

  it("limits a maintainer to the stations it maintains", async () => {
    await world();
    const elsewhere = await f.station();
    expectDenied(await http.patch(`/api/stations/${elsewhere}/`, { json: { name: "x" }, token: users.maintainer.token }), "maintainer", "maintainer elsewhere");
    expectDenied(await http.post(`/api/stations/${elsewhere}/timeseriesgroups/`, { json: { precision: 1, variable, unit_of_measurement: unit }, token: users.creator.token }), "creator", "creator elsewhere");
  });

  it("accepts Bearer and any case of the Token keyword for writes", async () => {
    const w = await world();
    for (const auth of [`Bearer ${users.maintainer.token}`, `token ${users.maintainer.token}`, `TOKEN ${users.maintainer.token}`]) {
      const r = await http.patch(`/api/stations/${w.sid}/`, { json: { remarks: auth.slice(0, 5) }, headers: { Authorization: auth } });
      expect(r.status, auth).toBe(200);
    }
  });

  it("rejects bad credentials with 401 on writes, before permissions", async () => {
    const w = await world();
    const bad = await http.patch(`/api/stations/${w.sid}/`, { json: { name: "x" }, headers: { Authorization: "Token 0000000000000000000000000000000000000000" } });
    expect(bad.status).toBe(401);
    expect(bad.json).toEqual({ detail: "Invalid token." });
    expect(bad.headers.get("www-authenticate")).toBe("Token");
    const inactive = await f.user({ superuser: true });
    const { db } = await import("@/lib/db");
    await db().prisma.user.update({ where: { id: inactive.id }, data: { isActive: false } });
    const r = await http.patch(`/api/stations/${w.sid}/`, { json: { name: "x" }, token: inactive.token });
    expect(r.status).toBe(401);
    expect(r.json).toEqual({ detail: "User inactive or deleted." });
  });

  it("checks permission before validating the body (§1.7)", async () => {
    const w = await world();
    for (const [role, expected] of [["anonymous", 401], ["other", 403]] as const) {
      for (const [path, method] of [[`/api/stations/${w.sid}/timeseriesgroups/`, "post"], [`${group(w)}timeseries/`, "post"], [`/api/stations/${w.sid}/files/`, "post"],
        [`/api/stations/${w.sid}/events/`, "post"], [`/api/stations/${w.sid}/`, "put"], ["/api/variables/", "post"]] as const) {
        const r = await http[method](path, { json: { precision: 99, type: "Raw", date: "bad" }, token: token(role) });
        expect(r.status, `${method} ${path} ${role}`).toBe(expected);
        const p = await http[method](path, { body: "{", headers: { "Content-Type": "application/json" }, token: token(role) });
        expect(p.status, `${method} ${path} ${role} parse`).toBe(expected);
      }
    }
  });

  it("looks up the path before permissions: 404 for everyone on missing objects", async () => {
    const w = await world();
    for (const role of ROLES) {
      for (const path of [`/api/stations/999999/`, `/api/stations/${w.sid}/timeseriesgroups/999999/`, `/api/stations/${w.sid}/files/999999/`, `/api/stations/${w.sid}/events/999999/`,
        `/api/stations/${w.sid}/timeseries/999999/`, `/api/stations/${w.sid}/images/999999/`]) {
        const r = await http.delete(path, { token: token(role) });
        expect(r.status, `${path} ${role}`).toBe(404);
      }
    }
  });
});

describe("ENHYDRIS_USERS_CAN_ADD_CONTENT=true (§15.2)", () => {
  let open: TestServer;
  let h: ReturnType<typeof api>;
  let plainUser: f.TestUser;
  let second: f.TestUser;
  beforeAll(async () => {
    open = await startServer({ env: { ENHYDRIS_USERS_CAN_ADD_CONTENT: "true" } });
    h = api(open.url);
    plainUser = await f.user();
    second = await f.user();
  });
  afterAll(async () => {
    await open?.stop();
    await connectFixtures(server.databaseUrl, server.mediaDir);
  });

  it("lets any user create a station, still not anonymous users", async () => {
    const owner = await f.organization();
    const r = await h.post("/api/stations/", { json: { geom: "POINT (21 39)", owner }, token: plainUser.token });
    expect(r.status, r.text).toBe(201);
    const anon = await h.post("/api/stations/", { json: { geom: "POINT (21 39)", owner } });
    expect(anon.status).toBe(401);
    expect(anon.headers.get("www-authenticate")).toBe("Token");
  });

  it("gives editing rights only to the creator", async () => {
    const owner = await f.organization();
    const r = await h.post("/api/stations/", { json: { geom: "POINT (21 39)", owner }, token: plainUser.token });
    const sid = r.json.id;
    expect((await h.patch(`/api/stations/${sid}/`, { json: { name: "mine" }, token: plainUser.token })).status).toBe(200);
    expect((await h.post(`/api/stations/${sid}/timeseriesgroups/`, { json: { precision: 1, variable: await f.variable(), unit_of_measurement: await f.unit() }, token: plainUser.token })).status).toBe(201);
    const other = await h.patch(`/api/stations/${sid}/`, { json: { name: "theirs" }, token: second.token });
    expect(other.status).toBe(403);
    expect(other.json).toEqual(FORBIDDEN);
    const del = await h.delete(`/api/stations/${sid}/`, { token: second.token });
    expect(del.status).toBe(403);
  });

  it("does not open lookup writes", async () => {
    const r = await h.post("/api/variables/", { json: { descr: "x" }, token: plainUser.token });
    expect(r.status).toBe(403);
  });

  it("refuses an inactive user's token", async () => {
    const u = await f.user({ active: false });
    const r = await h.post("/api/stations/", { json: { geom: "POINT (21 39)", owner: await f.organization() }, token: u.token });
    expect(r.status).toBe(401);
    expect(r.json).toEqual({ detail: "User inactive or deleted." });
  });
});
