import type { Metadata } from "next";
import { forbidden, notFound, redirect } from "next/navigation";
import { ensureSuperuser } from "@/lib/auth/permissions";
import { NotFound, PermissionDenied, ValidationFailed } from "@/lib/domain/errors";
import { getSource } from "@/lib/replication";
import { lookupForAdmin, lookupOf } from "@/lib/lookups";
import { editableStation } from "@/lib/stations";
import { currentUser, type SiteUser } from "@/lib/site/current-user";
import { pathId } from "@/lib/frontend";
import { translator } from "@/lib/i18n";
import { requestLocale } from "@/lib/site/locale";

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

/** The titles of the 403 and 404 pages (app/forbidden.tsx, app/not-found.tsx). */
/**
 * A management page's metadata: its own title, or the 403 or 404 page's for a user the page
 * refuses. Next takes the <title> from the page's metadata even when the page renders
 * forbidden.tsx or not-found.tsx, so the browser's tab would name a page (or an object) the
 * user may not see. `check` asks the page's question with the services' checks (NotFound,
 * PermissionDenied); anonymous users keep the page's title, as they are sent to the login page.
 */
export async function manageMetadata(title: string, check: (user: SiteUser) => unknown): Promise<Metadata> {
  const user = await currentUser();
  if (!user) return { title };
  try {
    await check(user);
    return { title };
  } catch (error) {
    if (error instanceof NotFound) return { title: await refusalTitle(404) };
    if (error instanceof PermissionDenied) return { title: await refusalTitle(403) };
    throw error;
  }
}

/** The 403 or 404 page's title in the page's language (public.md §3). */
export async function refusalTitle(status: 403 | 404): Promise<string> {
  return translator(await requestLocale(), "refusal")(status === 403 ? "forbiddenTitle" : "notFoundTitle");
}

/** The metadata of a page of a station's (its editors'), by the path's `sid`. */
export async function stationPageMetadata(title: string, params: Promise<{ sid: string }>): Promise<Metadata> {
  const { sid } = await params;
  return manageMetadata(title, (user) => editableStation(user, pathId(sid) ?? 0));
}

/** The metadata of a page for superusers only (lookups, users, replication). */
export function superuserPageMetadata(title: string): Promise<Metadata> {
  return manageMetadata(title, ensureSuperuser);
}

/** The metadata of a page of one lookup object (superusers), by the path's `lookup` and `id`. */
export async function lookupObjectPageMetadata(title: string, params: Promise<{ lookup: string; id: string }>): Promise<Metadata> {
  const { lookup, id } = await params;
  const name = lookupOf(lookup);
  return name ? manageMetadata(title, (user) => lookupForAdmin(user, name, pathId(id) ?? 0)) : { title: await refusalTitle(404) };
}

/** The metadata of a replication source's page (superusers), by the path's `id`. */
export async function sourcePageMetadata(title: string, params: Promise<{ id: string }>): Promise<Metadata> {
  const id = pathId((await params).id) ?? 0;
  return manageMetadata(title, (user) => getSource(user, id));
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
