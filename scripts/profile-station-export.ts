// tsx scripts/profile-station-export.ts [postgres-url] — the memory that the station export
// (GET stations/csv/, lib/stations/export.ts) of 10,000 stations takes in this process:
// peak resident size over the size before, as npm run bench measures the server's. With a
// postgres:// URL it makes (and drops) its own scratch database on that server.
import { readStationQuery, stationExportZip } from "@/lib/stations";
import { closeDb } from "@/lib/db";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { isPostgresUrl, prepareDatabase, withScratchPostgres } from "./support";

async function measure(url: string): Promise<void> {
  await prepareDatabase(url, "export");
  for (let run = 0; run < 4; run++) {
    global.gc?.();
    const before = process.memoryUsage().rss;
    let peak = before;
    const timer = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 5);
    const t = performance.now();
    const c = process.cpuUsage();
    let bytes = 0;
    const reader = stationExportZip(readStationQuery(new URLSearchParams())).getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      bytes += value.byteLength;
      peak = Math.max(peak, process.memoryUsage().rss);
    }
    clearInterval(timer);
    const cpu = process.cpuUsage(c);
    console.log(`export ${(bytes / 1e6).toFixed(2)} MB zip: ${(performance.now() - t).toFixed(0)} ms, CPU ${((cpu.user + cpu.system) / 1000).toFixed(0)} ms, RSS growth ${((peak - before) / 1e6).toFixed(1)} MB`);
  }
  await closeDb();
}

async function main() {
  const given = process.argv[2];
  if (isPostgresUrl(given)) await withScratchPostgres(given, "enhydris_profile_export", measure);
  else await measure(`file:${join(mkdtempSync(join(tmpdir(), "prof-export-")), "s.db")}`);
}
main().catch((e) => { console.error(e); process.exit(1); });
