import { spawn } from "node:child_process";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { db, Prisma } from "@/lib/db";
import { enqueue, waitForJob } from "@/lib/jobs/queue";
import { records } from "@/lib/records";
import { unseal } from "@/lib/auth/secret-box";
import { REPLICATION_KIND, runJson, SOURCE_SECRET_LABELS, sourceKey } from "@/lib/replication/sources";
import { api } from "@/tests/support/http";
import * as f from "@/tests/support/fixtures";
import { runsSettled } from "@/tests/support/processes";
import { siteLogin } from "@/tests/support/site-session";
import { fixturesOn, ROOT, startServer, TEST_SECRET_KEY, type TestServer } from "@/tests/support/server";
import { type SourceProxy, startSourceProxy } from "@/tests/support/source-proxy";

/**
 * Replication between two instances of this service (replication.md), on the database under
 * test: A is the source, B the target. A proxy in front of A breaks the source on demand.
 */
let A: TestServer;
let B: TestServer;
let proxy: SourceProxy;
let proxyUrl: string;
let fault: "none" | "data500" | "malformed" | "hang" | "loop" = "none";

const a = () => api(A.url);
const b = () => api(B.url);
let aAdmin: f.TestUser;
let bAdmin: f.TestUser;
let bUser: f.TestUser;

/** What A holds, by its ids. */
const src = { station: 0, group: 0, series: 0, privateSeries: 0, event: 0, file: 0, image: 0, bigStation: 0, bigGroup: 0, bigSeries: 0, variable: 0, unit: 0 };
const BIG = 150_000;

/** A's records of the big series: 10-minute values from 2000 on. */
function bigBatch(from: number, n: number) {
  const start = Date.UTC(2000, 0, 1) / 1000;
  return {
    timestamps: Float64Array.from({ length: n }, (_, i) => start + (from + i) * 600),
    values: Float64Array.from({ length: n }, (_, i) => ((from + i) % 997) / 10),
    flags: Array.from({ length: n }, (_, i) => ((from + i) % 5000 === 0 ? "CHECK" : "")),
  };
}

const onA = <T>(fn: () => Promise<T>): Promise<T> => fixturesOn(A, B, fn);

beforeAll(async () => {
  A = await startServer();
  aAdmin = await f.user({ superuser: true });
  src.variable = await f.variable("Temperature");
  src.unit = await f.unit("°C", [src.variable], "Degrees Celsius");
  const owner = await f.organization("National Technical University", "NTUA");
  const stype = await f.stationType("Meteorological");
  src.station = await f.station({ name: "Komboti", code: "KMB", remarks: "Near Arta", altitude: 219, ownerId: owner, stype: [stype], startDate: "2010-01-01" });
  src.group = await f.group(src.station, { name: "Air", precision: 2, remarks: "Line1\nLine2", variableId: src.variable, unitId: src.unit });
  src.series = await f.series(src.group, { type: "Initial", timeStep: "10min" });
  await f.addRecords(src.series, [
    ["2018-12-09T11:10:00Z", 20.456], ["2018-12-09T11:20:00Z", null, "MISS"], ["2018-12-09T11:30:00Z", 21, "FLAG1 FLAG2"], ["2018-12-31T22:00:00Z", -3.125],
  ]);
  src.privateSeries = await f.series(src.group, { type: "Checked", timeStep: "10min", publiclyAvailable: false });
  await f.addRecords(src.privateSeries, [["2018-12-09T11:10:00Z", 20.5], ["2018-12-09T11:20:00Z", 20.7]]);
  src.event = await f.event(src.station, { date: "2020-05-01", user: "joe", report: "Replaced sensor", typeId: await f.eventType("Maintenance") });
  src.file = await f.attachment("files", src.station, { fileName: "manual.pdf", bytes: "%PDF-1.4 manual", descr: "Manual" });
  src.image = await f.attachment("images", src.station, { fileName: "view.jpg", bytes: Buffer.from([0xff, 0xd8, 0xff, 0xe0, 1, 2, 3]), descr: "View", featured: true });
  const person = await f.person("Antonis", "Christofides");
  src.bigStation = await f.station({ name: "Big", ownerId: person, displayTimezone: "UTC" });
  src.bigGroup = await f.group(src.bigStation, { name: "Long", precision: 1, variableId: src.variable, unitId: src.unit });
  src.bigSeries = await f.series(src.bigGroup, { type: "Initial", timeStep: "10min" });
  const stored = await records().write(src.bigSeries, bigBatch(0, BIG), { mode: "append", validate: () => [] });
  expect(stored.ok).toBe(true);

  // The faults a test sets: a data/ request that never answers or fails, a malformed data/
  // body, and a station list whose next link never ends.
  proxy = await startSourceProxy(() => A.url, {
    intercept: (path, res) => {
      if (fault === "hang" && path.includes("/data/")) return true; // never answers
      if (fault === "data500" && path.includes("/data/")) {
        res.writeHead(500, { "Content-Type": "application/json" }).end('{"detail":"A server error occurred."}');
        return true;
      }
      return false;
    },
    rewrite: (path, body) => {
      if (fault === "malformed" && path.includes("/data/") && body.length > 0) {
        const text = body.toString("utf8");
        const cut = text.indexOf("\n", text.length >> 1) + 1;
        return Buffer.from(`${text.slice(0, cut)}2019-01-01 00:00,1.0,,extra\r\n${text.slice(cut)}`);
      }
      if (fault === "loop" && /\/api\/stations\/\?/.test(path)) {
        const page = JSON.parse(body.toString("utf8"));
        return Buffer.from(JSON.stringify({ ...page, count: page.count + 5, next: `${proxyUrl}${path}` }));
      }
      return body;
    },
  });
  proxyUrl = proxy.url;

  // Short enough for the silent source below, long enough for a first answer of A on a busy
  // machine (6 s was not: with the test and busy loops on one core, A's list of time series took longer).
  // B reaches A on loopback: allowed explicitly (the outbound guard, telemetry.md §3).
  B = await startServer({ env: { ENHYDRIS_REPLICATION_TIMEOUT: "20", ENHYDRIS_OUTBOUND_ALLOW: "127.0.0.1" } });
  bAdmin = await f.user({ superuser: true });
  bUser = await f.user();
  // B already knows the variable and the unit: they are matched by their natural keys, not copied again.
  await f.variable("Temperature");
  await f.unit("°C");
}, 180_000);

