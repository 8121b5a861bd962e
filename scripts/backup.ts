// npm run backup -- --to FILE: a consistent copy of DATABASE_URL taken while the service runs
// (SQLite's online backup API; pg_dump's custom format on PostgreSQL). See lib/db/backup.ts.
import { parseArgs } from "node:util";
import { backup, BackupError } from "@/lib/db/backup";
import { settings } from "@/lib/config";
import { parseDatabaseUrl } from "@/lib/db/url";

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { to: { type: "string" } } });
  if (!values.to) {
    console.error("usage: npm run backup -- --to FILE");
    process.exit(2);
  }
  const started = Date.now();
  const { bytes } = await backup(parseDatabaseUrl(settings().databaseUrl), values.to);
  console.log(`Backed up the database to ${values.to} (${(bytes / 1e6).toFixed(1)} MB in ${((Date.now() - started) / 1000).toFixed(1)} s).`);
}

main().catch((e) => {
  console.error(e instanceof BackupError ? e.message : e);
  process.exit(1);
});
