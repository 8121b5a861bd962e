import type { RequestInput } from "@/lib/http/body";
import { INVALID_EMAIL, isValidEmail } from "@/lib/accounts/accounts";
import { z } from "zod";
import { pythonTypeName } from "@/lib/http/body";
import { boolean, MSG, text, validatedFields, type Field, type WriteMode } from "@/lib/http/fields";
import { sent } from "@/lib/http/handlers";
import type { ErrorCollector } from "@/lib/domain/errors";
import { usernameProblem, type ProfileData, type UserAdminData } from "@/lib/accounts/users";

/** The writable fields of the profile (api.md §12.3), for `auth/user/` and the site's profile form. */
export const profileFields = () => ({
  username: text({ required: true, blank: false, max: 150 }),
  first_name: text({ max: 150 }),
  last_name: text({ max: 150 }),
});

/** The username's own rules (characters, uniqueness), after the field's. */
async function checkUsername(username: string | undefined, userId: number, errors: ErrorCollector): Promise<void> {
  if (username === undefined || errors.has("username")) return;
  const problem = await usernameProblem(username, userId);
  if (problem) errors.add("username", problem);
}

/** The profile values of `input` for user `userId`. */
export async function readProfile(input: RequestInput, userId: number, mode: WriteMode): Promise<ProfileData> {
  const v = await validatedFields(input, profileFields(), mode, (v, errors) => checkUsername(v.username, userId, errors));
  return { username: v.username, firstName: v.first_name, lastName: v.last_name };
}

/** What a superuser sets of a user (management.md §2): the profile's fields and rules, the e-mail and the rights. */
export const userAdminFields = () => ({
  ...profileFields(),
  email: text({ max: 254 }),
  is_active: boolean({ default: true }),
  is_superuser: boolean({ default: false }),
  can_add_stations: boolean({ default: false }),
});

/** The values of the users pages' forms, for user `userId` (0 for a new one). */
export async function readUserAdminInput(input: RequestInput, userId: number, mode: WriteMode): Promise<UserAdminData> {
  const v = await validatedFields(input, userAdminFields(), mode, async (v, errors) => {
    await checkUsername(v.username, userId, errors);
    if (v.email && !errors.has("email") && !isValidEmail(v.email)) errors.add("email", INVALID_EMAIL);
  });
  return sent({
    username: v.username, email: v.email, firstName: v.first_name, lastName: v.last_name,
    isActive: v.is_active, isSuperuser: v.is_superuser, canAddStations: v.can_add_stations,
  });
}

/** A password field: required, never trimmed (api.md §1.2). */
export const passwordField = () => text({ required: true, blank: false, trim: false });

/** The fields of a password change (api.md §12.4), for `auth/password/change/` and the profile page. */
export async function readPasswordChange(input: RequestInput): Promise<{ old: string; new1: string; new2: string }> {
  const v = await validatedFields(input, { old_password: passwordField(), new_password1: passwordField(), new_password2: passwordField() }, "create");
  return { old: v.old_password!, new1: v.new_password1!, new2: v.new_password2! };
}

/** The address of a reset request (api.md §12.5), for `auth/password/reset/` and the site's request page. */
export async function readResetEmail(input: RequestInput): Promise<string> {
  const { email } = await validatedFields(input, { email: text({ required: true, blank: false }) }, "create", (v, errors) => {
    if (v.email !== undefined && !isValidEmail(v.email)) errors.add("email", INVALID_EMAIL);
  });
  return email!;
}

/**
 * A list of e-mail addresses (a synoptic group's, a telemetry's): each checked and trimmed,
 * repeated ones (in any case) kept once. At most `max`: a longer list is refused whole, before
 * any address is looked at (each is written to, and the list's cost must not grow with what is
 * sent). A form key sent once with an empty value means the empty list (as for references).
 */
export function emailListField(options: { name: string; max: number; tooMany: string; invalid: string }): Field<string[]> {
  return {
    required: false,
    default: () => [],
    list: true,
    parse(raw) {
      if (!Array.isArray(raw)) return { ok: false, errors: [MSG.notAList(pythonTypeName(raw))] };
      if (raw.length > options.max) return { ok: false, errors: [options.tooMany] };
      const items = raw.length === 1 && raw[0] === "" ? [] : raw;
      const out: string[] = [];
      const errors: string[] = [];
      items.forEach((item, i) => {
        const address = typeof item === "string" ? item.trim() : null;
        if (address === null || !isValidEmail(address)) errors.push(`${options.name}[${i}]: ${options.invalid}`);
        else if (!out.some((a) => a.toLowerCase() === address.toLowerCase())) out.push(address);
      });
      return errors.length ? { ok: false, errors } : { ok: true, value: out };
    },
    schema: z.array(z.email()).max(options.max),
  };
}
