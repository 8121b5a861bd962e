import { isConnectionClosed } from "@/lib/runtime/connection-closed.mjs";

/** The error and the errors it wraps (causes, a driver adapter's original error). */
function* chain(error: unknown): Generator<{ code?: unknown; originalCode?: unknown; message?: unknown }> {
  const seen = new Set<unknown>();
  let e: unknown = error;
  while (e && typeof e === "object" && !seen.has(e)) {
    seen.add(e);
    yield e as { code?: unknown; message?: unknown };
    const { cause, originalError, meta } = e as { cause?: unknown; originalError?: unknown; meta?: { driverAdapterError?: unknown } };
    e = cause ?? originalError ?? meta?.driverAdapterError;
  }
}

const UNAVAILABLE_CODES = new Set([
  "ECONNREFUSED", "ECONNRESET", "ETIMEDOUT", "EHOSTUNREACH", "ENOTFOUND", "EPIPE", "57P01", "57P02", "57P03",
  "53300", "08000", "08001", "08003", "08006", "P1001", "P1002", "P1017", "SQLITE_CANTOPEN", "SQLITE_BUSY",
]);
const UNAVAILABLE_MESSAGE = /Connection terminated|connection timeout|timeout exceeded when trying to connect|Can't reach database|database system is (shutting down|starting up)|Client has encountered a connection error|DatabaseNotReachable|database is locked/i;

/** True when the request's connection closed while its body was being read (isConnectionClosed), not the database's. */
export function isRequestAborted(error: unknown): boolean {
  for (const e of chain(error)) if (isConnectionClosed(e)) return true;
  return false;
}

/** True when an error means the database cannot be reached (→ 503). */
export function isDatabaseUnavailable(error: unknown): boolean {
  if (isRequestAborted(error)) return false;
  for (const { code, message } of chain(error)) {
    if (typeof code === "string" && UNAVAILABLE_CODES.has(code)) return true;
    if (typeof message === "string" && UNAVAILABLE_MESSAGE.test(message)) return true;
  }
  return false;
}

const STORAGE_FULL_CODES = new Set(["SQLITE_FULL", "53100", "ENOSPC", "EDQUOT"]);
const STORAGE_FULL_MESSAGE = /database or disk is full|No space left on device|Disk quota exceeded/i;

/**
 * True when a write failed for want of disk space: SQLite's SQLITE_FULL, PostgreSQL's disk_full
 * (53100), or the file system's ENOSPC/EDQUOT for media files (→ 503; the write was undone).
 */
export function isStorageFull(error: unknown): boolean {
  if (hasErrorCode(error, STORAGE_FULL_CODES)) return true;
  for (const { message } of chain(error)) if (typeof message === "string" && STORAGE_FULL_MESSAGE.test(message)) return true;
  return false;
}

/**
 * True when the error or one it wraps has one of these codes: PostgreSQL's SQLSTATEs (pg's `code`,
 * or a Prisma adapter's `originalCode`), SQLite's result codes, Node's errno names.
 */
export function hasErrorCode(error: unknown, states: ReadonlySet<string>): boolean {
  for (const { code, originalCode } of chain(error)) {
    if ((typeof code === "string" && states.has(code)) || (typeof originalCode === "string" && states.has(originalCode))) return true;
  }
  return false;
}
