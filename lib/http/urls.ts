import { settings } from "@/lib/config";
import { ApiError } from "@/lib/http/errors";
import { DISALLOWED_HOST, isAllowedHost } from "@/lib/config/hosts.mjs";

function firstValue(header: string | null): string | null {
  const value = header?.split(",")[0]?.trim();
  return value ? value : null;
}

/**
 * The scheme and host of absolute URLs (api.md §1.4): the request's, or the first values of
 * X-Forwarded-Proto / X-Forwarded-Host when proxy headers are trusted.
 */
export function requestOrigin(request: Request): string {
  const trust = settings().trustProxyHeaders;
  const forwardedProto = trust ? firstValue(request.headers.get("x-forwarded-proto")) : null;
  const forwardedHost = trust ? firstValue(request.headers.get("x-forwarded-host")) : null;
  const url = new URL(request.url);
  const proto = forwardedProto ?? (request.headers.get("x-enhydris-scheme") === "https" ? "https" : url.protocol.replace(":", ""));
  const host = forwardedHost ?? request.headers.get("host") ?? url.host;
  return `${proto}://${host}`;
}

/**
 * The site root `{site}` for links in e-mails (api.md §13): ENHYDRIS_SITE_URL, or the request's
 * origin when its host is an allowed one (server.mjs has refused the others already; this also
 * holds for any other way of serving the app). Never a host that only the request names.
 */
export function siteRoot(request: Request): string {
  const { siteUrl, allowedHosts } = settings();
  if (siteUrl) return siteUrl;
  const origin = requestOrigin(request);
  if (!isAllowedHost(origin.slice(origin.indexOf("://") + 3), allowedHosts)) throw new ApiError(400, { detail: DISALLOWED_HOST });
  return origin;
}
