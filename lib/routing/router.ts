import { settings } from "@/lib/config";
import { isDatabaseUnavailable, isRequestAborted, isStorageFull } from "@/lib/db";
import { authenticate, type Auth, type AuthScheme } from "@/lib/auth/authenticate";
import { parseBody, type RequestInput } from "@/lib/http/body";
import { httpError, methodNotAllowed, notFound, serverError, serviceUnavailable, storageFull, unauthorized, type Challenge } from "@/lib/http/errors";
import { ANONYMOUS_BODY_LIMIT } from "@/lib/http/limits";
import { json } from "@/lib/http/respond";
import { logError, logger } from "@/lib/observability/log";
import { enforceCsrf, ensureCsrfCookie } from "@/lib/auth/csrf";
import { requestContext } from "@/lib/observability/logger.mjs";
import { bridge } from "@/lib/runtime/bridge";
import { contentSecurityPolicy, HTML_HEADERS, tileOrigin } from "@/lib/http/security-headers.mjs";

export type Method = "GET" | "HEAD" | "POST" | "PUT" | "PATCH" | "DELETE" | "OPTIONS";
export type HandlerMethod = Exclude<Method, "HEAD" | "OPTIONS">;
/** The largest id the database can hold (32-bit integer columns). */
export const MAX_ID = 2_147_483_647;
const METHOD_ORDER: Method[] = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"];

export interface RouteContext {
  readonly request: Request;
  readonly url: URL;
  /** The request's method; HEAD requests run the GET handler. */
  readonly method: Method;
  /** Numeric path parameters (`:name` segments). */
  readonly params: Record<string, number>;
  /** Text path parameters (`*name` segments). */
  readonly strings: Record<string, string>;
  readonly auth: Auth;
  /** The parsed body (read once; 413/415/400 on problems). */
  input(): Promise<RequestInput>;
}

export type Handler = (ctx: RouteContext) => Promise<Response>;

export interface Route {
  /** Segments after the prefix, ending in "/": literal, `:name` for a decimal id, `*name` for any text. */
  readonly path: string;
  readonly handlers: Partial<Record<HandlerMethod, Handler>>;
  /** "current" (token, session) or "legacy" (Basic too; Basic challenge). Default current. */
  readonly scheme?: AuthScheme;
  /** Methods served without the trailing slash too (legacy.md §0). */
  readonly slashOptional?: readonly Method[];
  /** Reachable without a login when authentication is required (api.md §15.4). */
  readonly open?: boolean;
  /** A read sent with POST: no CSRF token needed (legacy.md §1.2). */
  readonly csrfExempt?: boolean;
  /** Sets the csrftoken cookie on GET responses (legacy.md §1.2). */
  readonly setsCsrfCookie?: boolean;
}

interface CompiledRoute extends Route {
  readonly segments: string[];
}


export class Router {
  private readonly routes: CompiledRoute[];

  constructor(readonly prefix: string, routes: Route[]) {
    this.routes = routes.map((r) => ({ ...r, segments: r.path.split("/").filter(Boolean) }));
    // Registered by its prefix on the bridge, so that the server can hand it requests without
    // Next's route transport (docs/decisions/0007-direct-api-dispatch.md).
    bridge().routers.set(prefix, this);
  }

  /** The first route matching the path (declare literal segments before `*name` ones). */
  private match(path: string): { route: CompiledRoute; params: Record<string, number>; strings: Record<string, string> } | null {
    const parts = path.split("/").filter(Boolean);
    for (const route of this.routes) {
      if (route.segments.length !== parts.length) continue;
      const params: Record<string, number> = {};
      const strings: Record<string, string> = {};
      let matched = true;
      for (let i = 0; i < parts.length && matched; i++) {
        const segment = route.segments[i];
        if (segment.startsWith(":")) {
          // Ids are 32-bit in the database: a larger number names nothing.
          if (/^\d{1,10}$/.test(parts[i]) && Number(parts[i]) <= MAX_ID) params[segment.slice(1)] = Number(parts[i]);
          else matched = false;
        } else if (segment.startsWith("*")) {
          strings[segment.slice(1)] = safeDecode(parts[i]);
        } else if (segment !== parts[i]) {
          matched = false;
        }
      }
      if (matched) return { route, params, strings };
    }
    return null;
  }

  /** Handles a request whose path starts with the prefix. */
  async handle(request: Request): Promise<Response> {
    const url = new URL(request.url);
    const method = request.method.toUpperCase() as Method;
    let response: Response;
    let route: CompiledRoute | undefined;
    try {
      const relative = url.pathname.startsWith(this.prefix) ? url.pathname.slice(this.prefix.length) : url.pathname.replace(/^\/+/, "");
      const matched = this.match(relative);
      if (!url.pathname.endsWith("/") && !(matched?.route.slashOptional?.includes(method))) {
        response = new Response(null, { status: 308, headers: { Location: `${url.pathname}/${url.search}` } });
      } else if (!matched) {
        throw notFound();
      } else {
        route = matched.route;
        const context = requestContext();
        if (context) context.route = this.prefix + route.path;
        response = await this.run(request, url, method, matched);
      }
    } catch (error) {
      response = errorResponse(error, `${method} ${url.pathname}`, challengeOf(route));
    }
    response = withCors(request, response, route);
    withPageHeaders(response);
    if (method === "HEAD") {
      await response.body?.cancel().catch(() => undefined);
      response = new Response(null, { status: response.status, headers: response.headers });
    }
    return response;
  }

