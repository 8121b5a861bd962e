import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { findAuthUser } from "@/lib/auth/users";
import { db } from "@/lib/db";
import { queueRun } from "@/lib/replication/sources";
import { NotFound } from "@/lib/domain/errors";
import { resendWarning } from "@/lib/synoptic/alarms";
import { deleteSynopticGroup } from "@/lib/synoptic/groups";
import { stationChoices } from "@/lib/synoptic/pages";
import { api, type TestResponse } from "@/tests/support/http";
import * as f from "@/tests/support/fixtures";
import { expectEverySeriesWhole } from "@/tests/support/series-whole";
import { processesApi, runsSettled } from "@/tests/support/processes";
import { startServer, type TestServer } from "@/tests/support/server";

/**
 * Hostile input over HTTP on the second-phase endpoints (processes, synoptic groups and pages,
 * replication sources, station activity): random and malicious bodies, ids and query strings.
 * Never a 5xx, never an internal detail or a credential in a body, never a change by someone
 * who may not make it, never a private value shown to someone who may not read it.
 */
let server: TestServer;
let http: ReturnType<typeof api>;
const u = {} as Record<"admin" | "editor" | "other" | "viewer", f.TestUser>;
/** Station A: the editor's, with public data; station B: nobody's but the admin's, with a private series. */
const ids = { a: 0, b: 0, ga: 0, ga2: 0, gb: 0, ta: 0, tb: 0, checks: 0, curve: 0, agg: 0, synoptic: 0, source: 0 };
const SECRET_TOKEN = "s3cr3t-token-7f1c9a";
const SECRET_PASSWORD = "pa55-w0rd-9e8d";
const PRIVATE_VALUE = 987.654321;

beforeAll(async () => {
  server = await startServer();
  http = api(server.url);
  u.admin = await f.user({ superuser: true });
  u.editor = await f.user();
  u.other = await f.user();
  u.viewer = await f.user();
  const variable = await f.variable("Stage");
  const unit = await f.unit("m", [variable]);
  ids.a = await f.station({ name: "A", maintainers: [u.editor.id] });
  ids.b = await f.station({ name: "B", dataViewers: [u.viewer.id] });
  ids.ga = await f.group(ids.a, { variableId: variable, unitId: unit, name: "Stage A" });
  ids.ga2 = await f.group(ids.a, { variableId: variable, unitId: unit, name: "Discharge A" });
  ids.gb = await f.group(ids.b, { variableId: variable, unitId: unit, name: "Stage B" });
  ids.ta = await f.series(ids.ga, { type: "Initial", timeStep: "10min" });
  ids.tb = await f.series(ids.gb, { type: "Initial", timeStep: "10min", publiclyAvailable: false });
  const rows = (v: (i: number) => number) => Array.from({ length: 300 }, (_, i) => [new Date(Date.UTC(2020, 0, 1) + i * 600_000).toISOString(), v(i)] as [string, number]);
  await f.addRecords(ids.ta, rows((i) => (i % 7) / 3));
  await f.addRecords(ids.tb, rows(() => PRIVATE_VALUE));

  const made = async (path: string, body: unknown, token = u.admin.token) => {
    const r = await http.post(path, { token, json: body });
    expect(r.status, `${path} ${r.text}`).toBe(201);
    return r.json.id as number;
  };
  ids.checks = await made(processesApi(ids.a, ids.ga), { type: "checks", range_check: { lower_bound: 0, upper_bound: 2 } });
  ids.curve = await made(processesApi(ids.a, ids.ga), {
    type: "curve_interpolation", target_timeseries_group: ids.ga2, periods: [{ start_date: "2019-01-01", end_date: "2021-01-01", points: [[0, 0], [2, 5]] }],
  });
  ids.agg = await made(processesApi(ids.a, ids.ga), { type: "aggregation", target_time_step: "1h", method: "mean" });
  ids.synoptic = await made("/api/synopticgroups/", {
    name: "Fuzz", slug: "fuzz", display_timezone: "Etc/GMT", fresh_time_limit: 600,
    stations: [{ station: ids.a, timeseries_groups: [{ timeseries_group: ids.ga }] }, { station: ids.b, timeseries_groups: [{ timeseries_group: ids.gb }] }],
  });
  ids.source = await made("/api/replication/sources/", { name: "Elsewhere", url: "http://127.0.0.1:9/", token: SECRET_TOKEN });
  await runsSettled();
});
afterAll(() => server?.stop());

