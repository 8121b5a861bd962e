// Structured logs: one JSON object per line (pino), pretty in development. The server
// (lib/server/) writes the request lines and the Next bundle (errors, start-up, mail) the others,
// through one logger per process kept on globalThis. Every line written while a request is
// handled carries its request id (`req_id`), from the request context the server opens
// (lib/runtime/bridge.ts).
import { format } from "node:util";
import pino from "pino";
import { bridge } from "../runtime/bridge.ts";

const KEY = Symbol.for("enhydris.logging");

/**
 * Secrets never written: password hashes, token keys and their hashes, password fields (an ORM
 * error may quote its arguments), and the token of password-reset links.
 */
const PATTERNS = [
  [/scrypt\$[^\s"',}]+/g, "scrypt$[redacted]"],
  [/\b[0-9a-f]{64}\b/g, "[redacted-hash]"],
  [/\b[0-9a-f]{40}\b/g, "[redacted-key]"],
  [/((?:password|new_password[12]|old_password|passwordHash|keyHash|key_hash|secret|token)["']?\s*[:=]\s*["']?)[^\s"',}]+/gi, "$1[redacted]"],
  [/(\/password\/reset\/confirm\/[^/\s"']+\/)(?!set-password\/)[^/\s"']+/g, "$1[redacted]"],
];

/** @param {string} text */
export function redact(text) {
  let out = text;
  for (const [pattern, replacement] of PATTERNS) out = out.replace(pattern, /** @type {string} */ (replacement));
  return out;
}

/** @typedef {import("../runtime/bridge.ts").RequestContext} RequestContext */

function state() {
  return (globalThis[KEY] ??= { logger: null });
}

/** @returns {RequestContext | undefined} */
export function requestContext() {
  return bridge().requestContext.getStore();
}

/**
 * Runs `fn` with a request context.
 * @template T
 * @param {RequestContext} context
 * @param {() => T} fn
 * @returns {T}
 */
export function withRequestContext(context, fn) {
  return bridge().requestContext.run(context, fn);
}

function options() {
  return {
    level: process.env.ENHYDRIS_LOG_LEVEL || "info",
    timestamp: pino.stdTimeFunctions.isoTime,
    base: { pid: process.pid },
    formatters: { level: (label) => ({ level: label }) },
    mixin() {
      const context = requestContext();
      return context ? { req_id: context.id } : {};
    },
    // Messages are masked (see PATTERNS). Structured fields are chosen by the callers and hold
    // no secrets: no headers, cookies or query strings are logged. (pino's own `redact` option
    // would triple the cost of a request line.)
    hooks: {
      logMethod(args, method) {
        method.apply(this, args.map((a) => (typeof a === "string" ? redact(a) : a)));
      },
    },
  };
}

/**
 * Sets up the process's logger once (the server, before anything logs): JSON lines, or
 * pino-pretty's coloured lines in development when that package is installed.
 * @param {{ pretty?: boolean }} [how]
 */
export async function setupLogger({ pretty = false } = {}) {
  let destination;
  if (pretty) {
    try {
      const { default: pinoPretty } = await import("pino-pretty");
      destination = pinoPretty({ colorize: true, singleLine: true, translateTime: "SYS:HH:MM:ss.l", ignore: "pid" });
    } catch {
      // not installed (a production install): JSON lines
    }
  }
  state().logger = destination ? pino(options(), destination) : pino(options());
  return state().logger;
}

/** The process's logger (JSON lines to standard output unless set up otherwise). */
export function logger() {
  return (state().logger ??= pino(options()));
}

/**
 * Sends console output (Next's own messages, libraries) through the logger (which redacts), so that
 * every line of the server's output is a JSON object.
 */
export function routeConsoleToLogger() {
  const log = logger();
  const to = (level) => (...args) => log[level](format(...args));
  console.log = to("info");
  console.info = to("info");
  console.warn = to("warn");
  console.error = to("error");
  console.debug = to("debug");
}
