import { existsSync, rmSync } from "node:fs";
import { join } from "node:path";
import proj4 from "proj4";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { db } from "@/lib/db";
import { api, type TestResponse } from "@/tests/support/http";
import * as f from "@/tests/support/fixtures";
import { startServer, type TestServer } from "@/tests/support/server";

/**
 * Station writes (api.md §1.2, §1.3, §1.6, §1.7, §4.1–§4.3), from the specification.
 */
let server: TestServer;
let http: ReturnType<typeof api>;
let admin: f.TestUser;
let owner: number;

beforeAll(async () => {
  server = await startServer();
  http = api(server.url);
  admin = await f.user({ superuser: true });
  owner = await f.organization("Owner Org", "OO");
});
afterAll(() => server?.stop());

const FIELDS = ["id", "last_update", "last_modified", "name", "code", "remarks", "original_srid", "altitude",
  "geom", "display_timezone", "start_date", "end_date", "owner", "overseer", "maintainers", "stype", "data_viewers"];
const INVALID_GEOM = 'Invalid geometry; expected a point such as "POINT (21.06071 39.09518)" or "SRID=2100;POINT (250000 4300000)".';
const OUT_OF_RANGE = "Coordinates out of range: longitude must be within -180..180 and latitude within -90..90.";
const LAST_MODIFIED = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;
const UNAUTHENTICATED = { detail: "Authentication credentials were not provided." };
const FORBIDDEN = { detail: "You do not have permission to perform this action." };

const post = (body: Record<string, unknown>, token = admin.token) => http.post("/api/stations/", { json: body, token });
const postForm = (form: Record<string, string | string[]> | [string, string][], token = admin.token) => http.post("/api/stations/", { form, token });
const minimal = (extra: Record<string, unknown> = {}) => ({ geom: "POINT (21 39)", owner, ...extra });

function expect400(r: TestResponse, body: Record<string, unknown>) {
  expect(r.status, r.text).toBe(400);
  expect(r.json).toEqual(body);
}

function coords(geom: string): [number, number] {
  const m = /^SRID=4326;POINT \((\S+) (\S+)\)$/.exec(geom);
  expect(m, geom).not.toBeNull();
  for (const n of [m![1], m![2]]) expect(n, `${geom}: plain notation`).toMatch(/^-?\d+(\.\d+)?$/);
  return [Number(m![1]), Number(m![2])];
}

async function create(extra: Record<string, unknown> = {}, token = admin.token): Promise<Record<string, unknown> & { id: number }> {
  const r = await post(minimal(extra), token);
  expect(r.status, r.text).toBe(201);
  return r.json;
}

describe("POST stations/ (§4.3, §1.3)", () => {
  it("creates a station from a JSON body, answering 201 with every field in order", async () => {
    const maint = await f.user();
    const viewer = await f.user();
    const t = await f.stationType("Meteorological");
    const r = await post({
      name: "Komboti", code: "KMB", remarks: "Near Arta", altitude: 219, geom: "SRID=4326;POINT (21.06071 39.09518)",
      display_timezone: "Etc/GMT-2", start_date: "2010-01-01", end_date: null, owner, overseer: "Bilbo",
      maintainers: [maint.id], stype: [t], data_viewers: [viewer.id],
    });
    expect(r.status, r.text).toBe(201);
    expect(r.headers.get("content-type")).toMatch(/^application\/json/);
    expect(Object.keys(r.json)).toEqual(FIELDS);
    expect(r.json).toEqual({
      id: r.json.id, last_update: null, last_modified: r.json.last_modified, name: "Komboti", code: "KMB", remarks: "Near Arta",
      original_srid: 4326, altitude: 219, geom: "SRID=4326;POINT (21.06071 39.09518)", display_timezone: "Etc/GMT-2",
      start_date: "2010-01-01", end_date: null, owner, overseer: "Bilbo", maintainers: [maint.id], stype: [t], data_viewers: [viewer.id],
    });
    expect(r.json.last_modified).toMatch(LAST_MODIFIED);
    expect(Math.abs(Date.parse(r.json.last_modified) - Date.now())).toBeLessThan(60_000);
    const got = await http.get(`/api/stations/${r.json.id}/`);
    expect(got.json).toEqual(r.json);
  });

  it("creates a station from a form-encoded body (numbers and ids as strings)", async () => {
    const maint = await f.user();
    const r = await postForm({ name: "Formed", geom: "POINT(20.94565 39.12102)", owner: String(owner), altitude: "12.5", maintainers: String(maint.id), start_date: "2001-02-03" });
    expect(r.status, r.text).toBe(201);
    expect(r.json).toMatchObject({ name: "Formed", geom: "SRID=4326;POINT (20.94565 39.12102)", owner, altitude: 12.5, maintainers: [maint.id], start_date: "2001-02-03", original_srid: 4326 });
  });

  it("creates a station from a multipart body", async () => {
    const form = new FormData();
    form.append("name", "Multi");
    form.append("geom", "POINT (21 39)");
    form.append("owner", String(owner));
    const r = await http.post("/api/stations/", { body: form, token: admin.token });
    expect(r.status, r.text).toBe(201);
    expect(r.json).toMatchObject({ name: "Multi", owner });
  });

  it("reads a non-empty body without Content-Type as form-encoded (extension)", async () => {
    const r = await http.post("/api/stations/", { body: Buffer.from(`name=NoType&geom=POINT(21%2039)&owner=${owner}`), token: admin.token });
    expect(r.status, r.text).toBe(201);
    expect(r.json).toMatchObject({ name: "NoType", geom: "SRID=4326;POINT (21 39)", owner });
  });

  it("accepts a charset parameter on a form content type", async () => {
    const r = await http.post("/api/stations/", { body: `name=%CE%91&geom=POINT(21%2039)&owner=${owner}`, headers: { "Content-Type": "application/x-www-form-urlencoded; charset=UTF-8" }, token: admin.token });
    expect(r.status, r.text).toBe(201);
    expect(r.json.name).toBe("Α");
  });

  it("accepts a charset parameter on application/json", async () => {
    const r = await http.post("/api/stations/", { body: JSON.stringify(minimal({ name: "Χαρσέτ" })), headers: { "Content-Type": "application/json; charset=utf-8" }, token: admin.token });
    expect(r.status, r.text).toBe(201);
    expect(r.json.name).toBe("Χαρσέτ");
    expect(r.text).toContain("Χαρσέτ");
  });

  it("gives the defaults of §4.1 to omitted optional fields", async () => {
    const s = await create();
    expect(s).toMatchObject({ name: "", code: "", remarks: "", original_srid: 4326, altitude: null, display_timezone: "Etc/GMT",
      start_date: null, end_date: null, overseer: "", maintainers: [], stype: [], data_viewers: [], last_update: null });
  });

  it("answers POST {} with exactly the two required-field errors", async () => {
    const r = await post({});
    expect(r.status).toBe(400);
    expect(r.text).toBe('{"geom":["This field is required."],"owner":["This field is required."]}');
  });

  it("answers an empty form body with the same two errors", async () => {
    const r = await http.post("/api/stations/", { form: {}, token: admin.token });
    expect(r.status).toBe(400);
    expect(r.json).toEqual({ geom: ["This field is required."], owner: ["This field is required."] });
  });

  it("reports all field errors of one request together (§1.3, §1.6)", async () => {
    const r = await post({ name: "x".repeat(201), geom: "POINT (21 39)", display_timezone: "Europe/Athens", start_date: "2020-13-01", overseer: "o".repeat(31) });
    expect400(r, {
      name: ["Ensure this field has no more than 200 characters."],
      display_timezone: ['"Europe/Athens" is not a valid choice.'],
      start_date: ["Date has wrong format. Use one of these formats instead: YYYY-MM-DD."],
      owner: ["This field is required."],
      overseer: ["Ensure this field has no more than 30 characters."],
    });
  });

  it("stores the creator without showing it (§4.1)", async () => {
    const adder = await f.user({ canAddStations: true });
    const s = await create({ name: "Created by adder" }, adder.token);
    expect(Object.keys(s)).toEqual(FIELDS);
    expect(JSON.stringify(s)).not.toContain("creator");
    const row = await db().prisma.station.findUnique({ where: { id: s.id } });
    expect(row?.creatorId).toBe(adder.id);
  });
});

