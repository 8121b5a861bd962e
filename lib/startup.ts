import { settingsOrExit } from "@/lib/config";
import { migrate } from "@/lib/db/migrate";
import { parseDatabaseUrl } from "@/lib/db/url";
import { secretKey } from "@/lib/auth/secret";
import { loadDemoDataIfEmpty } from "@/lib/demo";
import { onShutdown } from "@/lib/shutdown";

/**
 * Start-up: refuse invalid settings (naming the variable), bring the database schema up to
 * date, make sure a secret key exists, give an empty database the demo data, and start the job
 * runner (unless ENHYDRIS_JOB_RUNNER is false; `npm run worker` runs one in a process of its own).
 */
export async function startup(): Promise<void> {
  const settings = settingsOrExit();
  const applied = await migrate(parseDatabaseUrl(settings.databaseUrl));
  if (applied.length) console.log(`Applied migrations: ${applied.join(", ")}`);
  secretKey();
  if (settings.demoData) {
    const loaded = await loadDemoDataIfEmpty();
    if (loaded) console.log("Loaded the demo data into the empty database.");
  }
  if (settings.jobRunner) {
    const { startJobRunner } = await import("@/lib/jobs/runner");
    const runner = startJobRunner({ concurrency: settings.jobConcurrency, leaseSeconds: settings.jobLeaseSeconds });
    onShutdown(() => runner.stop());
  }
}
