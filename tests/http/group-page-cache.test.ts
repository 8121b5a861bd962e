/**
 * The group page caches what it shows of the station and the group per server process under the
 * metadata version (issue 17, item 3). Every change of those rows, of who may read the data, and
 * of what is read afresh (the unit, the series) shows on the next request, in whichever of the
 * server's worker processes answers it.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { db } from "@/lib/db";
import { api, NOT_PUBLIC_NOTICE } from "@/tests/support/http";
import * as f from "@/tests/support/fixtures";
import { startServer, type TestServer } from "@/tests/support/server";
import { siteLogin } from "@/tests/support/site-session";

const SECRET = "27182.75";

let server: TestServer;
let http: ReturnType<typeof api>;
let sid: number;
let gid: number;
let unitId: number;
let privateTs: number;
let reader: f.TestUser;
let cookie: string;

beforeAll(async () => {
  server = await startServer({ env: { ENHYDRIS_WORKERS: "2" } });
  http = api(server.url);
  reader = await f.user({});
  sid = await f.station({ name: "Cached Station", displayTimezone: "UTC" });
  unitId = await f.unit("mm");
  gid = await f.group(sid, { name: "Rain before", precision: 2, unitId });
  privateTs = await f.series(gid, { type: "Initial", publiclyAvailable: false });
  await f.addRecords(privateTs, [["2020-01-01T00:00:00Z", 1.5], ["2020-01-01T00:10:00Z", Number(SECRET)]]);
  const { jar, error } = await siteLogin(server.url, reader.username, reader.password);
  expect(error).toBeNull();
  cookie = jar.header();
});
afterAll(() => server?.stop());

/** The page, as the reader, several times: the test server's workers take turns. */
async function pages(): Promise<string[]> {
  const texts: string[] = [];
  for (let i = 0; i < 4; i++) {
    const r = await http.get(`/stations/${sid}/timeseriesgroups/${gid}/?series=${privateTs}`, { headers: { Cookie: cookie } });
    expect(r.status).toBe(200);
    texts.push(r.text);
  }
  return texts;
}

describe("the group page after changes of what it shows", () => {
  it("shows the group, the station and the access as they are now", async () => {
    for (const text of await pages()) {
      expect(text).toContain("Rain before");
      expect(text).toContain("Cached Station");
      expect(text).toContain(NOT_PUBLIC_NOTICE);
      expect(text).not.toContain(SECRET);
    }
    // Made a data viewer of the station; the group and the station renamed.
    await db().prisma.stationDataViewer.create({ data: { stationId: sid, userId: reader.id } });
    await db().prisma.timeseriesGroup.update({ where: { id: gid }, data: { name: "Rain after" } });
    await db().prisma.station.update({ where: { id: sid }, data: { name: "Renamed Station" } });
    for (const text of await pages()) {
      expect(text).toContain("Rain after");
      expect(text).not.toContain("Rain before");
      expect(text).toContain("Renamed Station");
      expect(text).toContain(SECRET);
    }
    // Rows the metadata version does not cover: the unit and the series' own fields.
    await db().prisma.unitOfMeasurement.update({ where: { id: unitId }, data: { symbol: "inches-of-rain" } });
    await db().prisma.timeseries.update({ where: { id: privateTs }, data: { name: "Gauge two" } });
    for (const text of await pages()) {
      expect(text).toContain("inches-of-rain");
      expect(text).toContain("Gauge two");
    }
    // No longer a data viewer.
    await db().prisma.stationDataViewer.deleteMany({ where: { stationId: sid, userId: reader.id } });
    for (const text of await pages()) {
      expect(text).toContain(NOT_PUBLIC_NOTICE);
      expect(text).not.toContain(SECRET);
    }
  });

  it("answers 404 for a group that was deleted", async () => {
    const other = await f.group(sid, { name: "Short-lived" });
    expect((await http.get(`/stations/${sid}/timeseriesgroups/${other}/`)).status).toBe(200);
    await db().prisma.timeseriesGroup.delete({ where: { id: other } });
    for (let i = 0; i < 4; i++) expect((await http.get(`/stations/${sid}/timeseriesgroups/${other}/`)).status).toBe(404);
  });
});
