/**
 * The body limit of a request with no logged-in user or token (logging in, registering, a
 * password reset), on the site's forms (lib/server/serve.ts, before Next reads the body) and on
 * the API (lib/routing/router.ts): what such a request sends is small, and nobody need be known
 * to send it, so it may not make the server hold ENHYDRIS_MAX_UPLOAD_SIZE in memory.
 */
export const ANONYMOUS_BODY_LIMIT = 1 << 20;
