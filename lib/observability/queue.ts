import type { QueueStats } from "@/lib/observability/metrics.mjs";

export type { QueueStats };

/**
 * The job queue's numbers for `api/health/` and the metrics (depth, running jobs, failures over
 * the last 24 hours, age of the oldest due job). The durable queue (lib/jobs) is being built:
 * until it exists there is no queue, and this returns null (health then shows `"queue":null`
 * and the queue gauges stay at 0). Once lib/jobs has `queueStats()`, return it here.
 */
export async function jobQueueStats(): Promise<QueueStats | null> {
  return null;
}
