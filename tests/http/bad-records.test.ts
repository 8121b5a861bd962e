import { beforeAll, describe, expect, it } from "vitest";
import { db } from "@/lib/db";
import { records } from "@/lib/records";
import * as f from "@/tests/support/fixtures";
import { DIALECT } from "@/tests/support/server";
import { siteLogin, type CookieJar } from "@/tests/support/site-session";
import { suiteServer } from "@/tests/support/suite";
import { unzip } from "@/tests/support/zip";

/**
 * Issue 36, item 3: one bad record can't take the site down. Each case below is a station whose
 * data no API request can store (the API refuses them), written into the database directly, as
 * an older version, a replica's source or a hand-made fix might have left it. Every page, list,
 * GeoJSON, the legacy `Station/` lists, the CSV export and the data endpoints answer (no 5xx, no
 * transfer left hanging) and show the station, without the bad value.
 */

const T = 1_700_000_000; // 2023-11-14T22:13:20Z
const YEAR_1 = Date.parse("0001-01-01T00:00:00Z") / 1000;
const YEAR_9999 = Date.parse("9999-12-31T23:59:00Z") / 1000;
const PG = DIALECT === "postgres";

type Row = [timestamp: number, value: number, flags: string];

interface Case {
  name: string;
  /** The station's display zone. */
  zone?: string;
  rows: Row[];
  /** Columns of the station, the group and the series set after the records are stored. */
  station?: Record<string, unknown>;
  group?: Record<string, unknown>;
  series?: Record<string, unknown>;
  /** Station columns set by SQL: values Prisma refuses (infinities, NaN). */
  stationSql?: string;
  /** What the station's data show instead of the bad value. */
  check?: (c: Built) => Promise<void>;
}

interface Built {
  sid: number;
  gid: number;
  tid: number;
  series: string;
  get: (path: string) => Promise<Response>;
}

const text = async (r: Response) => {
  expect(r.status).toBe(200);
  return r.text();
};

