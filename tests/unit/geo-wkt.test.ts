import { describe, expect, it } from "vitest";
import {
  INVALID_AREA_MESSAGE,
  formatAreaEwkt,
  formatPointEwkt,
  formatPointWkt,
  parseAreaGeom,
  parseBbox,
  parsePointGeom,
} from "@/lib/geo/wkt";

const INVALID =
  'Invalid geometry; expected a point such as "POINT (21.06071 39.09518)" or "SRID=2100;POINT (250000 4300000)".';
const RANGE = "Coordinates out of range: longitude must be within -180..180 and latitude within -90..90.";

describe("parsePointGeom", () => {
  it("accepts the examples of api.md §4.2", () => {
    expect(parsePointGeom("POINT(20.94565 39.12102)")).toEqual({ ok: true, srid: 4326, lon: 20.94565, lat: 39.12102 });
    expect(parsePointGeom("POINT (21 39)")).toEqual({ ok: true, srid: 4326, lon: 21, lat: 39 });
    expect(parsePointGeom("SRID=4326;POINT (21 39)")).toEqual({ ok: true, srid: 4326, lon: 21, lat: 39 });
    const greek = parsePointGeom("SRID=2100;POINT (250000 4300000)");
    expect(greek).toMatchObject({ ok: true, srid: 2100 });
    if (!greek.ok) throw new Error("unreachable");
    // PROJ 9.1 cs2cs with the EPSG definition: 21.122335216265 38.815952146299
    expect(greek.lon).toBeCloseTo(21.122335216265, 7);
    expect(greek.lat).toBeCloseTo(38.815952146299, 7);
  });

  it("keeps 4326 numbers exactly", () => {
    expect(parsePointGeom("POINT (24.001723560948786 38.85140820210843)")).toEqual({
      ok: true,
      srid: 4326,
      lon: 24.001723560948786,
      lat: 38.85140820210843,
    });
  });

  it("finds the Komboti station from its GGRS87 coordinates", () => {
    const result = parsePointGeom("SRID=2100;POINT (245648.9602446095 4331165.1963815372)");
    if (!result.ok) throw new Error(result.message);
    expect(result.srid).toBe(2100);
    expect(Math.abs(result.lon - 21.06071)).toBeLessThan(1e-6);
    expect(Math.abs(result.lat - 39.09518)).toBeLessThan(1e-6);
  });

  it("transforms other systems", () => {
    const cases: [string, number, number][] = [
      ["SRID=3857;POINT (2344467.5129 4735314.4756)", 21.060709999598, 39.095180000216],
      ["SRID=900913;POINT (2344467.5129 4735314.4756)", 21.060709999598, 39.095180000216],
      ["SRID=32634;POINT (505250 4327340)", 21.060710744851, 39.095174137716],
      ["SRID=25834;POINT (505250 4327340)", 21.060710744851, 39.095174138731],
      ["SRID=3035;POINT (5279924 1848314)", 21.060714522416, 39.09518152487],
      ["SRID=32734;POINT (500000 7000000)", 21, -27.122469641551],
    ];
    for (const [input, lon, lat] of cases) {
      const result = parsePointGeom(input);
      if (!result.ok) throw new Error(`${input}: ${result.message}`);
      expect(result.srid).toBe(Number(/SRID=(\d+)/.exec(input)?.[1]));
      expect(Math.abs(result.lon - lon), input).toBeLessThan(1e-7);
      expect(Math.abs(result.lat - lat), input).toBeLessThan(1e-7);
    }
  });

  it("is case-insensitive and tolerates whitespace around every token", () => {
    const expected = { ok: true, srid: 4326, lon: 21, lat: 39 };
    for (const input of [
      "point(21 39)",
      "Point (21 39)",
      "  POINT  (  21   39  )  ",
      "\tPOINT\n(\t21\n39\r\n)\n",
      "srid=4326;point(21 39)",
      " SRID = 4326 ; POINT ( 21 39 ) ",
      "SRID=04326;POINT(21 39)",
    ]) {
      expect(parsePointGeom(input), JSON.stringify(input)).toEqual(expected);
    }
  });

  it("reads signs, fractions and exponents", () => {
    expect(parsePointGeom("POINT(-21.5 +39)")).toEqual({ ok: true, srid: 4326, lon: -21.5, lat: 39 });
    expect(parsePointGeom("POINT(2.1E1 3.9e+1)")).toEqual({ ok: true, srid: 4326, lon: 21, lat: 39 });
    expect(parsePointGeom("POINT(.5 -.25)")).toEqual({ ok: true, srid: 4326, lon: 0.5, lat: -0.25 });
    expect(parsePointGeom("POINT(5. 1e-7)")).toEqual({ ok: true, srid: 4326, lon: 5, lat: 1e-7 });
  });

  it("accepts the edges of the range", () => {
    expect(parsePointGeom("POINT(180 90)")).toEqual({ ok: true, srid: 4326, lon: 180, lat: 90 });
    expect(parsePointGeom("POINT(-180 -90)")).toEqual({ ok: true, srid: 4326, lon: -180, lat: -90 });
  });

  it("rejects anything that is not a 2D point", () => {
    for (const input of [
      "",
      "   ",
      "POINT",
      "POINT()",
      "POINT(1)",
      "POINT(1 2 3)",
      "POINT Z (1 2 3)",
      "POINTZ(1 2 3)",
      "POINT M (1 2 3)",
      "POINT ZM (1 2 3 4)",
      "POINT EMPTY",
      "POINT(1,2)",
      "POINT((1 2))",
      "POINT 1 2",
      "POINT(1 2",
      "POINT(1 2))",
      "POINT(1 2);",
      "POINT(1 2) POINT(3 4)",
      "LINESTRING(1 2, 3 4)",
      "MULTIPOINT((1 2))",
      "POLYGON((0 0, 1 0, 1 1, 0 0))",
      "GEOMETRYCOLLECTION(POINT(1 2))",
      '{"type":"Point","coordinates":[21,39]}',
      "010100000000000000000035400000000000804340",
      "SRID=abc;POINT(1 2)",
      "SRID=;POINT(1 2)",
      "SRID=-4326;POINT(1 2)",
      "SRID=4326.0;POINT(1 2)",
      "SRID=4326 POINT(1 2)",
      "SRID=4326;",
      "SRID=4326;SRID=4326;POINT(1 2)",
      ";POINT(1 2)",
      "POINT(1e999 2)",
      "POINT(1 -1e400)",
      "POINT(0x10 2)",
      "POINT(NaN 2)",
      "POINT(Infinity 2)",
      "POINT(-Infinity 2)",
      "POINT(1.5.3 2)",
      "POINT(1-2)",
      "POINT(1e 2)",
      "POINT(1_000 2)",
      "POINT(1 2)x",
      "hello",
      "POINT(２ 3)",
    ]) {
      expect(parsePointGeom(input), JSON.stringify(input)).toEqual({ ok: false, message: INVALID });
    }
  });

  it("rejects an unknown SRID", () => {
    expect(parsePointGeom("SRID=9999;POINT(1 2)")).toEqual({ ok: false, message: "Unknown SRID 9999." });
    expect(parsePointGeom("SRID=0;POINT(1 2)")).toEqual({ ok: false, message: "Unknown SRID 0." });
    expect(parsePointGeom("SRID=009999;POINT(1 2)")).toEqual({ ok: false, message: "Unknown SRID 9999." });
    expect(parsePointGeom("SRID=123456789012345678901234567890;POINT(1 2)")).toEqual({
      ok: false,
      message: "Unknown SRID 123456789012345678901234567890.",
    });
  });

  it("checks the syntax before the SRID", () => {
    expect(parsePointGeom("SRID=9999;LINESTRING(1 2, 3 4)")).toEqual({ ok: false, message: INVALID });
  });

  it("rejects coordinates out of range", () => {
    for (const input of [
      "POINT(200 10)",
      "POINT(-180.000001 10)",
      "POINT(10 90.5)",
      "POINT(10 -91)",
      "SRID=4326;POINT(1e300 0)",
      "SRID=3857;POINT(0 1e9)", // at or past the pole, which Mercator cannot reach
      "SRID=3857;POINT(30000000 0)", // past the antimeridian; proj4 alone would wrap it to -90.5
      "SRID=2100;POINT(0 1000000000)",
      "SRID=4121;POINT(200 10)",
      "SRID=4258;POINT(10 100)",
    ]) {
      expect(parsePointGeom(input), input).toEqual({ ok: false, message: RANGE });
    }
  });
});

