// A process that the records crash test (tests/http/records-crash.test.ts) kills with SIGKILL
// while it writes: DATABASE_URL names the database; MODE=convert converts the series SERIES
// (comma-separated) one by one; MODE=write runs the writes of crashWrites(SEED) on SERIES.
// It prints a line before and after each step.
import { records } from "@/lib/records";
import { crashWrites } from "@/tests/support/records-oracle";

async function main(): Promise<void> {
  const series = (process.env.SERIES ?? "").split(",").map(Number);
  if (process.env.MODE === "convert") {
    for (const id of series) {
      console.log(`converting ${id}`);
      await records().convert!(id);
      console.log(`converted ${id}`);
    }
  } else {
    const writes = crashWrites(Number(process.env.SEED));
    for (const [k, write] of writes.entries()) {
      console.log(`writing ${k}`);
      await write.op(records(), series[0]);
      console.log(`written ${k}`);
    }
  }
  console.log("finished");
  process.exit(0);
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