const CASES: Case[] = [
  {
    name: "Huge values", rows: [[T, 1e308, ""], [T + 600, 1e308, ""], [T + 1200, -Number.MAX_VALUE, ""], [T + 1800, Number.MAX_VALUE, ""]],
    // The chart's mean of 1e308 and 1e308 overflows: the band is drawn, the mean left out.
    check: async (c) => {
      const chart = JSON.parse(await text(await c.get(`${c.series}chart/?start_date=2023-11-14T22:13Z&end_date=2023-11-14T22:24Z&points=1`)));
      expect(chart).toHaveLength(1);
      expect(chart[0]).toMatchObject({ min: chart[0].max, mean: null });
      expect(chart[0].min).toMatch(/^1\d{308}\.00$/);
    },
  },
  { name: "Negative zero and subnormals", rows: [[T, -0, ""], [T + 600, 5e-324, ""], [T + 1200, -5e-324, ""]] },
  {
    name: "Infinite values", rows: [[T, Infinity, ""], [T + 600, -Infinity, "X"], [T + 1200, 3, ""]],
    check: async (c) => {
      expect(await text(await c.get(`${c.series}data/`))).toBe("2023-11-15 00:13,,\r\n2023-11-15 00:23,,X\r\n2023-11-15 00:33,3.00,\r\n");
      expect(await text(await c.get(`${c.series}bottom/`))).toBe("2023-11-15 00:33,3.00,");
    },
  },
  { name: "Long and odd flags", rows: [[T, 1, "X".repeat(5000)], [T + 600, 2, "\u0001\u2028<b>\"'&"], [T + 1200, 3, "A ".repeat(2000)]] },
  { name: "Year 1", rows: [[YEAR_1, 1, ""], [YEAR_1 + 600, 2, ""]] },
  { name: "Year 9999", rows: [[YEAR_9999 - 600, 1, ""], [YEAR_9999, 2, ""]] },
  { name: "Years 1 and 9999 at UTC+14", zone: "Etc/GMT-14", rows: [[YEAR_1, 1, ""], [YEAR_9999, 2, ""]] },
  { name: "Years 1 and 9999 at UTC-12", zone: "Etc/GMT+12", rows: [[YEAR_1, 1, ""], [YEAR_9999, 2, ""]] },
  {
    name: "Beyond the years 1 to 9999", rows: [[-1e13, 1, ""], [T, 2, ""], [1e13, 3, ""]],
    // JavaScript's dates end in the year 275760: the station's last update is its last record within the years 1–9999.
    check: async (c) => expect((await c.get(`/api/stations/${c.sid}/`).then((r) => r.json())).last_update).toBe(null),
  },
  {
    name: "A summary with its last record far away", rows: [[T, 1, ""]], series: { lastTimestamp: BigInt("9000000000000000") },
    check: async (c) => expect((await c.get(`/api/stations/${c.sid}/`).then((r) => r.json())).last_update).toBe(null),
  },
  { name: "A summary with its first record far away", rows: [[T, 1, ""]], series: { firstTimestamp: BigInt("-9000000000000000") } },
  { name: "A summary with an odd last value and count", rows: [[T, 1, ""]], series: { lastValue: 1e308, lastFlags: "Z".repeat(10000), recordCount: -5 } },
  { name: "A summary with its first record after its last", rows: [[T, 1, ""]], series: { firstTimestamp: BigInt(T + 1e6), lastTimestamp: BigInt(T - 1e6) } },
  {
    name: "Precision 1000", rows: [[T, 1.5, ""]], group: { precision: 1000 },
    // Read as the nearest precision the API stores (20).
    check: async (c) => expect(await text(await c.get(`${c.series}data/`))).toBe("2023-11-15 00:13,1.50000000000000000000,\r\n"),
  },
  {
    name: "Precision -1000", rows: [[T, 15, ""]], group: { precision: -1000 },
    check: async (c) => expect(await text(await c.get(`${c.series}data/`))).toBe("2023-11-15 00:13,0,\r\n"),
  },
  { name: "A time step in words", rows: [[T, 1, ""], [T + 600, 2, ""]], series: { timeStep: "10 minutes" } },
  { name: "A huge time step", rows: [[T, 1, ""], [T + 600, 2, ""]], series: { timeStep: "999999999999D" } },
  { name: "Coordinates of 1e308", rows: [[T, 1, ""]], station: { lon: 1e308, lat: -1e308, altitude: 1e308 } },
  {
    name: "Infinite coordinates", rows: [[T, 1, ""]],
    stationSql: PG ? "lon = 'Infinity', lat = '-Infinity', altitude = '-Infinity'" : "lon = 9e999, lat = -9e999, altitude = -9e999",
    check: async (c) => {
      expect((await c.get(`/api/stations/${c.sid}/`).then((r) => r.json())).geom).toBe("SRID=4326;POINT EMPTY");
      expect(await text(await c.get(`${c.series}data/?fmt=hts`))).not.toMatch(/Location|Altitude|Infinity/);
    },
  },
  ...(PG ? [{ name: "Coordinates that are not numbers", rows: [[T, 1, ""]] as Row[], stationSql: "lon = 'NaN', lat = 'NaN', altitude = 'NaN'" }] : []),
  { name: "An unknown SRID", rows: [[T, 1, ""]], station: { originalSrid: 999999 } },
  { name: "A negative SRID", rows: [[T, 1, ""]], station: { originalSrid: -1 } },
  {
    name: "An unknown display zone", rows: [[T, 1, ""]], station: { displayTimezone: "Mars/Olympus" },
    // Read as UTC.
    check: async (c) => expect(await text(await c.get(`${c.series}bottom/`))).toBe("2023-11-14 22:13,1.00,"),
  },
  { name: "Dates that are not dates", rows: [[T, 1, ""]], station: { startDate: "garbage", endDate: "9999-99-99" } },
];