describe("string fields: lengths, trimming, blank (§1.2, §4.1)", () => {
  it.each([["name", 200], ["code", 50], ["overseer", 30]])("accepts %s of exactly %d characters and refuses one more", async (field, n) => {
    const ok = await post(minimal({ [field]: "a".repeat(n) }));
    expect(ok.status, ok.text).toBe(201);
    expect(ok.json[field]).toBe("a".repeat(n));
    expect400(await post(minimal({ [field]: "a".repeat(n + 1) })), { [field]: [`Ensure this field has no more than ${n} characters.`] });
  });

  it("counts characters, not bytes or UTF-16 units", async () => {
    const ok = await post(minimal({ name: "ά".repeat(200), overseer: "Ω".repeat(30) }));
    expect(ok.status, ok.text).toBe(201);
  });

  it("trims leading and trailing whitespace before validation and storage", async () => {
    const s = await create({ name: `  ${"n".repeat(200)}\t `, code: "\n KMB \n", remarks: "  line1\nline2  ", overseer: " Bilbo " });
    expect(s).toMatchObject({ name: "n".repeat(200), code: "KMB", remarks: "line1\nline2", overseer: "Bilbo" });
  });

  it("trims form values too", async () => {
    const r = await postForm({ name: "  Spaced  ", geom: "  POINT (21 39)  ", owner: ` ${owner} `, display_timezone: " Etc/GMT-2 " });
    expect(r.status, r.text).toBe(201);
    expect(r.json).toMatchObject({ name: "Spaced", owner, display_timezone: "Etc/GMT-2" });
  });

  it("allows blank names, codes, remarks and overseers", async () => {
    const s = await create({ name: "", code: "   ", remarks: "", overseer: "" });
    expect(s).toMatchObject({ name: "", code: "", remarks: "", overseer: "" });
  });

  it.each(["name", "code", "remarks", "overseer", "geom", "owner", "display_timezone"])("refuses null for the non-nullable %s", async (field) => {
    expect400(await post(minimal({ [field]: null })), { [field]: ["This field may not be null."] });
  });
});

describe("dates and numbers (§1.2)", () => {
  it("accepts calendar dates and does not compare start and end", async () => {
    const s = await create({ start_date: "2020-02-29", end_date: "2010-01-01" });
    expect(s).toMatchObject({ start_date: "2020-02-29", end_date: "2010-01-01" });
  });

  it.each(["2021-02-29", "2020-1-01", "2020-01-1", "20200101", "2020-01-01T00:00", "01/02/2020", "hello", "2020-13-01", " 2020-02-30 "])(
    "refuses the date %j", async (value) => {
      expect400(await post(minimal({ start_date: value })), { start_date: ["Date has wrong format. Use one of these formats instead: YYYY-MM-DD."] });
    });

  it("reads null and empty dates as null", async () => {
    const a = await create({ start_date: null, end_date: "" });
    expect(a).toMatchObject({ start_date: null, end_date: null });
    const r = await postForm({ geom: "POINT (21 39)", owner: String(owner), start_date: "", end_date: "" });
    expect(r.json).toMatchObject({ start_date: null, end_date: null });
  });

  it.each([[219, 219], ["219.5", 219.5], [1234.5678901234567, 1234.5678901234567], ["-3", -3], ["1e2", 100], [0, 0], ["", null], [null, null]])("reads altitude %j as %j", async (value, expected) => {
    const s = await create({ altitude: value });
    expect(s.altitude).toBe(expected);
  });

  it.each(["abc", "NaN", "Infinity", "-Infinity", "1,5", true, "0x10"])("refuses altitude %j", async (value) => {
    expect400(await post(minimal({ altitude: value })), { altitude: ["A valid number is required."] });
  });
});

