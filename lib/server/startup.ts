import { registerCapabilities } from "@/lib/capabilities";
import { settingsOrExit } from "@/lib/config";
import { db } from "@/lib/db";
import { migrate } from "@/lib/db/migrate";
import { parseDatabaseUrl } from "@/lib/db/url";
import { secretKey } from "@/lib/auth/secret";
import { sealStoredCredentials } from "@/lib/replication";
import { loadDemoDataIfEmpty } from "@/lib/server/demo";
import { HOSTS_REQUIRED } from "@/lib/config/hosts.mjs";
import { logger } from "@/lib/observability/logger.mjs";
import { connectMetricSources } from "@/lib/server/metric-sources";
import { onShutdown } from "@/lib/runtime/shutdown";

/**
 * Start-up: refuse invalid settings (naming the variable) and a production server that would
 * take its site's host from requests, bring the database schema up to date, make sure a secret
 * key exists, give an empty database the demo data, start the read replicas' checks, connect the
 * metrics to the database and the queue, and start the job runner (unless ENHYDRIS_JOB_RUNNER is false; `npm run worker` runs
 * one in a process of its own).
 */
export async function startup(): Promise<void> {
  const settings = settingsOrExit();
  registerCapabilities();
  // server.mjs sets localhost for development and the local demo; this catches other servers.
  if (process.env.NODE_ENV === "production" && settings.allowedHosts.length === 0) {
    logger().fatal(HOSTS_REQUIRED);
    process.exit(1);
  }
  // Under the multi-process server (lib/server/cluster.mjs) only the lead worker migrates, loads the
  // demo data and runs the job runner; the followers start once it listens.
  const follower = process.env.ENHYDRIS_CLUSTER_ROLE === "follower";
  if (!follower) {
    const applied = await migrate(parseDatabaseUrl(settings.databaseUrl));
    if (applied.length) logger().info({ migrations: applied }, `Applied migrations: ${applied.join(", ")}`);
  }
  secretKey();
  // Passwords stored before they were encrypted are encrypted now that the key is known.
  if (!follower) await sealStoredCredentials();
  if (settings.demoData && !follower) {
    const loaded = await loadDemoDataIfEmpty();
    if (loaded) logger().info("Loaded the demo data into the empty database.");
  }
  if (settings.databaseReplicaUrls.length) {
    const replicas = db().replicas;
    if (replicas) {
      replicas.start();
      logger().info(`Read replicas: ${replicas.status().map((r) => r.name).join(", ")} (lag limit ${settings.replicaMaxLag} s).`);
    } else {
      logger().warn("DATABASE_REPLICA_URLS is ignored: read replicas need PostgreSQL, and DATABASE_URL is SQLite.");
    }
  }
  connectMetricSources();
  if (settings.jobRunner && !follower) {
    const { startJobRunner } = await import("@/lib/jobs/runner");
    const runner = startJobRunner({ concurrency: settings.jobConcurrency, leaseSeconds: settings.jobLeaseSeconds });
    onShutdown(() => runner.stop());
  }
}
