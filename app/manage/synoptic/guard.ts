import { forbidden, notFound, redirect } from "next/navigation";
import { currentUser, type SiteUser } from "@/lib/site/current-user";
import { canEditSynopticGroup, findSynopticGroup, type SynopticGroupRow } from "@/lib/services/synoptic-groups";
import { pathId } from "@/lib/site/pages";

/** The management pages' rules (management.md §1): anonymous users log in first; others need the right. */
export async function loggedIn(here: string): Promise<SiteUser> {
  const user = await currentUser();
  if (!user) redirect(`/accounts/login/?next=${encodeURIComponent(here)}`);
  return user;
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
