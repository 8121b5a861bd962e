/** Output forms shared by every resource (api.md §1.4). */

/** `last_modified`: ISO 8601 UTC with milliseconds and Z; null for imported objects without one. */
export function isoMillis(date: Date | null | undefined): string | null {
  return date ? date.toISOString() : null;
}

/** Record timestamps in JSON (`last_update`): YYYY-MM-DDTHH:MM:SSZ. */
export function isoSeconds(epochSeconds: number | bigint | null | undefined): string | null {
  if (epochSeconds === null || epochSeconds === undefined) return null;
  return new Date(Number(epochSeconds) * 1000).toISOString().replace(/\.\d{3}Z$/, "Z");
}

/** Numbers that come back from raw SQL as bigint or string. */
export function toNumber(value: unknown): number | null {
  if (value === null || value === undefined) return null;
  return typeof value === "number" ? value : Number(value);
}
