import { capabilityRoutes } from "@/lib/capabilities";
import { Router, type Route } from "@/lib/routing/router";
import { apiRoot } from "@/lib/api/root";
import { apiDocs, apiSchema } from "@/lib/api/docs";
import { health } from "@/lib/api/health";

/**
 * The routes of the current interface under {site}/api/ (api.md), and the older interface's
 * (legacy.md): the API's own, then each capability's (lib/capabilities). Paths end in "/";
 * `:name` segments are decimal ids, `*name` any text; the first match wins.
 */
export function apiRoutes(): Route[] {
  return [
    { path: "", handlers: { GET: apiRoot } },
    { path: "schema/", handlers: { GET: apiSchema } },
    { path: "docs/", handlers: { GET: apiDocs } },
    { path: "health/", handlers: { GET: health }, open: true },
    ...capabilityRoutes(),
  ];
}

const KEY = Symbol.for("enhydris.apiRouter");
type Holder = { [KEY]?: Router };

export function apiRouter(): Router {
  const holder = globalThis as Holder;
  return (holder[KEY] ??= new Router("/api/", apiRoutes()));
}
