import type { Route, RouteContext } from "@/lib/http/router";
import { json } from "@/lib/http/respond";
import { listResponse, orNotFound } from "@/lib/api/common";
import { LOOKUP_NAMES, lookupReaders, type LookupName } from "@/lib/services/lookups";

/** GET <lookup>/ and <lookup>/{id}/ (api.md §11). */
function handlers(name: LookupName) {
  return {
    list: async (ctx: RouteContext) => {
      const reader = lookupReaders()[name];
      return listResponse(ctx, await reader.count(), reader.page);
    },
    detail: async (ctx: RouteContext) => json(orNotFound(await lookupReaders()[name].get(ctx.params.id))),
  };
}

export function lookupRoutes(): Route[] {
  return LOOKUP_NAMES.flatMap((name) => {
    const h = handlers(name);
    return [
      { path: `${name}/`, handlers: { GET: h.list } },
      { path: `${name}/:id/`, handlers: { GET: h.detail } },
    ];
  });
}
