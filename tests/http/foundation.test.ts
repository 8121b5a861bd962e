import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { api, rawGet } from "@/tests/support/http";
import * as f from "@/tests/support/fixtures";
import { startServer, type TestServer } from "@/tests/support/server";

let server: TestServer;
let http: ReturnType<typeof api>;

beforeAll(async () => {
  // example.org: absolute URLs follow the request's host (api.md §1.4), one of the allowed ones.
  server = await startServer({ env: { ENHYDRIS_PAGE_SIZE: "3", ENHYDRIS_MAX_PAGE_SIZE: "5", ENHYDRIS_ALLOWED_HOSTS: "127.0.0.1,example.org" } });
  http = api(server.url);
});
afterAll(() => server?.stop());

describe("routing conventions (api.md §1.1)", () => {
  it("redirects a path without its trailing slash with 308, keeping the query", async () => {
    const r = await http.get("/api/stations?q=arta&page=2");
    expect(r.status).toBe(308);
    expect(r.headers.get("location")).toBe("/api/stations/?q=arta&page=2");
  });

  it("keeps the method on the redirect of a POST (308, not 301)", async () => {
    const r = await http.post("/api/stations", { form: { name: "x" } });
    expect(r.status).toBe(308);
    expect(r.headers.get("location")).toBe("/api/stations/");
  });

  it("redirects unknown paths without a slash too (the slash rule comes first)", async () => {
    const r = await http.get("/api/nope");
    expect(r.status).toBe(308);
  });

  it.each(["/api/nope/", "/api/Stations/", "/api/stations/abc/", "/api/stations/1.json/", "/api/stations/1/nothing/", "/api/stations/-1/"])(
    "answers 404 JSON for %s", async (path) => {
      const r = await http.get(path);
      expect(r.status).toBe(404);
      expect(r.headers.get("content-type")).toBe("application/json");
      expect(r.text).toBe('{"detail":"Not found."}');
    });

  it("answers 405 with Allow in the spec's order and a JSON body", async () => {
    const r = await http.put("/api/variables/");
    expect(r.status).toBe(405);
    expect(r.headers.get("allow")).toBe("GET, HEAD, POST, OPTIONS");
    expect(r.json).toEqual({ detail: 'Method "PUT" not allowed.' });
    const content = await http.post("/api/stations/1/files/1/content/");
    expect(content.status).toBe(405);
    expect(content.headers.get("allow")).toBe("GET, HEAD, OPTIONS");
  });

  it("answers OPTIONS with 204 and Allow, without looking up objects", async () => {
    const r = await http.options("/api/stations/999999/events/");
    expect(r.status).toBe(204);
    expect(r.text).toBe("");
    expect(r.headers.get("allow")).toMatch(/^GET, HEAD.*OPTIONS$/);
  });

  it("answers HEAD like GET without a body", async () => {
    const get = await http.get("/api/variables/");
    const head = await http.head("/api/variables/");
    expect(head.status).toBe(200);
    expect(head.text).toBe("");
    expect(head.headers.get("content-type")).toBe(get.headers.get("content-type"));
  });

  it("ignores a form content type on GET", async () => {
    const r = await http.get("/api/variables/", { headers: { "Content-Type": "application/x-www-form-urlencoded" } });
    expect(r.status).toBe(200);
  });

  it("lists the top-level resources at the API root with absolute URLs", async () => {
    const r = await rawGet(server.url, "/api/", { Host: "example.org" });
    expect(r.status).toBe(200);
    expect(Object.keys(r.json)).toEqual(["stations", "gareas", "organizations", "persons", "eventtypes", "variables", "units", "stationtypes", "filetypes"]);
    expect(r.json.stations).toBe("http://example.org/api/stations/");
  });
});

