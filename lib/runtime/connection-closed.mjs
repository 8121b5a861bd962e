/**
 * Node's error for a request whose connection closed while its body was being read (the client
 * left, or the body idle timeout answered 408): "aborted" with code ECONNRESET. A lost database
 * connection has that code too, so the message tells them apart.
 * @param {unknown} value
 * @returns {boolean}
 */
export function isConnectionClosed(value) {
  return typeof value === "object" && value !== null
    && /** @type {{ message?: unknown }} */ (value).message === "aborted" && /** @type {{ code?: unknown }} */ (value).code === "ECONNRESET";
}
