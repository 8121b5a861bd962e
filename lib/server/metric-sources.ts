import { db } from "@/lib/db";
import { metrics } from "@/lib/observability/metrics.mjs";
import { queueStats } from "@/lib/jobs/queue";
import { storageUse } from "@/lib/server/storage";

/** Gives the metrics what they read at each collection: the database pool, the read replicas, the job queue and the storage. */
export function connectMetricSources(): void {
  const { sources } = metrics();
  sources.databasePool = () => db().poolUse();
  sources.queue = queueStats;
  sources.replicas = () => db().replicas?.status() ?? [];
  sources.storage = storageUse;
}