describe("display_timezone choices (§4.1)", () => {
  const VALID = ["UTC", "Etc/GMT", ...Array.from({ length: 12 }, (_, i) => `Etc/GMT+${i + 1}`), ...Array.from({ length: 14 }, (_, i) => `Etc/GMT-${i + 1}`)];

  it("has 28 valid choices, each accepted", async () => {
    expect(VALID).toHaveLength(28);
    for (const tz of VALID) {
      const r = await post(minimal({ display_timezone: tz }));
      expect(r.status, `${tz}: ${r.text}`).toBe(201);
      expect(r.json.display_timezone).toBe(tz);
    }
  });

  it.each(["Europe/Athens", "Etc/GMT+13", "Etc/GMT-15", "Etc/GMT+0", "Etc/GMT-0", "utc", "GMT", "etc/gmt", "Etc/GMT+01", "+02:00"])(
    "refuses %s", async (tz) => {
      expect400(await post(minimal({ display_timezone: tz })), { display_timezone: [`"${tz}" is not a valid choice.`] });
    });

  it("refuses an empty display_timezone as not a valid choice", async () => {
    const r = await post(minimal({ display_timezone: "" }));
    expect(r.status).toBe(400);
    expect(Object.keys(r.json)).toEqual(["display_timezone"]);
  });
});

describe("owner and references (§1.2, §4.1)", () => {
  it("accepts an organization or a person as owner", async () => {
    const p = await f.person("Antonis", "Christofides");
    expect((await create({ owner: p })).owner).toBe(p);
    expect((await create({ owner: String(owner) })).owner).toBe(owner);
  });

  it("accepts { id } objects for the owner and for lists, using only the id", async () => {
    const u = await f.user();
    const t = await f.stationType();
    const s = await create({ owner: { id: owner, name: "ignored" }, maintainers: [{ id: u.id }], stype: [{ id: t, descr: "x" }], data_viewers: [{ id: u.id }] });
    expect(s).toMatchObject({ owner, maintainers: [u.id], stype: [t], data_viewers: [u.id] });
    const org = await http.get(`/api/organizations/${owner}/`);
    expect(org.json.name).toBe("Owner Org");
  });

  it("refuses an unknown owner id", async () => {
    expect400(await post(minimal({ owner: 999999 })), { owner: ['Invalid pk "999999" - object does not exist.'] });
    expect400(await postForm({ geom: "POINT (21 39)", owner: "999999" }), { owner: ['Invalid pk "999999" - object does not exist.'] });
  });

  it.each([["abc", "str"], [1.5, "float"], [true, "bool"], [[1], "list"]])("refuses owner %j: Incorrect type, received %s", async (value, type) => {
    expect400(await post(minimal({ owner: value })), { owner: [`Incorrect type. Expected pk value, received ${type}.`] });
  });

  it("refuses a non-numeric owner in a form body as a str", async () => {
    expect400(await postForm({ geom: "POINT (21 39)", owner: "abc" }), { owner: ["Incorrect type. Expected pk value, received str."] });
  });

  it.each(["maintainers", "data_viewers"])("refuses unknown user ids in %s", async (field) => {
    expect400(await post(minimal({ [field]: [999999] })), { [field]: ['Invalid pk "999999" - object does not exist.'] });
  });

  it("refuses unknown station type ids in stype", async () => {
    expect400(await post(minimal({ stype: [999999] })), { stype: ['Invalid pk "999999" - object does not exist.'] });
  });

  it.each([["3", "str"], [3, "int"], [true, "bool"]])("refuses maintainers %j: Expected a list, got %s", async (value, type) => {
    expect400(await post(minimal({ maintainers: value })), { maintainers: [`Expected a list of items but got type "${type}".`] });
  });

  it("refuses a wrong type inside a list", async () => {
    expect400(await post(minimal({ stype: ["abc"] })), { stype: ["Incorrect type. Expected pk value, received str."] });
  });

  it("lists maintainers, data viewers and station types in ascending id order", async () => {
    const a = await f.user();
    const b = await f.user();
    const t1 = await f.stationType();
    const t2 = await f.stationType();
    const s = await create({ maintainers: [b.id, a.id], data_viewers: [b.id, a.id], stype: [t2, t1] });
    expect(s).toMatchObject({ maintainers: [a.id, b.id], data_viewers: [a.id, b.id], stype: [t1, t2] });
  });

  it("reads repeated keys of a form body as a list", async () => {
    const a = await f.user();
    const b = await f.user();
    const t1 = await f.stationType();
    const r = await postForm([["geom", "POINT (21 39)"], ["owner", String(owner)], ["maintainers", String(b.id)], ["maintainers", String(a.id)],
      ["stype", String(t1)], ["data_viewers", String(a.id)]]);
    expect(r.status, r.text).toBe(201);
    expect(r.json).toMatchObject({ maintainers: [a.id, b.id], stype: [t1], data_viewers: [a.id] });
  });

  it("reads one empty form value as the empty list (extension)", async () => {
    const a = await f.user();
    const s = await create({ maintainers: [a.id], data_viewers: [a.id] });
    const r = await http.patch(`/api/stations/${s.id}/`, { form: { maintainers: "", data_viewers: "" }, token: admin.token });
    expect(r.status, r.text).toBe(200);
    expect(r.json).toMatchObject({ maintainers: [], data_viewers: [] });
    const c = await postForm({ geom: "POINT (21 39)", owner: String(owner), stype: "" });
    expect(c.status, c.text).toBe(201);
    expect(c.json.stype).toEqual([]);
  });

  it("refuses unknown ids in a repeated form list", async () => {
    const a = await f.user();
    expect400(await postForm([["geom", "POINT (21 39)"], ["owner", String(owner)], ["maintainers", String(a.id)], ["maintainers", "999999"]]),
      { maintainers: ['Invalid pk "999999" - object does not exist.'] });
  });
});

