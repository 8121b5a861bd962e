import { forbidden, notFound, redirect } from "next/navigation";
import { NotFound, PermissionDenied, ValidationFailed } from "@/lib/services/errors";
import { currentUser, type SiteUser } from "@/lib/site/current-user";

/**
 * Rights on the management pages (management.md §1): anonymous users go to the login page, which
 * returns them to `path`; a page whose object does not exist is 404, one the user may not use
 * is 403 (app/forbidden.tsx), both as HTML pages.
 */
export async function manageUser(path: string): Promise<SiteUser> {
  const user = await currentUser();
  if (!user) redirect(`/accounts/login/?next=${encodeURIComponent(path)}`);
  return user;
}

/** Loads what a page shows with the services' checks, turning their refusals into the page's answer. */
export async function guarded<T>(path: string, load: (user: SiteUser) => Promise<T>): Promise<{ user: SiteUser; data: T }> {
  const user = await manageUser(path);
  try {
    return { user, data: await load(user) };
  } catch (error) {
    if (error instanceof NotFound) notFound();
    if (error instanceof PermissionDenied) forbidden();
    throw error;
  }
}

/** A page's own query (a search) that the services refuse: its message instead of results. */
export function queryProblem(error: unknown): string | null {
  if (error instanceof ValidationFailed) return Object.values(error.fields).flat().join(" ");
  throw error;
}