afterAll(async () => {
  await B?.stop();
  await A?.stop();
  await proxy?.close();
});

/** B's local id of A's object. */
async function local(kind: string, remoteId: number, sourceId: number): Promise<number | null> {
  const [row] = await db().query<{ local_id: number }>(Prisma.sql`
    SELECT local_id FROM replication_map WHERE source_id = ${sourceId} AND kind = ${kind} AND remote_id = ${remoteId}`);
  return row ? Number(row.local_id) : null;
}

async function csv(server: TestServer, station: number, series: number, query = "", token?: string): Promise<string> {
  const r = await api(server.url).get(`/api/stations/${station}/timeseries/${series}/data/${query}`, { token });
  expect(r.status).toBe(200);
  return r.text;
}

async function run(source: number, body: Record<string, unknown> = {}) {
  const r = await b().post(`/api/replication/sources/${source}/run/`, { token: bAdmin.token, json: { wait: true, ...body } });
  expect(r.status).toBe(200);
  return r.json;
}

async function recordCount(seriesId: number): Promise<number> {
  return (await records().summary(seriesId))?.count ?? 0;
}

describe("replication/sources/", () => {
  it("is for superusers: anonymous 401, others 403", async () => {
    expect((await b().get("/api/replication/sources/")).status).toBe(401);
    const other = await b().get("/api/replication/sources/", { token: bUser.token });
    expect(other.status).toBe(403);
    expect(other.json).toEqual({ detail: "You do not have permission to perform this action." });
    expect((await b().post("/api/replication/sources/", { token: bUser.token, json: { url: A.url } })).status).toBe(403);
    expect((await b().get("/api/replication/sources/999/", { token: bUser.token })).status).toBe(404);
  });

  it("validates its fields", async () => {
    const r = await b().post("/api/replication/sources/", { token: bAdmin.token, json: { url: "ftp://x", interval: 30, username: "u", token: "t" } });
    expect(r.status).toBe(400);
    expect(r.json).toEqual({
      url: ["Enter a valid URL."],
      interval: ["Ensure this value is 0 (only on demand) or at least 60."],
      non_field_errors: ["Give either a username and password or a token, not both."],
    });
    expect((await b().post("/api/replication/sources/", { token: bAdmin.token, json: {} })).json).toEqual({ url: ["This field is required."] });
  });

  it("keeps one kind of credentials: a new token replaces a username and password, and the other way round", async () => {
    const id = (await b().post("/api/replication/sources/", { token: bAdmin.token, json: { url: A.url, username: "u", password: "p" } })).json.id;
    const stored = async () => {
      const row = await db().prisma.replicationSource.findUniqueOrThrow({ where: { id }, select: { username: true, password: true, token: true } });
      return { ...row, password: unseal(SOURCE_SECRET_LABELS.password, row.password, TEST_SECRET_KEY), token: unseal(SOURCE_SECRET_LABELS.token, row.token, TEST_SECRET_KEY) };
    };
    try {
      expect((await b().patch(`/api/replication/sources/${id}/`, { token: bAdmin.token, json: { token: "t" } })).json.username).toBe("");
      expect(await stored()).toEqual({ username: "", password: "", token: "t" });
      expect((await b().patch(`/api/replication/sources/${id}/`, { token: bAdmin.token, json: { username: "v", password: "q" } })).json.username).toBe("v");
      expect(await stored()).toEqual({ username: "v", password: "q", token: "" });
      // A change of anything else keeps them.
      await b().patch(`/api/replication/sources/${id}/`, { token: bAdmin.token, json: { name: "Renamed" } });
      expect(await stored()).toEqual({ username: "v", password: "q", token: "" });
    } finally {
      await b().delete(`/api/replication/sources/${id}/`, { token: bAdmin.token });
    }
  });

  it("refuses to run a disabled source; a run queued before it was disabled says that it did nothing", async () => {
    const id = (await b().post("/api/replication/sources/", { token: bAdmin.token, json: { name: "Off", url: A.url, enabled: false } })).json.id;
    try {
      const refused = await b().post(`/api/replication/sources/${id}/run/`, { token: bAdmin.token, json: { wait: true } });
      expect(refused.status).toBe(400);
      expect(refused.json).toEqual({ non_field_errors: ["The source is disabled; enable it to run it."] });
      expect((await b().get(`/api/replication/sources/${id}/runs/`, { token: bAdmin.token })).json.count).toBe(0);
      // As a run queued by an instance a moment before another disabled the source.
      const [jobId] = await enqueue({ kind: REPLICATION_KIND, key: sourceKey(id), payload: {}, maxAttempts: 1 });
      const queued = runJson((await waitForJob(jobId, 30_000))!);
      expect(queued).toMatchObject({ status: "succeeded", created: null, records: null, warnings: ["Not run: the source is disabled."], error: null });
      expect((await b().get(`/api/replication/sources/${id}/runs/`, { token: bAdmin.token })).json.results[0].warnings).toEqual(["Not run: the source is disabled."]);
      const page = await fetch(`${B.url}/manage/replication/`, { headers: { Cookie: (await siteLogin(B.url, bAdmin.username, bAdmin.password)).jar.header() } });
      expect(await page.text()).toContain("Not run: the source is disabled.");
    } finally {
      await b().delete(`/api/replication/sources/${id}/`, { token: bAdmin.token });
    }
  });

  it("never shows credentials back", async () => {
    const r = await b().post("/api/replication/sources/", { token: bAdmin.token, json: { name: "Secret", url: `${A.url}/api/`, username: "x", password: "p4ss" } });
    expect(r.status).toBe(201);
    expect(r.json).toEqual({ id: r.json.id, name: "Secret", url: A.url, username: "x", query: "", interval: 0, enabled: true, prune: false, last_run: null });
    expect(JSON.stringify((await b().get("/api/replication/sources/", { token: bAdmin.token })).json)).not.toContain("p4ss");
    expect((await b().delete(`/api/replication/sources/${r.json.id}/`, { token: bAdmin.token })).status).toBe(204);
  });
});

