import type { Metadata } from "next";
import { forbidden, notFound, redirect } from "next/navigation";
import { NotFound, PermissionDenied } from "@/lib/domain/errors";
import { currentUser, type SiteUser } from "@/lib/site/current-user";
import { manageMetadata } from "@/lib/manage";
import { canEditSynopticGroup, findSynopticGroup, type SynopticGroupRow } from "@/lib/synoptic";
import { pathId } from "@/lib/frontend";

/** The management pages' rules (management.md §1): anonymous users log in first; others need the right. */
export async function loggedIn(here: string): Promise<SiteUser> {
  const user = await currentUser();
  if (!user) redirect(`/accounts/login/?next=${encodeURIComponent(here)}`);
  return user;
}

/** The metadata of a synoptic group's page: the 404 or 403 page's title for a group the user may not edit. */
export async function synopticPageMetadata(title: string, params: Promise<{ id: string }>): Promise<Metadata> {
  const id = pathId((await params).id);
  return manageMetadata(title, async (user) => {
    const group = id ? await findSynopticGroup(id) : null;
    if (!group) throw new NotFound();
    if (!canEditSynopticGroup(user, group)) throw new PermissionDenied(false);
  });
}

/** The synoptic group of the path if the user may edit it: 404 for none, 403 when not allowed. */
export async function editable(idText: string, here: (id: number) => string): Promise<{ user: SiteUser; group: SynopticGroupRow }> {
  const id = pathId(idText);
  const group = id ? await findSynopticGroup(id) : null;
  if (!group) notFound();
  const user = await loggedIn(here(group.id));
  if (!canEditSynopticGroup(user, group)) forbidden();
  return { user, group };
}
