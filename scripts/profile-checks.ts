// tsx scripts/profile-checks.ts [sqlite|postgres-url] — times the phases of a checks run from scratch over 1,051,200 records.
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { reloadSettings } from "@/lib/config";
import { closeDb } from "@/lib/db";
import { migrate } from "@/lib/db/migrate";
import { parseDatabaseUrl } from "@/lib/db/url";
import { records } from "@/lib/records";
import { type ChecksConfig, EMPTY, readRecords, runChecks } from "@/lib/processing";
import { MIN_INSTANT, MAX_INSTANT } from "@/lib/formats/date-param";
import { group, series, station } from "../tests/support/fixtures";

const N = 1_051_200;
const START = Date.UTC(2005, 0, 1) / 1000;

async function main() {
  const url = process.argv[2] ?? `file:${join(mkdtempSync(join(tmpdir(), "prof-")), "p.db")}`;
  await migrate(parseDatabaseUrl(url));
  process.env.DATABASE_URL = url;
  reloadSettings();
  const g = await group(await station());
  const src = await series(g, { type: "Initial", timeStep: "10min" });
  const dst = await series(g, { type: "Checked", timeStep: "10min" });
  const timestamps = new Float64Array(N), values = new Float64Array(N), flags = new Array<string>(N).fill("");
  for (let i = 0; i < N; i++) { timestamps[i] = START + i * 600; values[i] = Number((15 + 10 * Math.sin(i / 4000) + ((i * 7919) % 100) / 100).toFixed(2)); }
  await records().write(src, { timestamps, values, flags }, { mode: "append", validate: () => [] });
  const config: ChecksConfig = {
    range_check: { lower_bound: -20, upper_bound: 45, soft_lower_bound: -10, soft_upper_bound: 40 },
    rate_of_change_check: { symmetric: true, remove_failing_values: false, thresholds: [{ delta_t: "10min", allowed_diff: 3 }, { delta_t: "1h", allowed_diff: 8 }] },
  };
  for (let k = 0; k < 4; k++) {
    const c0 = process.cpuUsage();
    const t0 = performance.now();
    // As a run does (lib/processing/run.ts): the target is read while the source is.
    const stored = process.env.NO_STORED ? Promise.resolve(null) : records().stored(dst, MIN_INSTANT);
    const input = await readRecords(src, MIN_INSTANT, MAX_INSTANT);
    const t1 = performance.now();
    const out = runChecks(config, input, EMPTY, -Infinity);
    const t2 = performance.now();
    await records().replace(dst, Math.min(MIN_INSTANT, out.timestamps[0]), out, { stored: await stored });
    const t3 = performance.now();
    const cpu = process.cpuUsage(c0);
    console.log(`read ${(t1 - t0).toFixed(0)} ms, checks ${(t2 - t1).toFixed(0)} ms, replace ${(t3 - t2).toFixed(0)} ms, total ${(t3 - t0).toFixed(0)} ms (CPU of all threads ${((cpu.user + cpu.system) / 1000).toFixed(0)} ms)`);
  }
  await closeDb();
}
main().catch((e) => { console.error(e); process.exit(1); });
