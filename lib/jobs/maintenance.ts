import type { JobHandler } from "@/lib/jobs/kinds";
import { enqueue, pruneJobs } from "@/lib/jobs/queue";
import { logError } from "@/lib/log";

/** The queue's own upkeep: the run history is pruned hourly (the newest 100 per key, 90 days). */
export const PRUNE_KIND = "jobs.prune";
export const PRUNE_KEY = "jobs:prune";
const EVERY = 3_600_000;

export const pruneHistory: JobHandler = async () => ({ deleted: await pruneJobs() });

/**
 * Every runner that takes the prune kind enqueues it a minute after it starts and then hourly;
 * with several runners the enqueues coalesce.
 */
export function scheduleMaintenance(handlers: ReadonlyMap<string, JobHandler>): { stop(): void } {
  if (!handlers.has(PRUNE_KIND)) return { stop() {} };
  const schedule = () => {
    enqueue({ kind: PRUNE_KIND, key: PRUNE_KEY, delayMs: 60_000 }).catch((e) => logError("scheduling the job history pruning", e));
  };
  schedule();
  const timer = setInterval(schedule, EVERY);
  timer.unref();
  return { stop: () => clearInterval(timer) };
}
