/**
 * (E)WKT input and output of geometries: the station point (api.md §4.2), the polygons of
 * geographical areas (§11 `gareas`), and the `bbox` rectangle syntax (§4.4, §4.5).
 */
import { plainNumber } from "@/lib/formats/number";
import { isKnownSrid, toWgs84 } from "@/lib/geo/srid";

export const INVALID_POINT_MESSAGE =
  'Invalid geometry; expected a point such as "POINT (21.06071 39.09518)" or "SRID=2100;POINT (250000 4300000)".';
export const INVALID_AREA_MESSAGE = "Invalid geometry; expected a POLYGON or MULTIPOLYGON.";
export const RING_TOO_SHORT_MESSAGE = "Invalid geometry; each polygon ring must have at least 4 points.";
export const RING_NOT_CLOSED_MESSAGE =
  "Invalid geometry; each polygon ring must be closed (its last point equal to its first).";
export const OUT_OF_RANGE_MESSAGE =
  "Coordinates out of range: longitude must be within -180..180 and latitude within -90..90.";

export function unknownSridMessage(srid: string | number): string {
  return `Unknown SRID ${srid}.`;
}

export type GeomError = { ok: false; message: string };
export type PointGeom = { ok: true; srid: number; lon: number; lat: number };
/** A ring is a list of [lon, lat]; a polygon is its shell followed by its holes. */
export type Ring = [number, number][];
export type Polygon = Ring[];
export type AreaGeom = {
  ok: true;
  /** The SRID of the input (4326 when none was given). */
  srid: number;
  /** The geometry type of the input, which is also that of the output. */
  type: "POLYGON" | "MULTIPOLYGON";
  /** WGS84 coordinates: one polygon for a POLYGON, one or more for a MULTIPOLYGON. */
  polygons: Polygon[];
  /** Normalized EWKT in 4326, e.g. `SRID=4326;POLYGON ((20.5 38.5, 21.5 38.5, …))`. */
  ewkt: string;
  /** [minLon, minLat, maxLon, maxLat] over every vertex. */
  bbox: [number, number, number, number];
};

// ---------------------------------------------------------------------------------------------
// Tokens

/** A decimal number: optional sign, digits with optional fraction (or a bare fraction), exponent. */
const NUMBER_SOURCE = String.raw`[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?`;
/**
 * One token after optional whitespace: a number (which must not run on into more of a number
 * or a word, so `1.5.3`, `1-2` and `0x10` fail), a word, or a symbol.
 */
const TOKEN = new RegExp(String.raw`\s*(?:(${NUMBER_SOURCE})(?![\w.+-])|([A-Za-z]+)|([();=,]))`, "y");
const TRAILING_SPACE = /\s*$/y;

type Token = { kind: "number"; text: string } | { kind: "word"; text: string } | { kind: "symbol"; text: string };

/** Splits the input into tokens, or returns null when it holds anything else. */
function tokenize(input: string): Token[] | null {
  const tokens: Token[] = [];
  let position = 0;
  for (;;) {
    TRAILING_SPACE.lastIndex = position;
    if (TRAILING_SPACE.test(input)) return tokens;
    TOKEN.lastIndex = position;
    const match = TOKEN.exec(input);
    if (!match) return null;
    position = TOKEN.lastIndex;
    if (match[1] !== undefined) tokens.push({ kind: "number", text: match[1] });
    else if (match[2] !== undefined) tokens.push({ kind: "word", text: match[2].toUpperCase() });
    else tokens.push({ kind: "symbol", text: match[3] ?? "" });
  }
}

class SyntaxFailure extends Error {}

class Parser {
  private index = 0;
  constructor(private readonly tokens: Token[]) {}

  peek(): Token | undefined {
    return this.tokens[this.index];
  }

  atEnd(): boolean {
    return this.index >= this.tokens.length;
  }

  isSymbol(text: string): boolean {
    const token = this.peek();
    return token?.kind === "symbol" && token.text === text;
  }

  symbol(text: string): void {
    if (!this.isSymbol(text)) throw new SyntaxFailure();
    this.index++;
  }

  word(): string {
    const token = this.peek();
    if (token?.kind !== "word") throw new SyntaxFailure();
    this.index++;
    return token.text;
  }

  numberText(): string {
    const token = this.peek();
    if (token?.kind !== "number") throw new SyntaxFailure();
    this.index++;
    return token.text;
  }

