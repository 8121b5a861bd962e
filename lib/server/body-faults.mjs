import { requestContext } from "../observability/logger.mjs";
import { isConnectionClosed } from "../runtime/connection-closed.mjs";

/**
 * A site form post whose body Next cannot take (a server action's arguments that are not JSON or
 * refer to missing parts, a multipart body that does not parse, a body over the 100 MB
 * bodySizeLimit) fails inside Next, before any of our code runs, and Next answers 500. It is the
 * request's fault: this answers 400 (413 for the size) instead.
 *
 * Next logs the error (console.error, within the request's context) before it starts the
 * response; the error is recognised by its kind and message, the request's context marked, and
 * the response's 500 then replaced by a plain answer. An error of our own code is not one of
 * these and keeps its 500.
 */
const DECODING_ERRORS = [
  /^Failed to parse body as FormData/, // undici's multipart parser
  /^Unexpected end of form$/, /^Malformed part header$/, /^Multipart: Boundary not found$/, // busboy
  /^Connection closed\.$/, // React's decodeReply: a reference to a part the body lacks
];

/**
 * The answer to a request whose body Next reported it could not take, or null.
 * @param {unknown} value what was logged
 * @returns {{ status: number, message: string } | null}
 */
function clientFault(value) {
  if (!(value instanceof Error)) return null;
  const size = /^Body exceeded (\S+) limit/.exec(value.message);
  if (size) return { status: 413, message: `Too large: a form may send at most ${size[1]}.\n` };
  // decodeReply parses the arguments with JSON.parse.
  if (value.name === "SyntaxError" || DECODING_ERRORS.some((pattern) => pattern.test(value.message))) {
    return { status: 400, message: "Bad request: the form's data could not be read.\n" };
  }
  return null;
}

/**
 * Wraps console.error (once per process) to mark the current request when Next reports a
 * decoding error; returns the function that unwraps it.
 */
export function markBodyFaults() {
  const original = console.error;
  console.error = (...args) => {
    const context = requestContext();
    // The connection closed before the body arrived (the client left, or the idle timeout's 408):
    // Next reports it as an error, but nothing failed on this side.
    if (context && args.some(isConnectionClosed)) {
      console.info(...args);
      return;
    }
    const fault = context?.decodesBody ? args.map(clientFault).find(Boolean) : null;
    if (fault) {
      context.bodyFault = fault;
      // A client's fault, not the server's: a warning.
      console.warn(...args);
      return;
    }
    original(...args);
  };
  return () => {
    console.error = original;
  };
}

/**
 * For a site post (whose body Next may decode): a 500 after an error of the request's body
 * becomes the plain answer clientFault gave, whichever of writeHead, write or end starts the
 * response; Next's own body is dropped.
 * @param {import("node:http").ServerResponse} res
 * @param {import("../observability/logger.mjs").RequestContext} context
 */
export function answerBodyFaultsAsClientErrors(res, context) {
  context.decodesBody = true;
  const { writeHead, write, end } = res;
  // The headers this server set before Next (security headers, the request id) stay.
  const ours = new Set(res.getHeaderNames());
  let replaced = false;
  /** Whether the response is (now) ours: a 500 about to start after an error of the body. */
  const replace = (status) => {
    if (replaced) return true;
    if (res.headersSent || status !== 500 || !context.bodyFault) return false;
    replaced = true;
    for (const name of res.getHeaderNames()) if (!ours.has(name)) res.removeHeader(name);
    const { status: answer, message } = context.bodyFault;
    writeHead.call(res, answer, { "Content-Type": "text/plain; charset=utf-8", "Cache-Control": "no-store", "Content-Length": Buffer.byteLength(message) });
    end.call(res, message);
    // Next sets its 500 again after this; the request's log line and metrics must count what was sent.
    Object.defineProperty(res, "statusCode", { configurable: true, enumerable: true, get: () => answer, set: () => {} });
    return true;
  };
  res.writeHead = function (status, ...rest) {
    return replace(status) ? this : writeHead.call(this, status, ...rest);
  };
  res.write = function (...args) {
    return replace(this.statusCode) ? true : write.apply(this, args);
  };
  res.end = function (...args) {
    if (!replace(this.statusCode)) return end.apply(this, args);
    const callback = args.find((a) => typeof a === "function");
    if (callback) queueMicrotask(callback);
    return this;
  };
}