describe("geometry (§4.2)", () => {
  const R = 6378137;
  const fromMercator = (x: number, y: number) => [(x / R) * (180 / Math.PI), (2 * Math.atan(Math.exp(y / R)) - Math.PI / 2) * (180 / Math.PI)];
  const GGRS87 = "+proj=tmerc +lat_0=0 +lon_0=24 +k=0.9996 +x_0=500000 +y_0=0 +ellps=GRS80 +towgs84=-199.87,74.79,246.62,0,0,0,0 +units=m +no_defs";

  it.each([
    ["POINT(20.94565 39.12102)", "SRID=4326;POINT (20.94565 39.12102)"],
    ["POINT (21 39)", "SRID=4326;POINT (21 39)"],
    ["SRID=4326;POINT (21 39)", "SRID=4326;POINT (21 39)"],
    ["point(21 39)", "SRID=4326;POINT (21 39)"],
    ["Point (21 39)", "SRID=4326;POINT (21 39)"],
    ["  POINT  (  21.5 \t 39.25  )  ", "SRID=4326;POINT (21.5 39.25)"],
    ["POINT\n(21 39)", "SRID=4326;POINT (21 39)"],
    ["SRID=4326; POINT (21 39)", "SRID=4326;POINT (21 39)"],
    ["SRID=4326 ; POINT (21 39)", "SRID=4326;POINT (21 39)"],
    ["POINT (+2.1e1 -3.9E1)", "SRID=4326;POINT (21 -39)"],
    ["POINT (21.000 39.5000)", "SRID=4326;POINT (21 39.5)"],
    ["POINT (0.0000001 -0.00000025)", "SRID=4326;POINT (0.0000001 -0.00000025)"],
    ["POINT (24.001723560948786 38.85140820210843)", "SRID=4326;POINT (24.001723560948786 38.85140820210843)"],
    ["POINT (-180 -90)", "SRID=4326;POINT (-180 -90)"],
    ["POINT (180 90)", "SRID=4326;POINT (180 90)"],
  ])("reads %j as %s with original_srid 4326", async (input, output) => {
    const s = await create({ geom: input });
    expect(s.geom).toBe(output);
    expect(s.original_srid).toBe(4326);
  });

  it("transforms SRID=2100 (Greek Grid) to WGS84 and sets original_srid 2100", async () => {
    const s = await create({ geom: "SRID=2100;POINT (250000 4300000)" });
    const [lon, lat] = coords(s.geom as string);
    const [elon, elat] = proj4(GGRS87, "EPSG:4326", [250000, 4300000]);
    expect(Math.abs(lon - elon)).toBeLessThan(1e-4);
    expect(Math.abs(lat - elat)).toBeLessThan(1e-4);
    expect(s.original_srid).toBe(2100);
    expect((await http.get(`/api/stations/${s.id}/`)).json.geom).toBe(s.geom);
  });

  it("transforms SRID=3857 (web Mercator)", async () => {
    const s = await create({ geom: "SRID=3857;POINT (2338000 4730000)" });
    const [lon, lat] = coords(s.geom as string);
    const [elon, elat] = fromMercator(2338000, 4730000);
    expect(Math.abs(lon - elon)).toBeLessThan(1e-7);
    expect(Math.abs(lat - elat)).toBeLessThan(1e-7);
    expect(s.original_srid).toBe(3857);
  });

  it("transforms SRID=900913 like 3857", async () => {
    const s = await create({ geom: "SRID=900913;POINT (2338000 4730000)" });
    const [lon, lat] = coords(s.geom as string);
    const [elon, elat] = fromMercator(2338000, 4730000);
    expect(Math.abs(lon - elon)).toBeLessThan(1e-6);
    expect(Math.abs(lat - elat)).toBeLessThan(1e-6);
    expect(s.original_srid).toBe(900913);
  });

  it.each([[32634, 500000, 4300000, 21], [32601, 500000, 100000, -177], [32760, 500000, 5000000, 177], [25835, 500000, 4300000, 27]])(
    "transforms the UTM zone SRID=%d", async (srid, x, y, centralMeridian) => {
      const s = await create({ geom: `SRID=${srid};POINT (${x} ${y})` });
      const [lon, lat] = coords(s.geom as string);
      const south = srid >= 32701 && srid <= 32760;
      const etrs89 = srid >= 25828 && srid <= 25838;
      const zone = etrs89 ? srid - 25800 : srid % 100;
      const def = `+proj=utm +zone=${zone}${south ? " +south" : ""} +${etrs89 ? "ellps=GRS80 +towgs84=0,0,0,0,0,0,0" : "datum=WGS84"} +units=m +no_defs`;
      const [elon, elat] = proj4(def, "EPSG:4326", [x, y]);
      expect(Math.abs(lon - centralMeridian)).toBeLessThan(1e-9);
      expect(Math.abs(lon - elon)).toBeLessThan(1e-6);
      expect(Math.abs(lat - elat)).toBeLessThan(1e-6);
      expect(s.original_srid).toBe(srid);
    });

  it("accepts the other listed SRIDs (4258, 4121, 3035)", async () => {
    for (const [srid, g] of [[4258, "POINT (21 39)"], [4121, "POINT (21 39)"], [3035, "POINT (5500000 1800000)"]] as const) {
      const s = await create({ geom: `SRID=${srid};${g}` });
      const [lon, lat] = coords(s.geom as string);
      expect(lon).toBeGreaterThan(15);
      expect(lon).toBeLessThan(30);
      expect(lat).toBeGreaterThan(30);
      expect(lat).toBeLessThan(45);
      expect(s.original_srid).toBe(srid);
    }
  });

  it("stores original_srid as given when sent with geom", async () => {
    const s = await create({ geom: "SRID=3857;POINT (2338000 4730000)", original_srid: 2100 });
    expect(s.original_srid).toBe(2100);
    const n = await create({ geom: "SRID=2100;POINT (250000 4300000)", original_srid: null });
    expect(n.original_srid).toBeNull();
    const form = await postForm({ geom: "SRID=2100;POINT (250000 4300000)", owner: String(owner), original_srid: "" });
    expect(form.status, form.text).toBe(201);
    expect(form.json.original_srid).toBeNull();
  });

  it("refuses a non-integer original_srid", async () => {
    expect400(await post(minimal({ original_srid: "abc" })), { original_srid: ["A valid integer is required."] });
    expect400(await post(minimal({ original_srid: 1.5 })), { original_srid: ["A valid integer is required."] });
  });

  it("sets original_srid from a PATCHed geom, and keeps the geom when only original_srid is PATCHed", async () => {
    const s = await create({ geom: "SRID=2100;POINT (250000 4300000)" });
    const a = await http.patch(`/api/stations/${s.id}/`, { json: { geom: "POINT (22 38)" }, token: admin.token });
    expect(a.json).toMatchObject({ geom: "SRID=4326;POINT (22 38)", original_srid: 4326 });
    const b = await http.patch(`/api/stations/${s.id}/`, { json: { original_srid: 2100 }, token: admin.token });
    expect(b.json).toMatchObject({ geom: "SRID=4326;POINT (22 38)", original_srid: 2100 });
    const c = await http.patch(`/api/stations/${s.id}/`, { json: { original_srid: null }, token: admin.token });
    expect(c.json.original_srid).toBeNull();
    const d = await http.patch(`/api/stations/${s.id}/`, { json: { name: "renamed" }, token: admin.token });
    expect(d.json.original_srid).toBeNull();
  });

  it.each([9999, 4327])("refuses the unknown SRID %d", async (srid) => {
    expect400(await post(minimal({ geom: `SRID=${srid};POINT (21 39)` })), { geom: [`Unknown SRID ${srid}.`] });
  });

  it.each(["POINT (181 0)", "POINT (-180.000001 0)", "POINT (0 90.5)", "POINT (0 -91)", "SRID=3857;POINT (30000000 0)"])(
    "refuses %s as out of range", async (g) => {
      expect400(await post(minimal({ geom: g })), { geom: [OUT_OF_RANGE] });
    });

  it.each([
    "LINESTRING (21 39, 22 40)", "POLYGON ((20 39, 21 39, 21 40, 20 39))", "MULTIPOINT ((21 39))", "POINT Z (21 39 100)", "POINT (21 39 100)",
    "POINT M (21 39 1)", "POINT EMPTY", "POINT (21)", "POINT (21 39", "POINT 21 39", "POINT (21, 39)", "POINT (abc def)",
    "0101000020E6100000000000000000354000000000008043400", "0101000000000000000000354000000000008043400",
    '{"type":"Point","coordinates":[21,39]}', "garbage", "SRID=abc;POINT (21 39)", "SRID=4326POINT (21 39)", "POINT (21 39) extra",
    "POINT (NaN 39)", "POINT (Infinity 39)", "POINT (0x15 39)",
  ])("refuses %j as an invalid geometry", async (g) => {
    expect400(await post(minimal({ geom: g })), { geom: [INVALID_GEOM] });
  });

  it("refuses a geometry of the wrong JSON type without a 500", async () => {
    for (const g of [21, ["POINT (21 39)"], { type: "Point", coordinates: [21, 39] }, true]) {
      const r = await post(minimal({ geom: g }));
      expect(r.status, JSON.stringify(g)).toBe(400);
      expect(Object.keys(r.json)).toEqual(["geom"]);
    }
  });
});

