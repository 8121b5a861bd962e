import {
  changePassword, completeReset, INVALID_EMAIL, isValidEmail, LOGIN_FAILED, loginKeys, loginThrottle,
  requestPasswordReset, resetLinkUser, resetUidUser, verifyLogin,
} from "@/lib/auth/accounts";
import { clientAddress } from "@/lib/auth/client-address";
import { requireUser } from "@/lib/auth/permissions";
import { endSiteSessions, SESSION_COOKIES } from "@/lib/auth/session";
import { issueToken, revokeToken } from "@/lib/auth/tokens";
import { USERNAME_MESSAGE, USERNAME_PATTERN } from "@/lib/services/users";
import { db } from "@/lib/db";
import { badRequest, ErrorCollector, nonFieldError, throttled } from "@/lib/http/errors";
import { text, validateFields } from "@/lib/http/fields";
import { json } from "@/lib/http/respond";
import type { RouteContext } from "@/lib/http/router";
import { siteRoot } from "@/lib/http/urls";

/** The authentication endpoints of api.md §12. */

const password = () => text({ required: true, blank: false, trim: false });

/** POST auth/login/: a new token; the throttle is checked right after the body is read. */
export async function login(ctx: RouteContext): Promise<Response> {
  const input = await ctx.input();
  const name = await validateFields(input, { username: text(), email: text() }, "create");
  const username = name.username ?? "";
  const email = name.email ?? "";
  const keys = loginKeys(username, email, clientAddress(ctx.request));
  const wait = await loginThrottle(keys);
  if (wait > 0) throw throttled(wait);
  const errors = new ErrorCollector();
  const fields = await validateFields(input, { username: text(), email: text(), password: password() }, "create", errors);
  errors.throwIfAny();
  const result = await verifyLogin(username, email, fields.password!, keys);
  if (!result.ok) throw nonFieldError(LOGIN_FAILED);
  return json({ key: await issueToken(result.user.id) });
}

/** POST auth/logout/: ends the token used, or the user's site sessions. */
export async function logout(ctx: RouteContext): Promise<Response> {
  const user = requireUser(ctx);
  const headers = new Headers();
  if (ctx.auth.via === "token" && ctx.auth.tokenId) {
    await revokeToken(ctx.auth.tokenId);
  } else if (ctx.auth.via === "session") {
    await endSiteSessions(user.id);
    for (const cookie of SESSION_COOKIES) headers.append("Set-Cookie", `${cookie}=; Path=/; Max-Age=0; HttpOnly; SameSite=Lax`);
  }
  return json({ detail: "Successfully logged out." }, 200, headers);
}

async function userJson(id: number) {
  const u = await db().prisma.user.findUniqueOrThrow({ where: { id } });
  return { pk: u.id, username: u.username, email: u.email, first_name: u.firstName, last_name: u.lastName };
}

/** GET auth/user/ */
export async function getUser(ctx: RouteContext): Promise<Response> {
  return json(await userJson(requireUser(ctx).id));
}

/** PUT/PATCH auth/user/: username (unique, valid), first and last name; pk and email are read-only. */
export async function updateUser(ctx: RouteContext): Promise<Response> {
  const user = requireUser(ctx);
  const errors = new ErrorCollector();
  const values = await validateFields(await ctx.input(), {
    username: text({ required: true, blank: false, max: 150 }),
    first_name: text({ max: 150 }),
    last_name: text({ max: 150 }),
  }, ctx.method === "PUT" ? "replace" : "update", errors);
  if (values.username !== undefined && !errors.has("username")) {
    if (!USERNAME_PATTERN.test(values.username)) errors.add("username", USERNAME_MESSAGE);
    else if (await db().prisma.user.findFirst({ where: { username: values.username, id: { not: user.id } }, select: { id: true } })) {
      errors.add("username", "A user with that username already exists.");
    }
  }
  errors.throwIfAny();
  await db().write((tx) => tx.user.update({
    where: { id: user.id },
    data: { username: values.username, firstName: values.first_name, lastName: values.last_name },
  }));
  return json(await userJson(user.id));
}

/** POST auth/password/change/ */
export async function passwordChange(ctx: RouteContext): Promise<Response> {
  const user = requireUser(ctx);
  const errors = new ErrorCollector();
  const v = await validateFields(await ctx.input(), { old_password: password(), new_password1: password(), new_password2: password() }, "create", errors);
  errors.throwIfAny();
  const problems = await changePassword(user, v.old_password!, v.new_password1!, v.new_password2!, { tokenId: ctx.auth.tokenId, sessionId: ctx.auth.sessionId });
  if (Object.keys(problems).length) throw badRequest(problems);
  return json({ detail: "New password has been saved." });
}

/** POST auth/password/reset/: the same answer whether the address is registered or not. */
export async function passwordReset(ctx: RouteContext): Promise<Response> {
  const errors = new ErrorCollector();
  const { email } = await validateFields(await ctx.input(), { email: text({ required: true, blank: false }) }, "create", errors);
  if (email !== undefined && !isValidEmail(email)) errors.add("email", INVALID_EMAIL);
  errors.throwIfAny();
  requestPasswordReset(email!, siteRoot(ctx.request));
  return json({ detail: "Password reset e-mail has been sent." });
}

/** POST auth/password/reset/confirm/ (API form of the link). */
export async function passwordResetConfirm(ctx: RouteContext): Promise<Response> {
  const errors = new ErrorCollector();
  const v = await validateFields(await ctx.input(), {
    uid: text({ required: true, blank: false }), token: text({ required: true, blank: false }),
    new_password1: password(), new_password2: password(),
  }, "create", errors);
  errors.throwIfAny();
  if (!(await resetUidUser(v.uid!))) throw badRequest({ uid: ["Invalid value"] });
  const user = await resetLinkUser(v.uid!, v.token!);
  if (!user) throw badRequest({ token: ["Invalid value"] });
  const problems = await completeReset(user, v.new_password1!, v.new_password2!);
  if (Object.keys(problems).length) throw badRequest(problems);
  return json({ detail: "Password has been reset with the new password." });
}
