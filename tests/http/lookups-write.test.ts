import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { api, type TestResponse } from "@/tests/support/http";
import * as f from "@/tests/support/fixtures";
import { DIALECT, startServer, type TestServer } from "@/tests/support/server";
import { CookieJar, siteLogin } from "@/tests/support/site-session";
import { formMessages, siteForms } from "@/tests/support/site-forms";

/**
 * Lookup writes (api.md §11): superusers only; field rules; 409 for referenced objects.
 */
let server: TestServer;
let http: ReturnType<typeof api>;
let admin: f.TestUser;
let plain: f.TestUser;
let adder: f.TestUser;

beforeAll(async () => {
  server = await startServer();
  http = api(server.url);
  admin = await f.user({ superuser: true });
  plain = await f.user();
  adder = await f.user({ canAddStations: true });
});
afterAll(() => server?.stop());

const LAST_MODIFIED = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;
const CONFLICT = { detail: "This object cannot be deleted because other objects refer to it." };
const SQUARE = "POLYGON ((20 39, 21 39, 21 40, 20 40, 20 39))";

function expect400(r: TestResponse, body: Record<string, unknown>) {
  expect(r.status, r.text).toBe(400);
  expect(r.json).toEqual(body);
}

interface Lookup {
  path: string;
  keys: string[];
  create: Record<string, unknown>;
  expected: Record<string, unknown>;
  update: Record<string, unknown>;
  lengths: Record<string, number>;
  required?: string[];
}

const LOOKUPS: Lookup[] = [
  // descr_el: the optional Greek description of the translatable lookups (public.md §3), after the fields clients knew.
  { path: "stationtypes", keys: ["id", "last_modified", "descr", "descr_el"], create: { descr: " Meteorological " }, expected: { descr: "Meteorological", descr_el: "" },
    update: { descr: "Hydrological", descr_el: "Υδρολογικός" }, lengths: { descr: 200, descr_el: 200 } },
  { path: "eventtypes", keys: ["id", "last_modified", "descr", "descr_el"], create: { descr: "Maintenance", descr_el: "Συντήρηση" }, expected: { descr: "Maintenance", descr_el: "Συντήρηση" },
    update: { descr: "Repair" }, lengths: { descr: 200, descr_el: 200 } },
  { path: "variables", keys: ["id", "last_modified", "descr", "descr_el"], create: { descr: "Temperature", descr_el: " Θερμοκρασία " }, expected: { descr: "Temperature", descr_el: "Θερμοκρασία" },
    update: { descr: "Humidity", descr_el: "Υγρασία" }, lengths: { descr: 200, descr_el: 200 } },
  { path: "filetypes", keys: ["id", "last_modified", "descr", "mime_type", "descr_el"], create: { descr: "PDF", descr_el: "Έγγραφο PDF", mime_type: "application/pdf" },
    expected: { descr: "PDF", mime_type: "application/pdf", descr_el: "Έγγραφο PDF" }, update: { descr: "Image", mime_type: "image/png" }, lengths: { descr: 200, descr_el: 200, mime_type: 100 } },
  { path: "organizations", keys: ["id", "last_modified", "remarks", "name", "acronym"], create: { name: "National Technical University", acronym: "NTUA", remarks: "r" },
    expected: { remarks: "r", name: "National Technical University", acronym: "NTUA" }, update: { name: "NTU", acronym: "" }, lengths: { name: 200, acronym: 50 } },
  { path: "persons", keys: ["id", "last_modified", "remarks", "last_name", "first_name", "middle_names", "initials"],
    create: { last_name: "Christofides", first_name: "Antonis", middle_names: "Michael", initials: "A. C." },
    expected: { remarks: "", last_name: "Christofides", first_name: "Antonis", middle_names: "Michael", initials: "A. C." }, update: { first_name: "Antony" },
    lengths: { last_name: 100, first_name: 100, middle_names: 100, initials: 20 } },
  { path: "units", keys: ["id", "last_modified", "descr", "symbol", "variables"], create: { descr: "Degrees Celsius", symbol: "°C" },
    expected: { descr: "Degrees Celsius", symbol: "°C", variables: [] }, update: { symbol: "K", descr: "Kelvin" }, lengths: { descr: 200, symbol: 50 }, required: ["symbol"] },
  { path: "gareas", keys: ["id", "last_modified", "name", "code", "remarks", "geom"], create: { name: "Epirus", code: "GR-D", geom: SQUARE },
    expected: { name: "Epirus", code: "GR-D", remarks: "", geom: `SRID=4326;${SQUARE}` }, update: { name: "Epirus 2", geom: SQUARE }, lengths: { name: 200, code: 50 }, required: ["geom"] },
];

