import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { api } from "@/tests/support/http";
import * as f from "@/tests/support/fixtures";
import { unzip } from "@/tests/support/zip";
import { startServer, type TestServer } from "@/tests/support/server";

/**
 * CSV export (api.md §4.7) and GeoJSON (§4.8).
 */
let server: TestServer;
let http: ReturnType<typeof api>;

const STATIONS_HEADER = "id,Name,Short name,Owner,Type,Start date,End date,Longitude,Latitude,Altitude,Original SRID,Display timezone,Overseer,Remarks,Last update,Last modified";
const SERIES_HEADER = "id,Station,Station name,Time series group,Group name,Variable,Unit,Precision,Type,Time step,Name,Publicly available,Start date,End date,Number of records,Remarks";
const DEFAULT_VIEWPORT = [19.3, 34.75, 29.65, 41.8];


async function fetchRaw(path: string) {
  const response = await fetch(server.url + path);
  return { status: response.status, headers: response.headers, body: Buffer.from(await response.arrayBuffer()) };
}

async function exportCsv(query = "") {
  const r = await fetchRaw(`/api/stations/csv/${query ? `?${query}` : ""}`);
  expect(r.status, r.body.toString()).toBe(200);
  const members = unzip(r.body);
  expect(members.map((m) => m.name)).toEqual(["stations.csv", "timeseries.csv"]);
  return { ...r, members, stations: members[0].data.toString("utf8"), series: members[1].data.toString("utf8") };
}

const rows = (csv: string) => csv.split("\r\n");

/** RFC 4180 records (CRLF line ends; quoted fields may hold commas, quotes and line breaks). */
function parseCsv(csv: string): string[][] {
  const records: string[][] = [];
  let record: string[] = [];
  let field = "";
  let i = 0;
  let quoted = false;
  while (i < csv.length) {
    const c = csv[i];
    if (quoted) {
      if (c === '"' && csv[i + 1] === '"') { field += '"'; i += 2; continue; }
      if (c === '"') { quoted = false; i++; continue; }
      field += c; i++; continue;
    }
    if (c === '"') { quoted = true; i++; continue; }
    if (c === ",") { record.push(field); field = ""; i++; continue; }
    if (c === "\r" && csv[i + 1] === "\n") { record.push(field); records.push(record); record = []; field = ""; i += 2; continue; }
    field += c; i++;
  }
  if (field !== "" || record.length) { record.push(field); records.push(record); }
  return records;
}
const stationIds = (csv: string) => parseCsv(csv).slice(1).map((r) => Number(r[0]));

const S: Record<string, number> = {};
const G: Record<string, number> = {};
const T: Record<string, number> = {};
let vTemp: number, vRain: number, uC: number, uMm: number;

