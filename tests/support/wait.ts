export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Calls `what` until `ok` accepts its value or the time is up; returns the last value (the test then asserts on it). */
export async function until<T>(what: () => Promise<T>, ok: (value: T) => boolean, timeoutMs = 10_000, everyMs = 5): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await what();
    if (ok(value) || Date.now() > deadline) return value;
    await sleep(everyMs);
  }
}
