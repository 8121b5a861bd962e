/** JSONP (legacy.md §6.3, §7.2): the callback name rule and the wrapped response. */
const CALLBACK = /^[A-Za-z_$][A-Za-z0-9_$]*(\.[A-Za-z_$][A-Za-z0-9_$]*)*$/;

export const INVALID_CALLBACK = "Invalid callback name.";
export const JSONP_CONTENT_TYPE = "application/javascript; charset=utf-8";

export function isCallbackName(name: string): boolean {
  return name.length <= 100 && CALLBACK.test(name);
}

/** The body and headers of a JSON text, wrapped as `<callback>(<json>)` when a callback is given. */
export function jsonOrJsonp(jsonText: string, callback: string | null): { body: string; headers: Record<string, string> } {
  if (callback === null) return { body: jsonText, headers: { "Content-Type": "application/json" } };
  return {
    body: `${callback}(${jsonText})`,
    headers: { "Content-Type": JSONP_CONTENT_TYPE, "X-Content-Type-Options": "nosniff" },
  };
}
