import { upkeepTasks, type JobHandler } from "@/lib/jobs/registry";
import { enqueue, pruneJobs } from "@/lib/jobs/queue";
import { logError } from "@/lib/observability/log";

/**
 * The hourly upkeep of the tables that would otherwise grow for ever: the job run history (the
 * newest 100 per key, 90 days) and what the capabilities register (site sessions past their
 * lifetime, login failures older than the throttle window, early-warning e-mails sent more
 * than an hour ago, …). Its result counts the rows deleted per table.
 */
export const PRUNE_KIND = "jobs.prune";
export const PRUNE_KEY = "jobs:prune";
const EVERY = 3_600_000;

export const upkeep: JobHandler = async () => {
  const deleted: Record<string, number> = { job: await pruneJobs() };
  for (const task of upkeepTasks()) deleted[task.name] = await task.run();
  return { deleted };
};

/**
 * Every runner that takes the prune kind enqueues it a minute after it starts and then hourly;
 * with several runners the enqueues coalesce.
 */
export function scheduleMaintenance(handlers: ReadonlyMap<string, JobHandler>): { stop(): void } {
  if (!handlers.has(PRUNE_KIND)) return { stop() {} };
  const schedule = () => {
    enqueue({ kind: PRUNE_KIND, key: PRUNE_KEY, delayMs: 60_000 }).catch((e) => logError("scheduling the hourly upkeep", e));
  };
  schedule();
  const timer = setInterval(schedule, EVERY);
  timer.unref();
  return { stop: () => clearInterval(timer) };
}
