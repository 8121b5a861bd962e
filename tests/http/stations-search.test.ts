import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { api } from "@/tests/support/http";
import * as f from "@/tests/support/fixtures";
import { connectFixtures, startServer, type TestServer } from "@/tests/support/server";

/**
 * Station list: search (api.md §4.4, §4.5), sort and bounding box (§4.6), pagination links (§1.5).
 */
let server: TestServer;
let http: ReturnType<typeof api>;

const S: Record<string, number> = {};
let ALL: number[] = [];
const sortIds: Record<string, number> = {};

const byId = (a: number, b: number) => a - b;

beforeAll(async () => {
  server = await startServer();
  http = api(server.url);

  const oLoire = await f.organization("Agence de l'eau Loire", "AELB");
  const oNoaq = await f.organization("", "NOAQ");
  const pMuller = await f.person("Jörg", "Müller");
  const oZephyr = await f.organization("Zephyr Institute", "ZI");
  const oLab = await f.organization("Lab: Hydro", "LH");
  const oNtua = await f.organization("National Technical University", "NTUA");
  const tHydro = await f.stationType("Hydrométrique");
  await f.stationType("Meteorological");
  const vWind = await f.variable("Wind speed");
  const vRain = await f.variable("Rainfall");

  S.selune = await f.station({ name: "Sélune", code: "SLN", remarks: "Normandie river", ownerId: oLoire, lon: -1.2, lat: 48.6, displayTimezone: "Etc/GMT" });
  S.tres = await f.station({ name: "Très Haut", code: "TH-1", ownerId: pMuller, lon: 7, lat: 46 });
  S.pct = await f.station({ name: "100% wet_site*", code: "PCT", ownerId: oNoaq, lon: 21, lat: 39 });
  S.plain = await f.station({ name: "Plainfield", code: "PLF", ownerId: oZephyr, lon: 22, lat: 40 });
  await f.group(S.plain, { remarks: "Anemometer replaced", variableId: vWind });
  S.typed = await f.station({ name: "Typed", code: "TYP", stype: [tHydro], ownerId: oZephyr, lon: 23, lat: 41 });
  S.year = await f.station({ name: "Yearly", code: "YR", ownerId: oZephyr, displayTimezone: "Etc/GMT-2", lon: 24, lat: 42 });
  const gYear = await f.group(S.year, { variableId: vRain, remarks: "doublegroup one" });
  await f.group(S.year, { variableId: vRain, remarks: "doublegroup two" });
  const tYear = await f.series(gYear, { type: "Initial" });
  await f.addRecords(tYear, [["2019-12-31T23:30:00Z", 1], ["2021-06-01T00:00:00Z", 2]]);
  S.yearUtc = await f.station({ name: "Yearutc", ownerId: oLab, displayTimezone: "UTC", lon: 25, lat: 43 });
  const gUtc = await f.group(S.yearUtc, { variableId: vRain });
  const tUtc = await f.series(gUtc, { type: "Checked" });
  await f.addRecords(tUtc, [["2019-12-31T23:30:00Z", 1]]);
  const gUtc2 = await f.group(S.yearUtc, { variableId: vRain });
  const tPrivate = await f.series(gUtc2, { type: "Initial", publiclyAvailable: false });
  await f.addRecords(tPrivate, [["2023-05-05T12:00:00Z", 1]]);
  S.groupOnly = await f.station({ name: "Grouponly", ownerId: oLab, lon: 26, lat: 44 });
  await f.group(S.groupOnly, { variableId: vWind });
  S.komboti = await f.station({ name: "Komboti", code: "KMB", ownerId: oNtua, lon: 21.06071, lat: 39.09518 });
  S.arta = await f.station({ name: "Άρτα", code: "ART", ownerId: oNtua, lon: 20.98, lat: 39.16 });
  S.istanbul = await f.station({ name: "İstanbul", code: "IST", ownerId: await f.person("Ali", "Kaya"), lon: 28.97, lat: 41 });
  S.pair1 = await f.station({ name: "pairbox one", ownerId: oNtua, lon: 30, lat: 50 });
  S.pair2 = await f.station({ name: "pairbox two", ownerId: oNtua, lon: 30.03, lat: 50.01 });
  S.wide1 = await f.station({ name: "widepair one", ownerId: oNtua, lon: 20, lat: 45 });
  S.wide2 = await f.station({ name: "widepair two", ownerId: oNtua, lon: 23, lat: 45 });

  await f.garea("Normandy Région", "FR-NOR", [-2, 48, 0, 49]);
  await f.garea("Edge box", "EDGE", [21, 39, 21.5, 39.5]);
  await f.garea("Two", "TWO", [22, 40, 23, 41]);

  // The sort set: all remarks contain "sortset".
  const beta = await f.organization("Beta Org", "BO");
  const alphaAcr = await f.organization("", "Alpha");
  const gammaZed = await f.person("Zed", "Gamma");
  const delta = await f.person("Delta", "");
  const mk = (key: string, data: Parameters<typeof f.station>[0]) => f.station({ lon: 10.5, lat: 10.2, ...data }).then((id) => (sortIds[key] = id));
  await mk("A", { name: "Zeta", code: "c3", altitude: 10, startDate: "2001-01-01", ownerId: beta, displayTimezone: "Etc/GMT-1", originalSrid: 2100, overseer: "b", remarks: "sortset 5", lon: 10, lat: 10 });
  await mk("B", { name: "alpha", code: "c1", altitude: null, startDate: null, ownerId: alphaAcr, originalSrid: null, displayTimezone: "UTC", remarks: "sortset 4", lon: 11, lat: 10.5 });
  await mk("C", { name: "Ágios", code: "c2", altitude: 5, startDate: "1999-12-31", ownerId: gammaZed, remarks: "sortset 3" });
  await mk("D", { name: "beta", code: "c2", altitude: null, startDate: "2005-05-05", ownerId: delta, remarks: "sortset 2" });
  await mk("E", { name: "Zeta", code: "c0", altitude: -3, ownerId: beta, remarks: "sortset 1" });
  await mk("F", { name: "ｚone", code: "", altitude: 7, ownerId: beta, remarks: "sortset 6" });
  await mk("G", { name: "𝔸bc", code: "", altitude: null, ownerId: beta, remarks: "sortset 7" });

  ALL = [...Object.values(S), ...Object.values(sortIds)].sort(byId);
});
afterAll(() => server?.stop());

