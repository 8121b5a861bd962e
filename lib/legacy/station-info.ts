import { isUploadedFile } from "@/lib/http/body";
import { MSG, parseIntegerValue } from "@/lib/http/fields";
import type { RouteContext } from "@/lib/routing/router";
import { INVALID_CALLBACK, isCallbackName, jsonOrJsonp } from "@/lib/legacy/jsonp";
import { ErrorCollector, NotFound } from "@/lib/domain/errors";
import { stationInfo } from "@/lib/legacy/station-info-data";

/**
 * Station information with geodata (legacy.md §6): `GET Station/info/`, `GET Station/info/<id>/`
 * and `POST Station/info/list/`, JSON or JSONP.
 */

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
  if (info.length === 0) throw new NotFound();
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
