import { json, noContent } from "@/lib/http/respond";
import type { Route, RouteContext } from "@/lib/routing/router";
import { listResponse, writeMode } from "@/lib/http/handlers";
import { readLookupInput } from "@/lib/lookups/fields";
import { orNotFound } from "@/lib/domain/errors";
import { LOOKUP_NAMES, lookupReaders, type LookupName } from "@/lib/lookups/lookups";
import { createLookup, deleteLookup, updateLookup, type LookupValues } from "@/lib/lookups/writes";

/** <lookup>/ and <lookup>/{id}/ (api.md §11): reads for everyone, writes for superusers. */

function handlers(name: LookupName) {
  const reader = () => lookupReaders()[name];
  const read = (ctx: RouteContext) => async (): Promise<LookupValues> => readLookupInput(name, await ctx.input(), writeMode(ctx));
  return {
    list: async (ctx: RouteContext) => listResponse(ctx, await reader().count(), reader().page),
    detail: async (ctx: RouteContext) => json(orNotFound(await reader().get(ctx.params.id))),
    create: async (ctx: RouteContext) => {
      const id = await createLookup(ctx.auth.user, name, read(ctx));
      return json(await reader().get(id), 201);
    },
    update: async (ctx: RouteContext) => {
      await updateLookup(ctx.auth.user, name, ctx.params.id, read(ctx));
      return json(await reader().get(ctx.params.id));
    },
    remove: async (ctx: RouteContext) => {
      await deleteLookup(ctx.auth.user, name, ctx.params.id);
      return noContent();
    },
  };
}

export function lookupRoutes(): Route[] {
  return LOOKUP_NAMES.flatMap((name) => {
    const h = handlers(name);
    return [
      { path: `${name}/`, handlers: { GET: h.list, POST: h.create } },
      { path: `${name}/:id/`, handlers: { GET: h.detail, PUT: h.update, PATCH: h.update, DELETE: h.remove } },
    ];
  });
}