async function list(query: string) {
  const r = await http.get(`/api/stations/?page_size=1000&${query}`);
  expect(r.status, `${query}: ${r.text}`).toBe(200);
  return r.json as { count: number; next: string | null; previous: string | null; results: { id: number }[]; bounding_box: number[] };
}
const ids = async (query: string) => (await list(query)).results.map((s) => s.id).sort(byId);
const q = (text: string) => ids(`q=${encodeURIComponent(text)}`);
const set = (...keys: string[]) => keys.map((k) => S[k]).sort(byId);

describe("plain terms (§4.5)", () => {
  it("matches everything for an empty or blank q", async () => {
    expect(await ids("")).toEqual(ALL);
    expect(await q("")).toEqual(ALL);
    expect(await q("   ")).toEqual(ALL);
  });

  it.each(["selune", "SÉLUNE", "Sélune", "ÉLUN", "sÉlUnE", "  selune  "])("finds Sélune with %j", async (term) => {
    expect(await q(term)).toEqual(set("selune"));
  });

  it.each(["tres", "TRÈS", "très", "Tres haut", "TRÈS   HAUT"])("finds Très Haut with %j", async (term) => {
    expect(await q(term)).toEqual(set("tres"));
  });

  it.each(["αρτα", "ΑΡΤΑ", "άρτα", "Άρτα"])("compares Greek without accents and case: %j", async (term) => {
    expect(await q(term)).toEqual(set("arta"));
  });

  it.each(["istanbul", "İSTANBUL", "ISTANBUL", "İstanbul"])("removes the dot of İ (NFD, U+0307) and lower-cases: %j", async (term) => {
    expect(await q(term)).toEqual(set("istanbul"));
  });

  it("matches an NFD-decomposed term against a precomposed name", async () => {
    expect(await q("Se\u0301lune")).toEqual(set("selune"));
  });

  it.each([["sln", ["selune"]], ["th-1", ["tres"]], ["normandie", ["selune"]], ["RIVER", ["selune"]]])("matches code and remarks: %s", async (term, keys) => {
    expect(await q(term)).toEqual(set(...keys));
  });

  it.each([["loire", ["selune"]], ["l'eau", ["selune"]], ["aelb", ["selune"]], ["noaq", ["pct"]], ["zi", ["plain", "typed", "year"]],
    ["zephyr", ["plain", "typed", "year"]], ["muller", ["tres"]], ["MÜLLER", ["tres"]], ["jorg", ["tres"]], ["Jörg", ["tres"]],
    ["hydro", ["yearUtc", "groupOnly"]], ["ntua", ["komboti", "arta", "pair1", "pair2", "wide1", "wide2"]]])(
    "matches owner names and acronyms: %s", async (term, keys) => {
      expect(await q(term)).toEqual(set(...keys));
    });

  it("matches the remarks of the station's groups", async () => {
    expect(await q("anemometer")).toEqual(set("plain"));
    expect(await q("REPLACED")).toEqual(set("plain"));
  });

  it("lists a station once even when several groups match", async () => {
    const r = await list(`q=doublegroup`);
    expect(r.count).toBe(1);
    expect(r.results.map((s) => s.id)).toEqual([S.year]);
  });

  it("does not match variables, station types or areas with plain terms", async () => {
    expect(await q("wind")).toEqual([]);
    expect(await q("rainfall")).toEqual([]);
    expect(await q("hydrometrique")).toEqual([]);
    expect(await q("normandy")).toEqual([]);
  });

  it("requires every term (AND)", async () => {
    expect(await q("zephyr plainfield")).toEqual(set("plain"));
    expect(await q("zephyr selune")).toEqual([]);
    expect(await q("zephyr\tyearly")).toEqual(set("year"));
  });

  it.each([["%", ["pct"]], ["_", ["pct"]], ["*", ["pct"]], ["0%", ["pct"]], ["wet_site*", ["pct"]], ["e*", ["pct"]],
    ["wet%site", []], ["w_t", []], ["p*", []], ["%%", []], ["__", []]])("treats %j literally", async (term, keys) => {
    expect(await q(term)).toEqual(set(...keys));
  });
});

