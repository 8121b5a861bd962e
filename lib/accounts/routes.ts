import type { Route } from "@/lib/routing/router";
import { getUser, login, logout, passwordChange, passwordReset, passwordResetConfirm, updateUser } from "@/lib/accounts/api";
import { complete, openLink, showForm, submitForm } from "@/lib/accounts/reset-pages";

/** The authentication endpoints (api.md §12) and the password reset pages. */
export function accountRoutes(): Route[] {
  return [
    { path: "auth/login/", handlers: { POST: login }, open: true },
    { path: "auth/logout/", handlers: { POST: logout } },
    { path: "auth/user/", handlers: { GET: getUser, PUT: updateUser, PATCH: updateUser } },
    { path: "auth/password/change/", handlers: { POST: passwordChange } },
    { path: "auth/password/reset/", handlers: { POST: passwordReset }, open: true },
    { path: "auth/password/reset/confirm/", handlers: { POST: passwordResetConfirm }, open: true },
    { path: "auth/password/reset/confirm/*uid/set-password/", handlers: { GET: showForm, POST: submitForm }, open: true, csrfExempt: true },
    { path: "auth/password/reset/confirm/*uid/*token/", handlers: { GET: openLink, POST: submitForm }, open: true, csrfExempt: true },
    { path: "auth/password/reset/complete/", handlers: { GET: complete }, open: true },
  ];
}
