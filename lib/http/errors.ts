/** An error that becomes an HTTP response with a JSON body (api.md §1.6). */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly body: unknown,
    readonly headers: Record<string, string> = {},
  ) {
    super(typeof body === "object" && body && "detail" in body ? String((body as { detail: unknown }).detail) : `HTTP ${status}`);
  }
}

export type FieldErrors = Record<string, string[]>;

/** Which challenge a 401 carries: the current interface's or the legacy one's. */
export type Challenge = "Token" | "Basic";
const CHALLENGE_HEADER: Record<Challenge, string> = { Token: "Token", Basic: 'Basic realm="api"' };

export const notFound = () => new ApiError(404, { detail: "Not found." });
export const invalidPage = () => new ApiError(404, { detail: "Invalid page." });
export const badRequest = (errors: FieldErrors) => new ApiError(400, errors);
export const fieldError = (field: string, message: string) => new ApiError(400, { [field]: [message] });
export const nonFieldError = (message: string) => new ApiError(400, { non_field_errors: [message] });
export const unauthorized = (challenge: Challenge, detail = "Authentication credentials were not provided.") =>
  new ApiError(401, { detail }, { "WWW-Authenticate": CHALLENGE_HEADER[challenge] });
export const forbidden = (detail = "You do not have permission to perform this action.") =>
  new ApiError(403, { detail });
export const methodNotAllowed = (method: string, allow: string) =>
  new ApiError(405, { detail: `Method "${method}" not allowed.` }, { Allow: allow });
export const conflict = (detail: string) => new ApiError(409, { detail });
export const payloadTooLarge = (limit: number) =>
  new ApiError(413, { detail: `Request body too large; the limit is ${limit} bytes.` });
export const unsupportedMediaType = (type: string) =>
  new ApiError(415, { detail: `Unsupported media type "${type}" in request.` });
export const throttled = (seconds: number) =>
  new ApiError(429, { detail: `Request was throttled. Expected available in ${seconds} seconds.` }, { "Retry-After": String(seconds) });
export const serverError = () => new ApiError(500, { detail: "A server error occurred." });
export const serviceUnavailable = () =>
  new ApiError(503, { detail: "The service is temporarily unavailable." }, { "Retry-After": "5" });

/** Collects field errors in the order they are found, for one 400 response. */
export class ErrorCollector {
  readonly errors: FieldErrors = {};

  add(field: string, message: string | string[]): void {
    (this.errors[field] ??= []).push(...(Array.isArray(message) ? message : [message]));
  }

  has(field?: string): boolean {
    return field ? field in this.errors : Object.keys(this.errors).length > 0;
  }

  throwIfAny(): void {
    if (this.has()) throw badRequest(this.errors);
  }
}