describe("typed terms (§4.5)", () => {
  it.each([["owner:noaq", ["pct"]], ["owner:zephyr", ["plain", "typed", "year"]], ["owner:aelb", ["selune"]], ["owner:LOIRE", ["selune"]],
    ["owner:muller", ["tres"]], ["owner:jörg", ["tres"]], ["owner:lab:", ["yearUtc", "groupOnly"]], ["owner:sélune", []], ["owner:%", []]])(
    "owner: %s", async (term, keys) => {
      expect(await q(term)).toEqual(set(...keys));
    });

  it.each([["type:hydro", ["typed"]], ["type:HYDROMETRIQUE", ["typed"]], ["type:drométr", ["typed"]], ["type:meteo", []], ["type:typed", []]])(
    "type: %s", async (term, keys) => {
      expect(await q(term)).toEqual(set(...keys));
    });

  it.each([["variable:wind", ["plain", "groupOnly"]], ["variable:RAIN", ["year", "yearUtc"]], ["variable:wind owner:lab", ["groupOnly"]], ["variable:plainfield", []]])(
    "variable: %s", async (term, keys) => {
      expect(await q(term)).toEqual(set(...keys));
    });

  it("counts a station with two groups of a variable once", async () => {
    expect((await list(`q=${encodeURIComponent("variable:rain")}`)).count).toBe(2);
  });

  it.each([
    ["bbox:21,39,22,40", ["pct", "komboti", "plain"]],
    ["bbox:21.5,39,23,41", ["plain", "typed"]],
    ["bbox:21,39,21,39", ["pct"]],
    ["bbox:22,39,21,40", []],
    ["bbox:21,40,22,39", []],
    ["bbox:-2,48,0,49", ["selune"]],
    ["bbox:21,39,22,40 plainfield", ["plain"]],
    ["bbox:2.1e1,3.9e1,22,40", ["pct", "komboti", "plain"]],
  ])("bbox: %s (edges included, min > max matches nothing)", async (term, keys) => {
    expect(await q(term)).toEqual(set(...keys));
  });

  it("bbox: the whole world matches everything", async () => {
    expect(await q("bbox:-180,-90,180,90")).toEqual(ALL);
  });

  it.each([["in:normandy", ["selune"]], ["in:FR-NOR", ["selune"]], ["in:region", ["selune"]], ["in:edge", ["pct", "komboti"]],
    ["in:two", ["plain", "typed"]], ["in:nowhere", []], ["in:two plainfield", ["plain"]]])("in: %s", async (term, keys) => {
    expect(await q(term)).toEqual(set(...keys));
  });

  it("ts_only: stations with at least one time series, with or without a value", async () => {
    expect(await q("ts_only:")).toEqual(set("year", "yearUtc"));
    expect(await q("ts_only:whatever")).toEqual(set("year", "yearUtc"));
    expect(await q("ts_only: zephyr")).toEqual(set("year"));
  });

  it.each([["ts_has_years:2020", ["year"]], ["ts_has_years:2019", ["yearUtc"]], ["ts_has_years:2020,2021", ["year"]], ["ts_has_years:2020,2022", []],
    ["ts_has_years:2023", ["yearUtc"]], ["ts_has_years:2021 zephyr", ["year"]], ["ts_has_years:2018", []]])(
    "ts_has_years in the station's display time zone, private series included: %s", async (term, keys) => {
      expect(await q(term)).toEqual(set(...keys));
    });

  it.each(["foo:bar", "Owner:noaq", "OWNER:noaq", "Type:hydro", "ts-only:", ":", "owner:", "type:", "variable:", "bbox:", "in:", "ts_has_years:", "nonsense:a:b"])(
    "ignores %j (unknown type or empty value)", async (term) => {
      expect(await q(term)).toEqual(ALL);
    });

  it("ignores an unknown term combined with a real one", async () => {
    expect(await q("foo:bar selune")).toEqual(set("selune"));
  });

  it("ts_has_years of years a 32-bit timestamp cannot hold (from 2038, before 1902) finds nothing, not a 500", async () => {
    expect(await q("ts_has_years:2040")).toEqual([]);
    expect(await q("ts_has_years:1800,2020")).toEqual([]);
    expect(await q("ts_has_years:-5000")).toEqual([]);
  });

  it("answers a q of thousands of terms (up to the URL's limit) with the stations that match them all, list and site page alike", async () => {
    // SQLite refuses an expression deeper than 1000: the terms must not make one chain of ANDs.
    const words = Array.from({ length: 1500 }, (_, i) => `e${i}`).join(" ");
    expect(await q(words)).toEqual([]);
    expect(await q(`zephyr ${Array.from({ length: 1500 }, () => "yearly").join(" ")}`)).toEqual(set("year"));
    expect(await q(`ts_has_years:${Array.from({ length: 1200 }, (_, i) => 2020 + (i % 2)).join(",")}`)).toEqual(set("year"));
    const page = await http.get(`/?q=${encodeURIComponent(words)}`);
    expect(page.status).toBe(200);
  });

  it("answers hundreds of typed terms and ts_has_years years in moments on either database (PostgreSQL took minutes to plan them)", async () => {
    // 1,000 years (as many as a URL takes with the terms below): one condition each took seconds
    // to parse and plan; one subquery over them now.
    const years = `ts_has_years:${Array.from({ length: 1000 }, (_, i) => 1500 + i).join(",")}`;
    const typed = Array.from({ length: 150 }, (_, i) => `variable:v${i} owner:o${i}`).join(" ");
    expect(await q(years)).toEqual([]);
    expect(await q(typed)).toEqual([]);
    expect(await q(`${typed} ${years}`)).toEqual([]);
  }, 20_000);
});