describe("pagination (api.md §1.5)", () => {
  let names: string[];
  beforeAll(async () => {
    names = ["V-a", "V-b", "V-c", "V-d", "V-e", "V-f", "V-g"];
    for (const n of [...names].reverse()) await f.variable(n);
  });

  it("gives page 1 with count and a next link without touching other parameters", async () => {
    const r = await http.get("/api/variables/?x=1&x=2&y=%C3%A9");
    expect(r.status).toBe(200);
    expect(r.json.count).toBe(7);
    expect(r.json.results.map((v: { descr: string }) => v.descr)).toEqual(["V-a", "V-b", "V-c"]);
    expect(r.json.next).toBe(`${server.url}/api/variables/?x=1&x=2&y=%C3%A9&page=2`);
    expect(r.json.previous).toBeNull();
  });

  it("links page 2 back to page 1 without a page parameter", async () => {
    const r = await http.get("/api/variables/?page=2&q=z");
    expect(r.json.previous).toBe(`${server.url}/api/variables/?q=z`);
    expect(r.json.next).toBe(`${server.url}/api/variables/?page=3&q=z`);
  });

  it("accepts page=last", async () => {
    const r = await http.get("/api/variables/?page=last");
    expect(r.status).toBe(200);
    expect(r.json.results.map((v: { descr: string }) => v.descr)).toEqual(["V-g"]);
    expect(r.json.next).toBeNull();
    expect(r.json.previous).toBe(`${server.url}/api/variables/?page=2`);
  });

  it.each(["0", "-1", "abc", "4", "99", "1.5"])("refuses page=%s with Invalid page", async (page) => {
    const r = await http.get(`/api/variables/?page=${page}`);
    expect(r.status).toBe(404);
    expect(r.text).toBe('{"detail":"Invalid page."}');
  });

  it.each([["1", 1], ["2", 2], ["0", 3], ["-2", 3], ["abc", 3], ["", 3], ["99", 5]])("page_size=%s gives %d items", async (size, n) => {
    const r = await http.get(`/api/variables/?page_size=${size}`);
    expect(r.status).toBe(200);
    expect(r.json.results).toHaveLength(n);
  });

  it("gives page 1 of an empty list", async () => {
    const r = await http.get("/api/eventtypes/");
    expect(r.text).toBe('{"count":0,"next":null,"previous":null,"results":[]}');
  });
});

