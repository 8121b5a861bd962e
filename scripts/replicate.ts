// npm run replicate -- --from URL [--username U --password P | --token T] [--query Q] [--dry-run] [--prune]
// Copies the stations of another instance (matching the query) and their data into this
// instance's database (DATABASE_URL), in the foreground with a progress bar (replication.md).
// The id map is kept under a replication source of that URL and query (created when missing),
// so that the next run copies only what is new.
import { parseArgs } from "node:util";
import { registerCapabilities } from "@/lib/capabilities";
import { settingsOrExit } from "@/lib/config";
import { closeDb } from "@/lib/db";
import { migrate } from "@/lib/db/migrate";
import { parseDatabaseUrl } from "@/lib/db/url";
import { commandLineSource, normalizeSourceUrl, replicate, type RunProgress, SourceError } from "@/lib/replication";

const USAGE = "usage: npm run replicate -- --from URL [--username U --password P | --token T] [--query Q] [--dry-run] [--prune]";

function fail(message: string): never {
  console.error(message);
  process.exit(2);
}

const thousands = (n: number) => Math.round(n).toLocaleString("en-US");

function duration(seconds: number): string {
  if (!Number.isFinite(seconds)) return "?";
  if (seconds < 90) return `${Math.ceil(seconds)} s`;
  if (seconds < 5400) return `${Math.round(seconds / 60)} min`;
  return `${(seconds / 3600).toFixed(1)} h`;
}

/** Draws the progress on standard error: one redrawn line on a terminal, a line every few seconds otherwise. */
class ProgressBar {
  private readonly tty = process.stderr.isTTY === true;
  private phase: RunProgress["phase"] | null = null;
  private started = 0;
  private lastPrint = 0;
  private lastLine = "";

  update(p: RunProgress): void {
    const now = performance.now();
    if (p.phase !== this.phase) {
      this.finishLine();
      this.phase = p.phase;
      this.started = now;
      this.lastPrint = 0;
    }
    const seconds = (now - this.started) / 1000;
    let fraction: number;
    let text: string;
    if (p.phase === "objects") {
      fraction = p.total ? p.done / p.total : 1;
      const rate = seconds > 0 ? p.done / seconds : 0;
      text = `${p.done}/${p.total} stations  ${rate.toFixed(1)}/s`;
    } else {
      fraction = p.recordsExpected ? Math.min(1, p.records / p.recordsExpected) : p.total ? p.done / p.total : 1;
      const rate = seconds > 0 ? p.records / seconds : 0;
      text = `${p.done}/${p.total} series  ${thousands(p.records)}${p.recordsExpected !== null ? `/${thousands(p.recordsExpected)}` : ""} records  ${thousands(rate)}/s`;
    }
    const left = fraction > 0 && fraction < 1 ? `  ~${duration((seconds / fraction) * (1 - fraction))} left` : "";
    const width = 24;
    const filled = Math.round(fraction * width);
    this.lastLine = `${p.phase.padEnd(7)} [${"#".repeat(filled)}${"-".repeat(width - filled)}] ${text}${left}`;
    if (this.tty) {
      if (now - this.lastPrint > 100 || fraction === 1) {
        process.stderr.write(`\r${this.lastLine}\x1b[K`);
        this.lastPrint = now;
      }
    } else if (now - this.lastPrint > 2000) {
      process.stderr.write(`${this.lastLine}\n`);
      this.lastPrint = now;
    }
  }

  finishLine(): void {
    if (this.phase === null) return;
    process.stderr.write(this.tty ? `\r${this.lastLine}\x1b[K\n` : `${this.lastLine}\n`);
  }
}

async function main(): Promise<void> {
  let args;
  try {
    args = parseArgs({
      options: {
        from: { type: "string" }, username: { type: "string" }, password: { type: "string" }, token: { type: "string" },
        query: { type: "string", default: "" }, "dry-run": { type: "boolean", default: false }, prune: { type: "boolean", default: false },
      },
      strict: true,
    }).values;
  } catch (e) {
    fail(`${(e as Error).message}\n${USAGE}`);
  }
  const url = args.from ? normalizeSourceUrl(args.from) : null;
  if (!url) fail(args.from ? `Not an http(s) URL: ${args.from}\n${USAGE}` : USAGE);
  if (args.token && (args.username || args.password)) fail(`Give either --username and --password or --token, not both.\n${USAGE}`);
  if (args.password && !args.username) fail(`--password needs --username.\n${USAGE}`);

  const settings = settingsOrExit();
  registerCapabilities();
  await migrate(parseDatabaseUrl(settings.databaseUrl));
  const sourceId = await commandLineSource(url, args.query ?? "");
  const bar = new ProgressBar();
  const started = performance.now();
  console.error(`Replicating ${url}${args.query ? ` (stations matching "${args.query}")` : ""}${args["dry-run"] ? " — dry run, nothing is written" : ""}`);
  try {
    const report = await replicate({
      sourceId, url, query: args.query ?? "",
      credentials: { username: args.username, password: args.password, token: args.token },
      dryRun: args["dry-run"], prune: args.prune, onProgress: (p) => bar.update(p),
    });
    bar.finishLine();
    const seconds = (performance.now() - started) / 1000;
    const verb = report.dry_run ? "would be " : "";
    console.log(`${report.dry_run ? "Dry run: " : ""}${report.created} ${verb}created, ${report.updated} ${verb}updated, ${report.unchanged} unchanged, `
      + `${report.deleted} deleted at the source${args.prune && !report.dry_run ? " (deleted here)" : ""}; `
      + `${thousands(report.records)} records ${report.dry_run ? "to copy" : "copied"}${report.recopied ? ` (${report.recopied} series copied again from their first record that changed at the source)` : ""}; `
      + `${report.warnings.length} warnings; ${duration(seconds)}.`);
    for (const w of report.warnings) console.log(`warning: ${w}`);
    if (!report.dry_run && report.created + report.updated + report.deleted + report.records === 0) console.log("Nothing new at the source: nothing was written.");
  } catch (error) {
    bar.finishLine();
    if (error instanceof SourceError) {
      console.error(`Replication failed: ${error.message}`);
      console.error("What was copied before the failure is kept; run the command again to continue.");
      process.exitCode = 1;
      return;
    }
    throw error;
  } finally {
    await closeDb();
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