describe("search errors (§4.4, §4.5)", () => {
  const get = (query: string) => http.get(`/api/stations/?${query}`);

  it("refuses a malformed bbox term with the exact message", async () => {
    const r = await get(`q=${encodeURIComponent("bbox:21,39,22")}`);
    expect(r.status).toBe(400);
    expect(r.text).toBe('{"q":["Invalid bbox \\"21,39,22\\": use four comma-separated numbers min_lon,min_lat,max_lon,max_lat."]}');
  });

  it.each(["a,b,c,d", "1,2,3,4,5", "1,2,,4", "21;39;22;40"])("refuses the bbox term %j", async (value) => {
    const r = await get(`q=${encodeURIComponent(`bbox:${value}`)}`);
    expect(r.status).toBe(400);
    expect(r.json).toEqual({ q: [`Invalid bbox "${value}": use four comma-separated numbers min_lon,min_lat,max_lon,max_lat.`] });
  });

  it("refuses a malformed ts_has_years with the exact message", async () => {
    const r = await get(`q=${encodeURIComponent("ts_has_years:hello,world")}`);
    expect(r.status).toBe(400);
    expect(r.text).toBe('{"q":["Invalid ts_has_years \\"hello,world\\": use comma-separated years such as 2005,2012."]}');
  });

  it.each(["2020,abc", "20x0", "2020;2021", "2020.5"])("refuses ts_has_years:%s", async (value) => {
    const r = await get(`q=${encodeURIComponent(`ts_has_years:${value}`)}`);
    expect(r.status).toBe(400);
    expect(r.json).toEqual({ q: [`Invalid ts_has_years "${value}": use comma-separated years such as 2005,2012.`] });
  });

  it("refuses a malformed bbox parameter with the exact message", async () => {
    const r = await get("bbox=21,39");
    expect(r.status).toBe(400);
    expect(r.text).toBe('{"bbox":["Invalid bbox \\"21,39\\": use four comma-separated numbers min_lon,min_lat,max_lon,max_lat."]}');
    const s = await get("bbox=a,b,c,d");
    expect(s.json).toEqual({ bbox: ['Invalid bbox "a,b,c,d": use four comma-separated numbers min_lon,min_lat,max_lon,max_lat.'] });
  });

  it.each(["abc", "-1", "1.5", "1e3", "x1"])("refuses gentity_id=%s", async (value) => {
    const r = await get(`gentity_id=${value}`);
    expect(r.status).toBe(400);
    expect(r.text).toBe('{"gentity_id":["A valid integer is required."]}');
  });

  it("applies to HEAD as well", async () => {
    const r = await http.head(`/api/stations/?q=${encodeURIComponent("bbox:1")}`);
    expect(r.status).toBe(400);
  });
});