describe("a replication run", () => {
  let source = 0;
  const bs = { station: 0, series: 0, privateSeries: 0, bigStation: 0, bigSeries: 0 };

  it("copies the stations, their groups, series, files, images and events, and the data byte for byte", async () => {
    source = (await b().post("/api/replication/sources/", { token: bAdmin.token, json: { name: "A", url: A.url } })).json.id;
    const result = await run(source);
    expect(result).toMatchObject({ status: "succeeded", error: null, updated: 0, unchanged: 0, deleted: 0, records: 4 + BIG });
    // 2 stations, 2 groups, 3 series, 1 event, 1 file, 1 image; organization, person, station type, event type
    expect(result.created).toBe(14);
    expect(result.warnings).toEqual([`series ${src.privateSeries} of station ${src.station}: its records were not copied: the source does not let these credentials read them`]);

    bs.station = (await local("station", src.station, source))!;
    bs.series = (await local("series", src.series, source))!;
    bs.privateSeries = (await local("series", src.privateSeries, source))!;
    bs.bigStation = (await local("station", src.bigStation, source))!;
    bs.bigSeries = (await local("series", src.bigSeries, source))!;
    const [sa, sb] = [(await a().get(`/api/stations/${src.station}/`)).json, (await b().get(`/api/stations/${bs.station}/`)).json];
    const same = ["name", "code", "remarks", "original_srid", "altitude", "geom", "display_timezone", "start_date", "end_date", "overseer", "last_update"];
    for (const k of same) expect(sb[k], k).toEqual(sa[k]);
    expect(sb.replicated_from).toBe(source);
    expect(sa.replicated_from).toBeUndefined();
    expect((await b().get(`/api/organizations/${sb.owner}/`)).json).toMatchObject({ name: "National Technical University", acronym: "NTUA" });
    expect((await b().get(`/api/stationtypes/${sb.stype[0]}/`)).json.descr).toBe("Meteorological");

    const groups = (await b().get(`/api/stations/${bs.station}/timeseriesgroups/`)).json.results;
    expect(groups).toHaveLength(1);
    expect(groups[0]).toMatchObject({ name: "Air", precision: 2, remarks: "Line1\nLine2", hidden: false });
    const variables = (await b().get("/api/variables/")).json.results.filter((v: { descr: string }) => v.descr === "Temperature");
    expect(variables).toHaveLength(1); // matched, not copied again
    expect(groups[0].variable).toBe(variables[0].id);
    const series = (await b().get(`/api/stations/${bs.station}/timeseriesgroups/${groups[0].id}/timeseries/`)).json.results;
    expect(series.map((s: Record<string, unknown>) => [s.type, s.time_step, s.publicly_available])).toEqual([["Initial", "10min", true], ["Checked", "10min", false]]);

    const [event] = (await b().get(`/api/stations/${bs.station}/events/`)).json.results;
    expect(event).toMatchObject({ date: "2020-05-01", user: "joe", report: "Replaced sensor" });
    const [file] = (await b().get(`/api/stations/${bs.station}/files/`)).json.results;
    expect(file.descr).toBe("Manual");
    const content = await b().get(`/api/stations/${bs.station}/files/${file.id}/content/`);
    expect(content.text).toBe("%PDF-1.4 manual");
    expect(content.headers.get("content-disposition")).toBe('attachment; filename="manual.pdf"');
    const [image] = (await b().get(`/api/stations/${bs.station}/images/`)).json.results;
    expect(image).toMatchObject({ descr: "View", featured: true });

    for (const query of ["", "?timezone=UTC", "?timezone=Europe/Athens", "?fmt=hts"]) {
      expect(await csv(B, bs.station, bs.series, query)).toBe(await csv(A, src.station, src.series, query));
    }
    expect(await csv(B, bs.station, bs.series)).toBe("2018-12-09 13:10,20.46,\r\n2018-12-09 13:20,,MISS\r\n2018-12-09 13:30,21.00,FLAG1 FLAG2\r\n2019-01-01 00:00,-3.12,\r\n");
    expect(await csv(B, bs.bigStation, bs.bigSeries)).toBe(await csv(A, src.bigStation, src.bigSeries));
    expect(await recordCount(bs.privateSeries)).toBe(0);
  });

  it("writes nothing when nothing changed at the source, and says so", async () => {
    const before = (await db().prisma.timeseries.findMany({ orderBy: { id: "asc" } })).map((t) => [t.id, t.version, t.lastModified?.getTime()]);
    const result = await run(source);
    expect(result).toMatchObject({ status: "succeeded", created: 0, updated: 0, deleted: 0, records: 0, unchanged: 10 });
    expect((await db().prisma.timeseries.findMany({ orderBy: { id: "asc" } })).map((t) => [t.id, t.version, t.lastModified?.getTime()])).toEqual(before);
  });

  it("copies only a record added at the source", async () => {
    const upload = await a().post(`/api/stations/${src.station}/timeseries/${src.series}/data/`, {
      token: aAdmin.token, form: { timeseries_records: "2019-01-01 00:10,7.125,NEW", timezone: "Etc/GMT-2" },
    });
    expect(upload.status).toBe(204);
    const result = await run(source);
    expect(result).toMatchObject({ status: "succeeded", records: 1, created: 0 });
    expect(await recordCount(bs.series)).toBe(5);
    expect(await csv(B, bs.station, bs.series)).toBe(await csv(A, src.station, src.series));
  });

  it("queues the processing of replicated records as an upload does", async () => {
    const station = await onA(async () => {
      const id = await f.station({ name: "Processed", displayTimezone: "UTC" });
      const group = await f.group(id, { name: "Checked here", precision: 1, variableId: src.variable, unitId: src.unit });
      await f.addRecords(await f.series(group, { type: "Initial", timeStep: "10min" }), [["2021-01-01T00:00:00Z", 10], ["2021-01-01T00:10:00Z", 99]]);
      return id;
    });
    expect(await run(source)).toMatchObject({ status: "succeeded", records: 2 });
    const here = (await local("station", station, source))!;
    const [group] = (await b().get(`/api/stations/${here}/timeseriesgroups/`)).json.results;
    // Processes of replicated stations cannot be made through the API (read-only); one made while
    // the station is briefly not marked stands for any process that reads a replicated series.
    await db().write((tx) => tx.station.update({ where: { id: here }, data: { replicatedFrom: null } }));
    const made = await b().post(`/api/stations/${here}/timeseriesgroups/${group.id}/processes/`, {
      token: bAdmin.token, json: { type: "checks", range_check: { lower_bound: 0, upper_bound: 50 } },
    });
    expect(made.status, made.text).toBe(201);
    await db().write((tx) => tx.station.update({ where: { id: here }, data: { replicatedFrom: source } }));
    await runsSettled();
    const checked = async () => {
      const list = (await b().get(`/api/stations/${here}/timeseriesgroups/${group.id}/timeseries/`)).json.results as { id: number; type: string }[];
      return csv(B, here, list.find((t) => t.type === "Checked")!.id, "?timezone=UTC");
    };
    expect(await checked()).toBe("2021-01-01 00:00,10.0,\r\n2021-01-01 00:10,,RANGE\r\n");

    const upload = await a().post(`/api/stations/${station}/timeseries/${(await onA(async () => (await db().prisma.timeseries.findFirstOrThrow({ where: { group: { stationId: station } } })).id))}/data/`, {
      token: aAdmin.token, form: { timeseries_records: "2021-01-01 00:20,-5,", timezone: "UTC" },
    });
    expect(upload.status).toBe(204);
    expect(await run(source)).toMatchObject({ status: "succeeded", records: 1 });
    await runsSettled();
    expect(await checked()).toBe("2021-01-01 00:00,10.0,\r\n2021-01-01 00:10,,RANGE\r\n2021-01-01 00:20,,RANGE\r\n");
    await db().write((tx) => tx.process.deleteMany({ where: { groupId: group.id } }));
  });

  it("copies private series with credentials that may read them", async () => {
    const patched = await b().patch(`/api/replication/sources/${source}/`, { token: bAdmin.token, json: { username: aAdmin.username, password: aAdmin.password } });
    expect(patched.json.username).toBe(aAdmin.username);
    const result = await run(source);
    expect(result).toMatchObject({ status: "succeeded", records: 2, warnings: [] });
    expect(await csv(B, bs.station, bs.privateSeries, "", bAdmin.token)).toBe(await csv(A, src.station, src.privateSeries, "", aAdmin.token));
    expect((await b().get(`/api/stations/${bs.station}/timeseries/${bs.privateSeries}/data/`)).status).toBe(401);
  });

  it("copies a series again from its first record that changed, and follows changed metadata", async () => {
    const insert = await a().post(`/api/stations/${src.station}/timeseries/${src.series}/data/`, {
      token: aAdmin.token, form: { timeseries_records: "2018-12-20 00:00,1.5,", timezone: "UTC", mode: "insert" },
    });
    expect(insert.status).toBe(204);
    expect((await a().patch(`/api/stations/${src.station}/`, { token: aAdmin.token, json: { name: "Komboti (new)" } })).status).toBe(200);
    const result = await run(source);
    // 2018-12-20 00:00 inserted: the copy is rewritten from it on (it and the two after it).
    expect(result).toMatchObject({ status: "succeeded", updated: 1, records: 3 });
    expect(await csv(B, bs.station, bs.series)).toBe(await csv(A, src.station, src.series));
    expect((await b().get(`/api/stations/${bs.station}/`)).json.name).toBe("Komboti (new)");
  });

  it("keeps replicated stations read-only until a superuser detaches them", async () => {
    const patch = await b().patch(`/api/stations/${bs.station}/`, { token: bAdmin.token, json: { name: "Mine" } });
    expect(patch.status).toBe(403);
    expect(patch.json).toEqual({ detail: "This station is replicated from another instance and is read-only here; a superuser may detach it." });
    expect((await b().patch(`/api/stations/${bs.station}/`, { json: { name: "Mine" } })).status).toBe(401);
    expect((await b().post(`/api/stations/${bs.station}/timeseries/${bs.series}/data/`, { token: bAdmin.token, form: { timeseries_records: "2030-01-01 00:00,1," } })).status).toBe(403);
    expect((await b().post(`/api/stations/${bs.station}/events/`, { token: bAdmin.token, json: { date: "2021-01-01", type: 1 } })).status).toBe(403);
    expect((await b().delete(`/api/stations/${bs.station}/`, { token: bAdmin.token })).status).toBe(403);
    expect((await b().post(`/api/tsdata/${bs.series}/`, { token: bAdmin.token, form: { timeseries_records: "2030-01-01 00:00,1," } })).status).toBe(403);
    // reading stays open
    expect((await b().get(`/api/stations/${bs.station}/timeseries/${bs.series}/bottom/`)).status).toBe(200);

    expect((await b().post(`/api/stations/${bs.bigStation}/detach/`)).status).toBe(401);
    expect((await b().post(`/api/stations/${bs.bigStation}/detach/`, { token: bUser.token })).status).toBe(403);
    expect((await b().post("/api/stations/999999/detach/", { token: bAdmin.token })).status).toBe(404);
    const detached = await b().post(`/api/stations/${bs.bigStation}/detach/`, { token: bAdmin.token });
    expect(detached.status).toBe(200);
    expect(detached.json.replicated_from).toBeUndefined();
    expect((await b().post(`/api/stations/${bs.bigStation}/detach/`, { token: bAdmin.token })).status).toBe(409);
    expect((await b().patch(`/api/stations/${bs.bigStation}/`, { token: bAdmin.token, json: { name: "Ours now" } })).status).toBe(200);
    await run(source);
    expect((await b().get(`/api/stations/${bs.bigStation}/`)).json.name).toBe("Ours now"); // replication leaves it alone
  });

  it("reports objects deleted at the source, and deletes them here with prune", async () => {
    expect((await a().delete(`/api/stations/${src.station}/events/${src.event}/`, { token: aAdmin.token })).status).toBe(204);
    const reported = await run(source);
    expect(reported).toMatchObject({ status: "succeeded", deleted: 1 });
    expect(reported.warnings).toEqual([`event ${src.event} (here ${(await local("event", src.event, source))!}) is no longer at the source; kept here (prune deletes it)`]);
    expect((await b().get(`/api/stations/${bs.station}/events/`)).json.count).toBe(1);
    const pruned = await run(source, { prune: true });
    expect(pruned).toMatchObject({ status: "succeeded", deleted: 1, warnings: [] });
    expect((await b().get(`/api/stations/${bs.station}/events/`)).json.count).toBe(0);
    expect((await run(source)).deleted).toBe(0);
    const runs = (await b().get(`/api/replication/sources/${source}/runs/`, { token: bAdmin.token })).json;
    expect(runs.count).toBeGreaterThanOrEqual(8);
    expect(runs.results[0]).toMatchObject({ status: "succeeded", deleted: 0 });
  });

  it("runs a dry run apart from the queued scheduled run, and a Run now with prune as the scheduled run, pruning", async () => {
    // With an interval, the source's next scheduled run is always queued: a dry run must not
    // become that (real) run, and a Run now that merges into it must keep its prune.
    const scheduled = () => db().prisma.job.findMany({ where: { key: sourceKey(source), status: "queued" } });
    const inAnHour = () => Date.now() + 3_000_000;
    expect((await b().patch(`/api/replication/sources/${source}/`, { token: bAdmin.token, json: { interval: 3600 } })).status).toBe(200);
    try {
      const [next, ...more] = await scheduled();
      expect(more).toEqual([]);
      expect(next.runAfter.getTime()).toBeGreaterThan(inAnHour());
      const upload = await a().post(`/api/stations/${src.station}/timeseries/${src.series}/data/`, {
        token: aAdmin.token, form: { timeseries_records: "2019-01-01 00:20,8,", timezone: "Etc/GMT-2" },
      });
      expect(upload.status).toBe(204);
      const before = await recordCount(bs.series);

      const dry = await run(source, { dry_run: true });
      expect(dry).toMatchObject({ status: "succeeded", dry_run: true, records: 1 });
      expect(dry.id).not.toBe(next.id);
      expect(await recordCount(bs.series)).toBe(before);
      expect((await scheduled()).map((j) => [j.id, j.runAfter.getTime()])).toEqual([[next.id, next.runAfter.getTime()]]);
      // The source's last run is the dry run that just ran, not the scheduled run queued for later.
      const lastRun = async () => (await b().get(`/api/replication/sources/${source}/`, { token: bAdmin.token })).json.last_run;
      expect(await lastRun()).toEqual(dry);

      expect((await a().delete(`/api/stations/${src.station}/files/${src.file}/`, { token: aAdmin.token })).status).toBe(204);
      const pruned = await run(source, { prune: true });
      expect(pruned).toMatchObject({ id: next.id, status: "succeeded", dry_run: false, deleted: 1, records: 1, warnings: [] });
      expect(await recordCount(bs.series)).toBe(before + 1);
      expect((await b().get(`/api/stations/${bs.station}/files/`)).json.count).toBe(0);
      const [following] = await scheduled();
      expect(following.runAfter.getTime()).toBeGreaterThan(inAnHour());
      expect(await lastRun()).toEqual(pruned);

      // Newest first: the queued run, then by when they started (the dry run was queued after
      // the scheduled run but started before it).
      const runs = (await b().get(`/api/replication/sources/${source}/runs/`, { token: bAdmin.token })).json.results;
      expect(runs.slice(0, 3).map((r: { id: number; dry_run: boolean }) => [r.id, r.dry_run])).toEqual([[following.id, false], [next.id, false], [dry.id, true]]);
      const page = await fetch(`${B.url}/manage/replication/`, { headers: { Cookie: (await siteLogin(B.url, bAdmin.username, bAdmin.password)).jar.header() } });
      const html = await page.text();
      expect(html).toMatch(new RegExp(`<th scope="row">${dry.id}</th>.*?Dry run, nothing written: 0 created`));
      const due = following.runAfter.toISOString();
      expect(html).toMatch(new RegExp(`<th scope="row">${following.id}</th><td data-label="Status">queued</td>.*?Due ${due.slice(0, 10)} ${due.slice(11, 19)} UTC`));
    } finally {
      expect((await b().patch(`/api/replication/sources/${source}/`, { token: bAdmin.token, json: { interval: 0 } })).status).toBe(200);
    }
    // Only on demand now: the scheduled run is no longer queued.
    expect(await scheduled()).toEqual([]);
  });

  it("shows the sources and their runs on /manage/replication/ to superusers only", async () => {
    const page = async (cookie?: string) => fetch(`${B.url}/manage/replication/`, { redirect: "manual", headers: cookie ? { Cookie: cookie } : {} });
    const anonymous = await page();
    expect(anonymous.status).toBe(307);
    expect(anonymous.headers.get("location")).toContain("/accounts/login/?next=%2Fmanage%2Freplication%2F");
    const user = await siteLogin(B.url, bUser.username, bUser.password);
    // Someone else gets the site's 403 page (management.md §1), not a 200 with a message.
    const refusedResponse = await page(user.jar.header());
    expect(refusedResponse.status).toBe(403);
    const refused = await refusedResponse.text();
    expect(refused).toContain("You do not have permission to see this page");
    expect(refused).not.toContain(A.url);
    const admin = await siteLogin(B.url, bAdmin.username, bAdmin.password);
    const shown = await page(admin.jar.header());
    expect(shown.status).toBe(200);
    const html = await shown.text();
    expect(html).toContain(`<a href="${A.url}">${A.url}</a>`);
    expect(html).toContain("user " + aAdmin.username);
    expect(html).not.toContain(aAdmin.password);
    const [latest] = (await b().get(`/api/replication/sources/${source}/runs/`, { token: bAdmin.token })).json.results;
    expect(html).toMatch(new RegExp(`<th scope="row">${latest.id}</th><td data-label="Status">succeeded</td>.*?</tr>`));
    const row = html.match(new RegExp(`<th scope="row">${latest.id}</th>.*?</tr>`))![0];
    expect(row).toContain(`${latest.created} created, ${latest.updated} updated, ${latest.unchanged} unchanged, ${latest.deleted} deleted; ${latest.records} records`);
  });
});

