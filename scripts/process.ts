// npm run process -- --group G [--from-scratch]
// Runs the processes of time series group G in the foreground (processing.md §4): queues a run
// of each enabled one (from scratch on request) and runs them here, with a progress bar, until
// none of them has a run to do. The service's runners may take some of them (they are waited
// for), and this one may take runs of other processes that come due meanwhile.
// Exits 1 when a run failed, 2 on bad arguments.
import { registerCapabilities } from "@/lib/capabilities";
import { settingsOrExit } from "@/lib/config";
import { closeDb } from "@/lib/db";
import { migrate } from "@/lib/db/migrate";
import { parseDatabaseUrl } from "@/lib/db/url";
import { keysWithWorkLeft, latestJobs } from "@/lib/jobs/queue";
import { startJobRunner } from "@/lib/jobs/runner";
import {
  describeProcess, PROCESS_KIND, processesPage, processKey, processRunHandler, queueGroupRuns, type RunResult,
} from "@/lib/processing";
import { groupUnitSymbol } from "@/lib/series";

function usage(message: string): never {
  console.error(`${message}\nusage: npm run process -- --group <group id> [--from-scratch]`);
  process.exit(2);
}

function parseArgs(argv: string[]): { groupId: number; fromScratch: boolean } {
  let groupId: number | null = null;
  let fromScratch = false;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === "--from-scratch") fromScratch = true;
    else if (arg === "--group" || arg.startsWith("--group=")) {
      const value = arg === "--group" ? argv[++i] : arg.slice("--group=".length);
      if (!value || !/^\d+$/.test(value)) usage(`--group needs a group id, not "${value ?? ""}".`);
      groupId = Number(value);
    } else usage(`Unknown argument "${arg}".`);
  }
  if (groupId === null) usage("--group is required.");
  return { groupId, fromScratch };
}

function bar(fraction: number, width = 30): string {
  const full = Math.round(Math.min(1, Math.max(0, fraction)) * width);
  return `[${"#".repeat(full)}${".".repeat(width - full)}] ${(fraction * 100).toFixed(0).padStart(3)}%`;
}

async function main(): Promise<void> {
  const { groupId, fromScratch } = parseArgs(process.argv.slice(2));
  const settings = settingsOrExit();
  registerCapabilities();
  await migrate(parseDatabaseUrl(settings.databaseUrl));
  const unit = await groupUnitSymbol(groupId);
  if (unit === null) {
    console.error(`There is no time series group ${groupId}.`);
    process.exit(1);
  }
  const processes = (await processesPage(groupId, 0, 1000)).filter((p) => p.enabled);
  if (processes.length === 0) {
    console.log(`Group ${groupId} has no enabled processes.`);
    return;
  }
  const names = new Map(processes.map((p) => [processKey(p.id), `#${p.id} ${describeProcess(p.definition, { unit })}`]));
  const keys = [...names.keys()];
  await queueGroupRuns(groupId, fromScratch);
  console.log(`Running ${keys.length} process${keys.length === 1 ? "" : "es"} of group ${groupId}${fromScratch ? " from scratch" : ""}.`);

  const runner = startJobRunner({ handlers: new Map([[PROCESS_KIND, processRunHandler]]), maintenance: false, leaseSeconds: settings.jobLeaseSeconds });
  let interrupted = false;
  process.once("SIGINT", () => {
    interrupted = true;
  });
  const tty = process.stderr.isTTY;
  const finished = new Set<string>();
  for (;;) {
    const pending = await keysWithWorkLeft(keys);
    for (const key of keys) {
      if (!pending.has(key) && !finished.has(key)) {
        finished.add(key);
        if (!tty) console.error(`done: ${names.get(key)}`);
      }
      if (pending.has(key)) finished.delete(key);
    }
    const local = runner.running().filter((r) => names.has(r.job.key));
    const fraction = (finished.size + local.reduce((sum, r) => sum + r.progress, 0)) / keys.length;
    if (tty) {
      const current = local.length ? `running ${names.get(local[0].job.key)}` : pending.size ? "waiting for a runner" : "done";
      process.stderr.write(`\r${bar(fraction)} ${finished.size}/${keys.length} ${current}`.slice(0, process.stderr.columns || 120).padEnd(process.stderr.columns || 120));
    }
    if (pending.size === 0 || interrupted) break;
    await new Promise((r) => setTimeout(r, 100));
  }
  if (tty) process.stderr.write("\n");
  await runner.stop();
  if (interrupted) {
    console.error("Interrupted: the runs not done are left queued for the service's runners.");
    process.exitCode = 130;
    return;
  }

  let failed = 0;
  const latest = await latestJobs(keys);
  for (const key of keys) {
    const job = latest.get(key);
    const result = (job?.result ?? null) as RunResult | null;
    if (job?.status === "succeeded") {
      console.log(`ok      ${names.get(key)}: ${result?.records_written ?? 0} records written ${result?.from ? `from ${result.from}` : "from scratch"}${result?.note ? ` (${result.note})` : ""}`);
    } else {
      failed++;
      console.log(`FAILED  ${names.get(key)}: ${job?.error ?? "not run"}${job?.status === "queued" ? " (it will be retried)" : ""}`);
    }
  }
  if (failed) process.exitCode = 1;
}

main()
  .catch((e) => {
    console.error(e);
    process.exitCode = 1;
  })
  .finally(() => closeDb());