describe("bbox and gentity_id parameters (§4.4)", () => {
  it("filters by the bbox parameter, edges included", async () => {
    expect(await ids("bbox=21,39,22,40")).toEqual(set("pct", "komboti", "plain"));
    expect(await ids("bbox=22,39,21,40")).toEqual([]);
  });

  it("combines bbox with q by AND", async () => {
    expect(await ids(`bbox=21,39,22,40&q=plainfield`)).toEqual(set("plain"));
    expect(await ids(`bbox=21,39,22,40&q=${encodeURIComponent("bbox:21.5,39,23,41")}`)).toEqual(set("plain"));
  });

  it("gives only the station of gentity_id, ignoring q and bbox", async () => {
    expect(await ids(`gentity_id=${S.selune}`)).toEqual(set("selune"));
    expect(await ids(`gentity_id=${S.selune}&q=nomatchatall&bbox=0,0,1,1`)).toEqual(set("selune"));
    expect(await ids(`gentity_id=${S.selune}&q=${encodeURIComponent("bbox:1,2")}&bbox=x`)).toEqual(set("selune"));
  });

  it("gives an empty list for a gentity_id without a station", async () => {
    const r = await list("gentity_id=999999");
    expect(r.count).toBe(0);
    expect(r.results).toEqual([]);
    expect(r.bounding_box).toEqual([19.3, 34.75, 29.65, 41.8]);
  });

  it("treats gentity_id=0 and an empty gentity_id as absent", async () => {
    expect(await ids("gentity_id=0")).toEqual(ALL);
    expect(await ids("gentity_id=")).toEqual(ALL);
    expect(await ids("gentity_id=0&q=selune")).toEqual(set("selune"));
  });
});