describe("a source that fails", () => {
  let source = 0;
  let station = 0;
  let series = 0;

  beforeAll(async () => {
    fault = "none";
    source = (await b().post("/api/replication/sources/", { token: bAdmin.token, json: { name: "Through the proxy", url: proxyUrl, query: "Komboti" } })).json.id;
    expect((await run(source)).status).toBe("succeeded");
    station = (await local("station", src.station, source))!;
    series = (await local("series", src.series, source))!;
    const upload = await a().post(`/api/stations/${src.station}/timeseries/${src.series}/data/`, {
      token: aAdmin.token, form: { timeseries_records: "2019-02-01 00:00,1,\n2019-02-01 00:10,2,\n2019-02-01 00:20,3,\n2019-02-01 00:30,4,", timezone: "UTC" },
    });
    expect(upload.status).toBe(204);
  });

  const failsWith = async (pattern: RegExp) => {
    const before = await csv(B, station, series);
    const result = await run(source);
    expect(result.status).toBe("failed");
    expect(result.error).toMatch(pattern);
    expect(await csv(B, station, series)).toBe(before); // nothing half-written, nothing lost
  };

  it("with an error status", async () => {
    fault = "data500";
    await failsWith(/^GET http:\/\/127\.0\.0\.1:\d+\/api\/stations\/\d+\/timeseriesgroups\/\d+\/timeseries\/\d+\/data\/\?.*: HTTP 500 \(A server error occurred\.\)$/);
  });

  it("with malformed CSV", async () => {
    fault = "malformed";
    await failsWith(/malformed records: line \d+: expected 2 or 3 fields, found 4$/);
  });

  it("that does not answer", async () => {
    fault = "hang";
    await failsWith(/: no answer within 20 s$/);
  });

  it("that paginates in circles", async () => {
    fault = "loop";
    await failsWith(/the pages of the list come round again/);
  });

  it("completes the copy once it works again", async () => {
    fault = "none";
    expect((await run(source))).toMatchObject({ status: "succeeded", records: 4 });
    expect(await csv(B, station, series)).toBe(await csv(A, src.station, src.series));
  });
});