describe.each(LOOKUPS)("$path writes by a superuser (§11)", (lookup) => {
  const path = `/api/${lookup.path}/`;

  it("POST creates, 201 with fields in order", async () => {
    const r = await http.post(path, { json: lookup.create, token: admin.token });
    expect(r.status, r.text).toBe(201);
    expect(Object.keys(r.json)).toEqual(lookup.keys);
    expect(r.json).toEqual({ id: r.json.id, last_modified: r.json.last_modified, ...lookup.expected });
    expect(r.json.last_modified).toMatch(LAST_MODIFIED);
    expect((await http.get(`${path}${r.json.id}/`)).json).toEqual(r.json);
  });

  it("POST creates from a form body", async () => {
    const form = Object.fromEntries(Object.entries(lookup.create).map(([k, v]) => [k, String(v)]));
    const r = await http.post(path, { form, token: admin.token });
    expect(r.status, r.text).toBe(201);
    expect(r.json).toMatchObject(lookup.expected);
  });

  it("POST {} gives the defaults, or the required-field errors", async () => {
    const r = await http.post(path, { json: {}, token: admin.token });
    if (lookup.required) {
      expect400(r, Object.fromEntries(lookup.required.map((k) => [k, ["This field is required."]])));
    } else {
      expect(r.status, r.text).toBe(201);
      for (const k of lookup.keys.slice(2)) expect(r.json[k], k).toBe("");
    }
  });

  it("PUT replaces, PATCH updates, both moving last_modified", async () => {
    const c = (await http.post(path, { json: lookup.create, token: admin.token })).json;
    await new Promise((r) => setTimeout(r, 15));
    const put = await http.put(`${path}${c.id}/`, { json: { ...lookup.create, ...lookup.update }, token: admin.token });
    expect(put.status, put.text).toBe(200);
    expect(put.json).toMatchObject(Object.fromEntries(Object.entries(lookup.update).filter(([k]) => k !== "geom")));
    expect(Date.parse(put.json.last_modified)).toBeGreaterThan(Date.parse(c.last_modified));
    const [field, value] = Object.entries(lookup.update)[0];
    const patch = await http.patch(`${path}${c.id}/`, { json: { [field]: `${value} patched` }, token: admin.token });
    expect(patch.status, patch.text).toBe(200);
    expect(patch.json[field]).toBe(`${value} patched`);
    expect(Object.keys(patch.json)).toEqual(lookup.keys);
    expect((await http.get(`${path}${c.id}/`)).json).toEqual(patch.json);
  });

  it("PUT keeps omitted optional fields", async () => {
    const c = (await http.post(path, { json: lookup.create, token: admin.token })).json;
    const required = Object.fromEntries((lookup.required ?? []).map((k) => [k, lookup.create[k]]));
    const r = await http.put(`${path}${c.id}/`, { json: required, token: admin.token });
    expect(r.status, r.text).toBe(200);
    expect(r.json).toEqual({ ...c, last_modified: r.json.last_modified });
  });

  it("DELETE answers 204 and the object is gone", async () => {
    const c = (await http.post(path, { json: lookup.create, token: admin.token })).json;
    const r = await http.delete(`${path}${c.id}/`, { token: admin.token });
    expect(r.status).toBe(204);
    expect(r.text).toBe("");
    expect((await http.get(`${path}${c.id}/`)).status).toBe(404);
    expect((await http.delete(`${path}${c.id}/`, { token: admin.token })).status).toBe(404);
  });

  it("enforces the field lengths", async () => {
    for (const [field, n] of Object.entries(lookup.lengths)) {
      const ok = await http.post(path, { json: { ...lookup.create, [field]: "x".repeat(n) }, token: admin.token });
      expect(ok.status, `${field} ${n}: ${ok.text}`).toBe(201);
      expect400(await http.post(path, { json: { ...lookup.create, [field]: "x".repeat(n + 1) }, token: admin.token }),
        { [field]: [`Ensure this field has no more than ${n} characters.`] });
    }
  });

  it("refuses anonymous writes with 401 and other users with 403", async () => {
    const c = (await http.post(path, { json: lookup.create, token: admin.token })).json;
    for (const [method, p, options] of [["post", path, { json: lookup.create }], ["put", `${path}${c.id}/`, { json: lookup.create }], ["patch", `${path}${c.id}/`, { json: {} }],
      ["delete", `${path}${c.id}/`, {}]] as const) {
      const anon = await http[method](p, options);
      expect(anon.status, `${method} anonymous`).toBe(401);
      expect(anon.json).toEqual({ detail: "Authentication credentials were not provided." });
      expect(anon.headers.get("www-authenticate")).toBe("Token");
      for (const u of [plain, adder]) {
        const r = await http[method](p, { ...options, token: u.token });
        expect(r.status, `${method} ${u.username}`).toBe(403);
        expect(r.json).toEqual({ detail: "You do not have permission to perform this action." });
      }
    }
    expect((await http.get(`${path}${c.id}/`)).json).toEqual(c);
  });

  it("answers 404 for a missing object before permissions", async () => {
    expect((await http.patch(`${path}999999/`, { json: {} })).status).toBe(404);
    expect((await http.delete(`${path}999999/`, { token: plain.token })).status).toBe(404);
    expect((await http.put(`${path}999999/`, { json: lookup.create, token: admin.token })).status).toBe(404);
  });
});