describe("sort (§4.6)", () => {
  const order = async (query: string) => (await list(`q=sortset&${query}`)).results.map((s) => s.id);
  const keys = (...k: string[]) => k.map((x) => sortIds[x]);

  it.each([
    ["", ["A", "E", "B", "D", "C", "F", "G"]],
    ["sort=", ["A", "E", "B", "D", "C", "F", "G"]],
    ["sort=nonexistent", ["A", "E", "B", "D", "C", "F", "G"]],
    ["sort=name", ["A", "E", "B", "D", "C", "F", "G"]],
    ["sort=-name", ["G", "F", "C", "D", "B", "A", "E"]],
    ["sort=-name&sort=name&sort=nonexistent&sort=remarks", ["G", "F", "C", "D", "B", "E", "A"]],
    ["sort=name&sort=-name", ["A", "E", "B", "D", "C", "F", "G"]],
    ["sort=name&sort=-remarks", ["A", "E", "B", "D", "C", "F", "G"]],
    ["sort=altitude", ["E", "C", "F", "A", "B", "D", "G"]],
    ["sort=-altitude", ["B", "D", "G", "A", "F", "C", "E"]],
    ["sort=start_date", ["C", "A", "D", "B", "E", "F", "G"]],
    ["sort=-start_date", ["B", "E", "F", "G", "D", "A", "C"]],
    ["sort=end_date", ["A", "B", "C", "D", "E", "F", "G"]],
    ["sort=-end_date", ["A", "B", "C", "D", "E", "F", "G"]],
    ["sort=code", ["F", "G", "E", "B", "C", "D", "A"]],
    ["sort=code&sort=-altitude", ["G", "F", "E", "B", "D", "C", "A"]],
    ["sort=-code&sort=altitude", ["A", "C", "D", "B", "E", "F", "G"]],
    ["sort=remarks", ["E", "D", "C", "B", "A", "F", "G"]],
    ["sort=owner", ["B", "A", "E", "F", "G", "D", "C"]],
    ["sort=-owner", ["C", "D", "A", "E", "F", "G", "B"]],
    ["sort=id", ["A", "B", "C", "D", "E", "F", "G"]],
    ["sort=-id", ["G", "F", "E", "D", "C", "B", "A"]],
    ["sort=original_srid", ["A", "C", "D", "E", "F", "G", "B"]],
    ["sort=-original_srid", ["B", "C", "D", "E", "F", "G", "A"]],
    ["sort=display_timezone", ["A", "C", "D", "E", "F", "G", "B"]],
    ["sort=overseer", ["B", "C", "D", "E", "F", "G", "A"]],
    ["sort=-overseer", ["A", "B", "C", "D", "E", "F", "G"]],
    ["sort=last_modified", ["A", "B", "C", "D", "E", "F", "G"]],
    ["sort=geom&sort=creator&sort=-last_update&sort=altitude", ["E", "C", "F", "A", "B", "D", "G"]],
    ["sort=-", ["A", "E", "B", "D", "C", "F", "G"]],
    ["sort=Name", ["A", "E", "B", "D", "C", "F", "G"]],
  ])("?%s", async (query, expected) => {
    expect(await order(query)).toEqual(keys(...expected));
  });

  it("compares names by code point: Zeta < alpha < Ágios < ｚone < 𝔸bc", async () => {
    const names = (await list("q=sortset")).results.map((s: unknown) => (s as { name: string }).name);
    expect(names).toEqual(["Zeta", "Zeta", "alpha", "beta", "Ágios", "ｚone", "𝔸bc"]);
  });

  it("keeps the sort across pages", async () => {
    const all = await order("sort=-altitude");
    const pages: number[] = [];
    for (let page = 1; page <= 4; page++) {
      const r = await http.get(`/api/stations/?q=sortset&sort=-altitude&page_size=2&page=${page}`);
      expect(r.status).toBe(200);
      pages.push(...r.json.results.map((s: { id: number }) => s.id));
    }
    expect(pages).toEqual(all);
  });
});

