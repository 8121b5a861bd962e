import type { WriteMode } from "@/lib/http/fields";
import { paginate } from "@/lib/http/pagination";
import { json } from "@/lib/http/respond";
import type { RouteContext } from "@/lib/routing/router";

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

/** create = POST, replace = PUT, update = PATCH (api.md §1.3). */
export function writeMode(ctx: RouteContext): WriteMode {
  return ctx.method === "POST" ? "create" : ctx.method === "PUT" ? "replace" : "update";
}

/** Strips the keys whose value is undefined (fields not sent keep their stored values). */
export function sent<T extends object>(values: T): Partial<T> {
  return Object.fromEntries(Object.entries(values).filter(([, v]) => v !== undefined)) as Partial<T>;
}
