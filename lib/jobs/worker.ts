import { settingsOrExit } from "@/lib/config";
import { closeDb } from "@/lib/db";
import { migrate } from "@/lib/db/migrate";
import { parseDatabaseUrl } from "@/lib/db/url";
import { startJobRunner, type JobRunnerOptions } from "@/lib/jobs/runner";
import { onShutdown, runShutdownHooks } from "@/lib/runtime/shutdown";

/**
 * A process that only runs jobs (`npm run worker`): brings the schema up to date, runs a job
 * runner with the settings' concurrency and lease until SIGTERM/SIGINT, then gives back what
 * it could not finish and exits.
 */
export async function runWorkerProcess(options: JobRunnerOptions = {}): Promise<void> {
  const settings = settingsOrExit();
  await migrate(parseDatabaseUrl(settings.databaseUrl));
  const runner = startJobRunner({ concurrency: settings.jobConcurrency, leaseSeconds: settings.jobLeaseSeconds, ...options });
  onShutdown(() => runner.stop());
  console.log(`job worker ${runner.owner} running (${settings.jobConcurrency} at once)`);
  let stopping = false;
  for (const signal of ["SIGTERM", "SIGINT"] as const) {
    process.on(signal, () => {
      if (stopping) process.exit(1);
      stopping = true;
      void runShutdownHooks().then(closeDb).finally(() => process.exit(0));
    });
  }
}
