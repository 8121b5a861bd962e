/**
 * What the site calls a time series group: its name, else its variable (as the group form says:
 * "May be empty: the variable names it then"), else its number, as `fallback` writes it in the
 * page's language (server code: groupTitleIn, lib/site/group-title.ts). Client-safe.
 */
export function groupTitle(group: { id: number; name: string; variable?: string | null }, fallback: (id: number) => string = (id) => `Group ${id}`): string {
  return group.name || group.variable || fallback(group.id);
}