describe("a source that speaks like the reference system", () => {
  it("is copied through the per-station lists, variables matched by their translations, and incrementally", async () => {
    const source = (await b().post("/api/replication/sources/", { token: bAdmin.token, json: { name: "Reference-like", url: `${proxyUrl}/ref/`, query: "Komboti" } })).json.id;
    const first = await run(source);
    expect(first).toMatchObject({ status: "succeeded", error: null });
    const station = (await local("station", src.station, source))!;
    const series = (await local("series", src.series, source))!;
    expect((await b().get(`/api/stations/${station}/`)).json).toMatchObject({ original_srid: 4326, stype: [], replicated_from: source });
    const [group] = (await b().get(`/api/stations/${station}/timeseriesgroups/`)).json.results;
    expect((await b().get(`/api/variables/${group.variable}/`)).json.descr).toBe("Temperature");
    expect((await b().get("/api/variables/")).json.results.filter((v: { descr: string }) => v.descr === "Temperature")).toHaveLength(1);
    expect(await csv(B, station, series)).toBe(await csv(A, src.station, src.series));

    const before = (await db().prisma.timeseries.findMany({ orderBy: { id: "asc" } })).map((t) => [t.id, t.version, t.lastModified?.getTime()]);
    expect(await run(source)).toMatchObject({ status: "succeeded", created: 0, updated: 0, deleted: 0, records: 0 });
    expect((await db().prisma.timeseries.findMany({ orderBy: { id: "asc" } })).map((t) => [t.id, t.version, t.lastModified?.getTime()])).toEqual(before);

    const upload = await a().post(`/api/stations/${src.station}/timeseries/${src.series}/data/`, {
      token: aAdmin.token, form: { timeseries_records: "2019-03-01 00:00,9.25,", timezone: "UTC" },
    });
    expect(upload.status).toBe(204);
    expect(await run(source)).toMatchObject({ status: "succeeded", records: 1 });
    expect(await csv(B, station, series)).toBe(await csv(A, src.station, src.series));
  });
});

