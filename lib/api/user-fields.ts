import type { RequestInput } from "@/lib/http/body";
import { text, validatedFields, type WriteMode } from "@/lib/http/fields";
import { usernameProblem, type ProfileData } from "@/lib/services/users";

/** The writable fields of the profile (api.md §12.3), for `auth/user/` and the site's profile form. */
export const profileFields = () => ({
  username: text({ required: true, blank: false, max: 150 }),
  first_name: text({ max: 150 }),
  last_name: text({ max: 150 }),
});

/** The profile values of `input` for user `userId`; the username's own rules come after the fields'. */
export async function readProfile(input: RequestInput, userId: number, mode: WriteMode): Promise<ProfileData> {
  const v = await validatedFields(input, profileFields(), mode, async (v, errors) => {
    if (v.username === undefined || errors.has("username")) return;
    const problem = await usernameProblem(v.username, userId);
    if (problem) errors.add("username", problem);
  });
  return { username: v.username, firstName: v.first_name, lastName: v.last_name };
}
