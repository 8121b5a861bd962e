import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { z } from "zod";
import { apiRoutes } from "@/lib/api/routes";
import {
  BoundingBoxSchema, ChartPointSchema, EventSchema, FileSchema, GeoJsonSchema, GroupSchema, ImageSchema, LOOKUP_SCHEMAS, OlderTimeseriesSchema, pageSchema,
  StationSchema, TimeseriesSchema, UserSchema,
} from "@/lib/http/openapi-schemas";
import { ProcessSchema, RunSchema } from "@/lib/processing/schemas";
import { LOOKUP_NAMES } from "@/lib/lookups/lookups";
import { api } from "@/tests/support/http";
import * as f from "@/tests/support/fixtures";
import { startServer, type TestServer } from "@/tests/support/server";

let server: TestServer;
let http: ReturnType<typeof api>;
beforeAll(async () => {
  server = await startServer();
  http = api(server.url);
});
afterAll(() => server?.stop());

/** The OpenAPI path of a route pattern: `stations/:sid/` → `/api/stations/{sid}/`. */
const openApiPath = (pattern: string) => `/api/${pattern.replace(/:(\w+)/g, "{$1}")}`;

describe("GET schema/ and docs/ (api.md §3)", () => {
  it("documents every route and method of the current interface", async () => {
    const doc = (await http.get("/api/schema/")).json;
    expect(doc.openapi).toBe("3.1.0");
    const documented = new Set(Object.entries(doc.paths as Record<string, object>).flatMap(([path, ops]) => Object.keys(ops).map((m) => `${m.toUpperCase()} ${path}`)));
    const current = apiRoutes().filter((r) => !r.scheme && !r.path.includes("*") && !r.path.includes("timeseriesgroup/") && !r.path.startsWith("auth/password/reset/complete"));
    const missing: string[] = [];
    for (const route of current) {
      for (const method of Object.keys(route.handlers)) {
        const key = `${method} ${openApiPath(route.path)}`;
        if (!documented.has(key)) missing.push(key);
      }
    }
    expect(missing).toEqual([]);
    for (const key of documented) {
      const [method, path] = key.split(" ");
      const route = current.find((r) => openApiPath(r.path) === path);
      expect(route, key).toBeDefined();
      expect(Object.keys(route!.handlers), key).toContain(method);
    }
  });

  it("resolves every $ref to a definition (not to itself)", async () => {
    const doc = (await http.get("/api/schema/")).json;
    const schemas = doc.components.schemas as Record<string, { $ref?: string }>;
    const refs = [...JSON.stringify(doc).matchAll(/"\$ref":"#\/components\/schemas\/([^"]+)"/g)].map((m) => m[1]);
    expect(refs.length).toBeGreaterThan(10);
    for (const ref of refs) expect(schemas[ref], ref).toBeDefined();
    for (const [name, schema] of Object.entries(schemas)) expect(schema.$ref, name).toBeUndefined();
    // The documented fields are those the API answers with.
    const station = await f.station({ name: "Documented" });
    const answer = (await http.get(`/api/stations/${station}/`)).json;
    const documented = schemas.Station as { type: string; properties: object; required: string[] };
    expect(documented.type).toBe("object");
    expect(Object.keys(answer).filter((key) => !(key in documented.properties))).toEqual([]);
    expect(documented.required.filter((key) => !(key in answer))).toEqual([]);
  });

  it("documents the refusals of the throttled routes (429)", async () => {
    const paths = (await http.get("/api/schema/")).json.paths as Record<string, Record<string, { responses: Record<string, unknown> }>>;
    expect(Object.keys(paths["/api/stations/{sid}/telemetry/discover/"].post.responses)).toContain("429");
    expect(Object.keys(paths["/api/auth/login/"].post.responses)).toContain("429");
  });

  it("presents the document as an HTML page", async () => {
    const r = await http.get("/api/docs/");
    expect(r.status).toBe(200);
    expect(r.headers.get("content-type")).toBe("text/html; charset=utf-8");
    expect(r.text).toContain("/api/stations/{sid}/timeseriesgroups/{gid}/timeseries/{tid}/data/");
    expect(r.text).toContain('href="/api/schema/"');
    // The objects the API answers with, field by field.
    for (const name of ["Station", "Timeseries", "TimeseriesGroup", "Process", "ReplicationSource"]) expect(r.text).toContain(`id="schema-${name}"`);
    expect(r.text).toMatch(/id="schema-Station">.*?<code>geom<\/code>/s);
    // Every link to an object leads to its fields (a list of objects too).
    const targets = new Set([...r.text.matchAll(/id="(schema-[^"]+)"/g)].map((m) => m[1]));
    const links = new Set([...r.text.matchAll(/href="#(schema-[^"]+)"/g)].map((m) => m[1]));
    expect(links.size).toBeGreaterThan(10);
    expect([...links].filter((link) => !targets.has(link))).toEqual([]);
    expect(r.text).toMatch(/id="schema-SynopticLatest">.*?A list of objects with these fields.*?<code>last_common_date<\/code>/s);
  });
});

describe("responses match the documented schemas", () => {
  const check = (schema: z.ZodType, body: unknown) => {
    const strict = "strict" in schema && typeof schema.strict === "function" ? (schema as unknown as z.ZodObject).strict() : schema;
    const result = strict.safeParse(body);
    expect(result.success, result.success ? "" : JSON.stringify(result.error.issues.slice(0, 3))).toBe(true);
  };

  it("for every resource", async () => {
    const owner = await f.organization("Schema Org", "SO");
    const u = await f.user({ superuser: true });
    const sid = await f.station({ ownerId: owner, stype: [await f.stationType()], maintainers: [u.id], altitude: 10, startDate: "2020-01-01" });
    const gid = await f.group(sid, { remarks: "r" });
    const tid = await f.series(gid, { timeStep: "10min" });
    await f.addRecords(tid, [["2020-01-01T00:00:00Z", 1], ["2020-01-01T00:10:00Z", null, "MISS"]]);
    const file = await f.attachment("files", sid, { fileName: "a.pdf", bytes: "x", descr: "A" });
    const image = await f.attachment("images", sid, { fileName: "a.png", bytes: "x" });
    const event = await f.event(sid, { date: "2020-01-01" });
    await f.person("Ann", "Other");
    await f.garea("Area", "A", [20, 38, 21, 39]);
    await f.unit("m", [await f.variable()]);

    check(pageSchema(StationSchema, { bounding_box: BoundingBoxSchema }).strict(), (await http.get("/api/stations/")).json);
    check(StationSchema, (await http.get(`/api/stations/${sid}/`)).json);
    check(GeoJsonSchema, JSON.parse((await http.get("/api/stations/geojson/")).text));
    check(GroupSchema, (await http.get(`/api/stations/${sid}/timeseriesgroups/${gid}/`)).json);
    check(TimeseriesSchema, (await http.get(`/api/stations/${sid}/timeseriesgroups/${gid}/timeseries/${tid}/`)).json);
    check(OlderTimeseriesSchema, (await http.get(`/api/stations/${sid}/timeseries/${tid}/`)).json);
    check(ChartPointSchema.array(), (await http.get(`/api/stations/${sid}/timeseries/${tid}/chart/`)).json);
    check(FileSchema, (await http.get(`/api/stations/${sid}/files/${file}/`)).json);
    check(ImageSchema, (await http.get(`/api/stations/${sid}/images/${image}/`)).json);
    check(EventSchema, (await http.get(`/api/stations/${sid}/events/${event}/`)).json);
    check(UserSchema, (await http.get("/api/auth/user/", { token: u.token })).json);
    for (const name of LOOKUP_NAMES) check(pageSchema(LOOKUP_SCHEMAS[name]), (await http.get(`/api/${name}/`)).json);
    const processes = `/api/stations/${sid}/timeseriesgroups/${gid}/processes/`;
    const target = await f.group(sid);
    for (const body of [
      { type: "checks", range_check: { lower_bound: 0, upper_bound: 10 }, rate_of_change_check: { thresholds: [{ delta_t: "1h", allowed_diff: 2 }] } },
      { type: "aggregation", target_time_step: "1D", method: "max" },
      { type: "curve_interpolation", target_timeseries_group: target, periods: [{ start_date: "2020-01-01", end_date: "2020-01-31", points: [[0, 0], [1, 2]] }] },
    ]) check(ProcessSchema, (await http.post(processes, { token: u.token, json: body })).json);
    const page = (await http.get(processes)).json;
    check(pageSchema(ProcessSchema).strict(), page);
    const pid = page.results[0].id;
    check(RunSchema, (await http.post(`${processes}${pid}/run/`, { token: u.token, json: { wait: true } })).json);
    check(pageSchema(RunSchema).strict(), (await http.get(`${processes}${pid}/runs/`, { token: u.token })).json);
  });
});
