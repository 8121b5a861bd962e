/**
 * A fake InfluxDB v2 query API: POST /api/v2/query?org=… with a Flux body, answering CSV as
 * InfluxDB does (",result,table,…" header, CR LF, a blank line at the end; `splitTables` puts
 * the rows in two tables with the header repeated). It understands the three queries of the
 * influxdb type (distinct station tags, schema.fieldKeys, a field's points) and answers errors
 * as InfluxDB does: 401 and 404 with {"code","message"}.
 */
import { startFake, type FakeAnswer, type FakeVendor, type StartOptions } from "@/tests/support/fake-vendors/base";

export interface InfluxPoint {
  station: string;
  field: string;
  /** RFC 3339, e.g. "2025-09-10T14:51:00Z". */
  time: string;
  value: number | string;
}

export interface InfluxOptions extends StartOptions {
  org?: string;
  token?: string;
  bucket?: string;
  measurement?: string;
  stationTag?: string;
  /** The points, or a function giving them at each request (a demo's grow with time). */
  points?: InfluxPoint[] | (() => InfluxPoint[]);
  splitTables?: boolean;
}

export interface FakeInflux extends FakeVendor {
  readonly apiUrl: string;
  /** The Flux texts received. */
  readonly queries: () => string[];
}

const unquote = (s: string) => s.replace(/\\(.)/g, "$1");
const STRING = '"((?:[^"\\\\]|\\\\.)*)"';

function csv(header: string[], rows: string[][], split: boolean): FakeAnswer {
  const line = (cells: string[]) => cells.map((c) => (/[",\r\n]/.test(c) ? `"${c.replace(/"/g, '""')}"` : c)).join(",");
  const table = (k: number, part: string[][]) => [line(["", "result", "table", ...header]), ...part.map((r) => line(["", "_result", String(k), ...r]))].join("\r\n");
  let body: string;
  if (split && rows.length > 1) {
    const half = Math.ceil(rows.length / 2);
    body = `${table(0, rows.slice(0, half))}\r\n\r\n${table(1, rows.slice(half))}\r\n\r\n`;
  } else {
    body = `${table(0, rows)}\r\n\r\n`;
  }
  return { headers: { "Content-Type": "text/csv; charset=utf-8" }, body };
}

const influxError = (status: number, code: string, message: string): FakeAnswer =>
  ({ status, headers: { "Content-Type": "application/json; charset=utf-8" }, body: JSON.stringify({ code, message }) });

export async function startFakeInflux(options: InfluxOptions = {}): Promise<FakeInflux> {
  const org = options.org ?? "alice";
  const token = options.token ?? "topsecretpassword";
  const bucket = options.bucket ?? "thebucket";
  const measurement = options.measurement ?? "themeasurement";
  const stationTag = options.stationTag ?? "thestationtag";
  const pointsOf = () => (typeof options.points === "function" ? options.points() : options.points ?? []);
  const split = options.splitTables ?? false;

  const vendor = await startFake((request) => {
    const points = pointsOf();
    if (request.method !== "POST" || request.path !== "/api/v2/query") return influxError(404, "not found", "path not found");
    if (request.headers.authorization !== `Token ${token}`) return influxError(401, "unauthorized", "unauthorized access");
    if (request.query.get("org") !== org) return influxError(404, "not found", `organization name "${request.query.get("org")}" not found`);
    if (!String(request.headers["content-type"]).startsWith("application/vnd.flux")) return influxError(400, "invalid", "unsupported content type");
    const flux = request.body;
    const b = new RegExp(`bucket: ${STRING}`).exec(flux);
    if (!b) return influxError(400, "invalid", "compilation failed: missing bucket");
    if (unquote(b[1]) !== bucket) return influxError(404, "not found", `failed to initialize execute state: could not find bucket "${unquote(b[1])}"`);
    const m = new RegExp(`r\\._measurement == ${STRING}`).exec(flux);
    const ofMeasurement = m !== null && unquote(m[1]) === measurement;
    if (flux.includes("distinct(column:")) {
      const tag = new RegExp(`distinct\\(column: ${STRING}\\)`).exec(flux);
      const stations = ofMeasurement && tag && unquote(tag[1]) === stationTag ? [...new Set(points.map((p) => p.station))] : [];
      return csv(["_value"], stations.map((s) => [s]), false);
    }
    if (flux.includes("schema.fieldKeys(")) {
      const fields = ofMeasurement ? [...new Set(points.map((p) => p.field))] : [];
      return csv(["_value"], fields.map((f) => [f]), false);
    }
    const start = /range\(start: ([^)]+)\)/.exec(flux)?.[1] ?? "";
    const station = new RegExp(`r\\[${STRING}\\] == ${STRING}`).exec(flux);
    const field = new RegExp(`r\\._field == ${STRING}`).exec(flux);
    const limit = Number(/limit\(n: (\d+)\)/.exec(flux)?.[1] ?? 1e9);
    const from = Date.parse(start);
    if (!Number.isFinite(from) || !station || !field) return influxError(400, "invalid", "compilation failed: error in query specification");
    const rows = points
      .filter((p) => ofMeasurement && unquote(station[1]) === stationTag && p.station === unquote(station[2]) && p.field === unquote(field[1]) && Date.parse(p.time) >= from)
      .slice(0, limit)
      .map((p) => [p.time, String(p.value)]);
    return csv(["_time", "_value"], rows, split);
  }, options);
  return Object.assign(vendor, {
    apiUrl: `${vendor.url}/api/v2/`,
    queries: () => vendor.requests.map((r) => r.body),
  });
}