describe("formatPointEwkt", () => {
  it("writes the shortest round-trip plain numbers", () => {
    expect(formatPointEwkt(21, 39)).toBe("SRID=4326;POINT (21 39)");
    expect(formatPointEwkt(21.06071, 39.09518)).toBe("SRID=4326;POINT (21.06071 39.09518)");
    expect(formatPointEwkt(24.001723560948786, 38.85140820210843)).toBe(
      "SRID=4326;POINT (24.001723560948786 38.85140820210843)",
    );
    expect(formatPointEwkt(1e-7, -0)).toBe("SRID=4326;POINT (0.0000001 0)");
    expect(formatPointEwkt(-180, -90)).toBe("SRID=4326;POINT (-180 -90)");
    expect(formatPointWkt(21.5, 39)).toBe("POINT (21.5 39)");
  });

  it("round-trips through parsePointGeom", () => {
    const parsed = parsePointGeom("SRID=2100;POINT (250000 4300000)");
    if (!parsed.ok) throw new Error(parsed.message);
    const text = formatPointEwkt(parsed.lon, parsed.lat);
    expect(text).toMatch(/^SRID=4326;POINT \(21\.12233\d* 38\.81595\d*\)$/);
    expect(parsePointGeom(text)).toEqual({ ok: true, srid: 4326, lon: parsed.lon, lat: parsed.lat });
  });
});