describe(`One bad record can't take the site down (${DIALECT})`, () => {
  const suite = suiteServer();
  let admin: f.TestUser;
  let jar: CookieJar;
  let variableId: number;
  let unitId: number;
  const GOOD = "A station without fault";

  beforeAll(async () => {
    admin = await f.user({ superuser: true });
    jar = (await siteLogin(suite.server.url, admin.username, admin.password)).jar;
    variableId = await f.variable("Temperature");
    unitId = await f.unit("°C", [variableId]);
    const sid = await f.station({ name: GOOD });
    const tid = await f.series(await f.group(sid, { variableId, unitId }), { timeStep: "10min" });
    await f.addRecords(tid, [["2023-11-14T22:00:00Z", 1]]);
  });

  /** Every answer whole (a stream that never ends fails the test by its timeout) and below 500. */
  const get = async (path: string, accept = "text/html") => {
    const r = await fetch(suite.server.url + path, { headers: { Cookie: jar.header(), Accept: accept }, redirect: "manual", signal: AbortSignal.timeout(30_000) });
    const body = Buffer.from(await r.arrayBuffer());
    expect(r.status, `${path} (${accept}): ${body.toString("utf8").slice(0, 300)}`).toBeLessThan(500);
    return new Response(body, { status: r.status, headers: r.headers });
  };

  async function build(c: Case): Promise<Built & { synopticId: number; slug: string }> {
    const sid = await f.station({ name: c.name, ...(c.zone ? { displayTimezone: c.zone } : {}) });
    const gid = await f.group(sid, { variableId, unitId, precision: 2 });
    const tid = await f.series(gid, { timeStep: "10min" });
    const rows = [...c.rows].sort((a, b) => a[0] - b[0]);
    const stored = await records().write(tid, {
      timestamps: Float64Array.from(rows, (r) => r[0]), values: Float64Array.from(rows, (r) => r[1]), flags: rows.map((r) => r[2]),
    }, { mode: "insert", validate: () => [] });
    expect(stored.ok).toBe(true);
    if (c.station) await db().write((tx) => tx.station.update({ where: { id: sid }, data: c.station! }));
    if (c.stationSql) await db().write((tx) => tx.$executeRawUnsafe(`UPDATE station SET ${c.stationSql} WHERE id = ${sid}`));
    if (c.group) await db().write((tx) => tx.timeseriesGroup.update({ where: { id: gid }, data: c.group! }));
    if (c.series) await db().write((tx) => tx.timeseries.update({ where: { id: tid }, data: c.series! }));
    const slug = `bad-${sid}`;
    const synoptic = await fetch(`${suite.server.url}/api/synopticgroups/`, {
      method: "POST", headers: { Authorization: `Token ${admin.token}`, "Content-Type": "application/json" },
      body: JSON.stringify({ name: c.name, slug, display_timezone: "Etc/GMT-2", fresh_time_limit: 3600,
        stations: [{ station: sid, timeseries_groups: [{ timeseries_group: gid, low_limit: 0, high_limit: 10 }] }] }),
    });
    expect(synoptic.status).toBe(201);
    const synopticId = ((await synoptic.json()) as { id: number }).id;
    return { sid, gid, tid, series: `/api/stations/${sid}/timeseriesgroups/${gid}/timeseries/${tid}/`, get, synopticId, slug };
  }

  for (const c of CASES) {
    it(c.name, async () => {
      const b = await build(c);
      const { sid, gid, tid, series } = b;
      try {
        // The site's pages: the station is on each.
        const pages = [
          `/stations/${sid}/`, `/stations/${sid}/timeseriesgroups/${gid}/`, `/stations/${sid}/timeseriesgroups/${gid}/?series=${tid}`,
          `/stations/${sid}/timeseriesgroups/${gid}/?series=${tid}&start=0001-01-01&end=9999-12-31`,
          `/manage/stations/${sid}/`, `/manage/stations/${sid}/timeseriesgroups/${gid}/`,
          `/manage/stations/${sid}/timeseriesgroups/${gid}/timeseries/${tid}/upload/`,
          `/synoptic/${b.slug}/`, `/synoptic/${b.slug}/stations/${sid}/`, `/manage/synoptic/${b.synopticId}/`,
        ];
        for (const page of pages) {
          const html = await text(await get(page));
          expect(html, page).toContain(c.name);
        }
        // Lists of every station: the good one and this one.
        for (const page of ["/", "/manage/"]) {
          const html = await text(await get(page));
          expect(html, page).toContain(GOOD);
          expect(html, page).toContain(c.name);
        }
        for (const page of ["/synoptic/", "/manage/synoptic/"]) expect(await text(await get(page)), page).toContain(c.name);
        const list = await get("/api/stations/").then((r) => r.json());
        expect(list.results.map((s: { name: string }) => s.name).sort()).toEqual([GOOD, c.name].sort());
        const geojson = await get("/api/stations/geojson/").then((r) => r.json());
        expect(geojson.features.map((s: { properties: { name: string } }) => s.properties.name)).toEqual(expect.arrayContaining([GOOD, c.name]));
        const zip = unzip(Buffer.from(await (await get("/api/stations/csv/")).arrayBuffer()));
        expect(zip.map((m) => m.name)).toEqual(["stations.csv", "timeseries.csv"]);
        expect(zip[0].data.toString("utf8")).toContain(c.name);
        for (const accept of ["application/json", "application/xml", "text/csv", "text/html"]) {
          for (const path of ["/api/Station/", `/api/Station/${sid}/`, "/api/Station/info/", `/api/Station/info/${sid}/`, "/api/Gentity/", "/api/Gpoint/"]) {
            const r = await get(path, accept);
            expect(r.status, `${path} ${accept}`).toBe(200);
            if (!path.startsWith("/api/Station/info/")) expect(await r.text(), `${path} ${accept}`).toContain(c.name);
          }
        }
        // The station's own answers.
        for (const path of [
          `/api/stations/${sid}/`, `/api/stations/${sid}/timeseriesgroups/`, `/api/stations/${sid}/timeseriesgroups/${gid}/timeseries/`, series,
          `${series}data/`, `${series}data/?fmt=hts`, `${series}data/?fmt=hts2`, `${series}bottom/`, `${series}chart/`,
          `${series}data/?start_date=0001-01-01T00:00&end_date=9999-12-31T23:59`, `${series}chart/?start_date=0001-01-01T00:00&end_date=9999-12-31T23:59`,
          `/api/synopticgroups/${b.synopticId}/latest/`, `/api/tsdata/${tid}/`, `/api/Timeseries/${tid}/`,
          `/timeseries/data/?object_id=${tid}`, `/timeseries/data/?object_id=${tid}&exclude_data=true`,
        ]) expect((await get(path, "application/json")).status, path).toBe(200);
        await c.check?.(b);
      } finally {
        const headers = { Authorization: `Token ${admin.token}` };
        expect((await fetch(`${suite.server.url}/api/synopticgroups/${b.synopticId}/`, { method: "DELETE", headers })).status).toBe(204);
        expect((await fetch(`${suite.server.url}/api/stations/${sid}/`, { method: "DELETE", headers })).status).toBe(204);
      }
    }, 120_000);
  }

  it("takes uploads of huge values into a day that holds some, and charts them", async () => {
    const sid = await f.station({ name: "Huge uploads" });
    const gid = await f.group(sid, { variableId, unitId, precision: 0 });
    const tid = await f.series(gid, { timeStep: "10min" });
    const path = `/api/stations/${sid}/timeseriesgroups/${gid}/timeseries/${tid}/`;
    const upload = (records: string, mode: string) =>
      fetch(`${suite.server.url}${path}data/`, {
        method: "POST", headers: { Authorization: `Token ${admin.token}`, "Content-Type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({ timeseries_records: records, mode, timezone: "UTC" }),
      });
    // The day's sum overflows with the second upload (PostgreSQL refused it: a 500).
    expect((await upload("2030-01-01 00:00,1e308,\n", "append")).status).toBe(204);
    expect((await upload("2030-01-01 00:20,1.5e308,\n", "append")).status).toBe(204);
    expect((await upload("2030-01-01 00:10,-1.7976931348623157e308,\n", "insert")).status).toBe(204);
    expect((await upload("2030-01-02 00:00,1.7976931348623157e308,\n2030-01-02 00:10,1.7976931348623157e308,\n", "append")).status).toBe(204);
    expect(await text(await get(`${path}data/`))).toMatch(/^2030-01-01 02:00,1\d{308},\r\n2030-01-01 02:10,-1\d{308},\r\n2030-01-01 02:20,1\d{308},\r\n2030-01-02 02:00,1\d{308},\r\n2030-01-02 02:10,1\d{308},\r\n$/);
    // Over the days' blocks, and over the records themselves: the overflowing means are left out.
    for (const range of ["start_date=2029-12-25&end_date=2030-01-10&points=1", "start_date=2030-01-02T00:00Z&end_date=2030-01-02T00:20Z&points=1"]) {
      const chart = JSON.parse(await text(await get(`${path}chart/?${range}`)));
      expect(chart).toHaveLength(1);
      expect(chart[0].mean, range).toBe(null);
      expect(chart[0].max).toMatch(/^1\d{308}$/);
    }
    expect((await get(`/stations/${sid}/timeseriesgroups/${gid}/`)).status).toBe(200);
  }, 120_000);

  it("logged no failed request", () => {
    // The start-up's readiness probes aside: on a loaded machine a probe may time out (503) before the tests begin.
    const logged = suite.server.output().split("\n").filter((line) => !line.includes('"path":"/api/health/"')).join("\n");
    expect(logged).not.toMatch(/"status":5\d\d|request failed|unexpected error/);
  });
});
