"use server";

import { refresh } from "next/cache";
import { changePassword } from "@/lib/auth/accounts";
import { db } from "@/lib/db";
import { USERNAME_MESSAGE, USERNAME_PATTERN } from "@/lib/services/users";
import { currentUser } from "@/lib/site/current-user";

/** The profile forms of `{site}/accounts/profile/` (api.md §12.3, §12.4, §16). */
export interface FormState {
  errors: Record<string, string[]>;
  message: string | null;
  values?: Record<string, string>;
}

const REQUIRED = "This field is required.";
const NOT_LOGGED_IN: FormState = { errors: { form: ["Your session has ended. Log in again."] }, message: null };

const text = (form: FormData, name: string) => {
  const v = form.get(name);
  return typeof v === "string" ? v : null;
};

export async function updateProfile(_prev: FormState, form: FormData): Promise<FormState> {
  const user = await currentUser();
  if (!user) return NOT_LOGGED_IN;
  const username = (text(form, "username") ?? "").trim();
  const firstName = (text(form, "first_name") ?? "").trim();
  const lastName = (text(form, "last_name") ?? "").trim();
  const values = { username, first_name: firstName, last_name: lastName };
  const errors: Record<string, string[]> = {};
  const add = (field: string, message: string) => (errors[field] ??= []).push(message);
  if (username === "") add("username", "This field may not be blank.");
  else if ([...username].length > 150) add("username", "Ensure this field has no more than 150 characters.");
  else if (!USERNAME_PATTERN.test(username)) add("username", USERNAME_MESSAGE);
  else if (await db().prisma.user.findFirst({ where: { username, id: { not: user.id } }, select: { id: true } })) {
    add("username", "A user with that username already exists.");
  }
  if ([...firstName].length > 150) add("first_name", "Ensure this field has no more than 150 characters.");
  if ([...lastName].length > 150) add("last_name", "Ensure this field has no more than 150 characters.");
  if (Object.keys(errors).length) return { errors, message: null, values };
  await db().write((tx) => tx.user.update({ where: { id: user.id }, data: { username, firstName, lastName } }));
  refresh();
  return { errors: {}, message: "Your profile has been saved.", values };
}

export async function updatePassword(_prev: FormState, form: FormData): Promise<FormState> {
  const user = await currentUser();
  if (!user) return NOT_LOGGED_IN;
  // Passwords are never trimmed (api.md §1.2).
  const old = text(form, "old_password") ?? "";
  const new1 = text(form, "new_password1") ?? "";
  const new2 = text(form, "new_password2") ?? "";
  const errors: Record<string, string[]> = {};
  if (!old) errors.old_password = [REQUIRED];
  if (!new1) errors.new_password1 = [REQUIRED];
  if (!new2) errors.new_password2 = [REQUIRED];
  if (Object.keys(errors).length) return { errors, message: null };
  const problems = await changePassword(user, old, new1, new2, { sessionId: user.sessionId });
  if (Object.keys(problems).length) return { errors: problems, message: null };
  return { errors: {}, message: "New password has been saved. You stay logged in here; other sessions and API tokens have ended." };
}
