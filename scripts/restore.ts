// npm run restore -- --from FILE: restores a backup of `npm run backup` into DATABASE_URL, which
// must be an empty database (a new SQLite file, or a new PostgreSQL database). Start the service
// on it afterwards: it applies any newer migrations. See lib/db/backup.ts.
import { parseArgs } from "node:util";
import { BackupError, restore } from "@/lib/db/backup";
import { settings } from "@/lib/config";
import { parseDatabaseUrl } from "@/lib/db/url";

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { from: { type: "string" } } });
  if (!values.from) {
    console.error("usage: npm run restore -- --from FILE");
    process.exit(2);
  }
  await restore(parseDatabaseUrl(settings().databaseUrl), values.from);
  console.log(`Restored ${values.from} into the database.`);
}

main().catch((e) => {
  console.error(e instanceof BackupError ? e.message : e);
  process.exit(1);
});