describe("parseAreaGeom", () => {
  const square = "20.5 38.5, 21.5 38.5, 21.5 39.5, 20.5 39.5, 20.5 38.5";

  it("reads a MULTIPOLYGON and writes it back normalized", () => {
    const result = parseAreaGeom(`SRID=4326;MULTIPOLYGON (((${square})))`);
    expect(result).toEqual({
      ok: true,
      srid: 4326,
      type: "MULTIPOLYGON",
      polygons: [
        [
          [
            [20.5, 38.5],
            [21.5, 38.5],
            [21.5, 39.5],
            [20.5, 39.5],
            [20.5, 38.5],
          ],
        ],
      ],
      ewkt: `SRID=4326;MULTIPOLYGON (((${square})))`,
      bbox: [20.5, 38.5, 21.5, 39.5],
    });
  });

  it("keeps a POLYGON a POLYGON, whatever the spacing and case of the input", () => {
    const result = parseAreaGeom("polygon((20.5 38.5,21.5 38.5,21.5   39.5 ,\n20.5 39.5,20.5 38.5))");
    expect(result).toMatchObject({ ok: true, srid: 4326, type: "POLYGON", bbox: [20.5, 38.5, 21.5, 39.5] });
    if (!result.ok) throw new Error(result.message);
    expect(result.ewkt).toBe(`SRID=4326;POLYGON ((${square}))`);
  });

  it("accepts holes and several polygons", () => {
    const input =
      "MULTIPOLYGON(((0 0, 10 0, 10 10, 0 10, 0 0), (2 2, 2 4, 4 4, 4 2, 2 2)), ((20 -5, 30 -5, 30 5, 20 -5)))";
    const result = parseAreaGeom(input);
    if (!result.ok) throw new Error(result.message);
    expect(result.ewkt).toBe(
      "SRID=4326;MULTIPOLYGON (((0 0, 10 0, 10 10, 0 10, 0 0), (2 2, 2 4, 4 4, 4 2, 2 2)), ((20 -5, 30 -5, 30 5, 20 -5)))",
    );
    expect(result.bbox).toEqual([0, -5, 30, 10]);
    expect(result.polygons).toHaveLength(2);
    expect(result.polygons[0]).toHaveLength(2);

    const polygon = parseAreaGeom("POLYGON ((0 0, 10 0, 10 10, 0 10, 0 0), (2 2, 2 4, 4 4, 4 2, 2 2))");
    if (!polygon.ok) throw new Error(polygon.message);
    expect(polygon.ewkt).toBe("SRID=4326;POLYGON ((0 0, 10 0, 10 10, 0 10, 0 0), (2 2, 2 4, 4 4, 4 2, 2 2))");
  });

  it("transforms from another SRID and reports the input SRID", () => {
    const result = parseAreaGeom(
      "SRID=2100;POLYGON((245000 4330000, 247000 4330000, 247000 4332000, 245000 4332000, 245000 4330000))",
    );
    if (!result.ok) throw new Error(result.message);
    expect(result.srid).toBe(2100);
    expect(result.type).toBe("POLYGON");
    const [minLon, minLat, maxLon, maxLat] = result.bbox;
    expect(minLon).toBeGreaterThan(21.04);
    expect(maxLon).toBeLessThan(21.09);
    expect(minLat).toBeGreaterThan(39.07);
    expect(maxLat).toBeLessThan(39.11);
    // The Komboti station lies inside.
    expect(minLon <= 21.06071 && 21.06071 <= maxLon && minLat <= 39.09518 && 39.09518 <= maxLat).toBe(true);
    const ring = result.polygons[0]?.[0] ?? [];
    expect(ring).toHaveLength(5);
    expect(ring[0]).toEqual(ring[4]);
    expect(result.ewkt).toMatch(/^SRID=4326;POLYGON \(\((-?\d+(\.\d+)? -?\d+(\.\d+)?(, )?){5}\)\)$/);
    // The output reads back to the same coordinates.
    const again = parseAreaGeom(result.ewkt);
    expect(again).toMatchObject({ ok: true, srid: 4326, ewkt: result.ewkt, polygons: result.polygons });
  });

  it("rejects what is not a polygon or multipolygon", () => {
    for (const input of [
      "",
      "POINT(1 2)",
      "LINESTRING(0 0, 1 1)",
      "POLYGON EMPTY",
      "MULTIPOLYGON EMPTY",
      "POLYGON Z ((0 0 0, 1 0 0, 1 1 0, 0 0 0))",
      "POLYGON((0 0 0, 1 0 0, 1 1 0, 0 0 0))",
      "POLYGON((0 0, 1 0, 1 1, 0 0)",
      "POLYGON(0 0, 1 0, 1 1, 0 0)",
      "POLYGON(())",
      "MULTIPOLYGON((0 0, 1 0, 1 1, 0 0))",
      "MULTIPOLYGON(((0 0, 1 0, 1 1, 0 0))",
      "POLYGON((0 0, 1 0, 1 1, 0 0),)",
      "POLYGON((0 0, 1 0, 1 1, 0 0)) x",
      "POLYGON((0 0, 1e999 0, 1 1, 0 0))",
      "SRID=x;POLYGON((0 0, 1 0, 1 1, 0 0))",
      '{"type":"Polygon","coordinates":[[[0,0],[1,0],[1,1],[0,0]]]}',
    ]) {
      expect(parseAreaGeom(input), JSON.stringify(input)).toEqual({ ok: false, message: INVALID_AREA_MESSAGE });
    }
    expect(INVALID_AREA_MESSAGE).toBe("Invalid geometry; expected a POLYGON or MULTIPOLYGON.");
  });

  it("rejects short and open rings", () => {
    expect(parseAreaGeom("POLYGON((0 0, 1 0, 0 0))")).toEqual({
      ok: false,
      message: "Invalid geometry; each polygon ring must have at least 4 points.",
    });
    expect(parseAreaGeom("POLYGON((0 0, 1 0, 1 1, 0 1))")).toEqual({
      ok: false,
      message: "Invalid geometry; each polygon ring must be closed (its last point equal to its first).",
    });
    expect(parseAreaGeom("MULTIPOLYGON(((0 0, 1 0, 1 1, 0 0)), ((0 0, 1 0, 1 1, 0 1)))")).toMatchObject({
      ok: false,
      message: expect.stringContaining("closed") as unknown,
    });
  });

  it("rejects an unknown SRID and coordinates out of range", () => {
    expect(parseAreaGeom("SRID=9999;POLYGON((0 0, 1 0, 1 1, 0 0))")).toEqual({
      ok: false,
      message: "Unknown SRID 9999.",
    });
    expect(parseAreaGeom("POLYGON((170 0, 190 0, 190 10, 170 0))")).toEqual({ ok: false, message: RANGE });
    expect(parseAreaGeom("SRID=3857;POLYGON((0 0, 1 0, 0 1e9, 0 0))")).toEqual({ ok: false, message: RANGE });
  });
});

