import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { db } from "@/lib/db";
import { api, type TestResponse } from "@/tests/support/http";
import * as f from "@/tests/support/fixtures";
import { processesApi, processesSettled, recordLines, seriesApi, seriesId, upload } from "@/tests/support/processes";
import { fixturesOn, startServer, type TestServer } from "@/tests/support/server";
import { type SourceProxy, startSourceProxy } from "@/tests/support/source-proxy";

/**
 * Replication after corrections at the source (corrections.md §2, replication.md §2): a
 * replica's next run makes its copy byte-identical to the source's again, whatever changed
 * there — changes and deletions in the past that keep the series' count, first and last record
 * included, and a processed series that the source recomputed after them — and a run with
 * nothing changed reads no records at all. A is the source, B the replica, which copies A twice:
 * directly (this service) and through a proxy that makes A look like the reference system
 * (no legacy model lists, no stype on stations: its last_modified is not trusted).
 */
let A: TestServer;
let B: TestServer;
let proxy: SourceProxy;
let proxyUrl: string;
/** The data/ requests that reached A through the proxy for the direct source. */
let dataRequests = 0;

const a = () => api(A.url);
const b = () => api(B.url);
let aAdmin: f.TestUser;
let bAdmin: f.TestUser;

/** What A holds. */
const src = { station: 0, group: 0, initial: 0, checked: 0, process: 0 };
/** B's two sources of A: directly, and like the reference system. */
const sources = { direct: 0, reference: 0 };

const onA = <T>(fn: () => Promise<T>): Promise<T> => fixturesOn(A, B, fn);

function ok(r: TestResponse, status = 200) {
  expect(r.status, r.text).toBe(status);
  return r.json;
}

const aAuth = () => ({ token: aAdmin.token });
const initialPath = () => seriesApi(src.station, src.group, src.initial);

beforeAll(async () => {
  A = await startServer();
  aAdmin = await f.user({ superuser: true });
  const variableId = await f.variable("Temperature");
  const unitId = await f.unit("°C", [variableId]);
  src.station = await f.station({ name: "Corrected", displayTimezone: "UTC" });
  src.group = await f.group(src.station, { name: "Air", precision: 2, variableId, unitId });
  src.initial = await f.series(src.group, { type: "Initial", timeStep: "10min" });
  // Values with more decimals than the precision (a changed precision changes data/), and flags.
  const values = Array.from({ length: 36 }, (_, i) => 20 + (i % 7) + 0.1234);
  await upload(a(), aAdmin.token, initialPath(), recordLines("2025-04-01T00:00:00Z", values));
  ok(await a().patch(`${initialPath()}data/`, { ...aAuth(), json: { records: [{ timestamp: "2025-04-01T00:30:00Z", flags: "LOGGER" }], timezone: "UTC" } }));
  src.process = ok(await a().post(processesApi(src.station, src.group), { ...aAuth(), json: { type: "checks", range_check: { lower_bound: -10, upper_bound: 30 } } }), 201).id;
  await processesSettled([src.process]);
  src.checked = await seriesId(a(), src.station, src.group, "Checked");

  proxy = await startSourceProxy(() => A.url, { seen: (path, reference) => { if (!reference && path.includes("/data/")) dataRequests++; } });
  proxyUrl = proxy.url;

  B = await startServer({ env: { ENHYDRIS_REPLICATION_TIMEOUT: "20", ENHYDRIS_OUTBOUND_ALLOW: "127.0.0.1" } });
  bAdmin = await f.user({ superuser: true });
}, 180_000);

afterAll(async () => {
  await B?.stop();
  await A?.stop();
  await proxy?.close();
});

/** A run of the source, with `recopied` of its report (series copied again from a changed record; not in the run's JSON). */
async function run(source: number) {
  const result = ok(await b().post(`/api/replication/sources/${source}/run/`, { token: bAdmin.token, json: { wait: true } }));
  expect(result, JSON.stringify(result)).toMatchObject({ status: "succeeded", error: null, warnings: [] });
  const job = await db().prisma.job.findUniqueOrThrow({ where: { id: result.id } });
  const report = (typeof job.result === "string" ? JSON.parse(job.result) : job.result) as { recopied?: number } | null;
  return { ...result, recopied: report?.recopied };
}

/** B's local id of A's object, copied from a source. */
async function local(kind: string, remoteId: number, source: number): Promise<number> {
  const row = await db().prisma.replicationMap.findFirst({ where: { sourceId: source, kind, remoteId } });
  expect(row, `${kind} ${remoteId} of source ${source}`).not.toBeNull();
  return row!.localId;
}

async function data(server: TestServer, station: number, series: number, query: string): Promise<string> {
  const r = await api(server.url).get(`/api/stations/${station}/timeseries/${series}/data/${query}`);
  expect(r.status, r.text).toBe(200);
  return r.text;
}

/** Both of A's series, as data/ writes them (in the station's zone, in UTC and as HTS). */
async function aData(): Promise<string[]> {
  const out: string[] = [];
  for (const series of [src.initial, src.checked]) {
    for (const query of ["", "?timezone=UTC", "?fmt=hts"]) out.push(await data(A, src.station, series, query));
  }
  return out;
}

/** Both copies of both series are A's byte for byte. */
async function expectSame(): Promise<void> {
  const expected = await aData();
  for (const source of [sources.direct, sources.reference]) {
    const station = await local("station", src.station, source);
    const copied: string[] = [];
    for (const series of [src.initial, src.checked]) {
      const here = await local("series", series, source);
      for (const query of ["", "?timezone=UTC", "?fmt=hts"]) copied.push(await data(B, station, here, query));
    }
    expect(copied, source === sources.direct ? "copied directly" : "copied like from the reference system").toEqual(expected);
  }
}