describe("units (§11)", () => {
  it.each([["", "This field may not be blank."], ["   ", "This field may not be blank."], [null, "This field may not be null."]])(
    "refuses the symbol %j", async (symbol, message) => {
      expect400(await http.post("/api/units/", { json: { symbol }, token: admin.token }), { symbol: [message] });
    });

  it("refuses a blank symbol on PATCH and a missing one on PUT", async () => {
    const u = await f.unit("m");
    expect400(await http.patch(`/api/units/${u}/`, { json: { symbol: " " }, token: admin.token }), { symbol: ["This field may not be blank."] });
    expect400(await http.put(`/api/units/${u}/`, { json: { descr: "metre" }, token: admin.token }), { symbol: ["This field is required."] });
  });

  it("writes variables as a list of ids (JSON, repeated form keys, one empty form value)", async () => {
    const a = await f.variable();
    const b = await f.variable();
    const r = await http.post("/api/units/", { json: { symbol: "m/s", variables: [b, a] }, token: admin.token });
    expect(r.status, r.text).toBe(201);
    expect([...r.json.variables].sort((x: number, y: number) => x - y)).toEqual([a, b]);
    const form = await http.post("/api/units/", { form: [["symbol", "km/h"], ["variables", String(a)], ["variables", String(b)]], token: admin.token });
    expect(form.status, form.text).toBe(201);
    expect([...form.json.variables].sort((x: number, y: number) => x - y)).toEqual([a, b]);
    const emptied = await http.patch(`/api/units/${form.json.id}/`, { form: { variables: "" }, token: admin.token });
    expect(emptied.json.variables).toEqual([]);
    const objects = await http.patch(`/api/units/${form.json.id}/`, { json: { variables: [{ id: a }] }, token: admin.token });
    expect(objects.json.variables).toEqual([a]);
  });

  it("refuses unknown variables and non-lists", async () => {
    expect400(await http.post("/api/units/", { json: { symbol: "x", variables: [999999] }, token: admin.token }), { variables: ['Invalid pk "999999" - object does not exist.'] });
    expect400(await http.post("/api/units/", { json: { symbol: "x", variables: "1" }, token: admin.token }), { variables: ['Expected a list of items but got type "str".'] });
  });

  it("keeps variables on a PUT that omits them", async () => {
    const v = await f.variable();
    const u = await f.unit("kg", [v]);
    const r = await http.put(`/api/units/${u}/`, { json: { symbol: "kg" }, token: admin.token });
    expect(r.json.variables).toEqual([v]);
  });
});

