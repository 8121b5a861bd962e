import { notFound } from "@/lib/http/errors";
import { paginate } from "@/lib/http/pagination";
import { json } from "@/lib/http/respond";
import type { RouteContext } from "@/lib/http/router";
import { stationAccess, type StationAccess } from "@/lib/services/stations";

/** Helpers shared by the API's handlers. */

/** A paginated list response (api.md §1.5). */
export async function listResponse<T>(
  ctx: RouteContext,
  count: number,
  fetch: (offset: number, limit: number) => Promise<T[]>,
  extra?: Record<string, unknown>,
): Promise<Response> {
  const page = await paginate(ctx.request, ctx.url, count, fetch);
  return json(extra ? { ...page, ...extra } : page);
}

/** The station of the path, or 404. */
export async function pathStation(ctx: RouteContext): Promise<StationAccess> {
  const station = await stationAccess(ctx.params.sid);
  if (!station) throw notFound();
  return station;
}

export function orNotFound<T>(value: T | null | undefined): T {
  if (value === null || value === undefined) throw notFound();
  return value;
}
