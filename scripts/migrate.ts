// npm run db:migrate — applies the pending migrations to DATABASE_URL (the app also does it at start-up).
import { settings } from "@/lib/config";
import { migrate } from "@/lib/db/migrate";
import { parseDatabaseUrl } from "@/lib/db/url";

async function main(): Promise<void> {
  const applied = await migrate(parseDatabaseUrl(settings().databaseUrl));
  console.log(applied.length ? `Applied: ${applied.join(", ")}` : "The database is up to date.");
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
