/**
 * Model-named reads of the legacy interface (legacy.md §2, §3, §4.1): every model, the exact
 * shapes, content negotiation, XML, CSV and HTML bodies, HEAD and the csrftoken cookie.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { db } from "@/lib/db";
import { api, type TestResponse } from "@/tests/support/http";
import * as f from "@/tests/support/fixtures";
import { startServer, type TestServer } from "@/tests/support/server";

let server: TestServer;
let http: ReturnType<typeof api>;

const LM = "2024-05-01T10:00:00.000Z";
const NOT_FOUND = '{"detail":"Not found."}';

/** Sets every last_modified to the spec's example value, for byte-exact comparisons. */
async function freezeLastModified(): Promise<void> {
  const data = { lastModified: new Date(LM) };
  await db().write(async (tx) => {
    await tx.organization.updateMany({ data });
    await tx.person.updateMany({ data });
    await tx.stationType.updateMany({ data });
    await tx.eventType.updateMany({ data });
    await tx.variable.updateMany({ data });
    await tx.fileType.updateMany({ data });
    await tx.unitOfMeasurement.updateMany({ data });
    await tx.garea.updateMany({ data });
    await tx.station.updateMany({ data });
    await tx.timeseriesGroup.updateMany({ data });
    await tx.timeseries.updateMany({ data });
    await tx.gentityFile.updateMany({ data });
    await tx.event.updateMany({ data });
  });
}

function expectJson(r: TestResponse, status: number, body: string) {
  expect({ status: r.status, type: r.headers.get("content-type"), body: r.text }).toEqual({ status, type: "application/json", body });
}

beforeAll(async () => {
  server = await startServer();
  http = api(server.url);
});
afterAll(() => server?.stop());

describe("an empty database", () => {
  it("GET /api/Variable/ → 200 []", async () => {
    expectJson(await http.get("/api/Variable/"), 200, "[]");
  });

  it("empty lists in XML and CSV", async () => {
    const xml = await http.get("/api/Variable/?format=xml");
    expect(xml.text).toBe('<?xml version="1.0" encoding="utf-8"?>\n<root></root>');
    const csv = await http.get("/api/Variable/", { headers: { Accept: "text/csv" } });
    expect(csv.text).toBe("id,last_modified,descr\r\n");
  });

  it("every model answers a bare array", async () => {
    for (const model of ["Station", "Gentity", "Gpoint", "Garea", "Timeseries", "TimeseriesGroup", "Variable", "UnitOfMeasurement",
      "Organization", "Person", "Lentity", "StationType", "EventType", "FileType", "GentityFile", "GentityEvent"]) {
      const r = await http.get(`/api/${model}/`);
      expect({ model, status: r.status, body: r.text }).toEqual({ model, status: 200, body: "[]" });
    }
  });
});

