import { listResponse, writeMode } from "@/lib/http/handlers";
import { readSynopticGroup } from "@/lib/synoptic/fields";
import { json, noContent } from "@/lib/http/respond";
import type { Route, RouteContext } from "@/lib/routing/router";
import { orNotFound } from "@/lib/domain/errors";
import { synopticWarnings } from "@/lib/synoptic/alarms";
import {
  countSynopticGroups, createSynopticGroup, deleteSynopticGroup, findSynopticGroup, listSynopticGroups, synopticGroupJson, updateSynopticGroup,
} from "@/lib/synoptic/groups";
import { latestJson } from "@/lib/synoptic/latest";
import type { SynopticGroupValues } from "@/lib/synoptic/config";

/** synopticgroups/ (synoptic.md §1): reads for everyone, writes for the creator and superusers. */

async function list(ctx: RouteContext): Promise<Response> {
  return listResponse(ctx, await countSynopticGroups(), listSynopticGroups);
}

async function detail(ctx: RouteContext): Promise<Response> {
  return json(orNotFound(await synopticGroupJson(ctx.params.id)));
}

async function create(ctx: RouteContext): Promise<Response> {
  const id = await createSynopticGroup(ctx.auth.user, async () => (await readSynopticGroup(await ctx.input(), "create")) as SynopticGroupValues);
  return json(await synopticGroupJson(id), 201);
}

async function update(ctx: RouteContext): Promise<Response> {
  await updateSynopticGroup(ctx.auth.user, ctx.params.id, async () => readSynopticGroup(await ctx.input(), writeMode(ctx)));
  return json(await synopticGroupJson(ctx.params.id));
}

async function remove(ctx: RouteContext): Promise<Response> {
  await deleteSynopticGroup(ctx.auth.user, ctx.params.id);
  return noContent();
}

/** The latest values of the group's stations, as the caller may see them. */
async function latest(ctx: RouteContext): Promise<Response> {
  const group = orNotFound(await findSynopticGroup(ctx.params.id));
  return json(await latestJson(group, ctx.auth.user));
}

/** The recorded warnings, newest first (the group's editors). */
async function warnings(ctx: RouteContext): Promise<Response> {
  const { count, page } = await synopticWarnings(ctx.auth.user, ctx.params.id);
  return listResponse(ctx, count, page);
}

export function synopticRoutes(): Route[] {
  return [
    { path: "synopticgroups/", handlers: { GET: list, POST: create } },
    { path: "synopticgroups/:id/", handlers: { GET: detail, PUT: update, PATCH: update, DELETE: remove } },
    { path: "synopticgroups/:id/latest/", handlers: { GET: latest } },
    { path: "synopticgroups/:id/warnings/", handlers: { GET: warnings } },
  ];
}
