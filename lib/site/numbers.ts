import { formatCountIn } from "@/lib/i18n/format";

/** Counts on the site's pages in English, with thousands separators ("52,560"); formatCountIn writes them per language. */
export function formatCount(n: number): string {
  return formatCountIn("en", n);
}

/** "1 record", "52,560 records". */
export function countText(n: number, one: string, many: string): string {
  return `${formatCount(n)} ${n === 1 ? one : many}`;
}
