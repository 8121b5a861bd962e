/** Output forms shared by every resource (api.md §1.4). */

/** `last_modified`: ISO 8601 UTC with milliseconds and Z; null for imported objects without one. */
export function isoMillis(date: Date | null | undefined): string | null {
  return date ? date.toISOString() : null;
}

/** 0001-01-01T00:00:00Z and 9999-12-31T23:59:59Z: the instants pages and JSON write as dates. */
export const FIRST_SHOWN_INSTANT = -62_135_596_800;
export const LAST_SHOWN_INSTANT = 253_402_300_799;

/**
 * A record timestamp (epoch seconds) that pages and JSON write as a date, else null: a record
 * written into the store outside years 1–9999 (directly, or by an older version) is shown as no
 * value instead of failing the page (JavaScript's Date ends in year 275760).
 */
export function shownInstant(epochSeconds: number | bigint | null | undefined): number | null {
  if (epochSeconds === null || epochSeconds === undefined) return null;
  const t = Number(epochSeconds);
  return t >= FIRST_SHOWN_INSTANT && t <= LAST_SHOWN_INSTANT ? t : null;
}

/** Record timestamps in JSON (`last_update`): YYYY-MM-DDTHH:MM:SSZ; null outside years 1–9999. */
export function isoSeconds(epochSeconds: number | bigint | null | undefined): string | null {
  const t = shownInstant(epochSeconds);
  return t === null ? null : new Date(t * 1000).toISOString().replace(/\.\d{3}Z$/, "Z");
}

/** Numbers that come back from raw SQL as bigint or string. */
export function toNumber(value: unknown): number | null {
  if (value === null || value === undefined) return null;
  return typeof value === "number" ? value : Number(value);
}
