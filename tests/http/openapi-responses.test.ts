import { afterAll, beforeAll, describe, expect, it } from "vitest";
import Ajv2020, { type ValidateFunction } from "ajv/dist/2020";
import { db } from "@/lib/db";
import { api, type RequestOptions, type TestResponse } from "@/tests/support/http";
import * as f from "@/tests/support/fixtures";
import { startFakeMeteoView2, type FakeMeteoView2 } from "@/tests/support/fake-vendors/meteoview2";
import { startServer, type TestServer } from "@/tests/support/server";

/**
 * The OpenAPI document (api.md §3) against real answers: every documented operation, and
 * its error statuses, is sent to a real server over a small fixture world, and each answer's body is
 * validated (JSON Schema draft 2020-12, ajv) against the schema the document gives for its path,
 * method and status. A status the document does not list fails too.
 */
let server: TestServer;
let http: ReturnType<typeof api>;
// eslint-disable-next-line @typescript-eslint/no-explicit-any
let doc: any;
const ajv = new Ajv2020({ strict: false, allErrors: true });
/** The document's base URI in ajv: its `#/components/schemas/…` references resolve against it. */
const DOC_ID = "https://enhydris.test/api/schema/";
const exercised = new Set<string>();
/** A concrete path (and the token) that answered 200 to a GET of each documented path. */
const readable = new Map<string, { path: string; token?: string }>();
/** The paginated lists whose items were checked: a page with results answered. */
const filledPages = new Set<string>();
// The formats the document uses (zod's toJSONSchema): checked loosely, so that ajv need not guess.
ajv.addFormat("date", /^\d{4}-\d{2}-\d{2}$/);
ajv.addFormat("email", /^[^@\s]+@[^@\s]+$/);
ajv.addFormat("binary", true);

let vendor: FakeMeteoView2;

beforeAll(async () => {
  vendor = await startFakeMeteoView2({ readings: { "42a": [{ time: "2025-03-01T12:00", value: 1 }] } });
  // Telemetry reaches the fake vendor on loopback.
  server = await startServer({ env: { ENHYDRIS_OUTBOUND_ALLOW: "127.0.0.1" } });
  http = api(server.url);
  doc = (await http.get("/api/schema/")).json;
  ajv.addSchema({ $id: DOC_ID, components: doc.components }, DOC_ID);
});
afterAll(async () => {
  await server?.stop();
  await vendor?.close();
});

type Method = "get" | "post" | "put" | "patch" | "delete";
const validators = new Map<string, ValidateFunction>();