describe("unknown and read-only fields (§1.2)", () => {
  it("ignores unknown fields and read-only fields on create", async () => {
    const r = await post(minimal({ id: 123456, pk: 123456, last_modified: "2000-01-01T00:00:00.000Z", last_update: "2000-01-01T00:00:00Z",
      copyright_holder: "Someone", copyright_years: "2020", creator: 1 }));
    expect(r.status, r.text).toBe(201);
    expect(r.json.id).not.toBe(123456);
    expect(r.json.last_update).toBeNull();
    expect(r.json.last_modified).not.toBe("2000-01-01T00:00:00.000Z");
    expect(Object.keys(r.json)).toEqual(FIELDS);
  });

  it("ignores read-only fields on PATCH", async () => {
    const s = await create();
    const r = await http.patch(`/api/stations/${s.id}/`, { json: { id: s.id + 1000, last_update: "2000-01-01T00:00:00Z", name: "patched" }, token: admin.token });
    expect(r.status).toBe(200);
    expect(r.json).toMatchObject({ id: s.id, last_update: null, name: "patched" });
  });
});

describe("PUT stations/{sid}/ (§1.3)", () => {
  it("requires geom and owner", async () => {
    const s = await create();
    const r = await http.put(`/api/stations/${s.id}/`, { json: { name: "only a name" }, token: admin.token });
    expect(r.status).toBe(400);
    expect(r.json).toEqual({ geom: ["This field is required."], owner: ["This field is required."] });
  });

  it("replaces the fields sent and keeps every omitted optional field", async () => {
    const u = await f.user();
    const v = await f.user();
    const t = await f.stationType();
    const s = await create({ name: "Before", code: "C1", remarks: "R", altitude: 5, display_timezone: "Etc/GMT-2", start_date: "2000-01-01",
      end_date: "2001-01-01", overseer: "O", maintainers: [u.id], stype: [t], data_viewers: [v.id], geom: "SRID=2100;POINT (250000 4300000)" });
    const other = await f.person("A", "B");
    const r = await http.put(`/api/stations/${s.id}/`, { json: { geom: "POINT (22 38)", owner: other, name: "After" }, token: admin.token });
    expect(r.status, r.text).toBe(200);
    expect(r.json).toEqual({ ...s, last_modified: r.json.last_modified, name: "After", geom: "SRID=4326;POINT (22 38)", owner: other, original_srid: 4326 });
  });

  it("keeps omitted lists and the time zone on a form PUT", async () => {
    const u = await f.user();
    const t = await f.stationType();
    const s = await create({ maintainers: [u.id], stype: [t], data_viewers: [u.id], display_timezone: "Etc/GMT+5" });
    const r = await http.put(`/api/stations/${s.id}/`, { form: { geom: "POINT (21 39)", owner: String(owner), name: "Form PUT" }, token: admin.token });
    expect(r.status, r.text).toBe(200);
    expect(r.json).toMatchObject({ name: "Form PUT", maintainers: [u.id], stype: [t], data_viewers: [u.id], display_timezone: "Etc/GMT+5" });
  });

  it("empties a list with one empty form value on PUT", async () => {
    const u = await f.user();
    const s = await create({ maintainers: [u.id] });
    const r = await http.put(`/api/stations/${s.id}/`, { form: { geom: "POINT (21 39)", owner: String(owner), maintainers: "" }, token: admin.token });
    expect(r.json.maintainers).toEqual([]);
  });

  it("validates like POST", async () => {
    const s = await create();
    expect400(await http.put(`/api/stations/${s.id}/`, { json: minimal({ geom: "SRID=9999;POINT (1 2)", code: "c".repeat(51) }), token: admin.token }),
      { geom: ["Unknown SRID 9999."], code: ["Ensure this field has no more than 50 characters."] });
  });

  it("answers 404 for a missing station", async () => {
    const r = await http.put("/api/stations/987654/", { json: minimal(), token: admin.token });
    expect(r.status).toBe(404);
    expect(r.json).toEqual({ detail: "Not found." });
  });

  it("ignores list parameters on PUT, PATCH and DELETE (§4.3)", async () => {
    const s = await create({ name: "Findable" });
    expect((await http.put(`/api/stations/${s.id}/?q=nomatch&bbox=0,0,1,1`, { json: minimal(), token: admin.token })).status).toBe(200);
    expect((await http.patch(`/api/stations/${s.id}/?q=nomatch&gentity_id=1`, { json: {}, token: admin.token })).status).toBe(200);
    expect((await http.get(`/api/stations/${s.id}/?q=nomatch&sort=-name`)).status).toBe(200);
    expect((await http.delete(`/api/stations/${s.id}/?q=nomatch`, { token: admin.token })).status).toBe(204);
  });
});

