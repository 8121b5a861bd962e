import { db, Prisma } from "@/lib/db";
import { formatPointWkt } from "@/lib/geo/wkt";
import { ErrorCollector, notFound } from "@/lib/http/errors";
import { MSG, parseIntegerValue } from "@/lib/http/fields";
import type { RouteContext } from "@/lib/http/router";
import { INVALID_CALLBACK, isCallbackName, jsonOrJsonp } from "@/lib/legacy/jsonp";
import { OWNER_DISPLAY_SQL } from "@/lib/services/stations";
import { isUploadedFile } from "@/lib/http/body";
import { isDatabaseId } from "@/lib/legacy/ids";

/**
 * Station information with geodata (legacy.md §6): `GET Station/info/`, `GET Station/info/<id>/`
 * and `POST Station/info/list/`, JSON or JSONP.
 */
export interface StationInfo {
  id: number;
  name: string;
  code: string;
  srid: 4326;
  point: string;
  altitude: number | null;
  original_srid: number | null;
  owner: { id: number; name_any: string };
  types: { id: number; descr: string }[];
  start_date: string | null;
  end_date: string | null;
  remarks: string;
}

interface InfoRow {
  id: number; name: string; code: string; lon: number; lat: number; altitude: number | null; original_srid: number | null;
  owner_id: number; name_any: string | null; start_date: string | null; end_date: string | null; remarks: string;
}

/** The records of the stations with the given ids (every station when null), by id; two queries. */
export async function stationInfo(requested: number[] | null): Promise<StationInfo[]> {
  const ids = requested === null ? null : requested.filter(isDatabaseId);
  if (ids !== null && ids.length === 0) return [];
  const stationWhere = ids === null ? Prisma.empty : Prisma.sql`WHERE s.id IN (${Prisma.join(ids)})`;
  const typeWhere = ids === null ? Prisma.empty : Prisma.sql`WHERE ss.station_id IN (${Prisma.join(ids)})`;
  const [rows, types] = await Promise.all([
    db().query<InfoRow>(Prisma.sql`
      SELECT s.id, s.name, s.code, s.lon, s.lat, s.altitude, s.original_srid, s.owner_id, ${OWNER_DISPLAY_SQL} AS name_any,
        s.start_date, s.end_date, s.remarks
      FROM station s LEFT JOIN organization o ON o.id = s.owner_id LEFT JOIN person p ON p.id = s.owner_id
      ${stationWhere} ORDER BY s.id`),
    db().query<{ station_id: number; id: number; descr: string }>(Prisma.sql`
      SELECT ss.station_id, t.id, t.descr FROM station_stype ss JOIN station_type t ON t.id = ss.station_type_id
      ${typeWhere} ORDER BY ss.station_id, t.id`),
  ]);
  const typesOf = new Map<number, { id: number; descr: string }[]>();
  for (const t of types) {
    const list = typesOf.get(t.station_id);
    if (list) list.push({ id: t.id, descr: t.descr });
    else typesOf.set(t.station_id, [{ id: t.id, descr: t.descr }]);
  }
  return rows.map((r) => ({
    id: r.id,
    name: r.name,
    code: r.code,
    srid: 4326,
    point: formatPointWkt(r.lon, r.lat),
    altitude: r.altitude,
    original_srid: r.original_srid,
    owner: { id: r.owner_id, name_any: r.name_any ?? "" },
    types: typesOf.get(r.id) ?? [],
    start_date: r.start_date,
    end_date: r.end_date,
    remarks: r.remarks,
  }));
}

/** `?callback=`: null when absent or empty; a bad name is reported in `errors`. */
export function callbackParam(params: URLSearchParams, errors: ErrorCollector, name = "callback"): string | null {
  const value = params.get(name);
  if (value === null || value === "") return null;
  if (!isCallbackName(value)) errors.add(name, INVALID_CALLBACK);
  return value;
}

function respond(body: unknown, callback: string | null): Response {
  const out = jsonOrJsonp(JSON.stringify(body), callback);
  return new Response(out.body, { headers: out.headers });
}

/** GET Station/info/ */
export async function allStationInfo(ctx: RouteContext): Promise<Response> {
  const errors = new ErrorCollector();
  const callback = callbackParam(ctx.url.searchParams, errors);
  errors.throwIfAny();
  return respond(await stationInfo(null), callback);
}

/** GET Station/info/<id>/ */
export async function oneStationInfo(ctx: RouteContext): Promise<Response> {
  const info = await stationInfo([ctx.params.id]);
  if (info.length === 0) throw notFound();
  const errors = new ErrorCollector();
  const callback = callbackParam(ctx.url.searchParams, errors);
  errors.throwIfAny();
  return respond(info, callback);
}

/**
 * The ids of `station_list` (§6.2) in request order, deduplicated: comma-separated text (form
 * or JSON) or a JSON array; tokens that are not integers are skipped.
 */
export function parseStationList(raw: unknown, errors: ErrorCollector): number[] {
  let tokens: unknown[];
  if (raw === undefined) {
    errors.add("station_list", MSG.required);
    return [];
  }
  if (raw === null) {
    errors.add("station_list", MSG.null);
    return [];
  }
  if (Array.isArray(raw)) tokens = raw.flatMap((item) => (typeof item === "string" ? item.split(",") : [item]));
  else if (typeof raw === "string") tokens = raw.split(",");
  else if (typeof raw === "number") tokens = [raw];
  else {
    errors.add("station_list", MSG.string);
    return [];
  }
  const ids = new Set<number>();
  for (const token of tokens) {
    const id = parseIntegerValue(typeof token === "string" ? token.trim() : token);
    if (id !== undefined) ids.add(id);
  }
  return [...ids];
}

/** POST Station/info/list/ (slash optional; a read, so no CSRF token is needed). */
export async function listStationInfo(ctx: RouteContext): Promise<Response> {
  const errors = new ErrorCollector();
  const callback = callbackParam(ctx.url.searchParams, errors);
  const input = await ctx.input();
  const raw = input.kind === "form" && input.has("station_list")
    ? (input.getAll("station_list") as unknown[]).filter((v) => !isUploadedFile(v)).join(",")
    : input.get("station_list");
  const ids = parseStationList(raw, errors);
  errors.throwIfAny();
  const byId = new Map((await stationInfo(ids)).map((s) => [s.id, s]));
  return respond(ids.flatMap((id) => byId.get(id) ?? []), callback);
}
