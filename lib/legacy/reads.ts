import type { Handler, RouteContext } from "@/lib/routing/router";
import { requestOrigin } from "@/lib/http/urls";
import { LEGACY_FIELDS } from "@/lib/legacy/models";
import { negotiate } from "@/lib/legacy/negotiate";
import { renderCsv, renderHtml, renderXml } from "@/lib/legacy/render";
import { orNotFound } from "@/lib/domain/errors";
import { legacyReader, type LegacyModelName, type LegacyObject } from "@/lib/legacy/model-data";
import { isDatabaseId } from "@/lib/domain/refs";

/**
 * GET/HEAD of `/api/<Model>/` and `/api/<Model>/<id>/` (legacy.md §2–§3): the object or all
 * objects, in the representation the request negotiates.
 */
function represent(ctx: RouteContext, title: string, body: LegacyObject | LegacyObject[], fields: readonly string[]): Response {
  const chosen = negotiate(ctx.url, ctx.request.headers.get("accept"));
  let text: string;
  switch (chosen.representation) {
    case "json":
      text = JSON.stringify(body);
      break;
    case "xml":
      text = renderXml(body, fields);
      break;
    case "csv":
      text = renderCsv(body, fields);
      break;
    case "html":
      text = renderHtml(title, body, fields);
      break;
  }
  return new Response(text, { headers: { "Content-Type": chosen.contentType, Vary: "Accept" } });
}

export function modelList(name: LegacyModelName): Handler {
  return async (ctx) => represent(ctx, `${name} list`, await legacyReader(name).list(requestOrigin(ctx.request)), LEGACY_FIELDS[name]);
}

/** `param` is the route's id parameter (`sid` for Station, whose writes share the current interface's handlers). */
export function modelDetail(name: LegacyModelName, param = "id"): Handler {
  return async (ctx) => {
    const id = ctx.params[param];
    const object = isDatabaseId(id) ? await legacyReader(name).get(id, requestOrigin(ctx.request)) : null;
    return represent(ctx, `${name} ${id}`, orNotFound(object), LEGACY_FIELDS[name]);
  };
}
