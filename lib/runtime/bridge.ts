import { AsyncLocalStorage } from "node:async_hooks";
import type { PageCacheRegistration } from "@/lib/site/page-cache";

/**
 * The bridge between the HTTP server and the Next bundle running in one process.
 *
 * The server (lib/server/, bundled by esbuild at `npm run build`: scripts/build-server.mjs) and
 * the Next bundle each have their own copy of every lib/ module they import (Next may even load a
 * module once per route bundle), so a module-level variable is not shared between them. What they
 * share lives in one object on globalThis, reached only through `bridge()`:
 *
 * | slot               | written by                                   | read by                                   |
 * |--------------------|----------------------------------------------|-------------------------------------------|
 * | `routers`          | lib/routing/router.ts (each Router, when Next loads the API's route bundle) | the server: it hands /api/ and /timeseries/data/ requests to them directly (docs/decisions/0007) |
 * | `siteSessionCheck` | lib/auth/session.ts                          | the server, before Next reads a large site form post |
 * | `pageCache`        | lib/site/page-cache.ts (registerPageCache)   | lib/server/page-cache.ts (docs/decisions/0018) |
 * | `shutdownHooks`    | lib/runtime/shutdown.ts (onShutdown)         | the server on SIGTERM; scripts (runShutdownHooks) |
 * | `jobWakeups`       | the server or a job thread sets `forward`; a runner adds a listener | lib/db/queued-work.ts (jobsQueued, after every commit that queued work) |
 * | `requestContext`   | the server opens one per request             | the logger (req_id), the router (route, user), read replicas, body faults |
 * | `refusalDocument`  | lib/frontend/refusals.ts (registerRefusalPages, app/layout.tsx) | lib/server/error-shells.ts: the 403/404 page for Next's empty error shell |
 *
 * Until the Next bundle has registered its part (the warm-up requests at start-up load it) the
 * server does without: requests go through Next's route handlers, Next's own body limit applies,
 * the group page is rendered every time.
 */

/** An API router (lib/routing/router.ts) as the server uses it. */
export interface ApiRouter {
  readonly prefix: string;
  handle(request: Request): Promise<Response>;
}

/** What is known about the request being handled (lib/observability/logger.mjs reads it too). */
export interface RequestContext {
  /** The request id (X-Request-Id). */
  id: string;
  /** The route pattern, once a router matched it. */
  route: string | null;
  /** The authenticated user's id. */
  userId: number | null;
  /** The request's method (read replicas serve safe requests only). */
  method?: string;
  /** The WAL position of the client's read-after cookie (lib/db/read-after.mjs). */
  readAfter?: string | null;
  /** The read-after cookie the response sets, once the request wrote. */
  setReadAfter?: string | null;
  /** Where the request's reads go (lib/db/replicas.ts). */
  routing?: object;
  /** A site post whose body Next may decode (lib/server/next-internals.ts, body faults). */
  decodesBody?: boolean;
  /** Next reported that it could not take the body: the answer instead of its 500. */
  bodyFault?: { status: number; message: string };
}

export type ShutdownHook = () => Promise<void> | void;

export interface Bridge {
  /** API routers by path prefix ("/api/", "/timeseries/data/"). */
  readonly routers: Map<string, ApiRouter>;
  /** Whether a Cookie header names a live site session. */
  siteSessionCheck: ((cookieHeader: string) => Promise<boolean>) | null;
  /** The group page cache's key function, store and cookie maker. */
  pageCache: PageCacheRegistration | null;
  /** Work to finish before the process exits. */
  readonly shutdownHooks: ShutdownHook[];
  /**
   * Job wake-ups: a commit queued work. `listeners` are this process's runners (a job worker, a
   * test); `forward` passes the wake-up on to a runner elsewhere (a web process to the job
   * process, through the primary; a job thread to its runner).
   */
  readonly jobWakeups: { readonly listeners: Set<() => void>; forward: (() => void) | null };
  /** The context of the request being handled. */
  readonly requestContext: AsyncLocalStorage<RequestContext>;
  /** The whole HTML of the 403 or 404 page at a path, for the user of a Cookie header. */
  refusalDocument: ((status: 403 | 404, path: string, cookieHeader: string, acceptLanguage?: string) => Promise<string>) | null;
}

const KEY = Symbol.for("enhydris.bridge");
type Holder = { [KEY]?: Bridge };

/** This process's (this thread's) bridge. */
export function bridge(): Bridge {
  return ((globalThis as Holder)[KEY] ??= {
    routers: new Map(),
    siteSessionCheck: null,
    pageCache: null,
    shutdownHooks: [],
    jobWakeups: { listeners: new Set(), forward: null },
    requestContext: new AsyncLocalStorage(),
    refusalDocument: null,
  });
}