describe("formatAreaEwkt", () => {
  it("formats both types", () => {
    const ring: [number, number][] = [
      [0, 0],
      [1.5, 0],
      [1.5, 1e-7],
      [0, 0],
    ];
    expect(formatAreaEwkt("POLYGON", [[ring]])).toBe("SRID=4326;POLYGON ((0 0, 1.5 0, 1.5 0.0000001, 0 0))");
    expect(formatAreaEwkt("MULTIPOLYGON", [[ring], [ring]])).toBe(
      "SRID=4326;MULTIPOLYGON (((0 0, 1.5 0, 1.5 0.0000001, 0 0)), ((0 0, 1.5 0, 1.5 0.0000001, 0 0)))",
    );
  });
});

describe("parseBbox", () => {
  it("reads four comma-separated numbers", () => {
    expect(parseBbox("21,39,22,40")).toEqual([21, 39, 22, 40]);
    expect(parseBbox(" 21.5 , -39 ,\t+22e0 , 4e1 ")).toEqual([21.5, -39, 22, 40]);
    expect(parseBbox("19.3,34.75,29.65,41.8")).toEqual([19.3, 34.75, 29.65, 41.8]);
    expect(parseBbox(".5,-.5,1.,2")).toEqual([0.5, -0.5, 1, 2]);
  });

  it("allows min > max and values outside the world", () => {
    expect(parseBbox("22,40,21,39")).toEqual([22, 40, 21, 39]);
    expect(parseBbox("-500,-100,500,100")).toEqual([-500, -100, 500, 100]);
  });

  it("rejects anything else", () => {
    for (const text of [
      "",
      " ",
      "21,39,22",
      "21,39,22,40,",
      "21,39,22,40,41",
      ",21,39,22,40",
      "21,,39,22",
      "21;39;22;40",
      "21 39 22 40",
      "21,39,22,4 0",
      "a,b,c,d",
      "21,39,22,NaN",
      "21,39,22,Infinity",
      "21,39,22,1e999",
      "0x10,39,22,40",
      "21,39,22,40x",
      "1.2.3,39,22,40",
      "21,39,22,--40",
    ]) {
      expect(parseBbox(text), JSON.stringify(text)).toBeNull();
    }
  });
});
