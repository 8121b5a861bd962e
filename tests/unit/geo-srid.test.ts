import { describe, expect, it } from "vitest";
import { isKnownSrid, knownSrids, sridDefinition, toWgs84 } from "@/lib/geo/srid";

/**
 * Reference values below come from PROJ 9.1 `cs2cs` with the same EPSG proj strings. proj4js
 * agrees with it to about 1e-8 degrees (a millimetre or two) where a datum shift is involved,
 * so the tolerance is 1e-7 degrees (a centimetre).
 */
function expectNear(actual: [number, number], expected: [number, number], tolerance: number): void {
  expect(Math.abs(actual[0] - expected[0])).toBeLessThanOrEqual(tolerance);
  expect(Math.abs(actual[1] - expected[1])).toBeLessThanOrEqual(tolerance);
}

describe("known SRIDs", () => {
  it("covers every SRID api.md §4.2 requires", () => {
    const required = [4326, 4258, 4121, 2100, 3857, 900913, 3035];
    for (let zone = 1; zone <= 60; zone++) required.push(32600 + zone, 32700 + zone);
    for (let zone = 28; zone <= 38; zone++) required.push(25800 + zone);
    for (const srid of required) expect(isKnownSrid(srid), String(srid)).toBe(true);
    expect(knownSrids()).toEqual(expect.arrayContaining(required));
  });

  it("does not know codes outside the families", () => {
    for (const srid of [0, -1, 9999, 32600, 32661, 32700, 32761, 25827, 25839, 4326.5, NaN]) {
      expect(isKnownSrid(srid), String(srid)).toBe(false);
    }
  });

  it("uses the EPSG definition with towgs84 for the Greek systems", () => {
    expect(sridDefinition(2100)).toBe(
      "+proj=tmerc +lat_0=0 +lon_0=24 +k=0.9996 +x_0=500000 +y_0=0 +ellps=GRS80 +towgs84=-199.87,74.79,246.62,0,0,0,0 +units=m +no_defs",
    );
    expect(sridDefinition(4121)).toBe("+proj=longlat +ellps=GRS80 +towgs84=-199.87,74.79,246.62,0,0,0,0 +no_defs");
    expect(sridDefinition(32734)).toBe("+proj=utm +zone=34 +south +datum=WGS84 +units=m +no_defs");
    expect(sridDefinition(25834)).toBe("+proj=utm +zone=34 +ellps=GRS80 +towgs84=0,0,0,0,0,0,0 +units=m +no_defs");
    expect(sridDefinition(9999)).toBeUndefined();
  });
});

describe("toWgs84", () => {
  it("returns the very input numbers for 4326", () => {
    const x = 0.1 + 0.2;
    const y = 39.09518000000001;
    const [lon, lat] = toWgs84(4326, x, y);
    expect(Object.is(lon, x)).toBe(true);
    expect(Object.is(lat, y)).toBe(true);
    expect(toWgs84(4326, 200, 100)).toEqual([200, 100]);
  });

  it("throws for an unknown SRID", () => {
    expect(() => toWgs84(9999, 1, 2)).toThrow(RangeError);
  });

  it("transforms the Greek Grid (2100)", () => {
    expectNear(toWgs84(2100, 250000, 4300000), [21.122335216265, 38.815952146299], 1e-7);
  });

  it("finds the Komboti station (api.md §4.1) from its GGRS87 coordinates", () => {
    // GGRS87 / Greek Grid coordinates of (21.06071, 39.09518), from cs2cs.
    expectNear(toWgs84(2100, 245648.9602446095, 4331165.1963815372), [21.06071, 39.09518], 1e-7);
  });

  it("transforms GGRS87 geographic (4121) with its datum shift", () => {
    expectNear(toWgs84(4121, 21.06, 39.09), [21.06163692719, 39.092630897783], 1e-7);
  });

  it("transforms ETRS89 (4258) to within rounding of the input", () => {
    expectNear(toWgs84(4258, 21.06071, 39.09518), [21.06071, 39.09518], 1e-7);
  });

  it("transforms Web Mercator, 3857 and 900913 alike", () => {
    const expected: [number, number] = [21.060709999598, 39.095180000216];
    expectNear(toWgs84(3857, 2344467.5129, 4735314.4756), expected, 1e-7);
    expect(toWgs84(900913, 2344467.5129, 4735314.4756)).toEqual(toWgs84(3857, 2344467.5129, 4735314.4756));
    // Beyond the square of the usual tiles but still below the pole: a valid point.
    expectNear(toWgs84(3857, -20037508.342789244, 30000000), [-180, 88.961498364409], 1e-7);
  });

  it("transforms UTM zones (32634, 32734) and ETRS89 / UTM (25834)", () => {
    expectNear(toWgs84(32634, 505250, 4327340), [21.060710744851, 39.095174137716], 1e-7);
    expectNear(toWgs84(32734, 500000, 7000000), [21, -27.122469641551], 1e-7);
    expectNear(toWgs84(25834, 505250, 4327340), [21.060710744851, 39.095174138731], 1e-7);
  });

  it("transforms LAEA Europe (3035)", () => {
    expectNear(toWgs84(3035, 5279924, 1848314), [21.060714522416, 39.09518152487], 1e-7);
  });

  it("transforms an optional extra (27700, British National Grid)", () => {
    expectNear(toWgs84(27700, 530000, 180000), [-0.128353940479, 51.503990827634], 1e-7);
  });

  it("gives NaN for points the system cannot represent", () => {
    const bad = (srid: number, x: number, y: number) => toWgs84(srid, x, y).every(Number.isNaN);
    expect(bad(3857, 30000000, 0)).toBe(true); // past the antimeridian (proj4 would wrap it)
    expect(bad(3857, 100000000, 0)).toBe(true);
    expect(bad(3857, 0, 1e9)).toBe(true); // at the pole, which Mercator cannot reach
    expect(bad(3857, 0, -1e9)).toBe(true);
    expect(bad(2100, 0, 1e9)).toBe(true); // proj4 folds this back to a bogus point in range
    expect(bad(32634, 30000000, 0)).toBe(true);
    expect(bad(4121, 200, 10)).toBe(true); // proj4 would wrap the longitude
    expect(bad(4258, 10, 90.05)).toBe(true);
    expect(bad(2100, NaN, 0)).toBe(true);
    expect(bad(2100, Infinity, 0)).toBe(true);
  });
});
