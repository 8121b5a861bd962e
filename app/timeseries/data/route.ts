import { Router } from "@/lib/routing/router";
import { timeseriesDataRoutes } from "@/lib/legacy";

// {site}/timeseries/data/ (legacy.md §7): outside /api/, with its own router for the 308,
// 405, HEAD, OPTIONS, authentication (Basic included) and error conventions.
export const dynamic = "force-dynamic";
export const runtime = "nodejs";

const KEY = Symbol.for("enhydris.timeseriesDataRouter");
type Holder = { [KEY]?: Router };

function router(): Router {
  const holder = globalThis as Holder;
  return (holder[KEY] ??= new Router("/timeseries/data/", timeseriesDataRoutes()));
}

const handle = (request: Request) => router().handle(request);
export { handle as GET, handle as HEAD, handle as POST, handle as PUT, handle as PATCH, handle as DELETE, handle as OPTIONS };
