import { Conflict, NotFound, PermissionDenied, Throttled, ValidationFailed } from "@/lib/domain/errors";

/**
 * An error that becomes an HTTP response with a JSON body (api.md §1.6): what is truly HTTP
 * (routing, methods, body reading, credentials). The domain's errors (lib/domain/errors.ts)
 * become responses through `httpError`.
 */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly body: unknown,
    readonly headers: Record<string, string> = {},
  ) {
    super(typeof body === "object" && body && "detail" in body ? String((body as { detail: unknown }).detail) : `HTTP ${status}`);
  }
}

/** Which challenge a 401 carries: the current interface's or the legacy one's. */
export type Challenge = "Token" | "Basic";
const CHALLENGE_HEADER: Record<Challenge, string> = { Token: "Token", Basic: 'Basic realm="api"' };

export const notFound = () => new ApiError(404, { detail: "Not found." });
export const invalidPage = () => new ApiError(404, { detail: "Invalid page." });
export const unauthorized = (challenge: Challenge, detail = "Authentication credentials were not provided.") =>
  new ApiError(401, { detail }, { "WWW-Authenticate": CHALLENGE_HEADER[challenge] });
export const forbidden = (detail = "You do not have permission to perform this action.") =>
  new ApiError(403, { detail });
export const methodNotAllowed = (method: string, allow: string) =>
  new ApiError(405, { detail: `Method "${method}" not allowed.` }, { Allow: allow });
export const payloadTooLarge = (limit: number) =>
  new ApiError(413, { detail: `Request body too large; the limit is ${limit} bytes.` });
export const unsupportedMediaType = (type: string) =>
  new ApiError(415, { detail: `Unsupported media type "${type}" in request.` });
export const serverError = () => new ApiError(500, { detail: "A server error occurred." });
export const serviceUnavailable = () =>
  new ApiError(503, { detail: "The service is temporarily unavailable." }, { "Retry-After": "5" });
/** A write refused for want of disk space: undone whole, so a client may send it again as it was. */
export const STORAGE_FULL_DETAIL = "The server has no room left to store data; nothing was stored. Try again later.";
export const storageFull = () => new ApiError(503, { detail: STORAGE_FULL_DETAIL }, { "Retry-After": "60" });

/**
 * The HTTP form of an error: an ApiError as it is, a domain error as api.md §1.6 and §15.3 give
 * it (a refused anonymous actor gets the interface's challenge); null for anything else.
 */
export function httpError(error: unknown, challenge: Challenge): ApiError | null {
  if (error instanceof ApiError) return error;
  if (error instanceof ValidationFailed) return new ApiError(400, error.fields);
  if (error instanceof PermissionDenied) return error.anonymous ? unauthorized(challenge) : forbidden(error.detail);
  if (error instanceof NotFound) return new ApiError(404, { detail: error.detail });
  if (error instanceof Conflict) return new ApiError(409, { detail: error.detail });
  if (error instanceof Throttled) {
    const seconds = error.retryAfter;
    return new ApiError(429, { detail: `Request was throttled. Expected available in ${seconds} seconds.` }, { "Retry-After": String(seconds) });
  }
  return null;
}