describe("stations (api.md §4)", () => {
  it("shows the station object with every field, in order", async () => {
    const owner = await f.organization("National Technical University", "NTUA");
    const maintainer = await f.user();
    const t1 = await f.stationType("Meteorological");
    const id = await f.station({
      name: "Komboti", code: "KMB", remarks: "Near Arta", originalSrid: 2100, altitude: 219, lon: 21.06071, lat: 39.09518,
      displayTimezone: "Etc/GMT-2", startDate: "2010-01-01", ownerId: owner, overseer: "Bilbo", maintainers: [maintainer.id], stype: [t1],
    });
    const g = await f.group(id);
    const t = await f.series(g);
    await f.addRecords(t, [["2018-12-09T11:10:00Z", 1], ["2018-12-31T22:00:00Z", 2]]);
    const r = await http.get(`/api/stations/${id}/`);
    expect(r.status).toBe(200);
    expect(Object.keys(r.json)).toEqual(["id", "last_update", "last_modified", "name", "code", "remarks", "original_srid", "altitude",
      "geom", "display_timezone", "start_date", "end_date", "owner", "overseer", "maintainers", "stype", "data_viewers"]);
    expect(r.json).toMatchObject({
      id, last_update: "2018-12-31T22:00:00Z", name: "Komboti", code: "KMB", remarks: "Near Arta", original_srid: 2100, altitude: 219,
      geom: "SRID=4326;POINT (21.06071 39.09518)", display_timezone: "Etc/GMT-2", start_date: "2010-01-01", end_date: null,
      owner, overseer: "Bilbo", maintainers: [maintainer.id], stype: [t1], data_viewers: [],
    });
    expect(r.json.last_modified).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    expect(r.text).not.toMatch(/": /);
  });

  it("answers 404 for a missing station", async () => {
    expect((await http.get("/api/stations/987654/")).status).toBe(404);
  });
});

describe("nested objects (api.md §1.1, §5–§10)", () => {
  let sid: number, other: number, gid: number, tid: number;
  beforeAll(async () => {
    sid = await f.station();
    other = await f.station();
    gid = await f.group(sid, { name: "Temperature", precision: 2, remarks: "Line1\nLine2" });
    tid = await f.series(gid, { type: "Regularized", timeStep: "10min" });
    await f.series(gid, { type: "Initial", timeStep: "10min", publiclyAvailable: false });
  });

  it("lists and shows groups", async () => {
    const list = await http.get(`/api/stations/${sid}/timeseriesgroups/`);
    expect(list.json.count).toBe(1);
    const g = list.json.results[0];
    expect(Object.keys(g)).toEqual(["id", "last_modified", "name", "hidden", "precision", "remarks", "gentity", "variable", "unit_of_measurement"]);
    expect(g).toMatchObject({ id: gid, name: "Temperature", hidden: false, precision: 2, remarks: "Line1\nLine2", gentity: sid });
    expect((await http.get(`/api/stations/${sid}/timeseriesgroups/${gid}/`)).json).toEqual(g);
  });

  it("lists time series by type, and shows one", async () => {
    const list = await http.get(`/api/stations/${sid}/timeseriesgroups/${gid}/timeseries/`);
    expect(list.json.results.map((t: { type: string }) => t.type)).toEqual(["Initial", "Regularized"]);
    const one = await http.get(`/api/stations/${sid}/timeseriesgroups/${gid}/timeseries/${tid}/`);
    expect(Object.keys(one.json)).toEqual(["id", "last_modified", "type", "time_step", "timeseries_group", "name", "publicly_available"]);
    expect(one.json).toMatchObject({ id: tid, type: "Regularized", time_step: "10min", timeseries_group: gid, name: "", publicly_available: true });
  });

  it("serves the singular alias timeseriesgroup", async () => {
    const r = await http.get(`/api/stations/${sid}/timeseriesgroup/${gid}/timeseries/${tid}/`);
    expect(r.status).toBe(200);
    expect(r.json.id).toBe(tid);
  });

  it("checks the whole chain of the path", async () => {
    for (const path of [
      `/api/stations/${other}/timeseriesgroups/${gid}/`,
      `/api/stations/${other}/timeseriesgroups/${gid}/timeseries/`,
      `/api/stations/${other}/timeseriesgroups/${gid}/timeseries/${tid}/`,
      `/api/stations/${sid}/timeseriesgroups/${gid + 1000}/timeseries/${tid}/`,
      `/api/stations/${other}/timeseries/${tid}/`,
      `/api/stations/999999/timeseriesgroups/`,
      `/api/stations/999999/files/`,
    ]) {
      const r = await http.get(path);
      expect(r.status, path).toBe(404);
      expect(r.json).toEqual({ detail: "Not found." });
    }
  });

  it("shows the older shape of a time series", async () => {
    const r = await http.get(`/api/stations/${sid}/timeseries/${tid}/`);
    expect(Object.keys(r.json)).toEqual(["id", "last_modified", "name", "hidden", "precision", "remarks", "gentity", "variable",
      "unit_of_measurement", "time_step", "timeseries_group"]);
    expect(r.json).toMatchObject({ id: tid, name: "Temperature", precision: 2, gentity: sid, time_step: "10min", timeseries_group: gid });
    const list = await http.get(`/api/stations/${sid}/timeseries/`);
    expect(list.json.count).toBe(2);
  });

  it("lists events by date descending, then id", async () => {
    const a = await f.event(sid, { date: "2020-05-01", user: "joe", report: "Replaced sensor" });
    const b = await f.event(sid, { date: "2021-01-01" });
    const c = await f.event(sid, { date: "2020-05-01" });
    const r = await http.get(`/api/stations/${sid}/events/`);
    expect(r.json.results.map((e: { id: number }) => e.id)).toEqual([b, a, c]);
    const one = await http.get(`/api/stations/${sid}/events/${a}/`);
    expect(Object.keys(one.json)).toEqual(["id", "last_modified", "date", "user", "report", "gentity", "type"]);
    expect(one.json).toMatchObject({ id: a, date: "2020-05-01", user: "joe", report: "Replaced sensor", gentity: sid });
    expect((await http.get(`/api/stations/${other}/events/${a}/`)).status).toBe(404);
  });

  it("serves files with their content", async () => {
    const id = await f.attachment("files", sid, { fileName: "Manual.pdf", bytes: "%PDF-1.4 test", descr: "Manual", date: "2019-01-02" });
    const r = await rawGet(server.url, `/api/stations/${sid}/files/${id}/`, { Host: "example.org" });
    expect(r.json).toEqual({
      id, last_modified: r.json.last_modified, date: "2019-01-02",
      content: `http://example.org/api/stations/${sid}/files/${id}/content/`, descr: "Manual", remarks: "", gentity: sid,
    });
    const content = await http.get(`/api/stations/${sid}/files/${id}/content/`);
    expect(content.status).toBe(200);
    expect(content.text).toBe("%PDF-1.4 test");
    expect(content.headers.get("content-type")).toBe("application/pdf");
    expect(content.headers.get("content-length")).toBe("13");
    expect(content.headers.get("content-disposition")).toBe('attachment; filename="Manual.pdf"');
  });

  it("names non-ASCII files with filename* and serves unknown extensions as octet streams", async () => {
    const id = await f.attachment("files", sid, { fileName: "Σχέδιο.weird", bytes: "x", descr: "Plan" });
    const content = await http.get(`/api/stations/${sid}/files/${id}/content/`);
    expect(content.headers.get("content-type")).toBe("application/octet-stream");
    expect(content.headers.get("content-disposition")).toBe(`attachment; filename="______.weird"; filename*=UTF-8''${encodeURIComponent("Σχέδιο.weird")}`);
  });

  it("answers 404 for content without stored bytes", async () => {
    const id = await f.attachment("files", sid, { fileName: "gone.pdf", descr: "Gone" });
    expect((await http.get(`/api/stations/${sid}/files/${id}/content/`)).status).toBe(404);
  });

  it("orders images by date with nulls last, and shows featured", async () => {
    const s = await f.station();
    const a = await f.attachment("images", s, { fileName: "a.png", bytes: "png", date: null, featured: true });
    const b = await f.attachment("images", s, { fileName: "b.jpg", bytes: "jpg", date: "2020-01-01" });
    const r = await http.get(`/api/stations/${s}/images/`);
    expect(r.json.results.map((i: { id: number }) => i.id)).toEqual([b, a]);
    expect(Object.keys(r.json.results[0])).toEqual(["id", "last_modified", "date", "content", "descr", "remarks", "featured", "gentity"]);
    const content = await http.get(`/api/stations/${s}/images/${b}/content/`);
    expect(content.headers.get("content-type")).toBe("image/jpeg");
  });
});

describe("lookups (api.md §11)", () => {
  it("orders organizations by display name and shows their fields", async () => {
    const z = await f.organization("Zeta", "");
    const a = await f.organization("", "Alpha");
    const ids: number[] = [];
    for (let page = 1, more = true; more; page++) {
      const r = await http.get(`/api/organizations/?page=${page}`);
      ids.push(...r.json.results.map((o: { id: number }) => o.id));
      more = r.json.next !== null;
    }
    expect(ids.indexOf(a)).toBeLessThan(ids.indexOf(z));
    const one = await http.get(`/api/organizations/${a}/`);
    expect(one.json).toEqual({ id: a, last_modified: one.json.last_modified, remarks: "", name: "", acronym: "Alpha" });
  });

  it("shows persons and 404s an organization id on the persons path", async () => {
    const p = await f.person("Antonis", "Christofides");
    const r = await http.get(`/api/persons/${p}/`);
    expect(Object.keys(r.json)).toEqual(["id", "last_modified", "remarks", "last_name", "first_name", "middle_names", "initials"]);
    const o = await f.organization();
    expect((await http.get(`/api/persons/${o}/`)).status).toBe(404);
  });

  it("shows units with their variables, ordered by symbol by code point", async () => {
    const v = await f.variable("Temp");
    const u = await f.unit("°C", [v], "Degrees Celsius");
    await f.unit("m");
    const one = await http.get(`/api/units/${u}/`);
    expect(one.json).toEqual({ id: u, last_modified: one.json.last_modified, descr: "Degrees Celsius", symbol: "°C", variables: [v] });
    const list = await http.get("/api/units/?page_size=5");
    const symbols = list.json.results.map((x: { symbol: string }) => x.symbol);
    expect(symbols.indexOf("m")).toBeLessThan(symbols.indexOf("°C"));
  });

  it("shows geographical areas", async () => {
    const g = await f.garea("Epirus", "GR-D", [20, 39, 21, 40]);
    const r = await http.get(`/api/gareas/${g}/`);
    expect(r.json).toEqual({ id: g, last_modified: r.json.last_modified, name: "Epirus", code: "GR-D", remarks: "",
      geom: "SRID=4326;POLYGON ((20 39, 21 39, 21 40, 20 40, 20 39))" });
  });
});
