import { changePassword, completeReset, LOGIN_FAILED, loginKeys, requestPasswordReset, resetLinkUser, resetUidUser, verifyLogin } from "@/lib/accounts/accounts";
import { clientAddress } from "@/lib/auth/client-address";
import { ensureUser } from "@/lib/auth/permissions";
import { endSiteSessions, SESSION_COOKIES } from "@/lib/auth/session";
import { ensureNotThrottled } from "@/lib/auth/throttle";
import { issueToken, revokeToken } from "@/lib/auth/tokens";
import { text, validatedFields, validateFields } from "@/lib/http/fields";
import { json } from "@/lib/http/respond";
import type { RouteContext } from "@/lib/routing/router";
import { siteRoot } from "@/lib/http/urls";
import { localeOfRequest } from "@/lib/i18n";
import { writeMode } from "@/lib/http/handlers";
import { passwordField as password, readPasswordChange, readProfile, readResetEmail } from "@/lib/accounts/fields";
import { ValidationFailed } from "@/lib/domain/errors";
import { profileOf, updateProfile } from "@/lib/accounts/users";

/** The authentication endpoints of api.md §12. */

/** POST auth/login/: a new token; the throttle is checked right after the body is read. */
export async function login(ctx: RouteContext): Promise<Response> {
  const input = await ctx.input();
  const name = await validateFields(input, { username: text(), email: text() }, "create");
  const username = name.username ?? "";
  const email = name.email ?? "";
  const keys = await loginKeys(username, email, clientAddress(ctx.request));
  await ensureNotThrottled(keys);
  const fields = await validatedFields(input, { username: text(), email: text(), password: password() }, "create");
  const result = await verifyLogin(username, email, fields.password!, keys);
  if (!result.ok) throw ValidationFailed.nonField(LOGIN_FAILED);
  return json({ key: await issueToken(result.user.id) });
}

/** POST auth/logout/: ends the token used, or the user's site sessions. */
export async function logout(ctx: RouteContext): Promise<Response> {
  const user = ensureUser(ctx.auth.user);
  const headers = new Headers();
  if (ctx.auth.via === "token" && ctx.auth.tokenId) {
    await revokeToken(ctx.auth.tokenId);
  } else if (ctx.auth.via === "session") {
    await endSiteSessions(user.id);
    for (const cookie of SESSION_COOKIES) headers.append("Set-Cookie", `${cookie}=; Path=/; Max-Age=0; HttpOnly; SameSite=Lax`);
  }
  return json({ detail: "Successfully logged out." }, 200, headers);
}

async function profileJson(ctx: RouteContext) {
  const u = await profileOf(ctx.auth.user);
  return { pk: u.id, username: u.username, email: u.email, first_name: u.firstName, last_name: u.lastName };
}

/** GET auth/user/ */
export async function getUser(ctx: RouteContext): Promise<Response> {
  return json(await profileJson(ctx));
}

/** PUT/PATCH auth/user/: username (unique, valid), first and last name; pk and email are read-only. */
export async function updateUser(ctx: RouteContext): Promise<Response> {
  await updateProfile(ctx.auth.user, async (user) => readProfile(await ctx.input(), user.id, writeMode(ctx)));
  return json(await profileJson(ctx));
}

/** POST auth/password/change/ */
export async function passwordChange(ctx: RouteContext): Promise<Response> {
  const user = ensureUser(ctx.auth.user);
  const v = await readPasswordChange(await ctx.input());
  await changePassword(user, v.old, v.new1, v.new2, { tokenId: ctx.auth.tokenId, sessionId: ctx.auth.sessionId }, clientAddress(ctx.request));
  return json({ detail: "New password has been saved." });
}

/** POST auth/password/reset/: the same answer whether the address is registered or not. */
export async function passwordReset(ctx: RouteContext): Promise<Response> {
  requestPasswordReset(await readResetEmail(await ctx.input()), siteRoot(ctx.request), localeOfRequest(ctx.request));
  return json({ detail: "Password reset e-mail has been sent." });
}

/** POST auth/password/reset/confirm/ (API form of the link). */
export async function passwordResetConfirm(ctx: RouteContext): Promise<Response> {
  const v = await validatedFields(await ctx.input(), {
    uid: text({ required: true, blank: false }), token: text({ required: true, blank: false }),
    new_password1: password(), new_password2: password(),
  }, "create");
  if (!(await resetUidUser(v.uid!))) throw ValidationFailed.field("uid", "Invalid value");
  const user = await resetLinkUser(v.uid!, v.token!);
  if (!user) throw ValidationFailed.field("token", "Invalid value");
  await completeReset(user, v.new_password1!, v.new_password2!);
  return json({ detail: "Password has been reset with the new password." });
}
