/**
 * The site's languages (public.md §3) and how a request's language is chosen: the account's
 * setting, else the footer switcher's cookie, else the browser's Accept-Language, else English.
 * Client-safe and free of Next: the server's page cache, the pages and the tests use it alike.
 * Adding a language is adding its catalogue (lib/i18n/messages/<code>.json) and one entry here.
 */

/** The languages, the default first; the footer offers them in this order. */
export const LOCALES = ["en", "el"] as const;
export type Locale = (typeof LOCALES)[number];

export const DEFAULT_LOCALE: Locale = "en";

/** Each language's name in itself, as the footer's switcher offers it. */
export const LOCALE_NAMES: Record<Locale, string> = { en: "English", el: "Ελληνικά" };

/** The cookie the footer's switcher sets (a year; the account's setting wins over it). */
export const LANGUAGE_COOKIE = "enhydris_language";
export const LANGUAGE_COOKIE_MAX_AGE = 365 * 24 * 3600;

export function isLocale(value: unknown): value is Locale {
  return typeof value === "string" && (LOCALES as readonly string[]).includes(value);
}

/**
 * The best of our languages for an Accept-Language header (RFC 9110 §12.5.4): by quality, then
 * by order; a tag counts by its primary subtag ("el-GR" is "el"); "*" and q=0 name none. Null when
 * the header names none of ours.
 */
export function localeFromAcceptLanguage(header: string | null | undefined): Locale | null {
  if (!header) return null;
  let best: Locale | null = null;
  let bestQ = 0;
  for (const part of header.split(",").slice(0, 50)) {
    const [tag, ...params] = part.trim().split(";");
    const primary = tag.trim().toLowerCase().split("-")[0];
    if (!isLocale(primary)) continue;
    let q = 1;
    for (const param of params) {
      const m = /^\s*q\s*=\s*([0-9.]+)\s*$/i.exec(param);
      if (m) q = Number(m[1]);
    }
    // The first of equal quality wins: a later one must be strictly better.
    if (q > bestQ && q <= 1) {
      best = primary;
      bestQ = q;
    }
  }
  return best;
}

export interface LocaleSources {
  /** The logged-in account's setting ("" or null for none). */
  account?: string | null;
  /** The switcher's cookie. */
  cookie?: string | null;
  /** The request's Accept-Language header. */
  acceptLanguage?: string | null;
}

/** The language of a request: account, then cookie, then Accept-Language, then English; unknown values are ignored. */
export function negotiateLocale(sources: LocaleSources): Locale {
  if (isLocale(sources.account)) return sources.account;
  if (isLocale(sources.cookie)) return sources.cookie;
  return localeFromAcceptLanguage(sources.acceptLanguage) ?? DEFAULT_LOCALE;
}

/** The value of one cookie in a Cookie header, or null. */
export function cookieValue(header: string | string[] | null | undefined, name: string): string | null {
  const text = Array.isArray(header) ? header.join("; ") : header;
  if (!text) return null;
  for (const part of text.split(";")) {
    const eq = part.indexOf("=");
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return null;
}

/**
 * A lookup's description in a language (public.md §3): the Greek one (`descr_el`) on pages in
 * Greek when it is not empty, else the description.
 */
export function descrIn(locale: Locale, lookup: { descr: string; descrEl?: string | null }): string {
  return locale === "el" && lookup.descrEl ? lookup.descrEl : lookup.descr;
}

/**
 * The language of an HTTP request (the API's password-reset pages, the e-mails a request causes):
 * as a page's, from `account` (the logged-in account's setting, when known), the cookie and
 * Accept-Language.
 */
export function localeOfRequest(request: { headers: Headers }, account?: string | null): Locale {
  return negotiateLocale({ account, cookie: cookieValue(request.headers.get("cookie"), LANGUAGE_COOKIE), acceptLanguage: request.headers.get("accept-language") });
}

/**
 * The language of a request as Node's server gives its headers, before the site knows the account
 * (the HTTP edge's refusal pages, the page cache's key): the cookie, else Accept-Language.
 */
export function localeOfHeaders(headers: { cookie?: string | string[]; "accept-language"?: string | string[] }): Locale {
  return negotiateLocale({ cookie: cookieValue(headers.cookie, LANGUAGE_COOKIE), acceptLanguage: [headers["accept-language"]].flat()[0] });
}
