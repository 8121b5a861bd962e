// npm run db:migrate — applies the pending migrations to DATABASE_URL (the app also does it at start-up).
//
// Migration 0010 (records in day blocks, docs/decisions/0019-records-in-blocks.md) changes no
// records itself: the records stored before it stay rows until a job converts them, series by
// series, while the service serves (the server's job runner, or `npm run worker`, runs it; each
// series is converted in one transaction, and a series written before its turn is converted by
// that write). Reads and writes are correct throughout. `npm run db:migrate -- --convert`
// converts them here and now instead (the service may run meanwhile), showing its progress.
// Take a backup first (`npm run backup`): restored into an empty database, it is the database as
// it was, and the next start-up migrates and converts it again.
import { settings } from "@/lib/config";
import { closeDb } from "@/lib/db";
import { migrate } from "@/lib/db/migrate";
import { parseDatabaseUrl } from "@/lib/db/url";
import { convertRecords, rowsLeftToConvert } from "@/lib/records/convert";
import { closeRecords } from "@/lib/records";

async function main(): Promise<void> {
  const applied = await migrate(parseDatabaseUrl(settings().databaseUrl));
  console.log(applied.length ? `Applied: ${applied.join(", ")}` : "The database is up to date.");
  const left = await rowsLeftToConvert();
  if (left.series === 0) return;
  if (!process.argv.includes("--convert")) {
    console.log(`${left.series.toLocaleString("en")} series (${left.records.toLocaleString("en")} records) are still stored as rows. The service converts them`
      + " into day blocks in the background (job records.convert, run by the server's job runner or `npm run worker`); they are read and"
      + " written correctly meanwhile. `npm run db:migrate -- --convert` converts them now.");
    return;
  }
  console.log(`Converting ${left.series.toLocaleString("en")} series (${left.records.toLocaleString("en")} records) into day blocks…`);
  const started = Date.now();
  let last = 0;
  const result = await convertRecords({} as never, {
    signal: new AbortController().signal,
    progress(fraction = 0) {
      if (Date.now() - last < 2000) return;
      last = Date.now();
      console.log(`  ${(100 * fraction).toFixed(0)} % of the series ids, ${((Date.now() - started) / 1000).toFixed(0)} s`);
    },
  });
  console.log(`Converted ${result.series} series (${result.records.toLocaleString("en")} records) in ${((Date.now() - started) / 1000).toFixed(1)} s.`);
  if (result.failed.length) {
    console.log(`Not converted (see the errors above; still read and written as rows): series ${result.failed.join(", ")}.`);
    process.exitCode = 1;
  }
}

main()
  .catch((e) => {
    console.error(e);
    process.exitCode = 1;
  })
  .finally(async () => {
    closeRecords();
    await closeDb();
  });
