/**
 * Record lines (formats.md §2.1): `YYYY-MM-DD HH:MM,<value>,<flags>` + CR LF.
 */
import { formatValue } from "@/lib/formats/value";

/** The line of `bottom/` (formats.md §2.3): a record line without the CR LF. A null (or NaN) value is written empty. */
export function bottomLine(
  epochSeconds: number,
  value: number | null,
  flags: string,
  precision: number,
  fmtTimestamp: (epochSeconds: number) => string,
): string {
  return fmtTimestamp(epochSeconds) + "," + formatValue(value, precision) + "," + flags;
}

/** One record line with its CR LF. */
export function formatRecordLine(...args: Parameters<typeof bottomLine>): string {
  return bottomLine(...args) + "\r\n";
}

/**
 * Record lines `start … start+count−1` of parallel arrays as one string (a streaming chunk).
 * Values may be null or NaN for null. `flags` may be shorter than needed only if
 * missing entries are meant as "" (undefined is written as "").
 */
export function formatRecordLines(
  timestamps: ArrayLike<number>,
  values: ArrayLike<number | null>,
  flags: ArrayLike<string | null | undefined>,
  count: number,
  precision: number,
  fmtTimestamp: (epochSeconds: number) => string,
  start = 0,
): string {
  let out = "";
  const end = start + count;
  for (let i = start; i < end; i++) {
    const f = flags[i];
    out += fmtTimestamp(timestamps[i]) + "," + formatValue(values[i], precision) + "," + (f ? f : "") + "\r\n";
  }
  return out;
}
