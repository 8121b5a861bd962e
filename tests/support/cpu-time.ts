/**
 * Runs `what` and returns its result with the CPU time this process spent meanwhile, in
 * milliseconds. For the tests that bound how long a computation takes (a linear algorithm where a
 * quadratic one took minutes): unlike the wall-clock time, the CPU time does not grow when other
 * processes share the machine's cores.
 */
export async function cpuTime<T>(what: () => T | Promise<T>): Promise<{ result: T; ms: number }> {
  const before = process.cpuUsage();
  const result = await what();
  const spent = process.cpuUsage(before);
  return { result, ms: (spent.user + spent.system) / 1000 };
}
