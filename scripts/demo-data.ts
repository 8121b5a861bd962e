// npm run demo-data — loads the demo data into an empty database (stations, series, a year of records).
import { registerCapabilities } from "@/lib/capabilities";
import { closeDb } from "@/lib/db";
import { settings } from "@/lib/config";
import { migrate } from "@/lib/db/migrate";
import { parseDatabaseUrl } from "@/lib/db/url";
import { loadDemoDataIfEmpty } from "@/lib/demo";

async function main(): Promise<void> {
  registerCapabilities();
  try {
    await migrate(parseDatabaseUrl(settings().databaseUrl));
    console.log((await loadDemoDataIfEmpty()) ? "Loaded the demo data." : "The database is not empty; nothing loaded.");
  } finally {
    await closeDb();
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
