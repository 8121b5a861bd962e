import { randomInt, timingSafeEqual } from "node:crypto";
import { settings } from "@/lib/config";
import { ApiError } from "@/lib/http/errors";
import type { RequestInput } from "@/lib/http/body";
import { originFailure, siteOrigins } from "@/lib/http/origins.mjs";
import { requestOrigin } from "@/lib/http/urls";

/** CSRF protection for session-authenticated unsafe requests (legacy.md §1.2). */
export const CSRF_COOKIE = "csrftoken";
const ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";

export function readCookie(request: Request, name: string): string | null {
  return cookieOfHeader(request.headers.get("cookie"), name);
}

/** The value of cookie `name` in a Cookie header. */
export function cookieOfHeader(header: string | null | undefined, name: string): string | null {
  if (!header) return null;
  for (const part of header.split(";")) {
    const eq = part.indexOf("=");
    if (eq < 0) continue;
    if (part.slice(0, eq).trim() === name) {
      try {
        return decodeURIComponent(part.slice(eq + 1).trim());
      } catch {
        return part.slice(eq + 1).trim();
      }
    }
  }
  return null;
}

export function isHttps(request: Request): boolean {
  return new URL(request.url).protocol === "https:" || request.headers.get("x-enhydris-scheme") === "https";
}

export function newCsrfToken(): string {
  let token = "";
  for (let i = 0; i < 32; i++) token += ALPHABET[randomInt(ALPHABET.length)];
  return token;
}

export function csrfCookieHeader(token: string, secure: boolean): string {
  return `${CSRF_COOKIE}=${token}; Path=/; Max-Age=31536000; SameSite=Lax${secure ? "; Secure" : ""}`;
}

/** Sets the csrftoken cookie on a response when the request has none. */
export function ensureCsrfCookie(request: Request, headers: Headers): void {
  if (!readCookie(request, CSRF_COOKIE)) headers.append("Set-Cookie", csrfCookieHeader(newCsrfToken(), isHttps(request)));
}

function sameToken(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

const csrfFailure = (reason: string) => new ApiError(403, { detail: `CSRF Failed: ${reason}` });

/**
 * Throws 403 unless the request comes from this site (Origin, or Referer on HTTPS, as Django
 * checks them) and proves the csrftoken cookie (header or form field).
 */
export async function enforceCsrf(request: Request, input: () => Promise<RequestInput>): Promise<void> {
  const own = requestOrigin(request);
  const failure = originFailure({
    origin: request.headers.get("origin"), referer: request.headers.get("referer"), own, secure: own.startsWith("https:"),
  }, siteOrigins(settings().siteUrl));
  if (failure) throw csrfFailure(failure);
  const cookie = readCookie(request, CSRF_COOKIE);
  if (!cookie) throw csrfFailure("CSRF cookie not set.");
  let sent = request.headers.get("x-csrftoken");
  if (sent === null) {
    const type = (request.headers.get("content-type") ?? "").toLowerCase();
    if (type.startsWith("application/x-www-form-urlencoded") || type.startsWith("multipart/form-data")) {
      const field = (await input()).get("csrfmiddlewaretoken");
      if (typeof field === "string") sent = field;
    }
  }
  if (sent === null || sent === "") throw csrfFailure("CSRF token missing.");
  if (!sameToken(sent, cookie)) throw csrfFailure("CSRF token incorrect.");
}
