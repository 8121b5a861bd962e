/**
 * Spatial reference systems known to the service and the transformation of a coordinate pair
 * to WGS84 longitude/latitude (api.md §4.2, §11 `gareas`).
 *
 * The definitions are the proj strings of the EPSG database (as PROJ's `projinfo EPSG:<n>`
 * prints them, with the `towgs84` Helmert parameters EPSG publishes where the datum is not
 * WGS84). Coordinates are always taken in x = easting/longitude, y = northing/latitude order,
 * as in (E)WKT, whatever axis order EPSG declares.
 */
import proj4, { type Converter } from "proj4";

const WGS84 = "+proj=longlat +datum=WGS84 +no_defs";
/** ETRS89 and other GRS80 datums that EPSG treats as coincident with WGS84 at the metre level. */
const GRS80_NULL = "+ellps=GRS80 +towgs84=0,0,0,0,0,0,0";
const GGRS87 = "+ellps=GRS80 +towgs84=-199.87,74.79,246.62,0,0,0,0";
const DHDN = "+ellps=bessel +towgs84=598.1,73.7,418.2,0.202,0.045,-2.455,6.7";
const CH1903 = "+ellps=bessel +towgs84=674.374,15.056,405.346,0,0,0,0";
const WEB_MERCATOR =
  "+proj=merc +a=6378137 +b=6378137 +lat_ts=0 +lon_0=0 +x_0=0 +y_0=0 +k=1 +units=m +nadgrids=@null +wktext +no_defs";

const definitions = new Map<number, string>([
  // Required by api.md §4.2.
  [4326, WGS84],
  [4258, `+proj=longlat ${GRS80_NULL} +no_defs`], // ETRS89
  [4121, `+proj=longlat ${GGRS87} +no_defs`], // GGRS87
  [2100, `+proj=tmerc +lat_0=0 +lon_0=24 +k=0.9996 +x_0=500000 +y_0=0 ${GGRS87} +units=m +no_defs`], // GGRS87 / Greek Grid
  [3857, WEB_MERCATOR], // WGS 84 / Pseudo-Mercator
  [900913, WEB_MERCATOR], // the unofficial "Google" code for 3857
  [3035, `+proj=laea +lat_0=52 +lon_0=10 +x_0=4321000 +y_0=3210000 ${GRS80_NULL} +units=m +no_defs`], // ETRS89-extended / LAEA Europe
  // A few other common ones.
  [4269, "+proj=longlat +datum=NAD83 +no_defs"], // NAD83
  [3395, "+proj=merc +lon_0=0 +k=1 +x_0=0 +y_0=0 +datum=WGS84 +units=m +no_defs"], // WGS 84 / World Mercator
  [3034, `+proj=lcc +lat_0=52 +lon_0=10 +lat_1=35 +lat_2=65 +x_0=4000000 +y_0=2800000 ${GRS80_NULL} +units=m +no_defs`], // ETRS89-extended / LCC Europe
  [2154, `+proj=lcc +lat_0=46.5 +lon_0=3 +lat_1=49 +lat_2=44 +x_0=700000 +y_0=6600000 ${GRS80_NULL} +units=m +no_defs`], // RGF93 v1 / Lambert-93
  [3067, `+proj=utm +zone=35 ${GRS80_NULL} +units=m +no_defs`], // ETRS89 / TM35FIN(E,N)
  [
    27700, // OSGB36 / British National Grid
    "+proj=tmerc +lat_0=49 +lon_0=-2 +k=0.9996012717 +x_0=400000 +y_0=-100000 +ellps=airy +towgs84=446.448,-125.157,542.06,0.15,0.247,0.842,-20.489 +units=m +no_defs",
  ],
  [
    28992, // Amersfoort / RD New
    "+proj=sterea +lat_0=52.1561605555556 +lon_0=5.38763888888889 +k=0.9999079 +x_0=155000 +y_0=463000 +ellps=bessel +towgs84=565.4171,50.3319,465.5524,-0.398957388243134,0.343987817378283,-1.87740163998045,4.0725 +units=m +no_defs",
  ],
  [2056, `+proj=somerc +lat_0=46.9524055555556 +lon_0=7.43958333333333 +k_0=1 +x_0=2600000 +y_0=1200000 ${CH1903} +units=m +no_defs`], // CH1903+ / LV95
  [21781, `+proj=somerc +lat_0=46.9524055555556 +lon_0=7.43958333333333 +k_0=1 +x_0=600000 +y_0=200000 ${CH1903} +units=m +no_defs`], // CH1903 / LV03
]);