describe("count, bounding_box and pagination links (§1.5, §4.4, §4.6)", () => {
  it("gives count and bounding_box over every match, not only the page", async () => {
    const r = await http.get("/api/stations/?q=sortset&page_size=1");
    expect(r.json.count).toBe(7);
    expect(r.json.results).toHaveLength(1);
    expect(r.json.bounding_box).toEqual([10, 10, 11, 10.5]);
    expect(Object.keys(r.json)).toEqual(["count", "next", "previous", "results", "bounding_box"]);
    const last = await http.get("/api/stations/?q=sortset&page_size=1&page=last");
    expect(last.json.bounding_box).toEqual([10, 10, 11, 10.5]);
  });

  it("gives the default viewport when nothing matches", async () => {
    const r = await http.get("/api/stations/?q=nomatchatall");
    expect(r.status).toBe(200);
    expect(r.text).toBe('{"count":0,"next":null,"previous":null,"results":[],"bounding_box":[19.3,34.75,29.65,41.8]}');
  });

  it("widens a single station to the minimum viewport size (the §4.6 example)", async () => {
    const r = await list("q=komboti");
    expect(r.count).toBe(1);
    const [a, b, c, d] = r.bounding_box;
    expect(r.bounding_box).toEqual([21.06071 - 0.02, 39.09518 - 0.02, 21.06071 + 0.02, 39.09518 + 0.02]);
    expect(a).toBeCloseTo(21.04071, 10);
    expect(b).toBeCloseTo(39.07518, 10);
    expect(c).toBeCloseTo(21.08071, 10);
    expect(d).toBeCloseTo(39.11518, 10);
  });

  it("widens a narrow extent by (m - dx) / 2 on each side", async () => {
    const r = await list("q=pairbox");
    const dx = 30.03 - 30;
    const dy = 50.01 - 50;
    const hx = (0.04 - dx) / 2;
    const hy = (0.04 - dy) / 2;
    expect(r.bounding_box).toEqual([30 - hx, 50 - hy, 30.03 + hx, 50.01 + hy]);
  });

  it("widens only the narrow dimension", async () => {
    const r = await list("q=widepair");
    expect(r.bounding_box).toEqual([20, 45 - 0.02, 23, 45 + 0.02]);
  });

  it("covers wide extents exactly", async () => {
    const r = await list(`q=${encodeURIComponent("bbox:21,39,22,40")}`);
    expect(r.bounding_box).toEqual([21, 39, 22, 40]);
    const all = await list("");
    expect(all.bounding_box).toEqual([-1.2, 10, 30.03, 50.01]);
  });

  it("keeps q and repeated sort parameters in the pagination links, in order", async () => {
    const r = await http.get("/api/stations/?q=sortset&sort=-name&sort=code&page_size=2");
    expect(r.json.previous).toBeNull();
    const next = new URL(r.json.next);
    expect(`${next.origin}${next.pathname}`).toBe(`${server.url}/api/stations/`);
    expect([...next.searchParams]).toEqual([["q", "sortset"], ["sort", "-name"], ["sort", "code"], ["page_size", "2"], ["page", "2"]]);
    const p2 = await http.get(`/api/stations/?${next.searchParams}`);
    expect(p2.status).toBe(200);
    const prev = new URL(p2.json.previous);
    expect([...prev.searchParams]).toEqual([["q", "sortset"], ["sort", "-name"], ["sort", "code"], ["page_size", "2"]]);
    const n3 = new URL(p2.json.next);
    expect([...n3.searchParams]).toEqual([["q", "sortset"], ["sort", "-name"], ["sort", "code"], ["page_size", "2"], ["page", "3"]]);
  });

  it("keeps a q with spaces and accents in the links", async () => {
    const r = await http.get(`/api/stations/?q=${encodeURIComponent("sortset bbox:0,0,20,20")}&page_size=3`);
    expect(r.json.count).toBe(7);
    const next = new URL(r.json.next);
    expect(next.searchParams.get("q")).toBe("sortset bbox:0,0,20,20");
    expect(next.searchParams.get("page")).toBe("2");
  });
});

describe("viewport settings (§4.6, §14)", () => {
  let other: TestServer;
  let otherHttp: ReturnType<typeof api>;
  beforeAll(async () => {
    other = await startServer({ env: { ENHYDRIS_MAP_MIN_VIEWPORT_SIZE: "1", ENHYDRIS_MAP_DEFAULT_VIEWPORT: "1,2,3,4" } });
    otherHttp = api(other.url);
    await f.station({ name: "Lonely", lon: 21, lat: 39 });
    await f.station({ name: "Twin a", lon: 21, lat: 39 });
    await f.station({ name: "Twin b", lon: 21.5, lat: 39.25 });
  });
  afterAll(async () => {
    await other?.stop();
    await connectFixtures(server.databaseUrl, server.mediaDir);
  });

  it("uses ENHYDRIS_MAP_DEFAULT_VIEWPORT when nothing matches", async () => {
    const r = await otherHttp.get("/api/stations/?q=nothing");
    expect(r.json.bounding_box).toEqual([1, 2, 3, 4]);
  });

  it("uses ENHYDRIS_MAP_MIN_VIEWPORT_SIZE", async () => {
    expect((await otherHttp.get("/api/stations/?q=lonely")).json.bounding_box).toEqual([20.5, 38.5, 21.5, 39.5]);
    const hx = (1 - 0.5) / 2;
    const hy = (1 - 0.25) / 2;
    expect((await otherHttp.get("/api/stations/?q=twin")).json.bounding_box).toEqual([21 - hx, 39 - hy, 21.5 + hx, 39.25 + hy]);
  });
});
