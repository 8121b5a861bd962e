// npm run bench:pages — the server time of the site's pages on the demo data (issue 14: the
// management pages answer in ≤ 150 ms), measured through HTTP against the built server with one
// process, as a logged-in superuser: the median time to the whole HTML of each page over at
// least 15 requests after 3 of warm-up. SQLite, or DATABASE_URL's PostgreSQL server (a scratch
// database on it).
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { reloadSettings } from "@/lib/config";
import { closeDb } from "@/lib/db";
import { createUser } from "@/lib/accounts";
import { siteLogin } from "../tests/support/site-session";
import { isPostgresUrl, ROOT, startServer, withScratchPostgres } from "./support";

const REPEAT = Number(process.env.BENCH_REPEAT ?? 15);
const TARGET_MS = 150;
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

async function measure(label: string, databaseUrl: string, dir: string): Promise<void> {
  const { url, child } = await startServer(databaseUrl, dir, { ENHYDRIS_WORKERS: "1", ENHYDRIS_DEMO_DATA: "1" });
  try {
    process.env.DATABASE_URL = databaseUrl;
    reloadSettings();
    await createUser({ username: "bench", email: "bench@example.com", password: "bench-pages-1", isSuperuser: true, canAddStations: true });
    await closeDb();
    const { jar, error } = await siteLogin(url, "bench", "bench-pages-1");
    if (error) throw new Error(`login: ${error}`);
    const api = async (path: string) => (await fetch(url + path)).json();
    const station = (await api("/api/stations/?page_size=1")).results[0];
    const group = (await api(`/api/stations/${station.id}/timeseriesgroups/`)).results[0];
    const series = (await api(`/api/stations/${station.id}/timeseriesgroups/${group.id}/timeseries/`)).results[0];
    const groupPath = `/manage/stations/${station.id}/timeseriesgroups/${group.id}/`;
    const pages: [string, string][] = [
      ["manage home", "/manage/"],
      ["new station", "/manage/stations/new/"],
      ["station edit", `/manage/stations/${station.id}/`],
      ["group edit (series and processes)", groupPath],
      ["upload", `${groupPath}timeseries/${series.id}/upload/`],
      ["lookups", "/manage/lookups/"],
      ["a lookup's list", "/manage/lookups/stationtypes/"],
      ["users", "/manage/users/"],
      ["synoptic groups", "/manage/synoptic/"],
      ["replication", "/manage/replication/"],
      ["public: home (map and list)", "/"],
      ["public: station", `/stations/${station.id}/`],
      ["public: group with its chart", `/stations/${station.id}/timeseriesgroups/${group.id}/`],
    ];
    const rows: [string, number][] = [];
    for (const [name, path] of pages) {
      const get = async () => {
        const t = performance.now();
        const response = await fetch(url + path, { headers: { Cookie: jar.header() }, redirect: "manual" });
        const text = await response.text();
        if (response.status !== 200) throw new Error(`${response.status} ${path}: ${text.slice(0, 200)}`);
        return performance.now() - t;
      };
      for (let i = 0; i < 3; i++) await get();
      const times: number[] = [];
      for (let i = 0; i < REPEAT; i++) times.push(await get());
      rows.push([`${name} (${path})`, median(times)]);
    }
    const w = Math.max(...rows.map(([name]) => name.length));
    console.log(`\n${label}: pages on the demo data, as a superuser (median of ${REPEAT}, one server process)`);
    for (const [name, ms] of rows) console.log(`${name.padEnd(w)} | ${`${ms.toFixed(1)} ms`.padStart(9)} | ≤ ${TARGET_MS} ms ${ms <= TARGET_MS ? " ok" : " MISSED"}`);
  } finally {
    child.kill("SIGTERM");
    await new Promise((r) => child.once("exit", r));
  }
}

async function main(): Promise<void> {
  if (!existsSync(join(ROOT, process.env.ENHYDRIS_DIST_DIR || ".next", "BUILD_ID"))) throw new Error("Run `npm run build` first.");
  const given = process.env.DATABASE_URL;
  const dir = mkdtempSync(join(tmpdir(), "enhydris-bench-pages-"));
  try {
    await measure("SQLite", `file:${join(dir, "pages.db")}`, dir);
    if (isPostgresUrl(given)) await withScratchPostgres(given, "enhydris_bench_pages", (url) => measure("PostgreSQL", url, dir));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