describe("with the fixtures of legacy.md §2.2 and formats.md §0", () => {
  let ids: {
    org: number; person: number; maintainer: number; stype: number; station: number; station2: number; area: number; group: number;
    series: number; v1: number; v2: number; u1: number; u2: number; file: number; event: number; eventType: number; fileType: number;
  };

  beforeAll(async () => {
    const v1 = await f.variable("Temperature");
    const v2 = await f.variable("Rain, daily");
    const u1 = await f.unit("°C", [v1], "Degrees Celsius");
    const u2 = await f.unit("mm", [], "Millimetres & more");
    const org = await f.organization("National Technical University of Athens", "NTUA");
    const person = await f.person("Joe", "User");
    const maintainer = (await f.user({ username: "bilbo" })).id;
    const stype = await f.stationType("Meteorological");
    const station = await f.station({
      name: "Komboti", code: "KMB", remarks: "Near Arta", originalSrid: 4326, altitude: 219, lon: 21.06071, lat: 39.09518,
      displayTimezone: "Etc/GMT-2", startDate: "2010-01-01", ownerId: org, overseer: "Bilbo", maintainers: [maintainer], stype: [stype],
    });
    const area = await f.garea("Epirus", "EP", [20, 39, 21, 40]);
    const station2 = await f.station({ name: "Arta <&> \"q\" 'a'", code: "A,B", remarks: "Line1\r\nLine2\u0001", ownerId: person, altitude: null });
    const group = await f.group(station, { name: "", precision: 2, remarks: "Line1\nLine2", variableId: v1, unitId: u1 });
    const series = await f.series(group, { type: "Initial", timeStep: "10min" });
    await f.addRecords(series, [["2018-12-09T11:10:00Z", 20.456], ["2018-12-31T22:00:00Z", -3.125]]);
    const eventType = await f.eventType("Maintenance");
    const event = await f.event(station, { date: "2020-01-02", user: "Joe", report: "Cleaned", typeId: eventType });
    const file = await f.attachment("files", station, { fileName: "a.pdf", bytes: "x", descr: "Manual", date: "2019-05-06" });
    const fileType = (await db().write((tx) => tx.fileType.create({ data: { descr: "PDF", mimeType: "application/pdf" } }))).id;
    await freezeLastModified();
    ids = { org, person, maintainer, stype, station, station2, area, group, series, v1, v2, u1, u2, file, event, eventType, fileType };
  });

  const station1 = () =>
    `{"id":${ids.station},"last_update":"2018-12-31T22:00:00Z","last_modified":"${LM}","name":"Komboti","code":"KMB","remarks":"Near Arta",` +
    `"original_srid":4326,"altitude":219,"geom":"SRID=4326;POINT (21.06071 39.09518)","display_timezone":"Etc/GMT-2",` +
    `"start_date":"2010-01-01","end_date":null,"owner":${ids.org},"overseer":"Bilbo","maintainers":[${ids.maintainer}],"stype":[${ids.stype}],"data_viewers":[]}`;

  describe("JSON (§2.2)", () => {
    it("GET /api/Variable/ lists every variable by id", async () => {
      expectJson(await http.get("/api/Variable/"), 200,
        `[{"id":${ids.v1},"last_modified":"${LM}","descr":"Temperature"},{"id":${ids.v2},"last_modified":"${LM}","descr":"Rain, daily"}]`);
    });

    it("GET /api/Variable/2/", async () => {
      expectJson(await http.get(`/api/Variable/${ids.v2}/`), 200, `{"id":${ids.v2},"last_modified":"${LM}","descr":"Rain, daily"}`);
    });

    it("GET /api/Station/1/ is the current station object", async () => {
      expectJson(await http.get(`/api/Station/${ids.station}/`), 200, station1());
      const current = await http.get(`/api/stations/${ids.station}/`);
      expect(current.text).toBe(station1());
    });

    it("GET /api/Station/ lists every station by id, without pagination", async () => {
      const r = await http.get("/api/Station/");
      expect(r.status).toBe(200);
      expect(r.json.map((s: { id: number }) => s.id)).toEqual([ids.station, ids.station2]);
      expect(JSON.stringify(r.json[0])).toBe(station1());
    });

    it("GET /api/Timeseries/12/ is the older shape, the same object as the current interface's", async () => {
      const body = `{"id":${ids.series},"last_modified":"${LM}","name":"","hidden":false,"precision":2,"remarks":"Line1\\nLine2",` +
        `"gentity":${ids.station},"variable":${ids.v1},"unit_of_measurement":${ids.u1},"time_step":"10min","timeseries_group":${ids.group}}`;
      expectJson(await http.get(`/api/Timeseries/${ids.series}/`), 200, body);
      expect((await http.get(`/api/stations/${ids.station}/timeseries/${ids.series}/`)).text).toBe(body);
      expectJson(await http.get("/api/Timeseries/"), 200, `[${body}]`);
    });

    it("TimeseriesGroup", async () => {
      expectJson(await http.get(`/api/TimeseriesGroup/${ids.group}/`), 200,
        `{"id":${ids.group},"last_modified":"${LM}","name":"","hidden":false,"precision":2,"remarks":"Line1\\nLine2","gentity":${ids.station},` +
        `"variable":${ids.v1},"unit_of_measurement":${ids.u1}}`);
    });

    it("UnitOfMeasurement", async () => {
      expectJson(await http.get("/api/UnitOfMeasurement/"), 200,
        `[{"id":${ids.u1},"last_modified":"${LM}","descr":"Degrees Celsius","symbol":"°C","variables":[${ids.v1}]},` +
        `{"id":${ids.u2},"last_modified":"${LM}","descr":"Millimetres & more","symbol":"mm","variables":[]}]`);
    });

    it("Gentity holds stations and geographical areas; Gpoint stations; Garea areas", async () => {
      const area = `{"id":${ids.area},"last_modified":"${LM}","name":"Epirus","code":"EP","remarks":"",` +
        `"geom":"SRID=4326;POLYGON ((20 39, 21 39, 21 40, 20 40, 20 39))"}`;
      const g1 = `{"id":${ids.station},"last_modified":"${LM}","name":"Komboti","code":"KMB","remarks":"Near Arta","geom":"SRID=4326;POINT (21.06071 39.09518)"}`;
      const gentity = await http.get("/api/Gentity/");
      expect(gentity.json.map((g: { id: number }) => g.id)).toEqual([ids.station, ids.area, ids.station2]);
      expect(JSON.stringify(gentity.json[0])).toBe(g1);
      expect(JSON.stringify(gentity.json[1])).toBe(area);
      expectJson(await http.get(`/api/Gentity/${ids.area}/`), 200, area);
      expectJson(await http.get(`/api/Gentity/${ids.station}/`), 200, g1);
      expectJson(await http.get(`/api/Garea/`), 200, `[${area}]`);
      expectJson(await http.get(`/api/Gpoint/${ids.station}/`), 200, `${g1.slice(0, -1)},"altitude":219}`);
      expect((await http.get("/api/Gpoint/")).json.map((g: { id: number }) => g.id)).toEqual([ids.station, ids.station2]);
    });

    it("Organization, Person and their union Lentity", async () => {
      expectJson(await http.get(`/api/Organization/${ids.org}/`), 200,
        `{"id":${ids.org},"last_modified":"${LM}","remarks":"","name":"National Technical University of Athens","acronym":"NTUA"}`);
      expectJson(await http.get(`/api/Person/${ids.person}/`), 200,
        `{"id":${ids.person},"last_modified":"${LM}","remarks":"","last_name":"User","first_name":"Joe","middle_names":"","initials":""}`);
      expectJson(await http.get("/api/Lentity/"), 200,
        `[{"id":${ids.org},"last_modified":"${LM}","remarks":""},{"id":${ids.person},"last_modified":"${LM}","remarks":""}]`);
      expectJson(await http.get(`/api/Lentity/${ids.person}/`), 200, `{"id":${ids.person},"last_modified":"${LM}","remarks":""}`);
    });

    it("StationType, EventType, FileType", async () => {
      expectJson(await http.get("/api/StationType/"), 200, `[{"id":${ids.stype},"last_modified":"${LM}","descr":"Meteorological"}]`);
      expectJson(await http.get(`/api/EventType/${ids.eventType}/`), 200, `{"id":${ids.eventType},"last_modified":"${LM}","descr":"Maintenance"}`);
      expectJson(await http.get("/api/FileType/"), 200, `[{"id":${ids.fileType},"last_modified":"${LM}","descr":"PDF","mime_type":"application/pdf"}]`);
    });

    it("GentityFile has the absolute content URL; GentityEvent", async () => {
      expectJson(await http.get(`/api/GentityFile/${ids.file}/`), 200,
        `{"id":${ids.file},"last_modified":"${LM}","date":"2019-05-06","content":"${server.url}/api/stations/${ids.station}/files/${ids.file}/content/",` +
        `"descr":"Manual","remarks":"","gentity":${ids.station}}`);
      expectJson(await http.get("/api/GentityEvent/"), 200,
        `[{"id":${ids.event},"last_modified":"${LM}","date":"2020-01-02","user":"Joe","report":"Cleaned","gentity":${ids.station},"type":${ids.eventType}}]`);
    });

    it("an id of another kind is 404", async () => {
      for (const path of [`/api/Station/${ids.area}/`, `/api/Gpoint/${ids.area}/`, `/api/Garea/${ids.station}/`, `/api/Organization/${ids.person}/`,
        `/api/Person/${ids.org}/`, `/api/Variable/99/`, `/api/Timeseries/${ids.group + 1000}/`, "/api/Station/abc/", "/api/Station/99999999999/"]) {
        const r = await http.get(path);
        expect({ path, status: r.status, body: r.text }).toEqual({ path, status: 404, body: NOT_FOUND });
      }
    });

    it("unknown models, wrong case and a missing slash", async () => {
      expectJson(await http.get("/api/Foo/"), 404, NOT_FOUND);
      expectJson(await http.get("/api/station/"), 404, NOT_FOUND);
      const r = await http.get("/api/Variable");
      expect(r.status).toBe(308);
      expect(r.headers.get("location")).toBe("/api/Variable/");
    });

    it("does not shadow the current interface", async () => {
      const r = await http.get("/api/stations/");
      expect(Object.keys(r.json)).toEqual(["count", "next", "previous", "results", "bounding_box"]);
    });
  });

  describe("content negotiation (§3.1)", () => {
    it.each([
      [null, "application/json"],
      ["*/*", "application/json"],
      ["application/json", "application/json"],
      ["application/xml", "application/xml; charset=utf-8"],
      ["text/xml", "text/xml; charset=utf-8"],
      ["text/csv", "text/csv; charset=utf-8"],
      ["text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8", "text/html; charset=utf-8"],
      ["text/*", "text/html; charset=utf-8"],
      ["application/json;q=0.5, text/csv", "text/csv; charset=utf-8"],
      ["text/csv;q=0, */*", "application/json"],
      ["", "application/json"],
      ["garbage", "application/json"],
      ["application/xml;charset=utf-8;q=0.4, text/csv;q=0.3", "application/xml; charset=utf-8"],
      ["application/*", "application/json"],
      ["text/xml, application/xml", "application/xml; charset=utf-8"],
    ])("Accept %j → %s", async (accept, type) => {
      const r = await http.get(`/api/Variable/`, { headers: accept === null ? {} : { Accept: accept } });
      expect({ status: r.status, type: r.headers.get("content-type") }).toEqual({ status: 200, type });
      expect(r.headers.get("vary")).toMatch(/Accept/);
    });

    it("Accept: image/png → 406 in JSON", async () => {
      expectJson(await http.get("/api/Variable/", { headers: { Accept: "image/png" } }), 406, '{"detail":"Could not satisfy the request Accept header."}');
      expectJson(await http.get("/api/Variable/", { headers: { Accept: "text/csv;q=0, application/json;q=0" } }), 406,
        '{"detail":"Could not satisfy the request Accept header."}');
    });

    it("?format= wins over Accept", async () => {
      const csv = await http.get("/api/Variable/?format=csv", { headers: { Accept: "image/png" } });
      expect([csv.status, csv.headers.get("content-type")]).toEqual([200, "text/csv; charset=utf-8"]);
      for (const [format, type] of [["json", "application/json"], ["xml", "application/xml; charset=utf-8"], ["html", "text/html; charset=utf-8"],
        ["api", "text/html; charset=utf-8"]]) {
        const r = await http.get(`/api/Variable/${ids.v1}/?format=${format}`, { headers: { Accept: "text/csv" } });
        expect([format, r.status, r.headers.get("content-type")]).toEqual([format, 200, type]);
      }
    });

    it("an unknown format is 400", async () => {
      expectJson(await http.get("/api/Variable/?format=yaml"), 400, '{"format":["\\"yaml\\" is not a valid choice."]}');
    });

    it("errors are JSON whatever the Accept header", async () => {
      expectJson(await http.get("/api/Variable/99/", { headers: { Accept: "text/csv" } }), 404, NOT_FOUND);
      expectJson(await http.get("/api/Variable/99/?format=xml"), 404, NOT_FOUND);
    });
  });

  describe("XML (§3.3)", () => {
    it("GET /api/UnitOfMeasurement/?format=xml", async () => {
      const r = await http.get("/api/UnitOfMeasurement/?format=xml");
      expect(r.headers.get("content-type")).toBe("application/xml; charset=utf-8");
      expect(r.text).toBe('<?xml version="1.0" encoding="utf-8"?>\n' +
        `<root><list-item><id>${ids.u1}</id><last_modified>${LM}</last_modified><descr>Degrees Celsius</descr><symbol>°C</symbol>` +
        `<variables><list-item>${ids.v1}</list-item></variables></list-item><list-item><id>${ids.u2}</id><last_modified>${LM}</last_modified>` +
        `<descr>Millimetres &amp; more</descr><symbol>mm</symbol><variables></variables></list-item></root>`);
    });

    it("GET /api/Variable/1/ with Accept: text/xml", async () => {
      const r = await http.get(`/api/Variable/${ids.v1}/`, { headers: { Accept: "text/xml" } });
      expect(r.headers.get("content-type")).toBe("text/xml; charset=utf-8");
      expect(r.text).toBe(`<?xml version="1.0" encoding="utf-8"?>\n<root><id>${ids.v1}</id><last_modified>${LM}</last_modified><descr>Temperature</descr></root>`);
    });

    it("null, empty strings and empty arrays are empty elements; escapes; forbidden characters dropped", async () => {
      const r = await http.get(`/api/Station/${ids.station2}/`, { headers: { Accept: "application/xml" } });
      expect(r.text).toContain(`<name>Arta &lt;&amp;&gt; "q" 'a'</name><code>A,B</code><remarks>Line1\r\nLine2</remarks>`);
      expect(r.text).toContain("<last_update></last_update>");
      expect(r.text).toContain("<altitude></altitude>");
      expect(r.text).toContain("<overseer></overseer><maintainers></maintainers><stype></stype><data_viewers></data_viewers></root>");
      expect(r.text).not.toContain("\u0001");
      const station = await http.get(`/api/Station/${ids.station}/?format=xml`);
      expect(station.text).toContain(`<maintainers><list-item>${ids.maintainer}</list-item></maintainers>`);
      expect(station.text).toContain("<altitude>219</altitude><geom>SRID=4326;POINT (21.06071 39.09518)</geom>");
      expect((await http.get(`/api/Timeseries/${ids.series}/?format=xml`)).text).toContain("<hidden>false</hidden>");
    });
  });

  describe("CSV (§3.4)", () => {
    it("GET /api/Variable/ with Accept: text/csv, byte for byte", async () => {
      const r = await http.get("/api/Variable/", { headers: { Accept: "text/csv" } });
      expect(r.headers.get("content-type")).toBe("text/csv; charset=utf-8");
      expect(r.text).toBe(`id,last_modified,descr\r\n${ids.v1},${LM},Temperature\r\n${ids.v2},${LM},"Rain, daily"\r\n`);
    });

    it("GET /api/Station/?format=csv: arrays joined by spaces, null empty", async () => {
      const r = await http.get("/api/Station/?format=csv");
      const lines = r.text.split("\r\n");
      expect(lines[0]).toBe("id,last_update,last_modified,name,code,remarks,original_srid,altitude,geom,display_timezone,start_date,end_date,owner,overseer,maintainers,stype,data_viewers");
      expect(lines[1]).toBe(`${ids.station},2018-12-31T22:00:00Z,${LM},Komboti,KMB,Near Arta,4326,219,SRID=4326;POINT (21.06071 39.09518),Etc/GMT-2,2010-01-01,,${ids.org},Bilbo,${ids.maintainer},${ids.stype},`);
      expect(r.text).toContain(`"Arta <&> ""q"" 'a'","A,B","Line1\r\nLine2\u0001"`);
    });

    it("a detail is one row; an empty list is the header", async () => {
      expect((await http.get(`/api/Variable/${ids.v2}/?format=csv`)).text).toBe(`id,last_modified,descr\r\n${ids.v2},${LM},"Rain, daily"\r\n`);
      expect((await http.get(`/api/UnitOfMeasurement/${ids.u1}/?format=csv`)).text)
        .toBe(`id,last_modified,descr,symbol,variables\r\n${ids.u1},${LM},Degrees Celsius,°C,${ids.v1}\r\n`);
    });
  });

  describe("HTML (§3.5)", () => {
    it("a list page: title, field names, escaped values", async () => {
      const r = await http.get("/api/Station/", { headers: { Accept: "text/html" } });
      expect([r.status, r.headers.get("content-type")]).toEqual([200, "text/html; charset=utf-8"]);
      expect(r.text).toMatch(/^<!DOCTYPE html>/);
      expect(r.text).toContain("<title>Station list</title>");
      expect(r.text).toContain("<h1>Station list</h1>");
      for (const name of ["last_update", "display_timezone", "data_viewers"]) expect(r.text).toContain(`>${name}<`);
      expect(r.text).toContain("Arta &lt;&amp;&gt; &quot;q&quot; &#39;a&#39;");
      expect(r.text).not.toContain("Arta <&>");
      expect(r.text).toContain("?format=json");
      expect(r.text).toContain("?format=csv");
    });

    it("a detail page", async () => {
      const r = await http.get(`/api/Station/${ids.station}/?format=api`);
      expect(r.text).toContain(`<title>Station ${ids.station}</title>`);
      expect(r.text).toContain(">Komboti<");
      expect(r.text).toContain(">SRID=4326;POINT (21.06071 39.09518)<");
    });
  });

  describe("HEAD, OPTIONS, methods (§0, §4.1) and the csrftoken cookie (§1.2)", () => {
    it("HEAD answers like GET without a body", async () => {
      const get = await http.get("/api/Variable/?format=csv");
      const head = await http.head("/api/Variable/?format=csv");
      expect([head.status, head.text, head.headers.get("content-type")]).toEqual([200, "", get.headers.get("content-type")]);
    });

    it.each([
      ["/api/Station/", "GET, HEAD, POST, OPTIONS"],
      ["/api/Station/1/", "GET, HEAD, PUT, PATCH, DELETE, OPTIONS"],
      ["/api/Timeseries/", "GET, HEAD, POST, OPTIONS"],
      ["/api/Timeseries/1/", "GET, HEAD, DELETE, OPTIONS"],
      ["/api/Variable/", "GET, HEAD, OPTIONS"],
      ["/api/GentityEvent/1/", "GET, HEAD, OPTIONS"],
      ["/api/Station/info/", "GET, HEAD, OPTIONS"],
      ["/api/Station/info/list/", "POST, OPTIONS"],
      ["/api/tsdata/", "POST, PUT, OPTIONS"],
      ["/api/tsdata/1/", "GET, HEAD, POST, PUT, OPTIONS"],
    ])("OPTIONS %s → Allow: %s", async (path, allow) => {
      const r = await http.options(path);
      expect([r.status, r.headers.get("allow")]).toEqual([204, allow]);
    });

    it("PATCH /api/Timeseries/57/ and POST /api/Variable/ are 405", async () => {
      const patch = await http.patch(`/api/Timeseries/${ids.series}/`, { json: { name: "x" } });
      expectJson(patch, 405, '{"detail":"Method \\"PATCH\\" not allowed."}');
      expect(patch.headers.get("allow")).toBe("GET, HEAD, DELETE, OPTIONS");
      const post = await http.post("/api/Variable/", { json: { descr: "x" } });
      expectJson(post, 405, '{"detail":"Method \\"POST\\" not allowed."}');
      expect(post.headers.get("allow")).toBe("GET, HEAD, OPTIONS");
      const put = await http.put("/api/Timeseries/");
      expect([put.status, put.headers.get("allow")]).toEqual([405, "GET, HEAD, POST, OPTIONS"]);
    });

    it("a legacy GET sets the csrftoken cookie when the request has none", async () => {
      const r = await http.get("/api/Variable/");
      const cookie = r.headers.getSetCookie().find((c) => c.startsWith("csrftoken="))!;
      expect(cookie).toMatch(/^csrftoken=[A-Za-z0-9]{32}; /);
      expect(cookie).toMatch(/Path=\//);
      expect(cookie).toMatch(/SameSite=Lax/);
      expect(cookie).toMatch(/Max-Age=31536000/);
      expect(cookie).not.toMatch(/HttpOnly/i);
      const again = await http.get("/api/Variable/", { headers: { Cookie: "csrftoken=" + "a".repeat(32) } });
      expect(again.headers.getSetCookie().some((c) => c.startsWith("csrftoken="))).toBe(false);
    });

    it("lists include private series (only records are protected)", async () => {
      const hidden = await f.series(ids.group, { type: "Checked", publiclyAvailable: false });
      const r = await http.get("/api/Timeseries/");
      expect(r.json.map((t: { id: number }) => t.id)).toEqual([ids.series, hidden]);
      expect((await http.get(`/api/Timeseries/${hidden}/`)).status).toBe(200);
    });
  });
});