function validatorOf(schema: object): ValidateFunction {
  const text = JSON.stringify(schema).replace(/"#\/components\/schemas\//g, `"${DOC_ID}#/components/schemas/`);
  let validate = validators.get(text);
  if (!validate) {
    validate = ajv.compile(JSON.parse(text));
    validators.set(text, validate);
  }
  return validate;
}

/** How an answer disagrees with the document (its status is not listed, its body has not the listed schema or media type), or null. */
function disagreement(method: Method, path: string, r: TestResponse): string | null {
  const where = `${method.toUpperCase()} ${path} → ${r.status}`;
  const operation = doc.paths[path]?.[method];
  if (!operation) return `${method.toUpperCase()} ${path} is not in the document`;
  const response = operation.responses[String(r.status)];
  if (!response) return `${where}: status not documented (documented: ${Object.keys(operation.responses).join(", ")}); body: ${r.text.slice(0, 300)}`;
  const content = response.content as Record<string, { schema?: object }> | undefined;
  const type = r.headers.get("content-type") ?? "";
  if (!content) return r.text === "" ? null : `${where}: documented without a body, answered ${type}: ${r.text.slice(0, 300)}`;
  const media = Object.keys(content).find((range) => mediaMatches(range, type));
  if (!media) return `${where}: documented as ${Object.keys(content).join(", ")}, answered ${type}`;
  const schema = content[media].schema;
  if (!schema) return null;
  const validate = validatorOf(schema);
  return validate(JSON.parse(r.text)) ? null : `${where}: the body disagrees with the document: ${ajv.errorsText(validate.errors, { separator: "; " })}\nbody: ${r.text.slice(0, 600)}`;
}

/** How a JSON body that the server accepted disagrees with the request body the document gives, or null. */
function requestDisagreement(method: Method, path: string, body: unknown): string | null {
  const schema = doc.paths[path]?.[method]?.requestBody?.content?.["application/json"]?.schema;
  if (!schema) return `${method.toUpperCase()} ${path}: accepted a JSON body the document does not describe`;
  const validate = validatorOf(schema);
  return validate(body) ? null
    : `${method.toUpperCase()} ${path}: the document rejects a body the server accepted: ${ajv.errorsText(validate.errors, { separator: "; " })}\nbody: ${JSON.stringify(body).slice(0, 600)}`;
}

/** How a form body that the server accepted disagrees with the document (a field it lacks, JSON text it does not declare), or null. */
function formDisagreement(method: Method, path: string, form: Record<string, string | string[]>): string | null {
  const where = `${method.toUpperCase()} ${path}`;
  const content = doc.paths[path]?.[method]?.requestBody?.content?.["application/x-www-form-urlencoded"];
  if (!content) return `${where}: accepted a form body the document does not describe`;
  const alternatives = (content.schema.anyOf ?? [content.schema]) as { properties?: Record<string, unknown> }[];
  for (const [name, value] of Object.entries(form)) {
    if (!alternatives.some((alternative) => alternative.properties && name in alternative.properties)) return `${where}: the form field ${name} is not documented`;
    const jsonText = typeof value === "string" && /^\s*[[{]/.test(value);
    if (jsonText && content.encoding?.[name]?.contentType !== "application/json") return `${where}: the form field ${name} is JSON text, not so documented`;
  }
  return null;
}

/** How a query string that the server accepted disagrees with the document (a parameter it lacks, a repeated one it does not make a list), or null. */
function queryDisagreement(method: Method, path: string, query: string): string | null {
  const parameters = ((doc.paths[path]?.[method]?.parameters ?? []) as { name: string; in: string; schema: { type?: string } }[]).filter((p) => p.in === "query");
  const sent = new URLSearchParams(query);
  for (const name of new Set(sent.keys())) {
    const parameter = parameters.find((p) => p.name === name);
    if (!parameter) return `${method.toUpperCase()} ${path}: the query parameter ${name} is not documented`;
    if (sent.getAll(name).length > 1 && parameter.schema.type !== "array") return `${method.toUpperCase()} ${path}: the query parameter ${name} is repeated, documented as one value`;
  }
  return null;
}

/** Whether a Content-Type is in a media range of the document (`*\/*`, `image/*`, `text/csv`). */
function mediaMatches(range: string, contentType: string): boolean {
  const type = contentType.split(";")[0].trim().toLowerCase();
  if (range === "*/*") return type !== "";
  return range.endsWith("/*") ? type.startsWith(range.slice(0, -1)) : type === range;
}

/** Records a disagreement and goes on, so that one run reports them all. */
function documented(method: Method, path: string, r: TestResponse): TestResponse {
  const found = disagreement(method, path, r);
  expect.soft(found, found ?? "").toBeNull();
  return r;
}

/** Sends a request to a concrete path and checks it against the operation of `template`. */
async function send(method: Method, template: string, params: Record<string, number>, options?: RequestOptions & { query?: string }): Promise<TestResponse> {
  const path = template.replace(/\{(\w+)\}/g, (_, name: string) => {
    if (params[name] === undefined) throw new Error(`${template}: no value for ${name}`);
    return String(params[name]);
  });
  const r = await http.request(method.toUpperCase(), path + (options?.query ?? ""), options);
  exercised.add(`${method} ${template}`);
  if (method === "get" && r.status === 200) {
    readable.set(template, { path, token: options?.token });
    if (r.json?.results?.length) filledPages.add(template);
  }
  if (options?.json !== undefined && r.status < 300) {
    const found = requestDisagreement(method, template, options.json);
    expect.soft(found, found ?? "").toBeNull();
  }
  if (options?.query && r.status < 300) {
    const found = queryDisagreement(method, template, options.query);
    expect.soft(found, found ?? "").toBeNull();
  }
  if (options?.form && !Array.isArray(options.form) && r.status < 300) {
    const found = formDisagreement(method, template, options.form);
    expect.soft(found, found ?? "").toBeNull();
  }
  return documented(method, template, r);
}

function expectStatus(r: TestResponse, status: number) {
  expect.soft(r.status, r.text.slice(0, 400)).toBe(status);
  return r;
}

describe("the OpenAPI document itself", () => {
  it("gives every operation responses, resolves every $ref and compiles every component schema", () => {
    type Operation = { responses?: Record<string, { description?: string }>; parameters?: { name: string; in: string }[] };
    for (const [path, operations] of Object.entries(doc.paths as Record<string, Record<string, Operation>>)) {
      const inPath = [...path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]);
      for (const [method, operation] of Object.entries(operations)) {
        const where = `${method} ${path}`;
        expect(Object.keys(operation.responses ?? {}).length, where).toBeGreaterThan(0);
        for (const [status, response] of Object.entries(operation.responses ?? {})) expect(response.description, `${where} ${status}`).toBeTruthy();
        expect((operation.parameters ?? []).filter((p) => p.in === "path").map((p) => p.name), where).toEqual(inPath);
        // A bad token is refused (401) and an unreachable database answered (503) on every path (api.md §1).
        expect(Object.keys(operation.responses ?? {}), where).toEqual(expect.arrayContaining(["401", "503"]));
      }
    }
    const refs = [...JSON.stringify(doc).matchAll(/"\$ref":"([^"]+)"/g)].map((m) => m[1]);
    expect(refs.length).toBeGreaterThan(10);
    for (const ref of refs) {
      expect(ref, "only component references").toMatch(/^#\/components\/schemas\/[^/]+$/);
      expect(doc.components.schemas[ref.split("/").pop()!], ref).toBeDefined();
    }
    for (const name of Object.keys(doc.components.schemas)) {
      expect(() => ajv.getSchema(`${DOC_ID}#/components/schemas/${name}`), name).not.toThrow();
      expect(ajv.getSchema(`${DOC_ID}#/components/schemas/${name}`), name).toBeTypeOf("function");
    }
    // Every schema of a body, parameter or response compiles too.
    const schemas = [...JSON.stringify(doc.paths).matchAll(/"schema":/g)].length;
    expect(schemas).toBeGreaterThan(100);
    for (const operations of Object.values(doc.paths as Record<string, Record<string, object>>)) {
      for (const operation of Object.values(operations)) {
        const found: object[] = [];
        JSON.stringify(operation, (key, value) => {
          if (key === "schema") found.push(value);
          return value;
        });
        for (const schema of found) expect(() => validatorOf(schema)).not.toThrow();
      }
    }
  });

  it("is presented on docs/ as it is (media types, one table per process type)", async () => {
    const page = (await http.get("/api/docs/")).text;
    expect(page).toContain('<p class="help">application/geo+json: <a href="#schema-StationsGeoJson">StationsGeoJson</a></p>');
    const processCreate = page.slice(page.indexOf('id="post-/api/stations/{sid}/timeseriesgroups/{gid}/processes/"'));
    const section = processCreate.slice(0, processCreate.indexOf("</section>"));
    for (const type of ["checks", "curve_interpolation", "aggregation"]) expect(section).toContain(`type <code>${type}</code>`);
    expect(section).toContain("<code>target_time_step</code> <strong>required</strong>");
    const upload = page.slice(page.indexOf('id="post-/api/stations/{sid}/files/"'));
    expect(upload.slice(0, upload.indexOf("</section>"))).toContain('<h4>Request fields</h4><p class="help">multipart/form-data</p>');
  });

  it("rejects an answer that disagrees with it", () => {
    const answer = (status: number, type: string, text: string): TestResponse => ({ status, headers: new Headers({ "content-type": type }), text, json: undefined });
    expect(disagreement("get", "/api/auth/user/", answer(200, "application/json", JSON.stringify({ pk: "1", username: "x" }))))
      .toMatch(/^GET \/api\/auth\/user\/ → 200: the body disagrees with the document: .*pk/);
    expect(disagreement("get", "/api/auth/user/", answer(418, "application/json", "{}"))).toMatch(/status not documented/);
    expect(disagreement("get", "/api/auth/user/", answer(200, "text/html", "<p>"))).toMatch(/documented as application\/json, answered text\/html/);
    expect(disagreement("delete", "/api/stations/{sid}/", answer(204, "application/json", "{}"))).toMatch(/documented without a body/);
    expect(requestDisagreement("post", "/api/stations/", { name: "No geom" })).toMatch(/the document rejects a body the server accepted: .*geom/);
    expect(requestDisagreement("patch", "/api/stations/{sid}/", { name: "Renamed" })).toBeNull();
    expect(formDisagreement("post", "/api/stations/", { name: "x", geom: "{}" })).toMatch(/the form field geom is JSON text, not so documented/);
    expect(formDisagreement("post", "/api/synopticgroups/", { stations: "[]" })).toBeNull();
    expect(queryDisagreement("get", "/api/stations/", "?sort=name&sort=id&q=x")).toBeNull();
    expect(queryDisagreement("get", "/api/stations/", "?q=x&q=y")).toMatch(/the query parameter q is repeated/);
    expect(queryDisagreement("get", "/api/stations/", "?colour=red")).toMatch(/the query parameter colour is not documented/);
  });
});

describe("real answers match the OpenAPI document", () => {
  it("for every documented operation, and their error statuses", async () => {
    const superuser = await f.user({ superuser: true });
    const creator = await f.user({ canAddStations: true });
    const editor = await f.user();
    const other = await f.user();
    const owner = await f.organization("Doc Org", "DO");
    const stationType = await f.stationType();
    const variable = await f.variable();
    const unit = await f.unit("m", [variable]);
    const eventType = await f.eventType();
    const sid = await f.station({ ownerId: owner, stype: [stationType], maintainers: [editor.id], altitude: 10, startDate: "2020-01-01" });
    const gid = await f.group(sid, { remarks: "r", variableId: variable, unitId: unit });
    const tid = await f.series(gid, { timeStep: "10min" });
    await f.addRecords(tid, [["2020-01-01T00:00:00Z", 1], ["2020-01-01T00:10:00Z", null, "MISS"], ["2020-01-01T00:20:00Z", 2.5, "F"]]);
    const privateSeries = await f.series(gid, { type: "Checked", publiclyAvailable: false });
    const target = await f.group(sid, { variableId: variable, unitId: unit });
    const alarmGroup = await f.group(sid, { variableId: variable, unitId: unit });
    const alarmSeries = await f.series(alarmGroup, { timeStep: "10min" });
    const file = await f.attachment("files", sid, { fileName: "a.pdf", bytes: "x", descr: "A" });
    const image = await f.attachment("images", sid, { fileName: "a.png", bytes: "x" });
    const event = await f.event(sid, { date: "2020-01-01", typeId: eventType });
    const quiet = await f.station({ ownerId: await f.person("Ann", "Other"), name: "Quiet" });
    const quietGroup = await f.group(quiet, { variableId: variable, unitId: unit });
    const quietSeries = await f.series(quietGroup);
    const bytesless = await f.attachment("files", quiet, { fileName: "lost.pdf", descr: "Lost" });
    await f.garea("Area", "A", [20, 38, 21, 39]);
    const su = { token: superuser.token };
    const ed = { token: editor.token };
    const p = { sid, gid, tid, id: 0, pid: 0 };

    // Root, health
    expectStatus(await send("get", "/api/", p), 200);
    expectStatus(await send("get", "/api/schema/", p), 200);
    expectStatus(await send("get", "/api/docs/", p), 200);
    expectStatus(await send("get", "/api/health/", p), 200);

    // Stations
    expectStatus(await send("get", "/api/stations/", p), 200);
    expectStatus(await send("get", "/api/stations/", p, { query: "?q=Doc&sort=-name&sort=code&page_size=1" }), 200);
    expectStatus(await send("get", "/api/stations/", p, { query: "?page=999" }), 404);
    expectStatus(await send("get", "/api/stations/", p, { query: "?bbox=x" }), 400);
    expectStatus(await send("get", "/api/stations/{sid}/", p), 200);
    expectStatus(await send("get", "/api/stations/{sid}/", { sid: 999999 }), 404);
    expectStatus(await send("get", "/api/stations/csv/", p), 200);
    expectStatus(await send("get", "/api/stations/geojson/", p), 200);
    // Empty answers: no match, an empty series, a file whose bytes are gone
    expectStatus(await send("get", "/api/stations/", p, { query: "?q=nomatchatall" }), 200);
    expectStatus(await send("get", "/api/stations/geojson/", p, { query: "?q=nomatchatall" }), 200);
    const q = { ...p, sid: quiet, gid: quietGroup, tid: quietSeries, id: bytesless };
    for (const tail of ["data/", "bottom/", "chart/"]) expectStatus(await send("get", `/api/stations/{sid}/timeseriesgroups/{gid}/timeseries/{tid}/${tail}`, q), 200);
    expectStatus(await send("get", "/api/stations/{sid}/files/{id}/", q), 200);
    expectStatus(await send("get", "/api/stations/{sid}/files/{id}/content/", q), 404);
    const stationBody = { name: "Created", geom: "POINT (21 39)", owner, stype: [stationType], maintainers: [editor.id] };
    expectStatus(await send("post", "/api/stations/", p, { json: stationBody }), 401);
    expectStatus(await send("post", "/api/stations/", p, { token: other.token, json: stationBody }), 403);
    expectStatus(await send("post", "/api/stations/", p, { token: creator.token, json: { name: "No geom" } }), 400);
    const created = expectStatus(await send("post", "/api/stations/", p, { token: creator.token, json: stationBody }), 201).json.id;
    expectStatus(await send("post", "/api/stations/", p, { token: creator.token, form: { name: "Form", geom: "SRID=4326;POINT (21 39)", owner: String(owner) } }), 201);
    const sp = { ...p, sid: created };
    expectStatus(await send("patch", "/api/stations/{sid}/", sp, { token: creator.token, json: { remarks: "patched", altitude: 12.5 } }), 200);
    expectStatus(await send("patch", "/api/stations/{sid}/", sp, { token: other.token, json: { remarks: "no" } }), 403);
    expectStatus(await send("patch", "/api/stations/{sid}/", sp, { token: creator.token, json: { display_timezone: "Mars/Olympus" } }), 400);
    expectStatus(await send("put", "/api/stations/{sid}/", sp, { token: creator.token, json: { ...stationBody, name: "Replaced", start_date: "2021-01-01" } }), 200);

    // Time series groups and time series
    const groups = "/api/stations/{sid}/timeseriesgroups/";
    expectStatus(await send("get", groups, p), 200);
    expectStatus(await send("get", `${groups}{gid}/`, p), 200);
    expectStatus(await send("get", `${groups}{gid}/`, { ...p, gid: 999999 }), 404);
    const groupBody = { precision: 1, variable, unit_of_measurement: unit, name: "Level" };
    expectStatus(await send("post", groups, p, { json: groupBody }), 401);
    expectStatus(await send("post", groups, p, { ...ed, json: { precision: 99 } }), 400);
    const newGroup = expectStatus(await send("post", groups, p, { ...ed, json: groupBody }), 201).json.id;
    const gp = { ...p, gid: newGroup };
    expectStatus(await send("patch", `${groups}{gid}/`, gp, { ...ed, json: { hidden: true } }), 200);
    expectStatus(await send("put", `${groups}{gid}/`, gp, { ...ed, json: { ...groupBody, remarks: "x" } }), 200);
    const seriesList = `${groups}{gid}/timeseries/`;
    expectStatus(await send("get", seriesList, p), 200);
    expectStatus(await send("get", `${seriesList}{tid}/`, p), 200);
    expectStatus(await send("get", `${seriesList}{tid}/`, { ...p, tid: privateSeries }), 200);
    expectStatus(await send("post", seriesList, gp, { ...ed, json: { type: "Nonsense" } }), 400);
    const newSeries = expectStatus(await send("post", seriesList, gp, { ...ed, json: { type: "Initial", time_step: "1h" } }), 201).json.id;
    const tp = { ...gp, tid: newSeries };
    expectStatus(await send("patch", `${seriesList}{tid}/`, tp, { ...ed, json: { name: "raw" } }), 200);
    expectStatus(await send("put", `${seriesList}{tid}/`, tp, { ...ed, json: { type: "Initial", time_step: "1h", publicly_available: false } }), 200);

    // Records
    const data = `${seriesList}{tid}/data/`;
    for (const fmt of ["", "?fmt=hts", "?fmt=hts2", "?start_date=2020-01-01&end_date=2020-01-02&timezone=UTC"]) expectStatus(await send("get", data, p, { query: fmt }), 200);
    expectStatus(await send("get", data, p, { query: "?fmt=xml" }), 400);
    expectStatus(await send("get", data, { ...p, tid: privateSeries }), 401);
    expectStatus(await send("get", data, { ...p, tid: privateSeries }, { token: other.token }), 403);
    expectStatus(await send("get", data, { ...p, tid: 999999 }), 404);
    expectStatus(await send("get", `${seriesList}{tid}/bottom/`, p), 200);
    expectStatus(await send("get", `${seriesList}{tid}/chart/`, p), 200);
    expectStatus(await send("get", `${seriesList}{tid}/chart/`, p, { query: "?points=0" }), 400);
    expectStatus(await send("post", data, tp, { ...ed, form: { timeseries_records: "2020-01-01 00:00,1,\n2020-01-01 01:00,,MISS\n" } }), 204);
    expectStatus(await send("post", data, tp, { ...ed, form: { timeseries_records: "2020-01-01 02:00,1,\n", dry_run: "true" } }), 200);
    expectStatus(await send("post", data, tp, { ...ed, json: { timeseries_records: "2019-01-01 02:00,1,\n", mode: "insert", dry_run: true, timezone: "UTC" } }), 200);
    expectStatus(await send("post", data, tp, { ...ed, form: { timeseries_records: "not a record\n" } }), 400);
    expectStatus(await send("post", data, tp, { form: { timeseries_records: "2020-01-01 03:00,1,\n" } }), 401);
    expectStatus(await send("post", data, tp, { token: other.token, form: { timeseries_records: "2020-01-01 03:00,1,\n" } }), 403);
    expectStatus(await send("post", data, tp, { ...ed, body: "x", headers: { "Content-Type": "text/plain" } }), 415);

    // Corrections (corrections.md §1), on both path forms
    for (const base of [`${seriesList}{tid}/`, "/api/stations/{sid}/timeseries/{tid}/"]) {
      const target = `${base}data/`;
      const transform = `${base}data/transform/`;
      const corrections = `${base}corrections/`;
      const deleted = expectStatus(await send("delete", target, p, { ...ed, query: "?start_date=2020-01-01T00:20:00Z&comment=spike" }), 200).json.correction;
      expectStatus(await send("delete", target, p, { ...ed, query: "?all=true&dry_run=true" }), 200);
      expectStatus(await send("delete", target, p, { ...ed, query: "?start_date=x" }), 400);
      expectStatus(await send("delete", target, p, { query: "?all=true" }), 401);
      expectStatus(await send("delete", target, p, { token: other.token, query: "?all=true" }), 403);
      expectStatus(await send("patch", target, p, { ...ed, json: { records: [{ timestamp: "2020-01-01T00:00:00Z", value: 1.5, flags: "EDITED" }], comment: "checked" } }), 200);
      expectStatus(await send("patch", target, p, { ...ed, json: { records: [{ timestamp: "2020-01-01T00:10:00Z", flags: "" }], dry_run: true } }), 200);
      expectStatus(await send("patch", target, p, { ...ed, form: { records: JSON.stringify([{ timestamp: "2020-01-01T00:10:00Z", value: 3 }]), timezone: "UTC" } }), 200);
      expectStatus(await send("patch", target, p, { ...ed, json: { records: [{ timestamp: "2021-01-01T00:00:00Z", value: 1 }] } }), 400);
      expectStatus(await send("post", transform, p, { ...ed, json: { operation: "offset", amount: 0.5, start_date: "2020-01-01", end_date: "2020-01-02", comment: "drift" } }), 200);
      expectStatus(await send("post", transform, p, { ...ed, form: { operation: "flag", flags: "X", all: "true", dry_run: "true" } }), 200);
      expectStatus(await send("post", transform, p, { ...ed, json: { operation: "scale", all: true } }), 400);
      expectStatus(await send("post", transform, p, { token: other.token, json: { operation: "flag", flags: "X", all: true } }), 403);
      expectStatus(await send("get", corrections, p, ed), 200);
      expectStatus(await send("get", corrections, p, { ...ed, query: "?after=1&page_size=2" }), 200);
      expectStatus(await send("get", corrections, p, { ...ed, query: "?after=x" }), 400);
      expectStatus(await send("get", corrections, p), 401);
      expectStatus(await send("get", corrections, p, { token: other.token }), 403);
      const cp = { ...p, cid: deleted };
      expectStatus(await send("get", `${corrections}{cid}/`, cp, ed), 200);
      expectStatus(await send("get", `${corrections}{cid}/`, { ...p, cid: 999999 }, ed), 404);
      expectStatus(await send("post", `${corrections}{cid}/revert/`, cp, { ...ed, json: { dry_run: true } }), 200);
      expectStatus(await send("post", `${corrections}{cid}/revert/`, cp, { ...ed, json: { comment: "x".repeat(1001) } }), 400);
      expectStatus(await send("post", `${corrections}{cid}/revert/`, cp, { ...ed, form: { comment: "undo" } }), 200);
      expectStatus(await send("post", `${corrections}{cid}/revert/`, cp, ed), 409);
      expectStatus(await send("post", `${corrections}{cid}/revert/`, cp), 401);
      expectStatus(await send("post", `${corrections}{cid}/revert/`, { ...p, cid: 999999 }, ed), 404);
    }
    expectStatus(await send("post", data, tp, { ...ed, form: { timeseries_records: "2020-01-01 00:00,2,\n", mode: "replace", comment: "again", dry_run: "true" } }), 200);
    expectStatus(await send("post", data, tp, { ...ed, form: { timeseries_records: "2020-01-01 00:00,2,\n", mode: "replace", comment: "again" } }), 204);

    // The older shape
    const older = "/api/stations/{sid}/timeseries/";
    expectStatus(await send("get", older, p), 200);
    expectStatus(await send("get", `${older}{tid}/`, p), 200);
    expectStatus(await send("get", `${older}{tid}/data/`, p), 200);
    expectStatus(await send("get", `${older}{tid}/bottom/`, p), 200);
    expectStatus(await send("get", `${older}{tid}/chart/`, p), 200);
    expectStatus(await send("post", `${older}{tid}/data/`, tp, { ...ed, form: { timeseries_records: "2020-01-01 04:00,1,\n" } }), 204);
    const olderBody = { precision: 2, variable, unit_of_measurement: unit, time_step: "1D", name: "Daily" };
    expectStatus(await send("post", older, p, { ...ed, json: { precision: 2 } }), 400);
    const olderSeries = expectStatus(await send("post", older, p, { ...ed, json: olderBody }), 201).json.id;
    expectStatus(await send("patch", `${older}{tid}/`, { ...p, tid: olderSeries }, { ...ed, json: { remarks: "older" } }), 200);
    expectStatus(await send("put", `${older}{tid}/`, { ...p, tid: olderSeries }, { ...ed, json: olderBody }), 200);
    expectStatus(await send("delete", `${older}{tid}/`, { ...p, tid: olderSeries }, ed), 204);

    // Processes and their runs
    const processes = `${groups}{gid}/processes/`;
    for (const body of [
      { type: "checks", range_check: { lower_bound: 0, upper_bound: 10 }, rate_of_change_check: { thresholds: [{ delta_t: "1h", allowed_diff: 2 }] } },
      { type: "aggregation", target_time_step: "1D", method: "max" },
      { type: "curve_interpolation", target_timeseries_group: target, periods: [{ start_date: "2020-01-01", end_date: "2020-01-31", points: [[0, 0], [1, 2]] }] },
    ]) expectStatus(await send("post", processes, p, { ...ed, json: body }), 201);
    const formChecks = { ...p, gid: await f.group(sid, { variableId: variable, unitId: unit }) };
    const checksId = expectStatus(await send("post", processes, formChecks, { ...ed, form: { type: "checks", range_check: JSON.stringify({ lower_bound: 0, upper_bound: 1 }) } }), 201).json.id;
    expectStatus(await send("put", `${processes}{pid}/`, { ...formChecks, pid: checksId }, { ...ed, json: { type: "checks", range_check: { lower_bound: 0, upper_bound: 2 } } }), 200);
    expectStatus(await send("post", processes, p, { ...ed, json: { type: "checks", range_check: { lower_bound: 5, upper_bound: 1 } } }), 400);
    expectStatus(await send("post", processes, p, { token: other.token, json: { type: "aggregation", target_time_step: "1D", method: "max" } }), 403);
    const pid = expectStatus(await send("get", processes, p), 200).json.results[0].id;
    const pp = { ...p, pid };
    expectStatus(await send("get", `${processes}{pid}/`, pp), 200);
    expectStatus(await send("patch", `${processes}{pid}/`, pp, { ...ed, json: { enabled: true } }), 200);
    expectStatus(await send("post", `${processes}{pid}/run/`, pp, { ...ed, json: { wait: true, from_scratch: true } }), 200);
    expectStatus(await send("post", `${processes}{pid}/run/`, pp, ed), 202);
    expectStatus(await send("get", `${processes}{pid}/runs/`, pp, ed), 200);
    expectStatus(await send("get", `${processes}{pid}/runs/`, pp), 401);
    expectStatus(await send("get", `${processes}{pid}/runs/`, pp, { token: other.token }), 403);
    expectStatus(await send("delete", `${processes}{pid}/`, pp, ed), 204);

    // Files, images, events, activity
    for (const kind of ["files", "images"] as const) {
      const base = `/api/stations/{sid}/${kind}/`;
      const ap = { ...p, id: kind === "files" ? file : image };
      expectStatus(await send("get", base, ap), 200);
      expectStatus(await send("get", `${base}{id}/`, ap), 200);
      expectStatus(await send("get", `${base}{id}/content/`, ap), 200);
      expectStatus(await send("get", `${base}{id}/`, { ...ap, id: 999999 }), 404);
      const form = new FormData();
      form.set("descr", "Uploaded");
      form.set("content", new Blob([Buffer.from("GIF89a")], { type: "image/gif" }), "up.gif");
      const uploaded = expectStatus(await send("post", base, ap, { ...ed, body: form }), 201).json.id;
      const empty = new FormData();
      empty.set("descr", "");
      expectStatus(await send("post", base, ap, { ...ed, body: empty }), 400);
      const patch = new FormData();
      patch.set("remarks", "patched");
      expectStatus(await send("patch", `${base}{id}/`, { ...ap, id: uploaded }, { ...ed, body: patch }), 200);
      expectStatus(await send("patch", `${base}{id}/`, { ...ap, id: uploaded }, { ...ed, json: { descr: "As JSON" } }), 200);
      expectStatus(await send("put", `${base}{id}/`, { ...ap, id: uploaded }, { ...ed, form: { descr: "As a form" } }), 200);
      expectStatus(await send("delete", `${base}{id}/`, { ...ap, id: uploaded }, { token: other.token }), 403);
      expectStatus(await send("delete", `${base}{id}/`, { ...ap, id: uploaded }, ed), 204);
    }
    const events = "/api/stations/{sid}/events/";
    expectStatus(await send("get", events, p), 200);
    expectStatus(await send("get", `${events}{id}/`, { ...p, id: event }), 200);
    expectStatus(await send("post", events, p, { ...ed, json: { date: "2020-13-45", type: eventType } }), 400);
    const newEvent = expectStatus(await send("post", events, p, { ...ed, json: { date: "2021-01-01", type: eventType, report: "Cleaned" } }), 201).json.id;
    expectStatus(await send("put", `${events}{id}/`, { ...p, id: newEvent }, { ...ed, json: { date: "2021-01-02", type: eventType } }), 200);
    expectStatus(await send("patch", `${events}{id}/`, { ...p, id: newEvent }, { ...ed, json: { user: "Field team" } }), 200);
    expectStatus(await send("delete", `${events}{id}/`, { ...p, id: newEvent }, ed), 204);
    expectStatus(await send("get", "/api/stations/{sid}/activity/", p, ed), 200);
    expectStatus(await send("get", "/api/stations/{sid}/activity/", p), 401);
    expectStatus(await send("get", "/api/stations/{sid}/activity/", p, { token: other.token }), 403);

    // Lookups: list, one, and each write as a superuser
    const lookupBodies: Record<string, Record<string, unknown>> = {
      stationtypes: { descr: "Doc type" }, eventtypes: { descr: "Doc event" }, variables: { descr: "Doc variable" },
      filetypes: { descr: "PDF", mime_type: "application/pdf" }, organizations: { name: "Doc org 2", acronym: "D2" },
      persons: { first_name: "Doc", last_name: "Writer" }, units: { symbol: "mm", variables: [variable] },
      gareas: { name: "Doc area", geom: "POLYGON ((20 38, 21 38, 21 39, 20 39, 20 38))" },
    };
    for (const [name, body] of Object.entries(lookupBodies)) {
      const base = `/api/${name}/`;
      expectStatus(await send("post", base, p, { token: other.token, json: body }), 403);
      const id = expectStatus(await send("post", base, p, { ...su, json: body }), 201).json.id;
      expectStatus(await send("get", base, p), 200);
      expectStatus(await send("get", `${base}{id}/`, { ...p, id }), 200);
      expectStatus(await send("patch", `${base}{id}/`, { ...p, id }, { ...su, json: body }), 200);
      expectStatus(await send("put", `${base}{id}/`, { ...p, id }, { ...su, json: body }), 200);
      expectStatus(await send("delete", `${base}{id}/`, { ...p, id }, su), 204);
      expectStatus(await send("get", `${base}{id}/`, { ...p, id }), 404);
    }
    expectStatus(await send("post", "/api/units/", p, { ...su, json: { symbol: "" } }), 400);
    expectStatus(await send("delete", "/api/variables/{id}/", { ...p, id: variable }, su), 409);

    // Replication sources (the source cannot be reached: the run fails, and says why)
    const sources = "/api/replication/sources/";
    expectStatus(await send("get", sources, p), 401);
    expectStatus(await send("get", sources, p, { token: other.token }), 403);
    expectStatus(await send("post", sources, p, { ...su, json: { url: "not a url" } }), 400);
    const source = expectStatus(await send("post", sources, p, { ...su, json: { name: "Elsewhere", url: "http://127.0.0.1:9/", token: "abc", interval: 0 } }), 201).json.id;
    const rp = { ...p, id: source };
    // A station copied from it: read-only here until detached (replication.md §2)
    const copied = await f.station({ ownerId: owner, name: "Copied" });
    await db().write((tx) => tx.station.update({ where: { id: copied }, data: { replicatedFrom: source } }));
    const cp = { ...p, sid: copied };
    expect(expectStatus(await send("get", "/api/stations/{sid}/", cp), 200).json.replicated_from).toBe(source);
    expectStatus(await send("patch", "/api/stations/{sid}/", cp, { ...su, json: { remarks: "here" } }), 403);
    expectStatus(await send("post", groups, cp, { ...su, json: groupBody }), 403);
    expectStatus(await send("post", "/api/stations/{sid}/detach/", cp, su), 200);
    expectStatus(await send("patch", "/api/stations/{sid}/", cp, { ...su, json: { remarks: "here" } }), 200);
    expectStatus(await send("get", sources, p, su), 200);
    expectStatus(await send("get", `${sources}{id}/`, rp, su), 200);
    expectStatus(await send("patch", `${sources}{id}/`, rp, { ...su, json: { query: "Doc" } }), 200);
    expectStatus(await send("post", `${sources}{id}/run/`, rp, { ...su, json: { wait: true, dry_run: true } }), 200);
    expectStatus(await send("post", `${sources}{id}/run/`, rp, su), 202);
    expectStatus(await send("get", `${sources}{id}/`, rp, su), 200);
    expectStatus(await send("get", `${sources}{id}/runs/`, rp, su), 200);
    expectStatus(await send("put", `${sources}{id}/`, rp, { ...su, json: { name: "Elsewhere", url: "http://127.0.0.1:9/", token: "abc", enabled: false } }), 200);
    expectStatus(await send("post", `${sources}{id}/run/`, rp, su), 400);
    expectStatus(await send("delete", `${sources}{id}/`, rp, su), 204);
    expectStatus(await send("post", "/api/stations/{sid}/detach/", p, su), 409);
    expectStatus(await send("post", "/api/stations/{sid}/detach/", p, ed), 403);

    // Synoptic groups, with a warning raised by an upload above the high limit
    const synoptic = "/api/synopticgroups/";
    const synopticBody = {
      name: "Doc watch", slug: "doc-watch", fresh_time_limit: 3600, early_warning_emails: [],
      stations: [{ station: quiet, timeseries_groups: [{ timeseries_group: quietGroup }] }, { station: sid, timeseries_groups: [{ timeseries_group: alarmGroup, title: "Level", high_limit: 5, rate_of_change: { symmetric: true, thresholds: [{ delta_t: "1h", allowed_diff: 100 }] } }] }],
    };
    expectStatus(await send("post", synoptic, p, { json: synopticBody }), 401);
    expectStatus(await send("post", synoptic, p, { ...ed, json: { ...synopticBody, slug: "Not a slug!" } }), 400);
    expectStatus(await send("post", synoptic, p, { ...ed, json: { ...synopticBody, stations: [{ station: sid, timeseries_groups: [{ timeseries_group: 999999 }] }] } }), 400);
    const sg = expectStatus(await send("post", synoptic, p, { ...ed, json: synopticBody }), 201).json.id;
    const formGroup = { ...synopticBody, slug: "doc-form", fresh_time_limit: "60", stations: JSON.stringify(synopticBody.stations), early_warning_emails: ["duty@example.com"] };
    const fromForm = expectStatus(await send("post", synoptic, p, { ...ed, form: formGroup }), 201).json.id;
    expectStatus(await send("delete", `${synoptic}{id}/`, { ...p, id: fromForm }, ed), 204);
    const gpSyn = { ...p, id: sg };
    const alarm = { ...p, gid: alarmGroup, tid: alarmSeries };
    expectStatus(await send("post", data, alarm, { ...ed, form: { timeseries_records: "2020-01-01 00:00,1,\n2020-01-01 00:10,9,\n" } }), 204);
    expectStatus(await send("get", synoptic, p), 200);
    expectStatus(await send("get", `${synoptic}{id}/`, gpSyn), 200);
    expectStatus(await send("get", `${synoptic}{id}/latest/`, gpSyn), 200);
    let warnings = await send("get", `${synoptic}{id}/warnings/`, gpSyn, ed);
    for (let i = 0; i < 50 && warnings.json.count === 0; i++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      warnings = await send("get", `${synoptic}{id}/warnings/`, gpSyn, ed);
    }
    expect(warnings.json.count, "an early warning was recorded").toBeGreaterThan(0);
    expectStatus(await send("get", `${synoptic}{id}/warnings/`, gpSyn, { token: other.token }), 403);
    expectStatus(await send("patch", `${synoptic}{id}/`, gpSyn, { ...ed, json: { name: "Doc watch 2" } }), 200);
    expectStatus(await send("patch", `${synoptic}{id}/`, gpSyn, { token: other.token, json: { name: "Taken" } }), 403);
    expectStatus(await send("put", `${synoptic}{id}/`, gpSyn, { ...ed, json: synopticBody }), 200);
    expectStatus(await send("delete", `${synoptic}{id}/`, gpSyn, ed), 204);
    expectStatus(await send("get", `${synoptic}{id}/latest/`, gpSyn), 404);

    // Telemetry: a fake MeteoView2, the station's editors only
    const telemetry = "/api/stations/{sid}/telemetry/";
    const telemetryBody = {
      type: "meteoview2", data_timezone: "Europe/Athens", fetch_interval_minutes: 10, device_locator: vendor.apiUrl, username: "alice@example.org",
      password: "topsecretapikey", remote_station_id: "1852", stale_after_minutes: 60, alert_emails: ["duty@example.org"], sensors: [{ sensor_id: "42a", timeseries_group: alarmGroup }],
    };
    expectStatus(await send("get", "/api/telemetry/types/", p), 200);
    expectStatus(await send("get", telemetry, p, ed), 404);
    expectStatus(await send("put", telemetry, p, { json: telemetryBody }), 401);
    expectStatus(await send("put", telemetry, p, { token: other.token, json: telemetryBody }), 403);
    expectStatus(await send("put", telemetry, p, { ...ed, json: { ...telemetryBody, fetch_offset_minutes: 10 } }), 400);
    expectStatus(await send("put", telemetry, p, { ...ed, json: telemetryBody }), 201);
    expectStatus(await send("put", telemetry, p, { ...ed, form: { ...telemetryBody, fetch_interval_minutes: "20", stale_after_minutes: "60", sensors: JSON.stringify(telemetryBody.sensors), alert_emails: "duty@example.org" } }), 200);
    expectStatus(await send("patch", telemetry, p, { ...ed, json: { verify_tls: true, additional_config: {} } }), 200);
    expectStatus(await send("get", telemetry, p, ed), 200);
    expectStatus(await send("get", telemetry, p, { token: other.token }), 403);
    expectStatus(await send("post", `${telemetry}discover/`, p, { ...ed, json: { remote_station_id: "" } }), 200);
    expectStatus(await send("post", `${telemetry}discover/`, p, { ...ed, json: {} }), 200);
    expectStatus(await send("post", `${telemetry}discover/`, p, { ...ed, json: { password: "wrong-key" } }), 400);
    expectStatus(await send("get", `${telemetry}fetch/`, p, ed), 200);
    expectStatus(await send("post", `${telemetry}fetch/`, p, { ...ed, json: { wait: true } }), 200);
    expectStatus(await send("post", `${telemetry}fetch/`, p, { ...ed, form: { wait: "false" } }), 202);
    expectStatus(await send("get", `${telemetry}fetch/`, p, ed), 200);
    expectStatus(await send("get", `${telemetry}fetch/`, p), 401);
    expectStatus(await send("get", `${telemetry}logs/`, p, ed), 200);
    expectStatus(await send("get", `${telemetry}logs/`, p, { token: other.token }), 403);
    expectStatus(await send("delete", telemetry, p, { token: other.token }), 403);
    expectStatus(await send("delete", telemetry, p, ed), 204);

    // Access requests (public.md §2): the station's editors decide
    const access = "/api/stations/{sid}/accessrequests/";
    const asker = await f.user();
    const ask = { token: asker.token };
    expectStatus(await send("get", access, p), 401);
    expectStatus(await send("get", access, { ...p, sid: 999999 }, ed), 404);
    expectStatus(await send("post", access, p, { json: {} }), 401);
    expectStatus(await send("post", access, p, { ...ed, json: {} }), 400);
    expectStatus(await send("post", access, { ...p, sid: 999999 }, { ...ask, json: {} }), 404);
    const requested = expectStatus(await send("post", access, p, { ...ask, json: { message: "For a study" } }), 201).json.id;
    expectStatus(await send("get", access, p, ed), 200);
    expectStatus(await send("get", access, p, { ...ask, query: "?status=pending" }), 200);
    expectStatus(await send("get", access, p, { ...ed, query: "?status=unknown" }), 400);
    const arp = { ...p, id: requested };
    expectStatus(await send("get", `${access}{id}/`, arp, ask), 200);
    expectStatus(await send("get", `${access}{id}/`, arp, { token: other.token }), 403);
    expectStatus(await send("get", `${access}{id}/`, { ...p, id: 999999 }, ed), 404);
    expectStatus(await send("post", `${access}{id}/approve/`, arp, { ...ask, json: {} }), 403);
    expectStatus(await send("post", `${access}{id}/approve/`, arp, { json: {} }), 401);
    expectStatus(await send("post", `${access}{id}/approve/`, arp, { ...ed, json: { valid_until: "2000-01-01" } }), 400);
    expectStatus(await send("post", `${access}{id}/approve/`, arp, { ...ed, json: { valid_until: "2999-01-01" } }), 200);
    expectStatus(await send("post", `${access}{id}/deny/`, arp, { ...ed, json: { reason: "Too late" } }), 400);
    expectStatus(await send("post", `${access}{id}/deny/`, arp, { ...ask, json: { reason: "Self" } }), 403);
    expectStatus(await send("delete", `${access}{id}/`, arp, { token: other.token }), 403);
    expectStatus(await send("delete", `${access}{id}/`, arp, ask), 204);
    const formAsked = expectStatus(await send("post", access, p, { ...ask, form: { message: "Again" } }), 201).json.id;
    expectStatus(await send("post", `${access}{id}/deny/`, { ...p, id: formAsked }, { ...ed, form: { reason: "Partners only" } }), 200);
    const formApproved = expectStatus(await send("post", access, p, { ...ask, json: {} }), 201).json.id;
    expectStatus(await send("post", `${access}{id}/approve/`, { ...p, id: formApproved }, { ...ed, form: { valid_until: "" } }), 200);
    expectStatus(await send("delete", `${access}{id}/`, { ...p, id: 999999 }, ask), 404);

    // Deleting what was created above
    expectStatus(await send("delete", `${seriesList}{tid}/`, tp, ed), 204);
    expectStatus(await send("delete", `${groups}{gid}/`, gp, ed), 204);
    expectStatus(await send("delete", "/api/stations/{sid}/", sp, { token: other.token }), 403);
    expectStatus(await send("delete", "/api/stations/{sid}/", sp, { token: creator.token }), 204);

    // Authentication
    expectStatus(await send("post", "/api/auth/login/", p, { json: { username: other.username, password: "wrong" } }), 400);
    expectStatus(await send("post", "/api/auth/login/", p, { json: { username: other.username } }), 400);
    const login = expectStatus(await send("post", "/api/auth/login/", p, { form: { username: other.username, password: other.password } }), 200).json.key;
    expectStatus(await send("get", "/api/auth/user/", p, { token: login }), 200);
    expectStatus(await send("get", "/api/auth/user/", p), 401);
    expectStatus(await send("get", "/api/auth/user/", p, { token: "0".repeat(40) }), 401);
    expectStatus(await send("patch", "/api/auth/user/", p, { token: login, json: { first_name: "Ann" } }), 200);
    expectStatus(await send("put", "/api/auth/user/", p, { token: login, json: { username: other.username, last_name: "Other" } }), 200);
    expectStatus(await send("put", "/api/auth/user/", p, { token: login, json: { first_name: "No username" } }), 400);
    expectStatus(await send("post", "/api/auth/password/change/", p, { token: login, json: { old_password: "wrong", new_password1: "a", new_password2: "b" } }), 400);
    expectStatus(await send("post", "/api/auth/password/change/", p, { token: login, json: { old_password: other.password, new_password1: "staple-battery-horse-9", new_password2: "staple-battery-horse-9" } }), 200);
    expectStatus(await send("post", "/api/auth/password/reset/", p, { json: { email: "nobody@example.com" } }), 200);
    expectStatus(await send("post", "/api/auth/password/reset/", p, { json: {} }), 400);
    expectStatus(await send("post", "/api/auth/password/reset/confirm/", p, { json: { uid: "x", token: "y", new_password1: "staple-battery-horse-9", new_password2: "staple-battery-horse-9" } }), 400);
    expectStatus(await send("post", "/api/auth/logout/", p, { token: login }), 200);
    expectStatus(await send("post", "/api/auth/logout/", p, { token: login }), 401);

    // Every GET, with a bad token, a bad page or page size, answers as documented.
    for (const [template, { path, token }] of readable) {
      documented("get", template, await http.get(path, { token: "f".repeat(40) }));
      const parameters = (doc.paths[template].get.parameters ?? []) as { name: string }[];
      if (!parameters.some((parameter) => parameter.name === "page")) continue;
      expect.soft(filledPages.has(template), `${template}: no page with results was checked`).toBe(true);
      for (const query of ["?page=999", "?page=x", "?page_size=x", "?page_size=0"]) documented("get", template, await http.get(path + query, { token }));
    }

    // Every documented operation was sent.
    const operations = Object.entries(doc.paths as Record<string, object>).flatMap(([path, methods]) => Object.keys(methods).map((method) => `${method} ${path}`));
    expect(operations.filter((key) => !exercised.has(key))).toEqual([]);
  }, 120_000);

  it("under ENHYDRIS_AUTHENTICATION_REQUIRED, anonymous reads answer the documented 401 (api.md §15.4)", async () => {
    expect(readable.size).toBeGreaterThan(40);
    const closed = await startServer({ databaseUrl: server.databaseUrl, migrate: false, env: { ENHYDRIS_AUTHENTICATION_REQUIRED: "true" } });
    try {
      const anonymous = api(closed.url);
      // health/ stays open for load balancers (documented: "no login").
      for (const [template, { path }] of readable) expectStatus(documented("get", template, await anonymous.get(path)), template === "/api/health/" ? 200 : 401);
      // Login stays open.
      expectStatus(documented("post", "/api/auth/login/", await anonymous.post("/api/auth/login/", { json: { username: "nobody", password: "x" } })), 400);
    } finally {
      await closed.stop();
    }
  }, 60_000);
});