beforeAll(async () => {
  server = await startServer({ env: { ENHYDRIS_PAGE_SIZE: "2" } });
  http = api(server.url);
  const ntua = await f.organization("National Technical University", "NTUA");
  const acr = await f.organization("", "ACR");
  const person = await f.person("Antonis", "Christofides");
  const meteo = await f.stationType("Meteorological");
  const hydro = await f.stationType("Hydrometric");
  vTemp = await f.variable("Temperature");
  vRain = await f.variable("Rain, total");
  uC = await f.unit("°C");
  uMm = await f.unit("mm");

  S.komboti = await f.station({ name: "Komboti", code: "KMB", remarks: "exportset Near Arta", originalSrid: 2100, altitude: 219, lon: 21.06071, lat: 39.09518,
    displayTimezone: "Etc/GMT-2", startDate: "2010-01-01", ownerId: ntua, overseer: "Bilbo", stype: [meteo, hydro] });
  S.quoted = await f.station({ name: 'Say "hi", there', code: "", remarks: "exportset\r\nsecond line", originalSrid: null, altitude: null, lon: -0.0000001, lat: 0.5,
    displayTimezone: "UTC", ownerId: person });
  S.omega = await f.station({ name: "Ωmega", code: "Ω1", remarks: "exportset", altitude: 0.1, lon: 24.001723560948786, lat: 38.85140820210843,
    displayTimezone: "Etc/GMT+5", endDate: "2020-12-31", ownerId: acr });

  G.b = await f.group(S.komboti, { name: "B group", variableId: vTemp, unitId: uC, precision: 1, remarks: "" });
  G.a1 = await f.group(S.komboti, { name: "A group", variableId: vRain, unitId: uMm, precision: 0, remarks: "multi\nline, remark" });
  G.a2 = await f.group(S.komboti, { name: "A group", variableId: vTemp, unitId: uC, precision: -1, remarks: "second" });
  G.empty = await f.group(S.komboti, { name: "", variableId: vTemp, unitId: uC, precision: 2 });

  T.bInitial = await f.series(G.b, { type: "Initial" });
  T.a1Agg10 = await f.series(G.a1, { type: "Aggregated", timeStep: "10min", name: "mean" });
  T.a1Initial = await f.series(G.a1, { type: "Initial", timeStep: "10min", publiclyAvailable: false });
  T.a1Regularized = await f.series(G.a1, { type: "Regularized", timeStep: "10min" });
  T.a1Checked = await f.series(G.a1, { type: "Checked", timeStep: "10min", name: "checked, \"v2\"" });
  T.a1AggH = await f.series(G.a1, { type: "Aggregated", timeStep: "H", name: "max" });
  T.a2Checked = await f.series(G.a2, { type: "Checked" });
  T.emptyInitial = await f.series(G.empty, { type: "Initial", timeStep: "D" });

  await f.addRecords(T.a1Initial, [["2019-12-31T23:30:00Z", 1], ["2020-01-01T00:00:00Z", 2], ["2020-03-01T10:05:00Z", 3]]);
  await f.addRecords(T.a1AggH, [["2018-12-31T22:00:00Z", 5]]);

  const gq = G.q = await f.group(S.quoted, { name: "Q", variableId: vTemp, unitId: uC, precision: 2 });
  T.quoted = await f.series(gq, { type: "Initial" });
  await f.addRecords(T.quoted, [["2019-12-31T23:30:00Z", 1]]);
  const go = G.o = await f.group(S.omega, { name: "O", variableId: vTemp, unitId: uC, precision: 3 });
  T.omega = await f.series(go, { type: "Regularized", timeStep: "D" });
  await f.addRecords(T.omega, [["2020-01-01T03:00:00Z", 1], ["2020-01-02T03:00:00Z", 2]]);
});
afterAll(() => server?.stop());

async function lastModified(id: number): Promise<string> {
  return (await http.get(`/api/stations/${id}/`)).json.last_modified;
}

