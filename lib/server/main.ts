// The server (`npm start` runs `node server.mjs`, which loads this module's bundle, built by
// `npm run build` with scripts/build-server.mjs):
//   node server.mjs          production; refuses to start without ENHYDRIS_SITE_URL or
//                            ENHYDRIS_ALLOWED_HOSTS
//   node server.mjs --demo   the same, answering to localhost when no host is set (`npm run serve`)
//   node server.mjs --dev    development, with hot reloading (localhost by default too)
// In production it serves with ENHYDRIS_WORKERS web processes (default: the machine's cores;
// lib/server/cluster.ts) and runs the job queue's jobs in a job process of its own
// (lib/server/job-process.ts); with 1 worker, and in development, it serves in this one process,
// which runs the job process itself. The Next bundle and this server share what they must through
// lib/runtime/bridge.ts; everything that depends on Next's internals is in lib/server/next-internals.ts.
import cluster from "node:cluster";
import { fileURLToPath } from "node:url";
import { parseSettings, SettingsError } from "@/lib/config";
import { serverHosts } from "@/lib/config/hosts.mjs";
import { routeConsoleToLogger, setupLogger } from "@/lib/observability/logger.mjs";
import { runPrimary } from "@/lib/server/cluster";
import { superviseJobProcess } from "@/lib/server/job-process";
import { markBodyFaults } from "@/lib/server/next-internals";
import { serveHere } from "@/lib/server/serve";

const dev = process.argv.includes("--dev");
const demo = process.argv.includes("--demo");
const log = await setupLogger({ pretty: dev });
// In production every line of output is a JSON object, Next's own messages included.
if (!dev) routeConsoleToLogger();
markBodyFaults();

function refuse(message: string): never {
  log.fatal(message);
  process.exit(1);
}

// The hosts this server answers to. Development and the demo default to localhost; the app
// (lib/config) reads the same list from the environment.
const hostSetting = serverHosts(process.env, dev || demo);
if ("error" in hostSetting) refuse(hostSetting.error);
if (hostSetting.defaulted) {
  process.env.ENHYDRIS_ALLOWED_HOSTS = hostSetting.hosts.join(",");
  if (cluster.isPrimary) log.info(`No ENHYDRIS_SITE_URL or ENHYDRIS_ALLOWED_HOSTS: answering to ${hostSetting.hosts.join(", ")} only.`);
}

let settings;
try {
  settings = parseSettings(process.env);
} catch (e) {
  if (e instanceof SettingsError) refuse(e.message);
  throw e;
}

/** The job process's bundle, built beside this one. */
const jobsEntry = settings.jobRunner ? fileURLToPath(new URL("./jobs.mjs", import.meta.url)) : null;

if (cluster.isPrimary && !dev && settings.workers > 1) {
  await runPrimary({ workers: settings.workers, port: settings.port, hostname: settings.hostnameBind, log, jobs: jobsEntry });
} else {
  await serveHere({
    settings, dev, log, clustered: cluster.isWorker,
    jobs: cluster.isWorker || !jobsEntry ? null : () => superviseJobProcess({ entry: jobsEntry, dev, log }),
  });
}
