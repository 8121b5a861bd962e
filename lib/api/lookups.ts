import { requireSuperuser } from "@/lib/auth/permissions";
import { db } from "@/lib/db";
import { conflict, ErrorCollector, notFound } from "@/lib/http/errors";
import { validateFields } from "@/lib/http/fields";
import { json, noContent } from "@/lib/http/respond";
import type { Route, RouteContext } from "@/lib/http/router";
import { listResponse, orNotFound } from "@/lib/api/common";
import { LOOKUP_NAMES, lookupReaders, type LookupName } from "@/lib/services/lookups";
import { lookupExists, LOOKUP_WRITERS } from "@/lib/services/lookup-writes";

/** <lookup>/ and <lookup>/{id}/ (api.md §11): reads for everyone, writes for superusers. */
const IN_USE = "This object cannot be deleted because other objects refer to it.";

function handlers(name: LookupName) {
  const reader = () => lookupReaders()[name];
  const writer = LOOKUP_WRITERS[name];
  const existingId = async (ctx: RouteContext) => {
    if (!(await lookupExists(name, ctx.params.id))) throw notFound();
    return ctx.params.id;
  };
  const read = async (ctx: RouteContext, mode: "create" | "replace" | "update") => {
    const errors = new ErrorCollector();
    const values = await validateFields(await ctx.input(), writer.fields(), mode, errors);
    errors.throwIfAny();
    return values as Record<string, unknown>;
  };
  return {
    list: async (ctx: RouteContext) => listResponse(ctx, await reader().count(), reader().page),
    detail: async (ctx: RouteContext) => json(orNotFound(await reader().get(ctx.params.id))),
    create: async (ctx: RouteContext) => {
      requireSuperuser(ctx);
      const values = await read(ctx, "create");
      const id = await db().write((tx) => writer.create(tx, values));
      return json(await reader().get(id), 201);
    },
    update: async (ctx: RouteContext) => {
      const id = await existingId(ctx);
      requireSuperuser(ctx);
      const values = await read(ctx, ctx.method === "PUT" ? "replace" : "update");
      await db().write((tx) => writer.update(tx, id, values));
      return json(await reader().get(id));
    },
    remove: async (ctx: RouteContext) => {
      const id = await existingId(ctx);
      requireSuperuser(ctx);
      let removed: boolean;
      try {
        removed = await db().write((tx) => writer.remove(tx, id));
      } catch (e) {
        // A reference added since the check: the database's foreign key refuses the delete.
        if ((e as { code?: string }).code === "P2003") throw conflict(IN_USE);
        throw e;
      }
      if (!removed) throw conflict(IN_USE);
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
