import { readAccessRequest, readApproval, readDenial, readStatusFilter } from "@/lib/access/fields";
import {
  accessRequestsPage, approveAccessRequest, countAccessRequests, createAccessRequest, denyAccessRequest, getAccessRequest, withdrawAccessRequest,
} from "@/lib/access/requests";
import { listResponse } from "@/lib/http/handlers";
import { json, noContent } from "@/lib/http/respond";
import { siteRoot } from "@/lib/http/urls";
import { localeOfRequest } from "@/lib/i18n";
import type { Route, RouteContext } from "@/lib/routing/router";

/** `stations/{sid}/accessrequests/…` (public.md §2). */

async function list(ctx: RouteContext): Promise<Response> {
  const { sid } = ctx.params;
  const filter = readStatusFilter(ctx.url);
  const count = await countAccessRequests(ctx.auth.user, sid, filter);
  return listResponse(ctx, count, (offset, limit) => accessRequestsPage(ctx.auth.user, sid, filter, offset, limit));
}

async function create(ctx: RouteContext): Promise<Response> {
  const made = await createAccessRequest(ctx.auth.user, ctx.params.sid, async () => readAccessRequest(await ctx.input()), siteRoot(ctx.request), localeOfRequest(ctx.request));
  return json(made, 201);
}

async function detail(ctx: RouteContext): Promise<Response> {
  return json(await getAccessRequest(ctx.auth.user, ctx.params.sid, ctx.params.id));
}

async function approve(ctx: RouteContext): Promise<Response> {
  return json(await approveAccessRequest(ctx.auth.user, ctx.params.sid, ctx.params.id, async () => readApproval(await ctx.input()), siteRoot(ctx.request), localeOfRequest(ctx.request)));
}

async function deny(ctx: RouteContext): Promise<Response> {
  return json(await denyAccessRequest(ctx.auth.user, ctx.params.sid, ctx.params.id, async () => readDenial(await ctx.input()), siteRoot(ctx.request), localeOfRequest(ctx.request)));
}

async function withdraw(ctx: RouteContext): Promise<Response> {
  await withdrawAccessRequest(ctx.auth.user, ctx.params.sid, ctx.params.id);
  return noContent();
}

export function accessRoutes(): Route[] {
  const base = "stations/:sid/accessrequests/";
  return [
    { path: base, handlers: { GET: list, POST: create } },
    { path: `${base}:id/`, handlers: { GET: detail, DELETE: withdraw } },
    { path: `${base}:id/approve/`, handlers: { POST: approve } },
    { path: `${base}:id/deny/`, handlers: { POST: deny } },
  ];
}
