import { registerCapabilities } from "@/lib/capabilities";
import { settingsOrExit } from "@/lib/config";
import { migrate } from "@/lib/db/migrate";
import { startReplicaChecks } from "@/lib/db/status";
import { parseDatabaseUrl } from "@/lib/db/url";
import { secretKey } from "@/lib/auth/secret";
import { sealStoredCredentials } from "@/lib/replication";
import { loadDemoDataIfEmpty } from "@/lib/demo";
import { HOSTS_REQUIRED } from "@/lib/config/hosts.mjs";
import { logger } from "@/lib/observability/logger.mjs";
import { connectMetricSources } from "@/lib/server/metric-sources";

/**
 * Start-up of a web process (Next's instrumentation): refuse invalid settings (naming the
 * variable) and a production server that would take its site's host from requests, bring the
 * database schema up to date, make sure a secret key exists, give an empty database the demo
 * data, start the read replicas' checks, and connect the metrics to the database and the queue.
 * No job runs in a web process: the server runs them in its job process (lib/server/job-process.ts).
 */
export async function startup(): Promise<void> {
  const settings = settingsOrExit();
  registerCapabilities();
  // The server (lib/server/main.ts) sets localhost for development and the local demo; this catches other servers.
  if (process.env.NODE_ENV === "production" && settings.allowedHosts.length === 0) {
    logger().fatal(HOSTS_REQUIRED);
    process.exit(1);
  }
  // Under the multi-process server (lib/server/cluster.ts) only the lead worker migrates and loads
  // the demo data; the followers and the job process start once it listens.
  const follower = process.env.ENHYDRIS_CLUSTER_ROLE === "follower";
  if (!follower) {
    const applied = await migrate(parseDatabaseUrl(settings.databaseUrl));
    if (applied.length) logger().info({ migrations: applied }, `Applied migrations: ${applied.join(", ")}`);
    const { queueConversionIfNeeded } = await import("@/lib/records/convert");
    if (await queueConversionIfNeeded()) logger().info("Records stored as rows remain: their conversion into day blocks is queued (docs/decisions/0019).");
  }
  secretKey();
  // Passwords stored before they were encrypted are encrypted now that the key is known.
  if (!follower) await sealStoredCredentials();
  if (settings.demoData && !follower) {
    const loaded = await loadDemoDataIfEmpty();
    if (loaded) logger().info("Loaded the demo data into the empty database.");
  }
  if (settings.databaseReplicaUrls.length) {
    const replicas = startReplicaChecks();
    if (replicas) {
      logger().info(`Read replicas: ${replicas.join(", ")} (lag limit ${settings.replicaMaxLag} s).`);
    } else {
      logger().warn("DATABASE_REPLICA_URLS is ignored: read replicas need PostgreSQL, and DATABASE_URL is SQLite.");
    }
  }
  connectMetricSources();
}
