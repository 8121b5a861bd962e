import { parseSettings, SettingsError } from "@/lib/config";
import { migrate } from "@/lib/db/migrate";
import { parseDatabaseUrl } from "@/lib/db/url";
import { secretKey } from "@/lib/auth/secret";
import { loadDemoDataIfEmpty } from "@/lib/demo";
import { HOSTS_REQUIRED } from "@/lib/http/hosts.mjs";
import { logger } from "@/lib/observability/logger.mjs";
import { connectMetricSources } from "@/lib/observability/sources";

function refuse(message: string): never {
  logger().fatal(message);
  process.exit(1);
}

/**
 * Start-up: refuse invalid settings (naming the variable) and a production server that would
 * take its site's host from requests, bring the database schema up to date, make sure a secret
 * key exists, give an empty database the demo data, and connect the metrics to the database.
 */
export async function startup(): Promise<void> {
  let settings;
  try {
    settings = parseSettings(process.env);
  } catch (e) {
    if (e instanceof SettingsError) refuse(e.message);
    throw e;
  }
  // server.mjs sets localhost for development and the local demo; this catches other servers.
  if (process.env.NODE_ENV === "production" && settings.allowedHosts.length === 0) refuse(HOSTS_REQUIRED);
  const applied = await migrate(parseDatabaseUrl(settings.databaseUrl));
  if (applied.length) logger().info({ migrations: applied }, `Applied migrations: ${applied.join(", ")}`);
  secretKey();
  if (settings.demoData) {
    const loaded = await loadDemoDataIfEmpty();
    if (loaded) logger().info("Loaded the demo data into the empty database.");
  }
  connectMetricSources();
}