// WGS 84 / UTM zones 1N–60N (32601–32660) and 1S–60S (32701–32760).
for (let zone = 1; zone <= 60; zone++) {
  definitions.set(32600 + zone, `+proj=utm +zone=${zone} +datum=WGS84 +units=m +no_defs`);
  definitions.set(32700 + zone, `+proj=utm +zone=${zone} +south +datum=WGS84 +units=m +no_defs`);
}
// ETRS89 / UTM zones 28N–38N (25828–25838).
for (let zone = 28; zone <= 38; zone++) {
  definitions.set(25800 + zone, `+proj=utm +zone=${zone} ${GRS80_NULL} +units=m +no_defs`);
}
// NAD83 / UTM zones 1N–23N (26901–26923).
for (let zone = 1; zone <= 23; zone++) {
  definitions.set(26900 + zone, `+proj=utm +zone=${zone} +datum=NAD83 +units=m +no_defs`);
}
// DHDN / 3-degree Gauss-Kruger zones 2–5 (31466–31469).
for (let zone = 2; zone <= 5; zone++) {
  definitions.set(
    31464 + zone,
    `+proj=tmerc +lat_0=0 +lon_0=${3 * zone} +k=1 +x_0=${zone * 1000000 + 500000} +y_0=0 ${DHDN} +units=m +no_defs`,
  );
}

/** The proj string of an SRID, or `undefined` if it is not known. */
export function sridDefinition(srid: number): string | undefined {
  return definitions.get(srid);
}

/** Whether `srid` is one of the spatial reference systems the service can transform from. */
export function isKnownSrid(srid: number): boolean {
  return definitions.has(srid);
}

/** Every known SRID, ascending. */
export function knownSrids(): number[] {
  return [...definitions.keys()].sort((a, b) => a - b);
}

const converters = new Map<number, Converter>();

function converter(srid: number): Converter {
  let result = converters.get(srid);
  if (!result) {
    const definition = definitions.get(srid);
    if (definition === undefined) throw new RangeError(`Unknown SRID ${srid}`);
    result = proj4(definition, WGS84);
    converters.set(srid, result);
  }
  return result;
}

const NOT_A_POINT: [number, number] = [NaN, NaN];

function finitePair(value: unknown): [number, number] | undefined {
  if (!Array.isArray(value) || value.length < 2) return undefined;
  const [x, y] = value as unknown[];
  if (typeof x !== "number" || typeof y !== "number") return undefined;
  if (!Number.isFinite(x) || !Number.isFinite(y)) return undefined;
  return [x, y];
}

/**
 * Transforms the point (x, y) of the given SRID to WGS84 `[lon, lat]` in degrees.
 *
 * - 4326 is the identity: the input numbers come back unchanged, whatever their range.
 * - Any other known SRID goes through proj4. The result is `[NaN, NaN]` when (x, y) is not a
 *   point the system can represent: non-finite input; a geographic system's longitude outside
 *   −180…180 or latitude outside −90…90; or a projected point that does not transform back to
 *   itself (beyond the projection's edge, for example past the antimeridian of Web Mercator,
 *   which proj4 would otherwise wrap round, or at a pole). The caller still has to check the
 *   range of a finite result.
 *
 * Throws a RangeError for an unknown SRID (check with `isKnownSrid` first).
 */
export function toWgs84(srid: number, x: number, y: number): [lon: number, lat: number] {
  if (srid === 4326) return [x, y];
  const convert = converter(srid);
  if (!Number.isFinite(x) || !Number.isFinite(y)) return NOT_A_POINT;
  const definition = definitions.get(srid) ?? "";
  if (definition.startsWith("+proj=longlat ") && (Math.abs(x) > 180 || Math.abs(y) > 90)) {
    return NOT_A_POINT;
  }
  let forward: [number, number] | undefined;
  let back: [number, number] | undefined;
  try {
    forward = finitePair(convert.forward([x, y]));
    if (forward) back = finitePair(convert.inverse(forward));
  } catch {
    return NOT_A_POINT;
  }
  if (!forward || !back) return NOT_A_POINT;
  // Coordinates that the projection wraps or folds come back far from where they were; honest
  // ones come back to within rounding error. The tolerance is one part per million of the
  // coordinates' size (4 m at a northing of 4,000 km), far above the rounding error and far below
  // any wrap.
  const tolerance = 1e-6 * Math.max(1, Math.abs(x), Math.abs(y));
  if (Math.abs(back[0] - x) > tolerance || Math.abs(back[1] - y) > tolerance) return NOT_A_POINT;
  return forward;
}
