// The job process (lib/server/job-process.ts forks it; docs/decisions/0009-job-queue.md): the
// job runner on the main thread, the handlers in worker threads that load this same module
// (bundled as jobs.mjs beside the server's main.mjs by scripts/build-server.mjs).
import { getPriority, setPriority } from "node:os";
import { isMainThread } from "node:worker_threads";
import { registerCapabilities } from "@/lib/capabilities";
import { parseSettings, SettingsError, type Settings } from "@/lib/config";
import { closeDb } from "@/lib/db";
import { JOB_POOLS } from "@/lib/jobs/registry";
import { runJobProcess } from "@/lib/jobs/worker";
import { logger, routeConsoleToLogger, setupLogger } from "@/lib/observability/logger.mjs";
import { JOB_PROCESS_MESSAGE } from "@/lib/server/job-process";

const dev = process.env.NODE_ENV === "development";
await setupLogger({ pretty: dev });
// In production every line of output is a JSON object, the handlers' own included.
if (!dev) routeConsoleToLogger();
registerCapabilities();

let settings: Settings;
try {
  settings = parseSettings(process.env);
} catch (e) {
  if (!(e instanceof SettingsError)) throw e;
  logger().fatal(e.message);
  process.exit(1);
}

if (isMainThread && settings.jobNice > 0) {
  // Background work yields the CPU to the processes that serve HTTP (telemetry's bench: the API's
  // p99 while 1,000 fetches run): so many steps nicer than the server that forked it. Set before
  // the handlers' threads start: they inherit it.
  try {
    setPriority(Math.min(19, getPriority() + settings.jobNice));
  } catch (e) {
    logger().warn(`job process: its priority could not be lowered: ${e instanceof Error ? e.message : String(e)}`);
  }
}

if (!isMainThread) {
  await runJobProcess({ entry: import.meta.url }, settings);
} else {
  const runner = (await runJobProcess({ entry: import.meta.url }, settings))!;
  logger().info(`job process ${runner.owner} running: ${settings.jobConcurrency} job(s) at once in each of the pools ${JOB_POOLS.join(", ")}`);

  let stopping = false;
  const stop = (deadline: number) => {
    if (stopping) return;
    stopping = true;
    logger().info(`job process stopping (${runner.running().length} job(s) running)`);
    void runner.stop({ deadline })
      .then(closeDb)
      .catch((e) => logger().error(`job process: stopping: ${e instanceof Error ? e.message : String(e)}`))
      .finally(() => process.exit(0));
  };
  process.on("message", (message: { type?: string; deadline?: number } | null) => {
    if (message?.type === JOB_PROCESS_MESSAGE.wake) runner.wake();
    else if (message?.type === JOB_PROCESS_MESSAGE.stop) stop(Number(message.deadline) || Date.now() + 25_000);
  });
  // The server says when to stop: after its web processes have drained (a request in flight may
  // wait for a job). A signal sent to the whole group (Ctrl-C, a service manager) is left to it,
  // unless the server is gone; a second signal exits at once.
  let signals = 0;
  for (const signal of ["SIGTERM", "SIGINT"] as const) {
    process.on(signal, () => {
      if (!process.connected) stop(Date.now() + 25_000);
      else if (++signals > 1) process.exit(1);
    });
  }
  process.on("disconnect", () => stop(Date.now() + 25_000));
}
