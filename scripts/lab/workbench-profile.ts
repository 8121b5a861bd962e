// Where the workbench's time to interactive goes (corrections.md §4): a year of 10-minute records
// with two compared series, on a scratch SQLite database; prints the browser's milestones.
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { closeDb } from "@/lib/db";
import { siteLogin } from "../../tests/support/site-session";
import { CHROMIUM_ARGS } from "../chart-marks";
import { prepareDatabase, startServer, stopServer } from "../support";
import { recordsBody } from "../upload-body";

async function main() {
  const dir = mkdtempSync(join(tmpdir(), "wbprof-"));
  const databaseUrl = `file:${join(dir, "db.sqlite3")}`;
  const token = await prepareDatabase(databaseUrl, "bench");
  await closeDb();
  const { url, child } = await startServer(databaseUrl, dir, { ENHYDRIS_WORKERS: "1" });
  try {
    const auth = { Authorization: `Token ${token}` };
    const ids: number[] = [];
    let group = 0;
    for (let i = 0; i < 3; i++) {
      const created = await (await fetch(`${url}/api/stations/1/timeseries/`, { method: "POST", headers: { ...auth, "Content-Type": "application/json" },
        body: JSON.stringify({ precision: 1, variable: 1, unit_of_measurement: 1, time_step: "10min", name: "Bench" }) })).json();
      group = created.timeseries_group;
      ids.push(created.id);
      const r = await fetch(`${url}/api/stations/1/timeseries/${created.id}/data/`, { method: "POST", headers: { ...auth, "Content-Type": "application/x-www-form-urlencoded" },
        body: recordsBody(52_560 * 2, Date.UTC(2009, 0, 1) / 1000) as unknown as BodyInit });
      if (!r.ok) throw new Error(await r.text());
    }
    const page = `/manage/stations/1/timeseriesgroups/${group}/timeseries/${ids[2]}/edit/?start=2010-01-01T00:00:00Z&end=2010-12-31T23:50:00Z&compare=${ids[0]},${ids[1]}`;
    if (process.env.KEEP) {
      // The server stays up for requests by hand: the page, the session's user is bench/bench-password.
      console.log(`${url}${page}\nseries ${ids.join(",")} of group ${group}; token ${token}`);
      await new Promise(() => {});
    }
    const { jar } = await siteLogin(url, "bench", "bench-password");
    const { chromium } = await import("@playwright/test");
    const browser = await chromium.launch({ executablePath: "/usr/bin/chromium", args: CHROMIUM_ARGS });
    for (let i = 0; i < 2; i++) {
      const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
      await context.addCookies(jar.entries().map(([name, value]) => ({ name, value, url })));
      const tab = await context.newPage();
      const marks: string[] = [];
      const t0 = performance.now();
      const at = () => (performance.now() - t0).toFixed(0);
      tab.on("request", (r) => marks.push(`${at()} start ${r.url().replace(url, "").slice(0, 70)}`));
      tab.on("requestfinished", (r) => marks.push(`${at()} done ${r.url().replace(url, "").slice(0, 70)}`));
      const cdp = await context.newCDPSession(tab);
      if (process.env.PROFILE) { await cdp.send("Profiler.enable"); await cdp.send("Profiler.setSamplingInterval", { interval: 200 }); await cdp.send("Profiler.start"); }
      await tab.goto(url + page, { waitUntil: "commit" });
      marks.push(`${at()} commit`);
      await tab.waitForLoadState("domcontentloaded"); marks.push(`${at()} DOMContentLoaded`);
      await tab.locator('.workbench-chart[data-state="ready"]').waitFor({ timeout: 60_000 }); marks.push(`${at()} chart ready`);
      await tab.locator(".workbench-table tbody tr").first().waitFor({ timeout: 60_000 }); marks.push(`${at()} table row`);
      await tab.waitForFunction(() => document.querySelectorAll(".workbench-chart path.chart-line[stroke='#c2410c'], .workbench-chart path.chart-line[stroke='#15803d']").length === 2, null, { timeout: 60_000 });
      marks.push(`${at()} overlays`);
      // The browser's own clock of each request: queued → sent → first byte → last byte (ms since navigation).
      const timing = await tab.evaluate(() => [...performance.getEntriesByType("navigation"), ...performance.getEntriesByType("resource")].map((e) => {
        const r = e as PerformanceResourceTiming;
        return `${r.startTime.toFixed(0)}→${r.requestStart.toFixed(0)}→${r.responseStart.toFixed(0)}→${r.responseEnd.toFixed(0)} ${r.name.replace(location.origin, "").slice(0, 60)}`;
      }));
      console.log(timing.join("\n"));
      if (process.env.PROFILE) {
        const { profile } = (await cdp.send("Profiler.stop")) as { profile: { nodes: { id: number; callFrame: { functionName: string; url: string; lineNumber: number } }[]; samples: number[]; timeDeltas: number[] } };
        const self = new Map<string, number>();
        const byId = new Map(profile.nodes.map((n) => [n.id, n]));
        profile.samples.forEach((id, i) => {
          const n = byId.get(id)!;
          const key = `${n.callFrame.functionName || "(anon)"} ${n.callFrame.url.replace(url, "").slice(-40)}:${n.callFrame.lineNumber}:${(n.callFrame as { columnNumber?: number }).columnNumber ?? ""}`;
          self.set(key, (self.get(key) ?? 0) + (profile.timeDeltas[i] ?? 0) / 1000);
        });
        // What the main thread did in each 100 ms since the profile began: busy ms and the busiest scripts.
        const windows = new Map<number, Map<string, number>>();
        let clock = 0;
        profile.samples.forEach((id, i) => {
          clock += (profile.timeDeltas[i] ?? 0) / 1000;
          const n = byId.get(id)!;
          const name = n.callFrame.url ? n.callFrame.url.replace(url, "").replace("/_next/static/chunks/", "").slice(0, 24) : n.callFrame.functionName;
          if (name === "(idle)") return;
          const w = windows.get(Math.floor(clock / 100)) ?? new Map<string, number>();
          w.set(name, (w.get(name) ?? 0) + (profile.timeDeltas[i + 1] ?? 0) / 1000);
          windows.set(Math.floor(clock / 100), w);
        });
        for (const [w, names] of [...windows].sort((a, b) => a[0] - b[0])) {
          const busy = [...names.values()].reduce((a, b) => a + b, 0);
          console.log(`${String(w * 100).padStart(5)} ms: busy ${busy.toFixed(0).padStart(3)} ${[...names].sort((a, b) => b[1] - a[1]).slice(0, 4).map(([k, v]) => `${k} ${v.toFixed(0)}`).join(", ")}`);
        }
        const byUrl = new Map<string, number>();
        for (const [k, v] of self) { const u = k.split(" ")[1]?.split(":")[0] ?? ""; byUrl.set(u, (byUrl.get(u) ?? 0) + v); }
        console.log([...self].sort((a, b) => b[1] - a[1]).slice(0, 25).map(([k, v]) => `${v.toFixed(0).padStart(6)} ms ${k}`).join("\n"));
        console.log([...byUrl].sort((a, b) => b[1] - a[1]).slice(0, 10).map(([k, v]) => `${v.toFixed(0).padStart(6)} ms ${k}`).join("\n"));
      }
      console.log(`--- run ${i}\n` + marks.sort((a, b) => parseFloat(a) - parseFloat(b)).join("\n"));
      await context.close();
    }
    await browser.close();
  } finally {
    await stopServer(child);
  }
}
main().catch((e) => { console.error(e); process.exit(1); });
