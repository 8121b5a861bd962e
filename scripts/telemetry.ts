// npm run telemetry -- --station S
// Fetches station S's telemetry now, in the foreground (telemetry.md §5): queues a fetch as
// "Fetch now" does and runs it here with a progress bar, then prints what each sensor stored or
// why it failed. The fetch is a job of the queue (one fetch of a telemetry at a time, across
// processes and instances): when a fetch of it is running elsewhere, this one waits for it.
// Exits 1 when the fetch (or a sensor's) failed, 2 on bad arguments.
import { registerCapabilities } from "@/lib/capabilities";
import { settingsOrExit } from "@/lib/config";
import { closeDb } from "@/lib/db";
import { migrate } from "@/lib/db/migrate";
import { parseDatabaseUrl } from "@/lib/db/url";
import { enqueue, getJob } from "@/lib/jobs/queue";
import { jobHandlers } from "@/lib/jobs/registry";
import { startJobRunner } from "@/lib/jobs/runner";
import { stationAccess } from "@/lib/stations";
import { FETCH_KIND, fetchKey, type FetchSummary, loadTelemetry, telemetryType } from "@/lib/telemetry";

function usage(message: string): never {
  console.error(`${message}\nusage: npm run telemetry -- --station <station id>`);
  process.exit(2);
}

function parseArgs(argv: string[]): { stationId: number } {
  let stationId: number | null = null;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === "--station" || arg.startsWith("--station=")) {
      const value = arg === "--station" ? argv[++i] : arg.slice("--station=".length);
      if (!value || !/^\d+$/.test(value)) usage(`--station needs a station id, not "${value ?? ""}".`);
      stationId = Number(value);
    } else usage(`Unknown argument "${arg}".`);
  }
  if (stationId === null) usage("--station is required.");
  return { stationId };
}

function bar(fraction: number, width = 30): string {
  const full = Math.round(Math.min(1, Math.max(0, fraction)) * width);
  return `[${"#".repeat(full)}${".".repeat(width - full)}] ${(fraction * 100).toFixed(0).padStart(3)}%`;
}

async function main(): Promise<void> {
  const { stationId } = parseArgs(process.argv.slice(2));
  const settings = settingsOrExit();
  registerCapabilities();
  await migrate(parseDatabaseUrl(settings.databaseUrl));
  const telemetry = await loadTelemetry(stationId);
  if (!telemetry) {
    const station = await stationAccess(stationId);
    console.error(station ? `Station ${stationId} has no telemetry.` : `There is no station ${stationId}.`);
    process.exitCode = 1;
    return;
  }
  const total = telemetry.sensors.length;
  console.log(`Fetching ${telemetryType(telemetry.type)?.name ?? telemetry.type} of station ${stationId}: ${total} sensor${total === 1 ? "" : "s"}.`);
  const [jobId] = await enqueue({ kind: FETCH_KIND, key: fetchKey(telemetry.id), maxAttempts: 1 });
  const handler = jobHandlers().get(FETCH_KIND)!;
  const runner = startJobRunner({ handlers: new Map([[FETCH_KIND, handler]]), maintenance: false, concurrency: 1, leaseSeconds: settings.jobLeaseSeconds });
  let interrupted = false;
  process.once("SIGINT", () => {
    interrupted = true;
  });
  const tty = process.stderr.isTTY;
  let job = await getJob(jobId);
  for (;;) {
    job = await getJob(jobId);
    if (!job || job.status === "succeeded" || job.status === "failed" || interrupted) break;
    const local = runner.running().find((r) => r.job.id === jobId);
    if (tty) {
      const fraction = local?.progress ?? 0;
      const words = local ? `sensor ${Math.min(total, Math.round(fraction * total) + 1)} of ${total}` : job.status === "running" ? "running in the service (waiting for it)" : "waiting for a fetch of it to end";
      process.stderr.write(`\r${bar(fraction)} ${words}`.slice(0, process.stderr.columns || 120).padEnd(process.stderr.columns || 120));
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  if (tty) process.stderr.write("\n");
  await runner.stop();
  if (interrupted) {
    console.error("Interrupted: the fetch is left to the service's runners.");
    process.exitCode = 130;
    return;
  }
  if (!job || job.status !== "succeeded") {
    console.error(`The fetch failed: ${job?.error ?? "it no longer exists"}`);
    process.exitCode = 1;
    return;
  }
  const summary = job.result as FetchSummary | { skipped: string };
  if (!("sensors" in summary)) {
    console.log(summary.skipped);
    return;
  }
  for (const s of summary.sensors) {
    console.log(s.status === "ok" ? `ok      sensor ${s.sensor_id}: ${s.records} new record${s.records === 1 ? "" : "s"}` : `FAILED  sensor ${s.sensor_id}: ${s.message}`);
  }
  if (summary.message) console.log(`FAILED  ${summary.message}`);
  console.log(`${summary.records} new record${summary.records === 1 ? "" : "s"} in all.`);
  if (summary.status === "error") process.exitCode = 1;
}

main()
  .catch((e) => {
    console.error(e);
    process.exitCode = 1;
  })
  .finally(() => closeDb());
