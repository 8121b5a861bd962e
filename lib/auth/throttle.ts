import { settings } from "@/lib/config";
import { db } from "@/lib/db";
import { Throttled } from "@/lib/domain/errors";

/**
 * The longest name that can log in to an account: an e-mail address has at most 254 characters
 * and a username at most 150, as in Django (every way of making an account checks them).
 */
export const MAX_LOGIN_NAME = 254;

/**
 * Whether a login name may name an account at all. A longer one cannot: it is looked up nowhere
 * and has no counter of its own (its failures count against the client's address), so that the
 * counters' keys stay small whatever a client sends (a failed login with a 100 MB name once
 * stored a 100 MB key).
 */
export function isPossibleLoginName(name: string): boolean {
  if (name.length <= MAX_LOGIN_NAME) return true;
  // Characters are code points: each takes one or two UTF-16 units.
  if (name.length > 2 * MAX_LOGIN_NAME) return false;
  let count = 0;
  for (const _ of name) if (++count > MAX_LOGIN_NAME) return false;
  return true;
}

/**
 * The login throttle (api.md §12.1): counters of failed attempts within a sliding window, one
 * per lower-cased name, one per account the name logs in to (so that its username and its
 * e-mail address count together) and one per client address, kept in the database so that
 * every app instance shares them.
 */
export function throttleKeys(name: string | null | undefined, address: string, accountId: number | null = null): string[] {
  const keys = [`addr:${address}`];
  const named = nameKey(name);
  if (named) keys.unshift(named);
  if (accountId !== null) keys.unshift(accountKey(accountId));
  return keys;
}

const accountKey = (id: number) => `user:${id}`;
const nameKey = (name: string | null | undefined) => (name && isPossibleLoginName(name) ? `name:${name.toLowerCase()}` : null);

/** Failures at or before this moment no longer count. */
function windowStart(now: number): Date {
  return new Date(now - settings().loginFailureWindow * 1000);
}

/** Seconds until an attempt covered by `keys` is allowed again; 0 when it is allowed now. */
export async function throttleWait(keys: string[]): Promise<number> {
  const { loginMaxFailures: max, loginFailureWindow: window } = settings();
  const now = Date.now();
  const since = windowStart(now);
  let wait = 0;
  for (const key of keys) {
    const failures = await db().prisma.loginFailure.findMany({
      where: { key, at: { gt: since } },
      orderBy: { at: "asc" },
      select: { at: true },
    });
    if (failures.length < max) continue;
    // The counter falls below the limit when its (count - max + 1) oldest failures have left.
    const freedAt = failures[failures.length - max].at.getTime() + window * 1000;
    wait = Math.max(wait, Math.max(1, Math.ceil((freedAt - now) / 1000)));
  }
  return wait;
}

/** Throws Throttled while an attempt covered by `keys` must wait. */
export async function ensureNotThrottled(keys: string[]): Promise<void> {
  const wait = await throttleWait(keys);
  if (wait > 0) throw new Throttled(wait);
}

export async function recordFailure(keys: string[]): Promise<void> {
  const now = new Date();
  const expired = windowStart(now.getTime());
  await db().write(async (tx) => {
    await tx.loginFailure.createMany({ data: keys.map((key) => ({ key, at: now })) });
    await tx.loginFailure.deleteMany({ where: { key: { in: keys }, at: { lte: expired } } });
  });
}

/** A success clears the counters of its name and account (not the address counter). */
export async function clearNameAndAccountFailures(name: string | null | undefined, accountId: number | null = null): Promise<void> {
  const named = nameKey(name);
  const keys = [...(named ? [named] : []), ...(accountId !== null ? [accountKey(accountId)] : [])];
  if (!keys.length) return;
  await db().write((tx) => tx.loginFailure.deleteMany({ where: { key: { in: keys } } }));
}

/**
 * The upkeep (lib/jobs/maintenance.ts): deletes the failures older than the window, which no
 * counter includes (recordFailure deletes only those of keys that fail again, so names tried
 * once would stay for ever); returns how many.
 */
export async function deleteExpiredFailures(): Promise<number> {
  const { count } = await db().write((tx) => tx.loginFailure.deleteMany({ where: { at: { lte: windowStart(Date.now()) } } }));
  return count;
}
