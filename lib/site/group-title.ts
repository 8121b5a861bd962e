import { translator, type Locale } from "@/lib/i18n";
import { groupTitle } from "@/lib/site/names";

/** groupTitle with its fallback ("Group 12") in `locale`, for server code. */
export function groupTitleIn(locale: Locale, group: { id: number; name: string; variable?: string | null }): string {
  return groupTitle(group, (id) => translator(locale, "groupNames")("fallback", { id: String(id) }));
}