describe("GET stations/csv/ (§4.7)", () => {
  it("answers a zip named data.zip", async () => {
    const r = await fetchRaw("/api/stations/csv/");
    expect(r.status).toBe(200);
    expect(r.headers.get("content-type")).toBe("application/zip");
    expect(r.headers.get("content-disposition")).toBe('attachment; filename="data.zip"');
  });

  it("holds exactly stations.csv then timeseries.csv, DEFLATE-compressed, in both directory and file order", async () => {
    const r = await exportCsv();
    expect(r.members.map((m) => m.method)).toEqual([8, 8]);
    expect(r.members[0].localOffset).toBeLessThan(r.members[1].localOffset);
    expect(r.body.readUInt32LE(0)).toBe(0x04034b50);
  });

  it("is a valid zip for the unzip tool", async () => {
    const which = spawnSync("which", ["unzip"]);
    if (which.status !== 0) return;
    const r = await fetchRaw("/api/stations/csv/");
    const dir = mkdtempSync(join(tmpdir(), "export-"));
    try {
      writeFileSync(join(dir, "data.zip"), r.body);
      const test = spawnSync("unzip", ["-t", join(dir, "data.zip")], { encoding: "utf8" });
      expect(test.status, test.stdout + test.stderr).toBe(0);
      const names = spawnSync("unzip", ["-Z1", join(dir, "data.zip")], { encoding: "utf8" });
      expect(names.stdout.trim().split("\n")).toEqual(["stations.csv", "timeseries.csv"]);
      const stations = spawnSync("unzip", ["-p", join(dir, "data.zip"), "stations.csv"]);
      expect(stations.stdout.toString("utf8")).toBe((await exportCsv()).stations);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("writes the exact header rows, with CRLF and no BOM", async () => {
    const r = await exportCsv();
    expect(r.members[0].data.subarray(0, 3).toString("hex")).not.toBe("efbbbf");
    expect(r.members[1].data.subarray(0, 3).toString("hex")).not.toBe("efbbbf");
    expect(rows(r.stations)[0]).toBe(STATIONS_HEADER);
    expect(rows(r.series)[0]).toBe(SERIES_HEADER);
    expect(r.stations.startsWith(`${STATIONS_HEADER}\r\n`)).toBe(true);
    expect(r.series.startsWith(`${SERIES_HEADER}\r\n`)).toBe(true);
    expect(r.stations.endsWith("\r\n")).toBe(true);
    expect(r.stations.replace(/\r\n/g, "").replace(/"[^"]*"/g, "")).not.toMatch(/\n/);
  });

  it("writes one row per station in the list's default order (name), every match, not one page", async () => {
    const r = await exportCsv("q=exportset");
    expect(r.stations.endsWith("\r\n")).toBe(true);
    const records = parseCsv(r.stations);
    expect(records.every((x) => x.length === 16)).toBe(true);
    expect(stationIds(r.stations)).toEqual([S.komboti, S.quoted, S.omega]);
  });

  it("writes the station fields as the spec's example", async () => {
    const r = await exportCsv(`gentity_id=${S.komboti}`);
    expect(r.stations).toBe(`${STATIONS_HEADER}\r\n${S.komboti},Komboti,KMB,National Technical University,"Hydrometric, Meteorological",2010-01-01,,21.06071,39.09518,219,2100,Etc/GMT-2,Bilbo,exportset Near Arta,2020-03-01T10:05:00Z,${await lastModified(S.komboti)}\r\n`);
  });

  it("quotes by RFC 4180, leaves null fields empty, and writes the person's display name", async () => {
    const r = await exportCsv(`gentity_id=${S.quoted}`);
    expect(r.stations).toBe(`${STATIONS_HEADER}\r\n${S.quoted},"Say ""hi"", there",,Christofides Antonis,,,,-0.0000001,0.5,,,UTC,,"exportset\r\nsecond line",2019-12-31T23:30:00Z,${await lastModified(S.quoted)}\r\n`);
  });

  it("writes non-ASCII raw, numbers as in geom, the acronym when the name is blank", async () => {
    const r = await exportCsv(`gentity_id=${S.omega}`);
    expect(r.stations).toBe(`${STATIONS_HEADER}\r\n${S.omega},Ωmega,Ω1,ACR,,,2020-12-31,24.001723560948786,38.85140820210843,0.1,4326,Etc/GMT+5,,exportset,2020-01-02T03:00:00Z,${await lastModified(S.omega)}\r\n`);
  });

  it("orders the stations by sort", async () => {
    const ids = async (query: string) => stationIds((await exportCsv(query)).stations);
    expect(await ids("q=exportset&sort=-name")).toEqual([S.omega, S.quoted, S.komboti]);
    expect(await ids("q=exportset&sort=altitude")).toEqual([S.omega, S.komboti, S.quoted]);
    expect(await ids("q=exportset&sort=-altitude")).toEqual([S.quoted, S.komboti, S.omega]);
    expect(await ids("q=exportset&sort=owner")).toEqual([S.omega, S.quoted, S.komboti]);
    expect(await ids("q=exportset&sort=-id")).toEqual([S.omega, S.quoted, S.komboti]);
  });

  it("orders the time series rows: stations in export order, groups by name then id, types then id", async () => {
    const r = await exportCsv("q=exportset&sort=-name");
    const records = parseCsv(r.series);
    expect(records.every((x) => x.length === 16)).toBe(true);
    const ids = stationIds(r.series);
    expect(ids).toEqual([T.omega, T.quoted, T.emptyInitial, T.a1Initial, T.a1Checked, T.a1Regularized, T.a1Agg10, T.a1AggH, T.a2Checked, T.bInitial]);
  });

  it("writes every time series column, private series included, dates in the station's zone", async () => {
    const r = await exportCsv(`gentity_id=${S.komboti}`);
    const k = S.komboti;
    expect(r.series).toBe([
      SERIES_HEADER,
      `${T.emptyInitial},${k},Komboti,${G.empty},,Temperature,°C,2,Initial,D,,true,,,0,`,
      `${T.a1Initial},${k},Komboti,${G.a1},A group,"Rain, total",mm,0,Initial,10min,,false,2020-01-01 01:30,2020-03-01 12:05,3,"multi\nline, remark"`,
      `${T.a1Checked},${k},Komboti,${G.a1},A group,"Rain, total",mm,0,Checked,10min,"checked, ""v2""",true,,,0,"multi\nline, remark"`,
      `${T.a1Regularized},${k},Komboti,${G.a1},A group,"Rain, total",mm,0,Regularized,10min,,true,,,0,"multi\nline, remark"`,
      `${T.a1Agg10},${k},Komboti,${G.a1},A group,"Rain, total",mm,0,Aggregated,10min,mean,true,,,0,"multi\nline, remark"`,
      `${T.a1AggH},${k},Komboti,${G.a1},A group,"Rain, total",mm,0,Aggregated,H,max,true,2019-01-01 00:00,2019-01-01 00:00,1,"multi\nline, remark"`,
      `${T.a2Checked},${k},Komboti,${G.a2},A group,Temperature,°C,-1,Checked,,,true,,,0,second`,
      `${T.bInitial},${k},Komboti,${G.b},B group,Temperature,°C,1,Initial,,,true,,,0,`,
      "",
    ].join("\r\n"));
  });

  it("writes the dates of a station in UTC and one west of Greenwich", async () => {
    const q = await exportCsv(`gentity_id=${S.quoted}`);
    expect(rows(q.series)[1]).toBe(`${T.quoted},${S.quoted},"Say ""hi"", there",${G.q},Q,Temperature,°C,2,Initial,,,true,2019-12-31 23:30,2019-12-31 23:30,1,`);
    const o = await exportCsv(`gentity_id=${S.omega}`);
    expect(rows(o.series)[1]).toBe(`${T.omega},${S.omega},Ωmega,${G.o},O,Temperature,°C,3,Regularized,D,,true,2019-12-31 22:00,2020-01-01 22:00,2,`);
  });

  it("still writes both header rows when nothing matches", async () => {
    const r = await exportCsv("q=nomatchatall");
    expect(r.stations).toBe(`${STATIONS_HEADER}\r\n`);
    expect(r.series).toBe(`${SERIES_HEADER}\r\n`);
  });

  it("writes both header rows for a station without time series", async () => {
    const s = await f.station({ name: "Lonely", lon: 5, lat: 5 });
    const r = await exportCsv(`gentity_id=${s}`);
    expect(rows(r.stations)).toHaveLength(3);
    expect(r.series).toBe(`${SERIES_HEADER}\r\n`);
  });

  it("applies q, bbox and gentity_id like the list", async () => {
    const ids = async (query: string) => stationIds((await exportCsv(query)).stations).sort((a, b) => a - b);
    expect(await ids("bbox=21,39,22,40")).toEqual([S.komboti]);
    expect(await ids(`q=${encodeURIComponent("owner:christofides")}`)).toEqual([S.quoted]);
    expect(await ids(`gentity_id=${S.omega}&q=komboti`)).toEqual([S.omega]);
    expect(await ids("gentity_id=999999")).toEqual([]);
  });

  it.each([
    [`q=${encodeURIComponent("bbox:21,39,22")}`, { q: ['Invalid bbox "21,39,22": use four comma-separated numbers min_lon,min_lat,max_lon,max_lat.'] }],
    [`q=${encodeURIComponent("ts_has_years:hello,world")}`, { q: ['Invalid ts_has_years "hello,world": use comma-separated years such as 2005,2012.'] }],
    ["bbox=1,2,3", { bbox: ['Invalid bbox "1,2,3": use four comma-separated numbers min_lon,min_lat,max_lon,max_lat.'] }],
    ["gentity_id=abc", { gentity_id: ["A valid integer is required."] }],
  ])("answers the list's 400 for %s", async (query, body) => {
    const r = await http.get(`/api/stations/csv/?${query}`);
    expect(r.status).toBe(400);
    expect(r.headers.get("content-type")).toMatch(/^application\/json/);
    expect(r.json).toEqual(body);
  });
});

describe("GET stations/geojson/ (§4.8)", () => {
  it("answers a FeatureCollection with keys in order, every match, no pagination", async () => {
    const r = await http.get("/api/stations/geojson/?q=exportset");
    expect(r.status).toBe(200);
    expect(r.headers.get("content-type")).toMatch(/^application\/geo\+json/);
    const body = JSON.parse(r.text);
    expect(Object.keys(body)).toEqual(["type", "bbox", "features"]);
    expect(body.type).toBe("FeatureCollection");
    expect(body.features.map((x: { id: number }) => x.id)).toEqual([S.komboti, S.quoted, S.omega]);
    const list = await http.get("/api/stations/?q=exportset");
    expect(body.bbox).toEqual(list.json.bounding_box);
    expect(r.text).not.toMatch(/": /);
  });

  it("writes each feature as specified", async () => {
    const r = await http.get(`/api/stations/geojson/?gentity_id=${S.komboti}`);
    const body = JSON.parse(r.text);
    expect(body.features).toHaveLength(1);
    const feature = body.features[0];
    expect(Object.keys(feature)).toEqual(["type", "id", "geometry", "properties"]);
    expect(Object.keys(feature.properties)).toEqual(["name", "code", "owner", "owner_name", "last_update"]);
    const owner = (await http.get(`/api/stations/${S.komboti}/`)).json.owner;
    expect(feature).toEqual({
      type: "Feature", id: S.komboti, geometry: { type: "Point", coordinates: [21.06071, 39.09518] },
      properties: { name: "Komboti", code: "KMB", owner, owner_name: "National Technical University", last_update: "2020-03-01T10:05:00Z" },
    });
    expect(body.bbox).toEqual([21.06071 - 0.02, 39.09518 - 0.02, 21.06071 + 0.02, 39.09518 + 0.02]);
  });

  it("uses the owner display name of persons and acronyms, and null last_update", async () => {
    const s = await f.station({ name: "No records", ownerId: await f.person("Jane", "Doe"), lon: 1, lat: 2 });
    const r = JSON.parse((await http.get(`/api/stations/geojson/?gentity_id=${s}`)).text);
    expect(r.features[0].properties).toMatchObject({ name: "No records", code: "", owner_name: "Doe Jane", last_update: null });
    expect(r.features[0].geometry.coordinates).toEqual([1, 2]);
    const o = JSON.parse((await http.get(`/api/stations/geojson/?gentity_id=${S.omega}`)).text);
    expect(o.features[0].properties.owner_name).toBe("ACR");
    expect(o.features[0].geometry.coordinates).toEqual([24.001723560948786, 38.85140820210843]);
  });

  it("gives the default viewport and no features when nothing matches", async () => {
    const r = await http.get("/api/stations/geojson/?q=nomatchatall");
    expect(r.status).toBe(200);
    expect(r.text).toBe(`{"type":"FeatureCollection","bbox":[${DEFAULT_VIEWPORT.join(",")}],"features":[]}`);
  });

  it("follows sort", async () => {
    const r = JSON.parse((await http.get("/api/stations/geojson/?q=exportset&sort=-name")).text);
    expect(r.features.map((x: { id: number }) => x.id)).toEqual([S.omega, S.quoted, S.komboti]);
  });

  it.each([
    [`q=${encodeURIComponent("bbox:21,39,22")}`, { q: ['Invalid bbox "21,39,22": use four comma-separated numbers min_lon,min_lat,max_lon,max_lat.'] }],
    ["bbox=x", { bbox: ['Invalid bbox "x": use four comma-separated numbers min_lon,min_lat,max_lon,max_lat.'] }],
    ["gentity_id=-3", { gentity_id: ["A valid integer is required."] }],
  ])("answers the list's 400 for %s", async (query, body) => {
    const r = await http.get(`/api/stations/geojson/?${query}`);
    expect(r.status).toBe(400);
    expect(r.json).toEqual(body);
  });
});