describe("npm run replicate", () => {
  const cli = (args: string[]) => spawn(process.execPath, ["--import", "tsx", "scripts/replicate.ts", ...args], {
    cwd: ROOT, env: { ...process.env, DATABASE_URL: B.databaseUrl, ENHYDRIS_MEDIA_DIR: B.mediaDir, ENHYDRIS_OUTBOUND_ALLOW: "127.0.0.1" }, stdio: ["ignore", "pipe", "pipe"],
  });
  const finished = (child: ReturnType<typeof cli>) => new Promise<{ code: number | null; out: string; err: string }>((resolve) => {
    let out = "";
    let err = "";
    child.stdout!.on("data", (d) => (out += d));
    child.stderr!.on("data", (d) => (err += d));
    child.on("exit", (code) => resolve({ code, out, err }));
  });

  it("killed with kill -9 halfway through a large series, is completed by the next run with no duplicates", async () => {
    // A second large series at the source, copied by a source of its own (URL with /api/).
    const seriesA = await onA(async () => {
      const id = await f.series(src.bigGroup, { type: "Checked", timeStep: "10min" });
      const stored = await records().write(id, bigBatch(0, BIG), { mode: "append", validate: () => [] });
      expect(stored.ok).toBe(true);
      return id;
    });
    const args = ["--from", `${A.url}/api/`, "--query", "Big", "--token", aAdmin.token];
    const child = cli(args);
    const done = finished(child);
    await new Promise<void>((resolve, reject) => {
      child.stderr!.on("data", (d: Buffer) => {
        // The records phase has begun: kill it at once, while the series streams in (on a quiet
        // machine the whole series can be copied within 150 ms).
        if (/^records /m.test(d.toString())) { child.kill("SIGKILL"); resolve(); }
      });
      child.on("exit", () => reject(new Error("the command ended before it was killed")));
    });
    expect((await done).code).toBe(null);
    const [sourceRow] = await db().query<{ id: number }>(Prisma.sql`SELECT id FROM replication_source WHERE url = ${A.url} AND query = 'Big'`);
    const localSeries = await local("series", seriesA, Number(sourceRow.id));
    if (localSeries !== null) expect([0, BIG]).toContain(await recordCount(localSeries)); // whole or nothing

    const again = await finished(cli(args));
    expect(again.code, again.err).toBe(0);
    expect(again.out).toMatch(/records copied; 0 warnings/);
    const copied = (await local("series", seriesA, Number(sourceRow.id)))!;
    expect(await recordCount(copied)).toBe(BIG);
    const station = (await local("station", src.bigStation, Number(sourceRow.id)))!;
    expect(await csv(B, station, copied)).toBe(await csv(A, src.bigStation, seriesA));

    const third = await finished(cli(args));
    expect(third.code).toBe(0);
    expect(third.out).toMatch(/^0 created, 0 updated, \d+ unchanged, 0 deleted at the source; 0 records copied; 0 warnings; .*\nNothing new at the source: nothing was written\.\n$/);
    // Three runs of the command (each a tsx start-up): 34 s under load on PostgreSQL, over the 60 s default on SQLite.
  }, 180_000);

  it("explains a bad command line", async () => {
    const r = await finished(cli(["--from", "ftp://x"]));
    expect(r.code).toBe(2);
    expect(r.err).toContain("Not an http(s) URL: ftp://x");
  });
});
