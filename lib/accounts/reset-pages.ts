import { completeReset, resetLinkUser } from "@/lib/accounts/accounts";
import { isHttps, readCookie } from "@/lib/auth/csrf";
import { settings } from "@/lib/config";
import { passwordField } from "@/lib/accounts/fields";
import { findUserProfile } from "@/lib/auth/users";
import { validatedFields } from "@/lib/http/fields";
import type { RouteContext } from "@/lib/routing/router";
import { standalonePage } from "@/lib/site/chrome";
import { escapeHtml } from "@/lib/site/html";
import { ValidationFailed, type FieldErrors } from "@/lib/domain/errors";
import { localeOfRequest, translator, type Locale } from "@/lib/i18n";
import { fieldErrorsIn } from "@/lib/site/field-errors";

/**
 * The password-reset pages of api.md §13: the link from the e-mail, the form that sets the new
 * password, and the completion page. HTML; no CSRF token (the link is the secret).
 */
const COOKIE = "enhydris_password_reset";
const COOKIE_PATH = "/api/auth/password/reset/";
const BASE = "/api/auth/password/reset";

/**
 * The page's language (public.md §3), as the site's: the logged-in account's (a session cookie
 * reaches these pages), else the switcher's cookie, else Accept-Language.
 */
async function pageLocale(ctx: RouteContext): Promise<Locale> {
  const account = ctx.auth.user ? (await findUserProfile(ctx.auth.user.id))?.language : null;
  return localeOfRequest(ctx.request, account);
}

async function html(body: string, title: string, ctx: RouteContext, locale: Locale): Promise<Response> {
  const user = ctx.auth.user ? { username: ctx.auth.user.username } : null;
  return new Response(standalonePage({ title, user, body, siteName: settings().siteName || undefined, locale }), {
    status: 200,
    headers: { "Content-Type": "text/html; charset=utf-8", "Referrer-Policy": "no-referrer", "Cache-Control": "no-store", "Content-Language": locale, Vary: "Accept-Language, Cookie" },
  });
}

async function invalidLink(ctx: RouteContext): Promise<Response> {
  const locale = await pageLocale(ctx);
  const t = translator(locale, "apiPages");
  return html(`<h1>${escapeHtml(t("invalidHeading"))}</h1>
<p>${escapeHtml(t("invalidText"))}</p>
<p>${t.markup("invalidNext", { new: (text) => `<a href="/accounts/password/reset/">${text}</a>`, login: (text) => `<a href="/accounts/login/">${text}</a>` })}</p>`, t("invalidTitle"), ctx, locale);
}

async function form(ctx: RouteContext, uid: string, token: string, errors: FieldErrors = {}): Promise<Response> {
  const locale = await pageLocale(ctx);
  const t = translator(locale, "apiPages");
  // The checks' messages in the page's language (lib/site/field-errors.ts); the API's answers keep English.
  const messages = Object.values(fieldErrorsIn(locale, errors)).flat().map((m) => `<li>${escapeHtml(m)}</li>`).join("");
  return html(`<h1>${escapeHtml(t("formTitle"))}</h1>
${messages ? `<div class="form-errors" role="alert"><ul>${messages}</ul></div>` : ""}
<form method="post" action="${BASE}/confirm/${escapeHtml(encodeURIComponent(uid))}/set-password/" class="stacked-form">
  <input type="hidden" name="token" value="${escapeHtml(token)}">
  <label for="new_password1">${escapeHtml(t("newPassword1"))}</label>
  <input id="new_password1" name="new_password1" type="password" autocomplete="new-password" required>
  <label for="new_password2">${escapeHtml(t("newPassword2"))}</label>
  <input id="new_password2" name="new_password2" type="password" autocomplete="new-password" required>
  <p class="help">${escapeHtml(t("passwordHelp"))}</p>
  <button type="submit">${escapeHtml(t("setPassword"))}</button>
</form>`, t("formTitle"), ctx, locale);
}

function cookie(ctx: RouteContext, value: string, maxAge?: number): string {
  return `${COOKIE}=${value}; Path=${COOKIE_PATH}; HttpOnly; SameSite=Strict${maxAge !== undefined ? `; Max-Age=${maxAge}` : ""}${isHttps(ctx.request) ? "; Secure" : ""}`;
}

/** GET …/confirm/<uidb64>/<token>/: a valid link moves its token into a cookie and on to the form. */
export async function openLink(ctx: RouteContext): Promise<Response> {
  const { uid, token } = ctx.strings;
  if (!(await resetLinkUser(uid, token))) return invalidLink(ctx);
  return new Response(null, {
    status: 302,
    headers: { Location: `${BASE}/confirm/${encodeURIComponent(uid)}/set-password/`, "Set-Cookie": cookie(ctx, token), "Referrer-Policy": "no-referrer" },
  });
}

/** GET …/confirm/<uidb64>/set-password/ */
export async function showForm(ctx: RouteContext): Promise<Response> {
  const token = readCookie(ctx.request, COOKIE) ?? "";
  if (!(await resetLinkUser(ctx.strings.uid, token))) return invalidLink(ctx);
  return form(ctx, ctx.strings.uid, token);
}

/** POST …/set-password/ (token from the cookie or the form) and POST …/<token>/ (from the path). */
export async function submitForm(ctx: RouteContext): Promise<Response> {
  const input = await ctx.input();
  const field = (name: string) => {
    const v = input.get(name);
    return typeof v === "string" ? v : "";
  };
  const token = ctx.strings.token ?? (field("token") || readCookie(ctx.request, COOKIE) || "");
  const user = await resetLinkUser(ctx.strings.uid, token);
  if (!user) return invalidLink(ctx);
  try {
    // The fields and messages of auth/password/reset/confirm/ (api.md §12.6).
    const v = await validatedFields(input, { new_password1: passwordField(), new_password2: passwordField() }, "create");
    await completeReset(user, v.new_password1!, v.new_password2!);
  } catch (error) {
    if (error instanceof ValidationFailed) return form(ctx, ctx.strings.uid, token, error.fields);
    throw error;
  }
  return new Response(null, {
    status: 302,
    headers: { Location: `${BASE}/complete/`, "Set-Cookie": cookie(ctx, "", 0), "Referrer-Policy": "no-referrer" },
  });
}

/** GET …/reset/complete/ */
export async function complete(ctx: RouteContext): Promise<Response> {
  const locale = await pageLocale(ctx);
  const t = translator(locale, "apiPages");
  return html(`<h1>${escapeHtml(t("completeHeading"))}</h1>
<p>${escapeHtml(t("completeText"))}</p>
<p><a class="button" href="/accounts/login/">${escapeHtml(t("logIn"))}</a></p>`, t("completeTitle"), ctx, locale);
}