  private async run(request: Request, url: URL, method: Method,
    { route, params, strings }: { route: CompiledRoute; params: Record<string, number>; strings: Record<string, string> }): Promise<Response> {
    const allow = allowHeader(route);
    if (method === "OPTIONS") return new Response(null, { status: 204, headers: { Allow: allow } });
    const handler = route.handlers[(method === "HEAD" ? "GET" : method) as HandlerMethod];
    if (!handler) throw methodNotAllowed(method, allow);

    const challenge = challengeOf(route);
    const auth = await authenticate(request, route.scheme ?? "current");
    const context = requestContext();
    if (context) context.userId = auth.user?.id ?? null;
    if (!auth.user && settings().authenticationRequired && !route.open) throw unauthorized(challenge);

    let input: Promise<RequestInput> | undefined;
    const ctx: RouteContext = {
      request, url, method, params, strings, auth,
      input: () => (input ??= parseBody(request, auth.user ? settings().maxUploadSize : Math.min(settings().maxUploadSize, ANONYMOUS_BODY_LIMIT))),
    };
    if (auth.via === "session" && method !== "GET" && method !== "HEAD" && !route.csrfExempt) {
      await enforceCsrf(request, ctx.input);
    }
    const response = await handler(ctx);
    if (route.setsCsrfCookie && method === "GET") ensureCsrfCookie(request, response.headers);
    return response;
  }
}

function safeDecode(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

function allowHeader(route: Route): string {
  const methods = new Set<Method>(Object.keys(route.handlers) as Method[]);
  if (methods.has("GET")) methods.add("HEAD");
  methods.add("OPTIONS");
  return METHOD_ORDER.filter((m) => methods.has(m)).join(", ");
}

/** The 401 challenge of a route's interface (api.md §2, legacy.md §1.1). */
function challengeOf(route: Route | undefined): Challenge {
  return route?.scheme === "legacy" ? "Basic" : "Token";
}

/**
 * The JSON response of an error: HTTP and domain errors as api.md §1.6 gives them; unexpected
 * errors are logged and answered without detail.
 */
export function errorResponse(error: unknown, where: string, challenge: Challenge = "Token"): Response {
  const known = httpError(error, challenge);
  if (known) return json(known.body, known.status, known.headers);
  if (isStorageFull(error)) {
    logError(`${where}: no disk space left`, error);
    const e = storageFull();
    return json(e.body, e.status, e.headers);
  }
  if (isRequestAborted(error)) {
    // The connection closed (the client went away, or the body idle timeout answered 408): nobody
    // reads this answer, and it is not the database's fault.
    logger().info(`${where}: the request's body did not arrive whole (its connection closed)`);
    return json({ detail: "The request's body did not arrive whole." }, 400);
  }
  if (isDatabaseUnavailable(error)) {
    logError(`${where}: database unavailable`, error);
    const e = serviceUnavailable();
    return json(e.body, e.status, e.headers);
  }
  logError(`${where}: unexpected error`, error);
  const e = serverError();
  return json(e.body, e.status);
}

/**
 * The security headers of every HTML page (legacy HTML, the API reference, the password-reset
 * pages), as server.mjs gives the site's; a page may have set a stricter referrer policy.
 */
function withPageHeaders(response: Response): void {
  if (!(response.headers.get("content-type") ?? "").startsWith("text/html")) return;
  const h = response.headers;
  if (!h.has("content-security-policy")) h.set("Content-Security-Policy", contentSecurityPolicy({ tiles: tileOrigin(settings().mapTileUrl) }));
  for (const [name, value] of Object.entries(HTML_HEADERS)) if (!h.has(name)) h.set(name, value);
}

/** CORS headers for allowed origins (api.md §1.8); nothing for others. */
function withCors(request: Request, response: Response, route: CompiledRoute | undefined): Response {
  const origin = request.headers.get("origin");
  const allowed = settings().corsAllowedOrigins;
  if (!origin || !allowed.includes(origin)) return response;
  const headers = new Headers(response.headers);
  headers.set("Access-Control-Allow-Origin", origin);
  headers.append("Vary", "Origin");
  if (request.method === "OPTIONS" && request.headers.has("access-control-request-method") && route) {
    headers.set("Access-Control-Allow-Methods", allowHeader(route));
    headers.set("Access-Control-Allow-Headers", "Authorization, Content-Type, X-CSRFToken");
  }
  return new Response(response.body, { status: response.status, statusText: response.statusText, headers });
}