/** B's series as they are: a run that writes nothing leaves them so. */
const versions = async () => (await db().prisma.timeseries.findMany({ orderBy: { id: "asc" } })).map((t) => [t.id, t.version, t.lastModified?.getTime()]);

describe("a replica after corrections at the source", () => {
  it("copies the series and their data", async () => {
    sources.direct = ok(await b().post("/api/replication/sources/", { token: bAdmin.token, json: { name: "A", url: proxyUrl } }), 201).id;
    sources.reference = ok(await b().post("/api/replication/sources/", { token: bAdmin.token, json: { name: "A like the reference", url: `${proxyUrl}/ref/` } }), 201).id;
    expect(await run(sources.direct)).toMatchObject({ records: 72 });
    expect(await run(sources.reference)).toMatchObject({ records: 72 });
    await expectSame();
  });

  it("reads and writes no records when nothing changed", async () => {
    const before = await versions();
    dataRequests = 0;
    expect(await run(sources.direct)).toMatchObject({ created: 0, updated: 0, deleted: 0, records: 0, recopied: 0 });
    expect(dataRequests).toBe(0);
    // The reference system says nothing of its records' changes: they are read and compared, and nothing is written.
    expect(await run(sources.reference)).toMatchObject({ created: 0, updated: 0, deleted: 0, records: 0, recopied: 0 });
    expect(await versions()).toEqual(before);
  });

  const changes: [string, () => Promise<unknown>][] = [
    ["an offset in the past", async () => ok(await a().post(`${initialPath()}data/transform/`, {
      ...aAuth(), json: { start_date: "2025-04-01T00:10", end_date: "2025-04-01T01:00", operation: "offset", amount: 7 },
    }))],
    ["an edit of a value and flags (PATCH)", async () => ok(await a().patch(`${initialPath()}data/`, {
      ...aAuth(), json: { records: [{ timestamp: "2025-04-01T02:00:00Z", value: 45.5, flags: "EDITED" }], timezone: "UTC" },
    }))],
    ["a flag on a range", async () => ok(await a().post(`${initialPath()}data/transform/`, {
      ...aAuth(), json: { start_date: "2025-04-01T03:00", end_date: "2025-04-01T03:30", operation: "flag", flags: "SUSPECT" },
    }))],
    ["a revert", async () => {
      const [newest] = ok(await a().get(`${initialPath()}corrections/`, aAuth())).results;
      return ok(await a().post(`${initialPath()}corrections/${newest.id}/revert/`, aAuth()));
    }],
    ["two records inserted and two deleted, the count, first and last record kept", async () => {
      await upload(a(), aAdmin.token, initialPath(), "2025-04-01 02:05,31.5,\n2025-04-01 02:15,18.25,NEW", "insert");
      return ok(await a().delete(`${initialPath()}data/?start_date=2025-04-01T04:00&end_date=2025-04-01T04:10`, aAuth()));
    }],
    ["a change in the past and new records after the last", async () => {
      ok(await a().post(`${initialPath()}data/transform/`, { ...aAuth(), json: { start_date: "2025-04-01T01:00", end_date: "2025-04-01T01:20", operation: "scale", amount: 2 } }));
      await upload(a(), aAdmin.token, initialPath(), recordLines("2025-04-01T06:00:00Z", [21.5, 35]));
    }],
    ["the last records deleted", async () => ok(await a().delete(`${initialPath()}data/?start_date=2025-04-01T05:50`, aAuth()))],
    ["a record inserted before the first", async () => upload(a(), aAdmin.token, initialPath(), "2025-03-31 23:50,19,", "insert")],
  ];

  for (const [what, change] of changes) {
    it(`follows ${what}, and the processed series that the source recomputed after it`, async () => {
      const before = await aData();
      await change();
      await onA(() => processesSettled([src.process]));
      const after = await aData();
      expect(after, "the source changed").not.toEqual(before);
      const direct = await run(sources.direct);
      expect(direct.recopied, JSON.stringify(direct)).toBeGreaterThan(0);
      await run(sources.reference);
      await expectSame();
      // And then nothing more to do.
      const settled = await versions();
      expect(await run(sources.direct)).toMatchObject({ records: 0, recopied: 0 });
      expect(await versions()).toEqual(settled);
    });
  }

  it("recomputed the processed series at the source, and copied it (the checks flag values above 30)", async () => {
    expect(await data(A, src.station, src.checked, "?timezone=UTC")).toMatch(/^2025-04-01 00:30,,.*RANGE.*\r$/m);
    const copy = await local("series", src.checked, sources.direct);
    expect(await data(B, await local("station", src.station, sources.direct), copy, "?timezone=UTC")).toMatch(/^2025-04-01 00:30,,.*RANGE.*\r$/m);
  });

  it("follows a changed precision of the group, which changes what data/ writes", async () => {
    ok(await a().patch(`/api/stations/${src.station}/timeseriesgroups/${src.group}/`, { ...aAuth(), json: { precision: 3 } }));
    await onA(() => processesSettled([src.process]));
    expect(await data(A, src.station, src.initial, "?timezone=UTC")).toMatch(/^2025-04-01 05:40,\d+\.123,\r$/m);
    expect(await run(sources.direct)).toMatchObject({ updated: 1 });
    await run(sources.reference);
    await expectSame();
  });
});
