import { requestOrigin } from "@/lib/http/urls";
import { json } from "@/lib/http/respond";
import type { RouteContext } from "@/lib/routing/router";

const TOP_LEVEL = ["stations", "gareas", "organizations", "persons", "eventtypes", "variables", "units", "stationtypes", "filetypes"];

/** GET {site}/api/ (api.md §3). */
export async function apiRoot(ctx: RouteContext): Promise<Response> {
  const origin = requestOrigin(ctx.request);
  return json(Object.fromEntries(TOP_LEVEL.map((name) => [name, `${origin}/api/${name}/`])));
}