describe("PATCH stations/{sid}/ (§1.3)", () => {
  it("writes only the fields sent", async () => {
    const u = await f.user();
    const s = await create({ name: "P", code: "PC", maintainers: [u.id], altitude: 3 });
    const r = await http.patch(`/api/stations/${s.id}/`, { json: { code: "NEW" }, token: admin.token });
    expect(r.status, r.text).toBe(200);
    expect(r.json).toEqual({ ...s, code: "NEW", last_modified: r.json.last_modified });
  });

  it("validates only the fields sent (no required-field errors)", async () => {
    const s = await create();
    expect((await http.patch(`/api/stations/${s.id}/`, { json: { name: "x" }, token: admin.token })).status).toBe(200);
    expect400(await http.patch(`/api/stations/${s.id}/`, { json: { end_date: "2020-02-30" }, token: admin.token }),
      { end_date: ["Date has wrong format. Use one of these formats instead: YYYY-MM-DD."] });
    expect400(await http.patch(`/api/stations/${s.id}/`, { form: { owner: "999999" }, token: admin.token }),
      { owner: ['Invalid pk "999999" - object does not exist.'] });
  });

  it("changes nothing when a PATCH fails", async () => {
    const s = await create({ name: "Stable" });
    await http.patch(`/api/stations/${s.id}/`, { json: { name: "Changed", geom: "garbage" }, token: admin.token });
    expect((await http.get(`/api/stations/${s.id}/`)).json).toEqual(s);
  });

  it("sets last_modified to the current time on every change", async () => {
    const s = await create();
    await new Promise((r) => setTimeout(r, 20));
    const a = await http.patch(`/api/stations/${s.id}/`, { json: { remarks: "one" }, token: admin.token });
    expect(a.json.last_modified).toMatch(LAST_MODIFIED);
    expect(Date.parse(a.json.last_modified)).toBeGreaterThan(Date.parse(s.last_modified as string));
    await new Promise((r) => setTimeout(r, 20));
    const b = await http.put(`/api/stations/${s.id}/`, { json: minimal({ remarks: "two" }), token: admin.token });
    expect(Date.parse(b.json.last_modified)).toBeGreaterThan(Date.parse(a.json.last_modified));
    expect((await http.get(`/api/stations/${s.id}/`)).json.last_modified).toBe(b.json.last_modified);
  });
});