  /** A finite coordinate. */
  number(): number {
    const value = Number(this.numberText());
    if (!Number.isFinite(value)) throw new SyntaxFailure();
    return value;
  }

  /** `<x> <y>`: exactly two numbers (a third would be Z or M). */
  point(): [number, number] {
    return [this.number(), this.number()];
  }

  /** `( <point> {, <point>} )` */
  ring(): [number, number][] {
    this.symbol("(");
    const points = [this.point()];
    while (this.isSymbol(",")) {
      this.symbol(",");
      points.push(this.point());
    }
    this.symbol(")");
    return points;
  }

  /** `( <ring> {, <ring>} )` */
  polygon(): [number, number][][] {
    this.symbol("(");
    const rings = [this.ring()];
    while (this.isSymbol(",")) {
      this.symbol(",");
      rings.push(this.ring());
    }
    this.symbol(")");
    return rings;
  }

  /** `( <polygon> {, <polygon>} )` */
  multiPolygon(): [number, number][][][] {
    this.symbol("(");
    const polygons = [this.polygon()];
    while (this.isSymbol(",")) {
      this.symbol(",");
      polygons.push(this.polygon());
    }
    this.symbol(")");
    return polygons;
  }

  /**
   * The optional `SRID=<digits>;` prefix. Returns the SRID's digits without leading zeros, or
   * null when there is no prefix.
   */
  sridPrefix(): string | null {
    const first = this.tokens[this.index];
    const second = this.tokens[this.index + 1];
    if (first?.kind !== "word" || first.text !== "SRID" || second?.kind !== "symbol" || second.text !== "=") {
      return null;
    }
    this.index += 2;
    const digits = this.numberText();
    if (!/^\d+$/.test(digits)) throw new SyntaxFailure();
    this.symbol(";");
    return digits.replace(/^0+(?=\d)/, "");
  }
}

/** What both geometry parsers share: the SRID prefix, the body, and the end of input. */
function parseEwkt<T>(input: string, body: (parser: Parser) => T): { srid: string; body: T } | null {
  const tokens = tokenize(input);
  if (!tokens) return null;
  const parser = new Parser(tokens);
  try {
    const srid = parser.sridPrefix() ?? "4326";
    const result = body(parser);
    if (!parser.atEnd()) return null;
    return { srid, body: result };
  } catch (error) {
    if (error instanceof SyntaxFailure) return null;
    throw error;
  }
}

/** The SRID as a known number, or the "Unknown SRID" failure. */
function knownSrid(digits: string): number | GeomError {
  const srid = Number(digits);
  if (digits.length > 15 || !isKnownSrid(srid)) return { ok: false, message: unknownSridMessage(digits) };
  return srid;
}

function inRange(lon: number, lat: number): boolean {
  return lon >= -180 && lon <= 180 && lat >= -90 && lat <= 90;
}

// ---------------------------------------------------------------------------------------------
// Points (api.md §4.2)

/**
 * Parses a station `geom`: `[SRID=<n>;]POINT[ ](<x> <y>)`, keyword case-insensitive, any
 * whitespace around the tokens. Without an SRID the point is WGS84 (4326); with another one it
 * is transformed to WGS84. The result's `srid` is that of the input; `lon`/`lat` are WGS84.
 */
export function parsePointGeom(input: string): PointGeom | GeomError {
  const parsed = parseEwkt(input, (parser) => {
    if (parser.word() !== "POINT") throw new SyntaxFailure();
    parser.symbol("(");
    const point = parser.point();
    parser.symbol(")");
    return point;
  });
  if (!parsed) return { ok: false, message: INVALID_POINT_MESSAGE };
  const srid = knownSrid(parsed.srid);
  if (typeof srid !== "number") return srid;
  const [lon, lat] = toWgs84(srid, parsed.body[0], parsed.body[1]);
  if (!inRange(lon, lat)) return { ok: false, message: OUT_OF_RANGE_MESSAGE };
  return { ok: true, srid, lon, lat };
}

/** `POINT (<lon> <lat>)`, numbers in shortest round-trip plain notation. */
export function formatPointWkt(lon: number, lat: number): string {
  // A point without finite coordinates (the API never stores one; a database holds infinities,
  // and PostgreSQL NaN, written to it directly) is shown as no point.
  if (!Number.isFinite(lon) || !Number.isFinite(lat)) return "POINT EMPTY";
  return `POINT (${plainNumber(lon)} ${plainNumber(lat)})`;
}

