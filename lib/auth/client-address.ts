/**
 * The client's address. server.mjs puts the socket peer address (or, when proxy headers are
 * trusted, the first X-Forwarded-For value) into X-Forwarded-For before Next sees the request.
 */
export function clientAddress(request: Request): string {
  return forwardedAddress(request.headers);
}

/** The same from a request's headers (a server action's `headers()`). */
export function forwardedAddress(headers: Pick<Headers, "get">): string {
  return headers.get("x-forwarded-for")?.split(",")[0]?.trim() || "unknown";
}
