/** Counts on the site's pages, written one way: with thousands separators ("52,560"). */
const INTEGER = new Intl.NumberFormat("en-US");

export function formatCount(n: number): string {
  return INTEGER.format(n);
}

/** "1 record", "52,560 records". */
export function countText(n: number, one: string, many: string): string {
  return `${formatCount(n)} ${n === 1 ? one : many}`;
}
