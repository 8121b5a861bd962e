import { isMainThread } from "node:worker_threads";
import { settingsOrExit, type Settings } from "@/lib/config";
import { closeDb } from "@/lib/db";
import { migrate } from "@/lib/db/migrate";
import { parseDatabaseUrl } from "@/lib/db/url";
import { jobHandlers, type JobHandler } from "@/lib/jobs/registry";
import { startJobRunner, type JobRunner, type JobRunnerOptions } from "@/lib/jobs/runner";
import { serveJobThread } from "@/lib/jobs/threads";

export interface JobProcessOptions extends JobRunnerOptions {
  /**
   * The URL of the entry module that calls this (`import.meta.url`): the job threads load it
   * too, and it must register the same handlers in them (registerCapabilities() first).
   */
  readonly entry: string | URL;
}

/**
 * A process that runs jobs: the server's job process (lib/server/jobs-main.ts) and `npm run
 * worker`. On the main thread it brings the schema up to date and runs a job runner with the
 * settings' concurrency (per pool), lease, timeout and memory, its handlers in worker threads
 * that load `entry`; it returns the runner (the caller stops it). In such a thread it serves the
 * jobs the runner sends and returns null.
 */
export async function runJobProcess(options: JobProcessOptions, settings: Settings = settingsOrExit()): Promise<JobRunner | null> {
  const handlers: ReadonlyMap<string, JobHandler> = options.handlers ?? jobHandlers();
  if (!isMainThread) {
    serveJobThread(handlers);
    return null;
  }
  await migrate(parseDatabaseUrl(settings.databaseUrl));
  return startJobRunner({
    concurrency: settings.jobConcurrency,
    leaseSeconds: settings.jobLeaseSeconds,
    timeoutSeconds: settings.jobTimeoutSeconds,
    threads: { entry: options.entry, memoryMb: settings.jobMemoryMb },
    ...options,
    handlers,
  });
}

/**
 * `npm run worker`: runJobProcess until SIGTERM/SIGINT, then the runner gives back what it
 * could not finish and the process exits.
 */
export async function runWorkerProcess(options: JobProcessOptions): Promise<void> {
  const settings = settingsOrExit();
  const runner = await runJobProcess(options, settings);
  if (!runner) return;
  console.log(`job worker ${runner.owner} running (${settings.jobConcurrency} at once per pool)`);
  let stopping = false;
  for (const signal of ["SIGTERM", "SIGINT"] as const) {
    process.on(signal, () => {
      if (stopping) process.exit(1);
      stopping = true;
      void runner.stop({ deadline: Date.now() + 25_000 }).then(closeDb).finally(() => process.exit(0));
    });
  }
}
