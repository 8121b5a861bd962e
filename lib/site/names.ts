/**
 * What the site calls a time series group: its name, else its variable (as the group form says:
 * "May be empty: the variable names it then"), else its number. Client-safe.
 */
export function groupTitle(group: { id: number; name: string; variable?: string | null }): string {
  return group.name || group.variable || `Group ${group.id}`;
}
