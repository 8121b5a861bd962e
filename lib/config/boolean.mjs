// Plain JavaScript: server.mjs reads ENHYDRIS_SOURCE_MAPS with it before it loads the server.

/**
 * The one boolean parser of the service (api.md §1.2): request fields, query parameters,
 * legacy parameters and settings. Returns undefined for anything that is not a boolean.
 */
const TRUE = new Set(["true", "1", "on", "yes", "y"]);
const FALSE = new Set(["false", "0", "off", "no", "n"]);

/**
 * @param {unknown} value
 * @returns {boolean | undefined}
 */
export function parseBoolean(value) {
  if (typeof value === "boolean") return value;
  if (value === 1) return true;
  if (value === 0) return false;
  if (typeof value !== "string") return undefined;
  const lower = value.trim().toLowerCase();
  if (TRUE.has(lower)) return true;
  if (FALSE.has(lower)) return false;
  return undefined;
}