function expectSane(r: TestResponse, what: string): void {
  expect(r.status, `${what} → ${r.status} ${r.text.slice(0, 300)}`).toBeLessThan(500);
  expect(r.text, what).not.toMatch(/\n\s+at [\w.<>]+ \(|node_modules|PrismaClient|SQLITE_|syntax error|invalid input syntax|violates/);
  expect(r.text, what).not.toContain(SECRET_TOKEN);
  expect(r.text, what).not.toContain(SECRET_PASSWORD);
}

/** Scalars an attacker or a careless client sends in place of any value. */
const scalar = fc.oneof(
  fc.constantFrom<unknown>(null, true, false, 0, -1, 1.5, 1e308, -1e308, 2 ** 53 + 1, 9_007_199_254_740_993n.toString(), "", " ", "NaN", "Infinity", "-Infinity",
    "1e309", "9".repeat(400), "0x10", "' OR 1=1 --", "'; DROP TABLE process; --", "<script>alert(1)</script>", "\u0000", "\uD800", "\uDFFF", "é",
    "10min", "0min", "-10min", "1M", "1Y", "99999999999D", "10min 7.3", "2020-02-30", "99999-01-01", "0000-00-00", "mean", "checks", "sum", "[]", "{}",
    "[[0,0],[1,1]]", '{"lower_bound":0,"upper_bound":1}', "-2147483649", "2147483648", "4294967296"),
  fc.integer().map((n) => n as unknown),
  fc.double().map((n) => n as unknown),
  fc.string({ unit: "binary", maxLength: 20 }).map((s) => s as unknown),
);
const anyValue: fc.Arbitrary<unknown> = fc.oneof({ depthSize: "small" }, scalar, fc.jsonValue({ maxDepth: 2 }), fc.array(scalar, { maxLength: 4 }),
  fc.dictionary(fc.string({ maxLength: 6 }), scalar, { maxKeys: 3 }));

/** Near-valid nested values: right shapes with hostile members, so that the deeper rules are reached. */
const threshold = fc.record({ delta_t: anyValue, allowed_diff: anyValue }, { requiredKeys: [] });
const rangeCheck = fc.record({ lower_bound: anyValue, upper_bound: anyValue, soft_lower_bound: anyValue, soft_upper_bound: anyValue }, { requiredKeys: [] });
const rocCheck = fc.record({ symmetric: anyValue, remove_failing_values: anyValue, thresholds: fc.oneof(anyValue, fc.array(threshold, { maxLength: 4 })) }, { requiredKeys: [] });
const period = fc.record({ start_date: anyValue, end_date: anyValue, points: fc.oneof(anyValue, fc.array(fc.tuple(scalar, scalar), { maxLength: 4 })) }, { requiredKeys: [] });

function groupIds(): unknown[] {
  return [ids.ga, ids.ga2, ids.gb, 0, -1, 2 ** 31, 2 ** 53, 1e20, "1", `${ids.ga2}`, `${ids.gb}abc`];
}

const processBody = () => fc.record({
  type: fc.oneof(fc.constantFrom("checks", "curve_interpolation", "aggregation"), scalar),
  enabled: anyValue,
  range_check: fc.oneof(rangeCheck, anyValue),
  rate_of_change_check: fc.oneof(rocCheck, anyValue),
  target_timeseries_group: fc.oneof(fc.constantFrom(...groupIds()), anyValue),
  periods: fc.oneof(fc.array(period, { maxLength: 3 }), anyValue),
  target_time_step: fc.oneof(fc.constantFrom("10min", "1h", "1D", "0h", "1M", "-1h", "9999999"), scalar),
  method: fc.oneof(fc.constantFrom("sum", "mean", "max", "min"), scalar),
  max_missing: anyValue,
  resulting_timestamp_offset: fc.oneof(fc.constantFrom("", "1min", "-30min", "30", "min"), scalar),
  from_scratch: anyValue,
  wait: fc.constantFrom(false, "false", 0),
}, { requiredKeys: [] });

/** A form body from a JSON-ish object: nested values as JSON text, as the API reads them in forms. */
function formOf(body: Record<string, unknown>): [string, string][] {
  return Object.entries(body).map(([k, v]) => [k, typeof v === "string" ? v : JSON.stringify(v) ?? ""]);
}

async function processState() {
  await runsSettled();
  return {
    processes: await db().prisma.process.findMany({ orderBy: { id: "asc" } }),
    series: await db().prisma.timeseries.findMany({ orderBy: { id: "asc" }, select: { id: true, groupId: true, type: true, name: true } }),
  };
}

describe("processes: hostile bodies", () => {
  function targets(): [string, string][] {
    const base = processesApi(ids.a, ids.ga);
    return [
      ["POST", base], ["PUT", `${base}${ids.checks}/`], ["PATCH", `${base}${ids.checks}/`], ["PATCH", `${base}${ids.curve}/`],
      ["PUT", `${base}${ids.curve}/`], ["PATCH", `${base}${ids.agg}/`], ["PUT", `${base}${ids.agg}/`], ["POST", `${base}${ids.agg}/run/`],
    ];
  }

  it("JSON bodies of near-valid and any shape: never a 5xx", async () => {
    const cases = fc.sample(fc.tuple(fc.constantFrom(...targets()), fc.oneof(processBody(), anyValue)), { numRuns: 500, seed: 21 });
    for (const [[method, path], body] of cases) {
      const r = await http.request(method, path, { token: u.admin.token, json: body });
      expectSane(r, `${method} ${path} ${JSON.stringify(body)?.slice(0, 300)}`);
    }
  });

  it("form bodies with the same values: never a 5xx", async () => {
    const cases = fc.sample(fc.tuple(fc.constantFrom(...targets()), processBody()), { numRuns: 300, seed: 22 });
    for (const [[method, path], body] of cases) {
      const r = await http.request(method, path, { token: u.admin.token, form: formOf(body) });
      expectSane(r, `${method} ${path} form ${JSON.stringify(body).slice(0, 300)}`);
    }
  });

  it("duplicate keys, raw bytes and odd content types: never a 5xx", async () => {
    const base = processesApi(ids.a, ids.ga);
    const raw = [
      '{"type":"checks","type":"aggregation","target_time_step":"1h","method":"max","method":"min"}',
      '{"type":"aggregation","target_time_step":"1h","method":"sum","max_missing":1e400}',
      '{"type":"aggregation","target_time_step":"1h","method":"sum","max_missing":-0}',
      '{"type":"aggregation","target_time_step":"\\ud800","method":"sum"}',
      '{"type":"checks","range_check":{"lower_bound":NaN,"upper_bound":1}}',
      '{"type":"checks","range_check":{"__proto__":{"lower_bound":0},"upper_bound":1}}',
      '{"type":"checks","range_check":{"constructor":{"prototype":{"x":1}},"lower_bound":0,"upper_bound":1}}',
      '{"__proto__":{"type":"checks"}}', "[1,2,3]", '"checks"', "null", "", "{", "\u0000",
    ];
    for (const [method, path] of [["POST", base], ["PATCH", `${base}${ids.agg}/`], ["POST", `${base}${ids.agg}/run/`]]) {
      for (const body of raw) {
        for (const type of ["application/json", "application/x-www-form-urlencoded", "text/plain", "multipart/form-data"]) {
          const r = await http.request(method, path, { token: u.admin.token, body, headers: { "Content-Type": type } });
          expectSane(r, `${method} ${path} ${type} ${body}`);
        }
      }
      const form: [string, string][] = [["type", "aggregation"], ["type", "checks"], ["target_time_step", "1h"], ["method", "sum"], ["method", "max"]];
      expectSane(await http.request(method, path, { token: u.admin.token, form }), `${method} ${path} repeated form keys`);
    }
  });

  it("enormous lists are refused or accepted quickly, never a 5xx", async () => {
    const base = processesApi(ids.a, ids.ga2);
    const day = (i: number) => new Date(Date.UTC(1900, 0, 1) + i * 86_400_000).toISOString().slice(0, 10);
    const bodies = {
      "20,000 disjoint periods": { type: "curve_interpolation", target_timeseries_group: ids.ga,
        periods: Array.from({ length: 20_000 }, (_, i) => ({ start_date: day(2 * i), end_date: day(2 * i), points: [[0, 0], [1, 1]] })) },
      "200,000 points": { type: "curve_interpolation", target_timeseries_group: ids.ga,
        periods: [{ start_date: "2000-01-01", end_date: "2000-01-02", points: Array.from({ length: 200_000 }, (_, i) => [i, i]) }] },
      "50,000 thresholds": { type: "checks", rate_of_change_check: { symmetric: false, thresholds: Array.from({ length: 50_000 }, (_, i) => ({ delta_t: `${i + 1}min`, allowed_diff: 1 })) } },
    };
    for (const [name, body] of Object.entries(bodies)) {
      const started = Date.now();
      const r = await http.post(base, { token: u.admin.token, json: body });
      expectSane(r, name);
      expect(Date.now() - started, `${name}: ${r.status} ${r.text.slice(0, 200)}`).toBeLessThan(10_000);
    }
  });
});

describe("processes: permissions and references to other objects", () => {
  const FORBIDDEN = { detail: "You do not have permission to perform this action." };
  const UNAUTHENTICATED = { detail: "Authentication credentials were not provided." };

  it("anonymous, other users and editors of another station change nothing, whatever they send", async () => {
    const before = await processState();
    const base = processesApi(ids.a, ids.ga);
    const writes: [string, string][] = [
      ["POST", base], ["PUT", `${base}${ids.checks}/`], ["PATCH", `${base}${ids.agg}/`], ["DELETE", `${base}${ids.curve}/`], ["POST", `${base}${ids.agg}/run/`],
    ];
    const bodies = fc.sample(processBody(), { numRuns: 20, seed: 23 });
    for (const [method, path] of writes) {
      for (const body of bodies) {
        const anonymous = await http.request(method, path, { json: body });
        expect(anonymous.status, `${method} ${path}`).toBe(401);
        expect(anonymous.json).toEqual(UNAUTHENTICATED);
        const other = await http.request(method, path, { token: u.other.token, json: body });
        expect(other.status, `${method} ${path}`).toBe(403);
        expect(other.json).toEqual(FORBIDDEN);
      }
    }
    // The runs of a process are its editors' only.
    expect((await http.get(`${base}${ids.agg}/runs/`)).status).toBe(401);
    expect((await http.get(`${base}${ids.agg}/runs/`, { token: u.other.token })).status).toBe(403);
    // An editor of station A is nobody on station B.
    const onB = await http.post(processesApi(ids.b, ids.gb), { token: u.editor.token, json: { type: "aggregation", target_time_step: "1h", method: "sum" } });
    expect(onB.status).toBe(403);
    expect(await processState()).toEqual(before);
  });

  it("a path that mixes ids of other stations, groups and processes is 404", async () => {
    const before = await processState();
    const paths = [
      `${processesApi(ids.b, ids.ga)}`, `${processesApi(ids.b, ids.ga)}${ids.agg}/`, `${processesApi(ids.a, ids.ga2)}${ids.agg}/`,
      `${processesApi(ids.a, ids.gb)}${ids.agg}/`, `${processesApi(ids.a, ids.ga)}${ids.agg + 100_000}/`,
    ];
    for (const path of paths) {
      for (const method of ["GET", "PATCH", "PUT", "DELETE"]) {
        if (path.endsWith("/processes/") && method !== "GET") continue;
        const r = await http.request(method, path, { token: u.admin.token, json: method === "GET" ? undefined : { enabled: false } });
        if (path.endsWith("/processes/")) {
          expect(r.status, `${method} ${path}`).toBe(404);
          continue;
        }
        expect(r.status, `${method} ${path} ${r.text}`).toBe(404);
      }
      if (!path.endsWith("/processes/")) {
        expect((await http.post(`${path}run/`, { token: u.admin.token, json: {} })).status).toBe(404);
        expect((await http.get(`${path}runs/`, { token: u.admin.token })).status).toBe(404);
      }
    }
    expect(await processState()).toEqual(before);
  });

  it("a curve interpolation into a group the editor may not edit, or that does not exist, is refused", async () => {
    const before = await processState();
    const base = processesApi(ids.a, ids.ga2);
    const periods = [{ start_date: "2000-01-01", end_date: "2000-12-31", points: [[0, 0], [1, 1]] }];
    for (const path of [base, `${processesApi(ids.a, ids.ga)}${ids.curve}/`]) {
      const method = path === base ? "POST" : "PATCH";
      const into = (target: unknown) => http.request(method, path, { token: u.editor.token, json: { type: "curve_interpolation", target_timeseries_group: target, periods } });
      const foreign = await into(ids.gb);
      expect(foreign.status, foreign.text).toBe(403);
      expect(foreign.json).toEqual({ detail: "You do not have permission to edit the station of target_timeseries_group." });
      for (const missing of [ids.gb + 100_000, 2 ** 31, 2 ** 53, "99999999999999999999"]) {
        const r = await into(missing);
        expectSane(r, `${method} ${path} target ${missing}`);
        expect(r.status, `target ${missing}: ${r.text}`).toBe(400);
        expect(Object.keys(r.json)).toEqual(["target_timeseries_group"]);
      }
    }
    expect(await processState()).toEqual(before);
  });

  it("never shows a private series' values or a run's error to those who may not see them", async () => {
    // A process of station B (private Initial series) run by the admin: its outputs are the admin's.
    const r = await http.post(processesApi(ids.b, ids.gb), { token: u.admin.token, json: { type: "aggregation", target_time_step: "1h", method: "max" } });
    expect(r.status, r.text).toBe(201);
    await runsSettled();
    const pid = r.json.id;
    for (const token of [undefined, u.other.token, u.editor.token]) {
      const list = await http.get(processesApi(ids.b, ids.gb), { token });
      expect(list.status).toBe(200);
      expect(list.text).not.toContain(String(PRIVATE_VALUE));
      const one = await http.get(`${processesApi(ids.b, ids.gb)}${pid}/`, { token });
      expect(one.status).toBe(200);
      expect(one.json.last_run === null || one.json.last_run.error === null).toBe(true);
      // The aggregated target is a new series of the group: private like its source.
      const target = one.json.target_timeseries;
      if (target) {
        const data = await http.get(`/api/stations/${ids.b}/timeseriesgroups/${ids.gb}/timeseries/${target}/data/`, { token });
        expect(data.text, `target ${target} read by ${token ?? "anonymous"}`).not.toContain("987.65");
      }
    }
  });
});

describe("synoptic groups and pages", () => {
  const synopticBody = () => fc.record({
    name: fc.oneof(fc.constantFrom("N", "x".repeat(51)), scalar),
    slug: fc.oneof(fc.constantFrom("fuzz", "a-b_c", "../x", "a b", "é", "x".repeat(300)), scalar),
    display_timezone: fc.oneof(fc.constantFrom("Etc/GMT", "Etc/GMT-2", "Europe/Athens", "Etc/GMT+99"), scalar),
    fresh_time_limit: anyValue,
    early_warning_emails: fc.oneof(fc.array(fc.oneof(fc.constantFrom("a@b.org", "not-an-address", "a@b.org\r\nBcc: x@y.org", "<a@b.org>"), scalar), { maxLength: 3 }), anyValue),
    stations: fc.oneof(anyValue, fc.array(fc.record({
      station: fc.oneof(fc.constantFrom(ids.a, ids.b, 0, -1, 2 ** 53), scalar),
      timeseries_groups: fc.oneof(anyValue, fc.array(fc.record({
        timeseries_group: fc.oneof(fc.constantFrom(ids.ga, ids.gb, ids.ga2, 2 ** 40), scalar),
        title: anyValue, subtitle: anyValue, low_limit: anyValue, high_limit: anyValue, default_chart_min: anyValue, default_chart_max: anyValue,
        rate_of_change: fc.oneof(anyValue, rocCheck),
      }, { requiredKeys: [] }), { maxLength: 3 })),
    }, { requiredKeys: [] }), { maxLength: 3 })),
  }, { requiredKeys: [] });

  it("hostile bodies on create and change: never a 5xx", async () => {
    const targets: [string, string][] = [["POST", "/api/synopticgroups/"], ["PATCH", `/api/synopticgroups/${ids.synoptic}/`], ["PUT", `/api/synopticgroups/${ids.synoptic}/`]];
    const cases = fc.sample(fc.tuple(fc.constantFrom(...targets), fc.oneof(synopticBody(), anyValue), fc.boolean()), { numRuns: 400, seed: 31 });
    for (const [[method, path], body, asForm] of cases) {
      const r = asForm && body && typeof body === "object" && !Array.isArray(body)
        ? await http.request(method, path, { token: u.admin.token, form: formOf(body as Record<string, unknown>) })
        : await http.request(method, path, { token: u.admin.token, json: body });
      expectSane(r, `${method} ${path} ${asForm ? "form " : ""}${JSON.stringify(body)?.slice(0, 300)}`);
    }
  });

  it("enormous lists of stations and groups: a 400 with every message, never a 5xx", async () => {
    const n = 70_000;
    const r = await http.post("/api/synopticgroups/", { token: u.admin.token, json: {
      name: "Big", slug: "big", fresh_time_limit: 60,
      stations: Array.from({ length: n }, (_, i) => ({ station: 1_000_000 + i, timeseries_groups: [{ timeseries_group: 1_000_000 + i }] })),
    } });
    expectSane(r, `${n} stations`);
    expect(r.status, r.text.slice(0, 300)).toBe(400);
    expect(r.json.stations).toHaveLength(n);
    expect(r.json.stations[n - 1]).toBe(`stations[${n - 1}].station: Invalid pk "${1_000_000 + n - 1}" - object does not exist.`);
  });

  it("only the creator and superusers change a synoptic group", async () => {
    const before = await db().prisma.synopticGroup.findUnique({ where: { id: ids.synoptic } });
    for (const method of ["PATCH", "PUT", "DELETE"]) {
      const anonymous = await http.request(method, `/api/synopticgroups/${ids.synoptic}/`, { json: { name: "Taken" } });
      expect(anonymous.status).toBe(401);
      for (const token of [u.other.token, u.editor.token]) {
        const other = await http.request(method, `/api/synopticgroups/${ids.synoptic}/`, { token, json: { name: "Taken" } });
        expect(other.status).toBe(403);
      }
    }
    expect(await db().prisma.synopticGroup.findUnique({ where: { id: ids.synoptic } })).toEqual(before);
  });

  it("latest/ hides private values and hostile ids and query strings are never a 5xx", async () => {
    for (const token of [undefined, u.other.token, u.editor.token]) {
      const r = await http.get(`/api/synopticgroups/${ids.synoptic}/latest/`, { token });
      expect(r.status).toBe(200);
      expect(r.text).not.toContain("987.65");
      const b = r.json.find((s: { station: number }) => s.station === ids.b);
      expect(b.values[0]).toMatchObject({ value: null, status: "hidden" });
    }
    const viewer = await http.get(`/api/synopticgroups/${ids.synoptic}/latest/`, { token: u.viewer.token });
    expect(viewer.text).toContain("987.65");
    const hostileIds = ["0", "-1", "1.5", "1e3", "99999999999999999999", "fuzz", "%00", "%27%20OR%201%3D1", "..%2F", "%C3%A9", "%FF"];
    for (const id of hostileIds) {
      for (const tail of ["", "latest/", "warnings/"]) {
        const r = await http.get(`/api/synopticgroups/${id}/${tail}?page=%ZZ&page_size=-1`, { token: u.admin.token });
        expectSane(r, `GET synopticgroups/${id}/${tail}`);
        expect([404, 400]).toContain(r.status);
      }
    }
  });

  it("hostile slugs, station ids and query strings on the pages: 404 or 200, never a 5xx nor a private value", async () => {
    const slugs = ["fuzz", "FUZZ", "nope", "%00", "%2e%2e%2f", "..%2f", "%27%20OR%201%3D1", "%3Cscript%3E", "%C3%A9", "%FF", "a".repeat(300), `${ids.synoptic}`];
    const sids = [`${ids.a}`, `${ids.b}`, "0", "-1", "1e3", "99999999999999999999", "abc", "%00", "%FF"];
    for (const slug of slugs) {
      const r = await http.get(`/synoptic/${slug}/?x=%ZZ&page=-1`);
      expectSane(r, `/synoptic/${slug}/`);
      expect(r.text).not.toContain("987.65");
      for (const sid of sids) {
        const s = await http.get(`/synoptic/${slug}/stations/${sid}/`);
        expectSane(s, `/synoptic/${slug}/stations/${sid}/`);
        expect(s.text).not.toContain("987.65");
        if (slug !== "fuzz" || !(sid === `${ids.a}` || sid === `${ids.b}`)) expect(s.status, `/synoptic/${slug}/stations/${sid}/`).toBe(404);
      }
    }
  });
});

describe("replication", () => {
  it("hostile source bodies: never a 5xx, never a credential shown back", async () => {
    const sourceBody = fc.record({
      name: anyValue,
      url: fc.oneof(fc.constantFrom("http://127.0.0.1:9/", "https://user:pw@example.org/", "file:///etc/passwd", "gopher://x/", "javascript:alert(1)",
        "http://[::1]:9/", "http://169.254.169.254/latest/meta-data/", "http://%00/", "http://a b/", "//example.org", "http://" + "a".repeat(600) + ".org/",
        "http://example.org/?q=1#frag", "http://example.org/api/"), scalar),
      username: anyValue, password: fc.oneof(fc.constant(SECRET_PASSWORD), anyValue), token: fc.oneof(fc.constant(SECRET_TOKEN), anyValue),
      query: anyValue, interval: anyValue, enabled: anyValue, prune: anyValue,
    }, { requiredKeys: [] });
    const targets: [string, string][] = [["POST", "/api/replication/sources/"], ["PATCH", `/api/replication/sources/${ids.source}/`], ["PUT", `/api/replication/sources/${ids.source}/`]];
    const cases = fc.sample(fc.tuple(fc.constantFrom(...targets), fc.oneof(sourceBody, anyValue), fc.boolean()), { numRuns: 300, seed: 41 });
    for (const [[method, path], body, asForm] of cases) {
      const r = asForm && body && typeof body === "object" && !Array.isArray(body)
        ? await http.request(method, path, { token: u.admin.token, form: formOf(body as Record<string, unknown>) })
        : await http.request(method, path, { token: u.admin.token, json: body });
      expectSane(r, `${method} ${path} ${JSON.stringify(body)?.slice(0, 300)}`);
    }
    const list = await http.get("/api/replication/sources/?page_size=1000", { token: u.admin.token });
    expectSane(list, "sources list");
  });

  it("a run against an unreachable address fails with a clear message and no credential", async () => {
    await http.patch(`/api/replication/sources/${ids.source}/`, { token: u.admin.token, json: { url: "http://127.0.0.1:9/", token: SECRET_TOKEN } });
    const r = await http.post(`/api/replication/sources/${ids.source}/run/`, { token: u.admin.token, json: { wait: true } });
    expectSane(r, "run");
    expect([200, 202]).toContain(r.status);
    await runsSettled(60_000);
    const runs = await http.get(`/api/replication/sources/${ids.source}/runs/`, { token: u.admin.token });
    expectSane(runs, "runs");
    expect(runs.status).toBe(200);
  });

  it("superusers only; hostile ids are 404; run bodies never a 5xx", async () => {
    const before = await db().prisma.replicationSource.findMany({ orderBy: { id: "asc" } });
    for (const token of [undefined, u.editor.token, u.other.token]) {
      for (const [method, path] of [["GET", "/api/replication/sources/"], ["POST", "/api/replication/sources/"], ["PATCH", `/api/replication/sources/${ids.source}/`],
        ["DELETE", `/api/replication/sources/${ids.source}/`], ["POST", `/api/replication/sources/${ids.source}/run/`], ["GET", `/api/replication/sources/${ids.source}/runs/`],
        ["POST", `/api/stations/${ids.a}/detach/`]]) {
        const r = await http.request(method, path, { token, json: method === "GET" ? undefined : { url: "http://127.0.0.1:9/", name: "x" } });
        expectSane(r, `${method} ${path}`);
        expect(r.status, `${method} ${path} as ${token ?? "anonymous"}`).toBe(token ? 403 : 401);
      }
    }
    expect(await db().prisma.replicationSource.findMany({ orderBy: { id: "asc" } })).toEqual(before);
    for (const id of ["0", "-1", "1.5", "99999999999999999999", "abc", "%00", "%FF"]) {
      for (const [method, path] of [["GET", `/api/replication/sources/${id}/`], ["POST", `/api/replication/sources/${id}/run/`],
        ["GET", `/api/replication/sources/${id}/runs/`], ["DELETE", `/api/replication/sources/${id}/`], ["POST", `/api/stations/${id}/detach/`]]) {
        const r = await http.request(method, path, { token: u.admin.token, json: method === "GET" ? undefined : {} });
        expectSane(r, `${method} ${path}`);
        expect(r.status, `${method} ${path}`).toBe(404);
      }
    }
    const runBodies = fc.sample(fc.oneof(fc.record({ wait: fc.constantFrom(false, "no", 0), prune: anyValue, dry_run: anyValue }, { requiredKeys: [] }), anyValue),
      { numRuns: 60, seed: 42 });
    for (const body of runBodies) {
      const r = await http.post(`/api/replication/sources/${ids.source}/run/`, { token: u.admin.token, json: body });
      expectSane(r, `run ${JSON.stringify(body)}`);
    }
    await runsSettled(60_000);
  });
});

describe("the services behind the site's forms, given ids as a browser sends them (Number of any text)", () => {
  const HOSTILE_IDS = [NaN, Infinity, -Infinity, -1, 0, 1.5, 2 ** 31, 2 ** 53, Number.MAX_VALUE];

  it("are not found, never an error of the database", async () => {
    const admin = (await findAuthUser(u.admin.id))!;
    for (const id of HOSTILE_IDS) {
      await expect(resendWarning(admin, ids.synoptic, id), `resendWarning(…, ${id})`).rejects.toBeInstanceOf(NotFound);
      await expect(resendWarning(admin, id, 1), `resendWarning(${id}, …)`).rejects.toBeInstanceOf(NotFound);
      await expect(deleteSynopticGroup(admin, id), `deleteSynopticGroup(${id})`).rejects.toBeInstanceOf(NotFound);
      await expect(queueRun(admin, id, {}), `queueRun(${id})`).rejects.toBeInstanceOf(NotFound);
    }
    expect(await stationChoices([...HOSTILE_IDS, ids.a].map(Number))).toEqual([expect.objectContaining({ id: ids.a })]);
    // The synoptic form's station picker sends the ids chosen, as many as the browser likes.
    const many = Array.from({ length: 70_000 }, (_, i) => 1_000_000 + i);
    expect(await stationChoices([...many, ids.a])).toEqual([expect.objectContaining({ id: ids.a })]);
  });
});

describe("station activity", () => {
  it("hostile query strings and ids: never a 5xx; editors only", async () => {
    const params = ["page", "page_size", "offset", "limit", "since", "q", "sort", "x"];
    const query = fc.array(fc.tuple(fc.constantFrom(...params), fc.oneof(scalar.map(String), fc.string({ maxLength: 10 }))), { maxLength: 4 })
      .map((pairs) => new URLSearchParams(pairs).toString());
    for (const q of fc.sample(query, { numRuns: 150, seed: 51 })) {
      for (const token of [u.admin.token, u.editor.token]) {
        const r = await http.get(`/api/stations/${ids.a}/activity/?${q}`, { token });
        expectSane(r, `activity ?${q}`);
      }
    }
    expect((await http.get(`/api/stations/${ids.a}/activity/`)).status).toBe(401);
    expect((await http.get(`/api/stations/${ids.a}/activity/`, { token: u.other.token })).status).toBe(403);
    expect((await http.get(`/api/stations/${ids.b}/activity/`, { token: u.editor.token })).status).toBe(403);
    for (const id of ["0", "-1", "99999999999999999999", "abc", "%00"]) {
      const r = await http.get(`/api/stations/${id}/activity/`, { token: u.admin.token });
      expectSane(r, `activity of ${id}`);
      expect(r.status).toBe(404);
    }
  });
});

describe("afterwards", () => {
  it("every series is whole: its summary matches its records", async () => {
    await runsSettled(60_000);
    await expectEverySeriesWhole();
  });
});
