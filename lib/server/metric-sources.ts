import { databasePoolUse, replicaStatus } from "@/lib/db/status";
import { metrics } from "@/lib/observability/metrics.mjs";
import { queueStats } from "@/lib/jobs/queue";
import { storageUse } from "@/lib/server/storage";

/** Gives the metrics what they read at each collection: the database pool, the read replicas, the job queue and the storage. */
export function connectMetricSources(): void {
  const { sources } = metrics();
  sources.databasePool = databasePoolUse;
  sources.queue = queueStats;
  sources.replicas = replicaStatus;
  sources.storage = storageUse;
}
