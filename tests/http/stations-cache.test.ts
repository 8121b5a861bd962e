import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { db, Prisma } from "@/lib/db";
import { metadataVersion } from "@/lib/domain/metadata-version";
import * as f from "@/tests/support/fixtures";
import { api, rawGet, type TestResponse } from "@/tests/support/http";
import { DIALECT, startServer, type TestServer } from "@/tests/support/server";

/**
 * The station list and search are cached in each worker by the metadata version (migration 0009,
 * lib/domain/metadata-version.ts). The test server runs two workers: every request below goes on
 * a connection of its own, so both workers answer (and cache) before a change and after it. A
 * metadata write through the API, or straight into the database, shows at once everywhere; an
 * upload of records changes `last_update` at once but leaves the version, and so the cached
 * pages, alone.
 */
let server: TestServer;
let http: ReturnType<typeof api>;
let admin: f.TestUser;

beforeAll(async () => {
  server = await startServer({ env: { ENHYDRIS_WORKERS: "2" } });
  http = api(server.url);
  admin = await f.user({ superuser: true });
}, 120_000);
afterAll(async () => {
  await server?.stop();
});

/** Each on a new connection, so that the cluster spreads them over the workers. */
async function everywhere(path: string, times = 8): Promise<TestResponse[]> {
  const responses: TestResponse[] = [];
  for (let i = 0; i < times; i++) responses.push(await rawGet(server.url, path, { Host: "127.0.0.1", Connection: "close" }));
  for (const r of responses) expect(r.status).toBe(200);
  return responses;
}

const names = (r: TestResponse) => (r.json.results as { name: string }[]).map((s) => s.name);

describe(`station list and search cached by the metadata version (${DIALECT})`, () => {
  it("shows a station renamed through the API at once, on every worker", async () => {
    const sid = await f.station({ name: "Cachetest Alpha" });
    for (const r of await everywhere("/api/stations/?q=cachetest")) expect(names(r)).toEqual(["Cachetest Alpha"]);
    for (const r of await everywhere(`/api/stations/?gentity_id=${sid}`)) expect(names(r)).toEqual(["Cachetest Alpha"]);

    const before = await metadataVersion();
    const patched = await http.patch(`/api/stations/${sid}/`, { token: admin.token, json: { name: "Cachetest Beta" } });
    expect(patched.status).toBe(200);
    expect(await metadataVersion()).toBeGreaterThan(before!);

    for (const r of await everywhere("/api/stations/?q=cachetest")) expect(names(r)).toEqual(["Cachetest Beta"]);
    for (const r of await everywhere("/api/stations/?q=alpha")) expect(r.json.count).toBe(0);
    for (const r of await everywhere(`/api/stations/?gentity_id=${sid}`)) expect(names(r)).toEqual(["Cachetest Beta"]);
  });

  it("finds a station by a group's remarks and its owner's name as soon as they are written", async () => {
    const org = await f.organization("Cacheowner Institute");
    const sid = await f.station({ name: "Cachegroup", ownerId: org });
    for (const r of await everywhere("/api/stations/?q=quokkaremark")) expect(r.json.count).toBe(0);
    const vid = await f.variable();
    const uid = await f.unit();
    const created = await http.post(`/api/stations/${sid}/timeseriesgroups/`, {
      token: admin.token, json: { name: "", remarks: "quokkaremark", variable: vid, unit_of_measurement: uid, precision: 2 },
    });
    expect(created.status).toBe(201);
    for (const r of await everywhere("/api/stations/?q=quokkaremark")) expect(names(r)).toEqual(["Cachegroup"]);

    for (const r of await everywhere("/api/stations/?q=owner:cacheowner")) expect(names(r)).toEqual(["Cachegroup"]);
    const renamed = await http.patch(`/api/organizations/${org}/`, { token: admin.token, json: { name: "Otherowner Institute" } });
    expect(renamed.status).toBe(200);
    for (const r of await everywhere("/api/stations/?q=owner:cacheowner")) expect(r.json.count).toBe(0);
    for (const r of await everywhere("/api/stations/?q=owner:otherowner")) expect(names(r)).toEqual(["Cachegroup"]);
  });

  it("shows a write made straight in the database (another process) at once", async () => {
    const sid = await f.station({ name: "Cachedirect One" });
    for (const r of await everywhere("/api/stations/?q=cachedirect")) expect(names(r)).toEqual(["Cachedirect One"]);
    await db().write((tx) => tx.$executeRaw(Prisma.sql`UPDATE station SET name = 'Cachedirect Two' WHERE id = ${sid}`));
    for (const r of await everywhere("/api/stations/?q=cachedirect")) expect(names(r)).toEqual(["Cachedirect Two"]);
    await db().write((tx) => tx.gentity.delete({ where: { id: sid } }));
    for (const r of await everywhere("/api/stations/?q=cachedirect")) expect(r.json.count).toBe(0);
  });

  it("gives an upload's last_update at once without changing the metadata version", async () => {
    const sid = await f.station({ name: "Cacheupload" });
    const tid = await f.series(await f.group(sid));
    for (const r of await everywhere("/api/stations/?q=cacheupload")) expect(r.json.results[0].last_update).toBeNull();
    const before = await metadataVersion();
    const uploaded = await http.post(`/api/stations/${sid}/timeseries/${tid}/data/`, {
      token: admin.token, form: { timeseries_records: "2024-03-01T10:00Z,1.5,\n2024-03-01T10:10Z,2.5,", mode: "insert" },
    });
    expect(uploaded.status).toBe(204);
    expect(await metadataVersion()).toBe(before);
    for (const r of await everywhere("/api/stations/?q=cacheupload")) expect(r.json.results[0].last_update).toBe("2024-03-01T10:10:00Z");
  });

  it("does not cache a search on years of records (ts_has_years)", async () => {
    const sid = await f.station({ name: "Cacheyears" });
    const tid = await f.series(await f.group(sid));
    for (const r of await everywhere("/api/stations/?q=cacheyears%20ts_has_years:2024")) expect(r.json.count).toBe(0);
    await f.addRecords(tid, [["2024-06-01T00:00:00Z", 1]]);
    for (const r of await everywhere("/api/stations/?q=cacheyears%20ts_has_years:2024")) expect(names(r)).toEqual(["Cacheyears"]);
  });
});