describe("gareas geometry (§11, §4.2)", () => {
  const parseRing = (geom: string) => [...geom.matchAll(/(-?[\d.]+) (-?[\d.]+)/g)].map((m) => [Number(m[1]), Number(m[2])]);

  it.each([
    [SQUARE, `SRID=4326;${SQUARE}`],
    [`SRID=4326;${SQUARE}`, `SRID=4326;${SQUARE}`],
    ["polygon((20 39,21 39,21 40,20 40,20 39))", `SRID=4326;${SQUARE}`],
    ["MULTIPOLYGON (((20.5 38.5, 21.5 38.5, 21.5 39.5, 20.5 39.5, 20.5 38.5)))", "SRID=4326;MULTIPOLYGON (((20.5 38.5, 21.5 38.5, 21.5 39.5, 20.5 39.5, 20.5 38.5)))"],
    ["MULTIPOLYGON (((0 0, 1 0, 1 1, 0 0)), ((2 2, 3 2, 3 3, 2 2)))", "SRID=4326;MULTIPOLYGON (((0 0, 1 0, 1 1, 0 0)), ((2 2, 3 2, 3 3, 2 2)))"],
    ["POLYGON ((0 0, 10 0, 10 10, 0 10, 0 0), (2 2, 3 2, 3 3, 2 3, 2 2))", "SRID=4326;POLYGON ((0 0, 10 0, 10 10, 0 10, 0 0), (2 2, 3 2, 3 3, 2 3, 2 2))"],
  ])("stores %s as %s", async (input, output) => {
    const r = await http.post("/api/gareas/", { json: { name: "A", geom: input }, token: admin.token });
    expect(r.status, r.text).toBe(201);
    expect(r.json.geom).toBe(output);
  });

  it("transforms another SRID to WGS84", async () => {
    const R = 6378137;
    const x = (lon: number) => (lon * Math.PI * R) / 180;
    const y = (lat: number) => R * Math.log(Math.tan(Math.PI / 4 + (lat * Math.PI) / 360));
    const ring = [[20, 39], [21, 39], [21, 40], [20, 40], [20, 39]].map(([lon, lat]) => `${x(lon)} ${y(lat)}`).join(", ");
    const r = await http.post("/api/gareas/", { json: { name: "Mercator", geom: `SRID=3857;POLYGON ((${ring}))` }, token: admin.token });
    expect(r.status, r.text).toBe(201);
    expect(r.json.geom).toMatch(/^SRID=4326;POLYGON \(\(/);
    const points = parseRing(r.json.geom.replace("SRID=4326;", ""));
    expect(points).toHaveLength(5);
    [[20, 39], [21, 39], [21, 40], [20, 40], [20, 39]].forEach(([lon, lat], i) => {
      expect(points[i][0]).toBeCloseTo(lon, 6);
      expect(points[i][1]).toBeCloseTo(lat, 6);
    });
  });

  it("requires geom, refuses null", async () => {
    expect400(await http.post("/api/gareas/", { json: { name: "x" }, token: admin.token }), { geom: ["This field is required."] });
    expect400(await http.post("/api/gareas/", { json: { name: "x", geom: null }, token: admin.token }), { geom: ["This field may not be null."] });
  });

  it("refuses an unknown SRID with the §4.2 message", async () => {
    expect400(await http.post("/api/gareas/", { json: { geom: `SRID=9999;${SQUARE}` }, token: admin.token }), { geom: ["Unknown SRID 9999."] });
  });

  it.each(["POINT (21 39)", "LINESTRING (20 39, 21 40)", "POLYGON EMPTY", "POLYGON ((20 39, 21 39, 21 40))", "POLYGON ((20 39, 21 39, 21 40, 20 40, 20 39)", "garbage", "",
    '{"type":"Polygon","coordinates":[[[20,39],[21,39],[21,40],[20,39]]]}', "POLYGON Z ((20 39 1, 21 39 1, 21 40 1, 20 39 1))", "POLYGON ((200 39, 201 39, 201 40, 200 39))"])(
    "refuses the geometry %j with an error under geom", async (geom) => {
      const r = await http.post("/api/gareas/", { json: { name: "bad", geom }, token: admin.token });
      expect(r.status, r.text).toBe(400);
      expect(Object.keys(r.json)).toEqual(["geom"]);
      expect(r.json.geom).toHaveLength(1);
    });

  it("refuses out-of-range coordinates with the §4.2 message", async () => {
    expect400(await http.post("/api/gareas/", { json: { geom: "POLYGON ((200 39, 201 39, 201 40, 200 39))" }, token: admin.token }),
      { geom: ["Coordinates out of range: longitude must be within -180..180 and latitude within -90..90."] });
  });

  it("uses the written area in the in: search, and its new geometry after a PATCH", async () => {
    const inside = await f.station({ name: "Inside", lon: 20.5, lat: 39.5 });
    const later = await f.station({ name: "Later", lon: 25.5, lat: 35.5 });
    const r = await http.post("/api/gareas/", { json: { name: "Zagorochoria", code: "ZG", geom: SQUARE }, token: admin.token });
    const ids = async () => (await http.get(`/api/stations/?q=${encodeURIComponent("in:zagorochoria")}`)).json.results.map((s: { id: number }) => s.id);
    expect(await ids()).toEqual([inside]);
    await http.patch(`/api/gareas/${r.json.id}/`, { json: { geom: "POLYGON ((25 35, 26 35, 26 36, 25 36, 25 35))" }, token: admin.token });
    expect(await ids()).toEqual([later]);
  });

  it("uses the whole extent of a multipolygon in the in: search", async () => {
    const east = await f.station({ name: "Far east", lon: 28.5, lat: 36.5 });
    const west = await f.station({ name: "Far west", lon: 19.5, lat: 39.5 });
    const r = await http.post("/api/gareas/", { json: { name: "Archipelago", geom: "MULTIPOLYGON (((19 39, 20 39, 20 40, 19 40, 19 39)), ((28 36, 29 36, 29 37, 28 37, 28 36)))" }, token: admin.token });
    expect(r.status, r.text).toBe(201);
    const found = (await http.get(`/api/stations/?q=${encodeURIComponent("in:archipelago")}&page_size=1000`)).json.results.map((s: { id: number }) => s.id);
    expect(found).toEqual(expect.arrayContaining([east, west]));
  });

  it("shares one id sequence between stations and areas", async () => {
    const a = await http.post("/api/gareas/", { json: { geom: SQUARE }, token: admin.token });
    const s = await f.station();
    const b = await http.post("/api/gareas/", { json: { geom: SQUARE }, token: admin.token });
    expect(new Set([a.json.id, s, b.json.id]).size).toBe(3);
    expect((await http.get(`/api/gareas/${s}/`)).status).toBe(404);
    expect((await http.get(`/api/stations/${a.json.id}/`)).status).toBe(404);
  });

  it("shares one id sequence between organizations and persons", async () => {
    const o = await http.post("/api/organizations/", { json: { name: "O" }, token: admin.token });
    const p = await http.post("/api/persons/", { json: { last_name: "P" }, token: admin.token });
    expect(o.json.id).not.toBe(p.json.id);
    expect((await http.get(`/api/persons/${o.json.id}/`)).status).toBe(404);
  });
});

describe("deleting referenced objects: 409 (§11)", () => {
  async function expectConflict(path: string) {
    const r = await http.delete(path, { token: admin.token });
    expect(r.status, path).toBe(409);
    expect(r.text).toBe(JSON.stringify(CONFLICT));
    expect((await http.get(path)).status).toBe(200);
  }

  it("an organization that owns a station", async () => {
    const o = await f.organization();
    const s = await f.station({ ownerId: o });
    await expectConflict(`/api/organizations/${o}/`);
    expect((await http.delete(`/api/stations/${s}/`, { token: admin.token })).status).toBe(204);
    expect((await http.delete(`/api/organizations/${o}/`, { token: admin.token })).status).toBe(204);
  });

  it("a person that owns a station", async () => {
    const p = await f.person("Own", "Er");
    await f.station({ ownerId: p });
    await expectConflict(`/api/persons/${p}/`);
  });

  it("a variable or a unit used by a time series group", async () => {
    const v = await f.variable();
    const u = await f.unit();
    const s = await f.station();
    const g = await f.group(s, { variableId: v, unitId: u });
    await expectConflict(`/api/variables/${v}/`);
    await expectConflict(`/api/units/${u}/`);
    expect((await http.delete(`/api/stations/${s}/timeseriesgroups/${g}/`, { token: admin.token })).status).toBe(204);
    expect((await http.delete(`/api/units/${u}/`, { token: admin.token })).status).toBe(204);
    expect((await http.delete(`/api/variables/${v}/`, { token: admin.token })).status).toBe(204);
  });

  it("a station type listed in a station's stype", async () => {
    const t = await f.stationType();
    const s = await f.station({ stype: [t] });
    await expectConflict(`/api/stationtypes/${t}/`);
    expect((await http.patch(`/api/stations/${s}/`, { json: { stype: [] }, token: admin.token })).status).toBe(200);
    expect((await http.delete(`/api/stationtypes/${t}/`, { token: admin.token })).status).toBe(204);
  });

  it("an event type used by an event", async () => {
    const et = await f.eventType();
    const s = await f.station();
    const e = await f.event(s, { date: "2020-01-01", typeId: et });
    await expectConflict(`/api/eventtypes/${et}/`);
    expect((await http.delete(`/api/stations/${s}/events/${e}/`, { token: admin.token })).status).toBe(204);
    expect((await http.delete(`/api/eventtypes/${et}/`, { token: admin.token })).status).toBe(204);
  });

  it("answers 409 to a conflict even before anything else is deleted (nothing changes)", async () => {
    const o = await f.organization("Kept Org");
    const s = await f.station({ ownerId: o });
    await http.delete(`/api/organizations/${o}/`, { token: admin.token });
    expect((await http.get(`/api/stations/${s}/`)).json.owner).toBe(o);
    expect((await http.get(`/api/organizations/${o}/`)).json.name).toBe("Kept Org");
  });

  it("a variable listed only in a unit does not block and leaves the unit's list", async () => {
    const v = await f.variable();
    const keep = await f.variable();
    const u = await f.unit("lx", [v, keep]);
    const r = await http.delete(`/api/variables/${v}/`, { token: admin.token });
    expect(r.status).toBe(204);
    expect((await http.get(`/api/units/${u}/`)).json.variables).toEqual([keep]);
  });

  it("unreferenced objects delete freely", async () => {
    for (const path of [`/api/organizations/${await f.organization()}/`, `/api/persons/${await f.person("A", "B")}/`, `/api/stationtypes/${await f.stationType()}/`,
      `/api/eventtypes/${await f.eventType()}/`, `/api/variables/${await f.variable()}/`, `/api/units/${await f.unit()}/`]) {
      expect((await http.delete(path, { token: admin.token })).status, path).toBe(204);
    }
  });
});

describe(`the management page's delete of a referenced object names what refers to it (management.md §2, ${DIALECT})`, () => {
  async function adminCookie(): Promise<string> {
    const { jar, error } = await siteLogin(server.url, admin.username, admin.password, new CookieJar());
    expect(error).toBeNull();
    return jar.header();
  }

  /**
   * The delete of `path`'s object: its confirmation page's form, opened while nothing refers to it
   * (it offers the delete); then `refer` makes something refer to it. Returns what the page says
   * now (up front, without a delete form) and what the page answering the post of the form opened
   * before says (its form's messages, or, the form being gone from it, its note).
   */
  async function refusal(path: string, label: RegExp, refer: () => Promise<void>): Promise<{ page: string | null; posted: string[] }> {
    const cookie = await adminCookie();
    const site = siteForms(server.url);
    const before = await site.page(path, cookie);
    expect(before.text).toContain("Nothing else goes with it.");
    const form = await site.form(path, cookie, label);
    await refer();
    const now = await site.page(path, cookie);
    expect(now.status).toBe(200);
    expect(now.text, "a delete form on the page of an object in use").not.toMatch(/<form\b[^>]*aria-label="Delete /);
    expect(now.text).not.toContain("Nothing else goes with it.");
    expect(now.text.replace(/<!-- -->/g, "")).toMatch(/<h2 id="confirm-heading">The [^<]* cannot be deleted<\/h2>/);
    const note = (html: string) => /<p class="message error" role="note">([\s\S]*?)<\/p>/.exec(html)?.[1] ?? null;
    // The form opened before is refused; the page it gets back (re-rendered, now without the form) says why.
    const r = await site.submit(form, {}, cookie);
    expect(r.status, r.text.slice(0, 300)).toBe(200);
    const told = formMessages(r.text);
    return { page: note(now.text), posted: told.length ? told : [note(r.text) ?? ""] };
  }

  it("an organization that owns 12 stations: the first 10 by name and how many more; the API's 409 body stays as specified", async () => {
    const o = await f.organization("Owning Org");
    const said = `${CONFLICT.detail} It is used by 12 stations: ${Array.from({ length: 10 }, (_, i) => `Owned ${String(i + 1).padStart(2, "0")}`).join(", ")} and 2 more.`;
    const { page, posted } = await refusal(`/manage/lookups/organizations/${o}/delete/`, /^Delete organization/, async () => {
      for (let i = 12; i >= 1; i--) await f.station({ ownerId: o, name: `Owned ${String(i).padStart(2, "0")}` });
    });
    expect(page).toBe(said);
    expect(posted).toEqual([said]);
    expect((await http.get(`/api/organizations/${o}/`)).status).toBe(200);
    const r = await http.delete(`/api/organizations/${o}/`, { token: admin.token });
    expect(r.status).toBe(409);
    expect(r.text).toBe(JSON.stringify(CONFLICT));
  });

  it("a variable used by one time series group; an event type used by events; a station type", async () => {
    const v = await f.variable("Referred variable");
    const sid = await f.station({ name: "Agios Nikolaos" });
    const variable = await refusal(`/manage/lookups/variables/${v}/delete/`, /^Delete variable/, async () => void (await f.group(sid, { name: "Stage", variableId: v })));
    expect(variable).toEqual({ page: `${CONFLICT.detail} It is used by 1 time series group: Agios Nikolaos · Stage.`, posted: [`${CONFLICT.detail} It is used by 1 time series group: Agios Nikolaos · Stage.`] });
    const et = await f.eventType("Referred event type");
    const events = await refusal(`/manage/lookups/eventtypes/${et}/delete/`, /^Delete event type/, async () => {
      await f.event(sid, { date: "2020-02-01", typeId: et });
      await f.event(sid, { date: "2020-01-01", typeId: et });
    });
    const eventsSaid = `${CONFLICT.detail} It is used by 2 events: Agios Nikolaos (2020-01-01), Agios Nikolaos (2020-02-01).`;
    expect(events).toEqual({ page: eventsSaid, posted: [eventsSaid] });
    const st = await f.stationType("Referred station type");
    const types = await refusal(`/manage/lookups/stationtypes/${st}/delete/`, /^Delete station type/, async () => void (await f.station({ name: "Kalamaki", stype: [st] })));
    expect(types).toEqual({ page: `${CONFLICT.detail} It is used by 1 station: Kalamaki.`, posted: [`${CONFLICT.detail} It is used by 1 station: Kalamaki.`] });
    for (const path of [`/api/variables/${v}/`, `/api/eventtypes/${et}/`, `/api/stationtypes/${st}/`]) expect((await http.get(path)).status).toBe(200);
  });
});