describe("methods not allowed on station paths (§1.1, §1.7)", () => {
  it.each([
    ["PUT", "/api/stations/", "GET, HEAD, POST, OPTIONS"],
    ["DELETE", "/api/stations/", "GET, HEAD, POST, OPTIONS"],
    ["POST", "/api/stations/STATION/", "GET, HEAD, PUT, PATCH, DELETE, OPTIONS"],
    ["POST", "/api/stations/csv/", "GET, HEAD, OPTIONS"],
    ["DELETE", "/api/stations/geojson/", "GET, HEAD, OPTIONS"],
  ])("answers %s %s with 405 and Allow: %s, before credentials", async (method, path, allow) => {
    const s = await create();
    const p = path.replace("STATION", String(s.id));
    for (const t of [undefined, admin.token]) {
      const r = await http.request(method, p, { json: {}, token: t });
      expect(r.status, `${method} ${p}`).toBe(405);
      expect(r.json).toEqual({ detail: `Method "${method}" not allowed.` });
      expect(r.headers.get("allow")).toBe(allow);
    }
  });
});

describe("body reading errors (§1.2, §1.6)", () => {
  it("answers 415 for text/plain with the exact body", async () => {
    const r = await http.post("/api/stations/", { body: "name=x", headers: { "Content-Type": "text/plain" }, token: admin.token });
    expect(r.status).toBe(415);
    expect(r.text).toBe('{"detail":"Unsupported media type \\"text/plain\\" in request."}');
    const s = await create();
    const p = await http.patch(`/api/stations/${s.id}/`, { body: "name=x", headers: { "Content-Type": "application/xml" }, token: admin.token });
    expect(p.status).toBe(415);
    expect(p.json).toEqual({ detail: 'Unsupported media type "application/xml" in request.' });
  });

  it("reads an empty JSON body as no fields, as DRF does", async () => {
    const json = await http.post("/api/stations/", { body: "", headers: { "Content-Type": "application/json" }, token: admin.token });
    const form = await http.post("/api/stations/", { body: "", headers: { "Content-Type": "application/x-www-form-urlencoded" }, token: admin.token });
    expect({ status: json.status, body: json.json }).toEqual({ status: 400, body: form.json });
    expect(json.json).toEqual({ geom: ["This field is required."], owner: ["This field is required."] });
  });

  it("answers a JSON parse error with 400", async () => {
    const r = await http.post("/api/stations/", { body: '{"name": ', headers: { "Content-Type": "application/json" }, token: admin.token });
    expect(r.status).toBe(400);
    expect(Object.keys(r.json)).toEqual(["detail"]);
    expect(r.json.detail).toMatch(/^JSON parse error - ./);
  });

  it.each([["[]", "list"], ['["a"]', "list"], ['"x"', "str"], ["1", "int"], ["1.5", "float"], ["true", "bool"], ["false", "bool"], ["null", "NoneType"]])(
    "answers the JSON body %s with Expected a dictionary, but got %s", async (body, type) => {
      const r = await http.post("/api/stations/", { body, headers: { "Content-Type": "application/json" }, token: admin.token });
      expect(r.status).toBe(400);
      expect(r.text).toBe(`{"non_field_errors":["Invalid data. Expected a dictionary, but got ${type}."]}`);
    });

  it("answers the same on PUT and PATCH", async () => {
    const s = await create();
    for (const method of ["put", "patch"] as const) {
      const r = await http[method](`/api/stations/${s.id}/`, { body: "[1]", headers: { "Content-Type": "application/json" }, token: admin.token });
      expect(r.status).toBe(400);
      expect(r.json).toEqual({ non_field_errors: ["Invalid data. Expected a dictionary, but got list."] });
    }
  });
});

describe("creator and order of checks (§1.7, §15)", () => {
  it("lets the creator edit the station, then PATCH it again", async () => {
    const adder = await f.user({ canAddStations: true });
    const s = await create({ name: "Mine" }, adder.token);
    const a = await http.put(`/api/stations/${s.id}/`, { json: minimal({ name: "Mine 2" }), token: adder.token });
    expect(a.status, a.text).toBe(200);
    const b = await http.patch(`/api/stations/${s.id}/`, { json: { code: "M2" }, token: adder.token });
    expect(b.status, b.text).toBe(200);
    expect(b.json).toMatchObject({ name: "Mine 2", code: "M2" });
    const other = await f.user({ canAddStations: true });
    const c = await http.patch(`/api/stations/${s.id}/`, { json: { code: "X" }, token: other.token });
    expect(c.status).toBe(403);
    expect(c.json).toEqual(FORBIDDEN);
    expect((await http.delete(`/api/stations/${s.id}/`, { token: adder.token })).status).toBe(204);
  });

  it("answers an anonymous DELETE of a missing station with 404", async () => {
    const r = await http.delete("/api/stations/987654/");
    expect(r.status).toBe(404);
    expect(r.json).toEqual({ detail: "Not found." });
  });

  it("answers an anonymous PUT/PATCH of a missing station with 404", async () => {
    expect((await http.put("/api/stations/987654/", { json: {} })).status).toBe(404);
    expect((await http.patch("/api/stations/987654/", { body: "x", headers: { "Content-Type": "text/plain" } })).status).toBe(404);
  });

  it("answers an anonymous POST with an invalid body with 401", async () => {
    for (const options of [{ json: {} }, { json: [1] }, { body: "{bad", headers: { "Content-Type": "application/json" } }, { body: "x", headers: { "Content-Type": "text/plain" } }]) {
      const r = await http.post("/api/stations/", options);
      expect(r.status, JSON.stringify(options)).toBe(401);
      expect(r.json).toEqual(UNAUTHENTICATED);
      expect(r.headers.get("www-authenticate")).toBe("Token");
    }
  });

  it("answers 403 before reading the body for a user without the permission", async () => {
    const u = await f.user();
    const r = await http.post("/api/stations/", { body: "{bad", headers: { "Content-Type": "application/json" }, token: u.token });
    expect(r.status).toBe(403);
    expect(r.json).toEqual(FORBIDDEN);
    const s = await create();
    const p = await http.patch(`/api/stations/${s.id}/`, { body: "x", headers: { "Content-Type": "text/plain" }, token: u.token });
    expect(p.status).toBe(403);
  });

  it("answers 415 and parse errors before field validation for an editor", async () => {
    const r = await http.post("/api/stations/", { body: "{}", headers: { "Content-Type": "text/csv" }, token: admin.token });
    expect(r.status).toBe(415);
  });
});

