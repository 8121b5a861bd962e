import { listResponse } from "@/lib/http/handlers";
import { json, noContent } from "@/lib/http/respond";
import type { Route, RouteContext } from "@/lib/routing/router";
import { describeType } from "@/lib/telemetry/driver";
import { discover } from "@/lib/telemetry/discover";
import { readDiscover, readFetchRequest, readTelemetry } from "@/lib/telemetry/fields";
import { lastFetch, requestFetch, telemetryLogs } from "@/lib/telemetry/runs";
import { deleteTelemetry, getTelemetryJson, saveTelemetry } from "@/lib/telemetry/telemetries";
import type { TelemetryValues } from "@/lib/telemetry/config";
import { TELEMETRY_TYPES } from "@/lib/telemetry/types";

/** `stations/{sid}/telemetry/…` and `telemetry/types/` (telemetry.md §1). */

async function detail(ctx: RouteContext): Promise<Response> {
  return json(await getTelemetryJson(ctx.auth.user, ctx.params.sid));
}

/** PUT creates (201: all fields as on a create) or replaces (200: omitted optional fields keep their values). */
async function put(ctx: RouteContext): Promise<Response> {
  const { created } = await saveTelemetry(ctx.auth.user, ctx.params.sid,
    async ({ existing }) => readTelemetry(await ctx.input(), existing ? "replace" : "create") as Promise<Partial<TelemetryValues>>);
  return json(await getTelemetryJson(ctx.auth.user, ctx.params.sid), created ? 201 : 200);
}

async function patch(ctx: RouteContext): Promise<Response> {
  await saveTelemetry(ctx.auth.user, ctx.params.sid, async () => readTelemetry(await ctx.input(), "update"), { partial: true });
  return json(await getTelemetryJson(ctx.auth.user, ctx.params.sid));
}

async function remove(ctx: RouteContext): Promise<Response> {
  await deleteTelemetry(ctx.auth.user, ctx.params.sid);
  return noContent();
}

async function discoverHandler(ctx: RouteContext): Promise<Response> {
  return json(await discover(ctx.auth.user, ctx.params.sid, async () => readDiscover(await ctx.input())));
}

/** 202 with the queued fetch; with `wait` (in the body or the query), 200 with the fetch once it has finished (202 after 60 s). */
async function fetchNow(ctx: RouteContext): Promise<Response> {
  const { run, finished } = await requestFetch(ctx.auth.user, ctx.params.sid, async () => readFetchRequest(await ctx.input(), ctx.url.searchParams));
  return json(run, finished ? 200 : 202);
}

/** The last fetch (null before the first). */
async function lastFetchHandler(ctx: RouteContext): Promise<Response> {
  return json(await lastFetch(ctx.auth.user, ctx.params.sid));
}

async function logs(ctx: RouteContext): Promise<Response> {
  const { count, page } = await telemetryLogs(ctx.auth.user, ctx.params.sid);
  return listResponse(ctx, count, page);
}

async function types(): Promise<Response> {
  return json(TELEMETRY_TYPES.map(describeType));
}

export function telemetryRoutes(): Route[] {
  const base = "stations/:sid/telemetry/";
  return [
    { path: base, handlers: { GET: detail, PUT: put, PATCH: patch, DELETE: remove } },
    { path: `${base}discover/`, handlers: { POST: discoverHandler } },
    { path: `${base}fetch/`, handlers: { GET: lastFetchHandler, POST: fetchNow } },
    { path: `${base}logs/`, handlers: { GET: logs } },
    { path: "telemetry/types/", handlers: { GET: types } },
  ];
}