/** `SRID=4326;POINT (<lon> <lat>)`: the output form of a station `geom` (api.md §4.2). */
export function formatPointEwkt(lon: number, lat: number): string {
  return `SRID=4326;${formatPointWkt(lon, lat)}`;
}

// ---------------------------------------------------------------------------------------------
// Polygons and multipolygons (api.md §11, `gareas`)

function formatRing(ring: Ring): string {
  return `(${ring.map(([x, y]) => `${plainNumber(x)} ${plainNumber(y)}`).join(", ")})`;
}

function formatPolygon(polygon: Polygon): string {
  return `(${polygon.map(formatRing).join(", ")})`;
}

/** The EWKT output of an area: `SRID=4326;POLYGON ((…))` or `SRID=4326;MULTIPOLYGON (((…)))`. */
export function formatAreaEwkt(type: "POLYGON" | "MULTIPOLYGON", polygons: Polygon[]): string {
  if (type === "POLYGON") {
    if (polygons.length !== 1) throw new RangeError("a POLYGON has exactly one polygon");
    return `SRID=4326;POLYGON ${formatPolygon(polygons[0] as Polygon)}`;
  }
  return `SRID=4326;MULTIPOLYGON (${polygons.map(formatPolygon).join(", ")})`;
}

/**
 * Parses the `geom` of a geographical area: WKT or EWKT `POLYGON` or `MULTIPOLYGON`, SRID
 * handling as for points. Each ring needs at least 4 points and must be closed (its last point
 * equal to its first, as written). Holes are allowed; their position and the rings' orientation
 * and self-intersection are not checked. The output keeps the input's type.
 */
export function parseAreaGeom(input: string): AreaGeom | GeomError {
  const parsed = parseEwkt(input, (parser) => {
    const type = parser.word();
    if (type === "POLYGON") return { type, polygons: [parser.polygon()] } as const;
    if (type === "MULTIPOLYGON") return { type, polygons: parser.multiPolygon() } as const;
    throw new SyntaxFailure();
  });
  if (!parsed) return { ok: false, message: INVALID_AREA_MESSAGE };
  const { type, polygons: source } = parsed.body;
  for (const polygon of source) {
    for (const ring of polygon) {
      if (ring.length < 4) return { ok: false, message: RING_TOO_SHORT_MESSAGE };
      const first = ring[0] as [number, number];
      const last = ring[ring.length - 1] as [number, number];
      if (first[0] !== last[0] || first[1] !== last[1]) return { ok: false, message: RING_NOT_CLOSED_MESSAGE };
    }
  }
  const srid = knownSrid(parsed.srid);
  if (typeof srid !== "number") return srid;

  const bbox: [number, number, number, number] = [Infinity, Infinity, -Infinity, -Infinity];
  const polygons: Polygon[] = [];
  for (const polygon of source) {
    const rings: Ring[] = [];
    for (const ring of polygon) {
      const points: Ring = [];
      for (const [x, y] of ring) {
        const [lon, lat] = toWgs84(srid, x, y);
        if (!inRange(lon, lat)) return { ok: false, message: OUT_OF_RANGE_MESSAGE };
        points.push([lon, lat]);
        bbox[0] = Math.min(bbox[0], lon);
        bbox[1] = Math.min(bbox[1], lat);
        bbox[2] = Math.max(bbox[2], lon);
        bbox[3] = Math.max(bbox[3], lat);
      }
      rings.push(points);
    }
    polygons.push(rings);
  }
  return { ok: true, srid, type, polygons, ewkt: formatAreaEwkt(type, polygons), bbox };
}

// ---------------------------------------------------------------------------------------------
// Bounding boxes (api.md §4.4 `bbox`, §4.5 `bbox:`)

const BBOX = new RegExp(
  String.raw`^\s*(${NUMBER_SOURCE})\s*,\s*(${NUMBER_SOURCE})\s*,\s*(${NUMBER_SOURCE})\s*,\s*(${NUMBER_SOURCE})\s*$`,
);

/**
 * Parses `min_lon,min_lat,max_lon,max_lat`: four comma-separated decimal numbers, whitespace
 * around each tolerated. Returns null for anything else, including non-finite numbers. The
 * values are not range-checked, and min > max is allowed (such a box contains nothing).
 */
export function parseBbox(text: string): [number, number, number, number] | null {
  const match = BBOX.exec(text);
  if (!match) return null;
  const values = match.slice(1, 5).map(Number);
  if (!values.every(Number.isFinite)) return null;
  return values as [number, number, number, number];
}