describe("DELETE stations/{sid}/ (§4.3)", () => {
  it("answers 204 with an empty body and cascades to groups, series, records, events, files and images with their bytes", async () => {
    const s = await create({ name: "Doomed" });
    const keep = await create({ name: "Survivor" });
    const g = await f.group(s.id);
    const t = await f.series(g, { type: "Initial" });
    const t2 = await f.series(g, { type: "Checked", publiclyAvailable: false });
    await f.addRecords(t, [["2020-01-01T00:00:00Z", 1], ["2020-01-01T00:10:00Z", 2]]);
    await f.addRecords(t2, [["2020-01-01T00:00:00Z", 1]]);
    const e = await f.event(s.id, { date: "2020-01-01" });
    const fileId = await f.attachment("files", s.id, { fileName: "doc.pdf", bytes: "%PDF-1.4 doomed", descr: "Doc" });
    const imageId = await f.attachment("images", s.id, { fileName: "pic.png", bytes: "png-bytes" });
    const keptFile = await f.attachment("files", keep.id, { fileName: "keep.pdf", bytes: "%PDF keep", descr: "Keep" });
    // and one uploaded through the API
    const form = new FormData();
    form.append("content", new Blob(["uploaded bytes"]), "uploaded.txt");
    form.append("descr", "Uploaded");
    const up = await http.post(`/api/stations/${s.id}/files/`, { body: form, token: admin.token });
    expect(up.status, up.text).toBe(201);

    const stored = async (kind: "files" | "images", id: number) =>
      (kind === "files" ? await db().prisma.gentityFile.findUnique({ where: { id } }) : await db().prisma.gentityImage.findUnique({ where: { id } }))?.storedName;
    const fileName = (await stored("files", fileId))!;
    const imageName = (await stored("images", imageId))!;
    const upName = (await stored("files", up.json.id))!;
    const keptName = (await stored("files", keptFile))!;
    for (const n of [fileName, imageName, upName, keptName]) expect(existsSync(join(server.mediaDir, n)), n).toBe(true);
    expect((await http.get(`/api/stations/${s.id}/files/${fileId}/content/`)).status).toBe(200);

    const r = await http.delete(`/api/stations/${s.id}/`, { token: admin.token });
    expect(r.status).toBe(204);
    expect(r.text).toBe("");

    expect((await http.get(`/api/stations/${s.id}/`)).status).toBe(404);
    for (const path of [`timeseriesgroups/${g}/`, `timeseriesgroups/${g}/timeseries/${t}/`, `timeseries/${t}/`, `events/${e}/`, `files/${fileId}/`,
      `files/${fileId}/content/`, `files/${up.json.id}/content/`, `images/${imageId}/content/`, `timeseriesgroups/${g}/timeseries/${t}/data/`]) {
      const x = await http.get(`/api/stations/${s.id}/${path}`);
      expect(x.status, path).toBe(404);
    }
    const p = db().prisma;
    expect(await p.timeseriesGroup.count({ where: { id: g } })).toBe(0);
    expect(await p.timeseries.count({ where: { id: { in: [t, t2] } } })).toBe(0);
    expect(await f.storedRecordCount(t, t2)).toBe(0);
    expect(await p.event.count({ where: { id: e } })).toBe(0);
    expect(await p.gentityFile.count({ where: { stationId: s.id } })).toBe(0);
    expect(await p.gentityImage.count({ where: { stationId: s.id } })).toBe(0);
    for (const n of [fileName, imageName, upName]) expect(existsSync(join(server.mediaDir, n)), `${n} removed`).toBe(false);
    expect(existsSync(join(server.mediaDir, keptName))).toBe(true);
    expect((await http.get(`/api/stations/${keep.id}/files/${keptFile}/content/`)).text).toBe("%PDF keep");
  });

  it("does not touch the owner, users or lookups", async () => {
    const u = await f.user();
    const t = await f.stationType();
    const s = await create({ maintainers: [u.id], stype: [t] });
    expect((await http.delete(`/api/stations/${s.id}/`, { token: admin.token })).status).toBe(204);
    expect((await http.get(`/api/organizations/${owner}/`)).status).toBe(200);
    expect((await http.get(`/api/stationtypes/${t}/`)).status).toBe(200);
    expect((await http.get("/api/auth/user/", { token: u.token })).status).toBe(200);
  });

  it("answers 404 on a second DELETE", async () => {
    const s = await create();
    expect((await http.delete(`/api/stations/${s.id}/`, { token: admin.token })).status).toBe(204);
    expect((await http.delete(`/api/stations/${s.id}/`, { token: admin.token })).status).toBe(404);
  });

  it("accepts a form content type on DELETE (§1.2)", async () => {
    const s = await create();
    const r = await http.delete(`/api/stations/${s.id}/`, { headers: { "Content-Type": "application/x-www-form-urlencoded" }, token: admin.token });
    expect(r.status).toBe(204);
  });

  it("survives a missing media file when deleting", async () => {
    const s = await create();
    const id = await f.attachment("files", s.id, { fileName: "x.pdf", bytes: "x", descr: "x" });
    const name = (await db().prisma.gentityFile.findUnique({ where: { id } }))!.storedName;
    rmSync(join(server.mediaDir, name));
    expect((await http.delete(`/api/stations/${s.id}/`, { token: admin.token })).status).toBe(204);
  });
});
