// Page-paint lab (issue 17, item 3): loads a URL N times in fresh browser contexts with the bench's
// flags and marks (scripts/bench.ts chartPageTimes) and prints medians of TTFB / responseEnd /
// domInteractive / FCP / chart framed. Usage: npx tsx scripts/lab/measure.ts URL... with a server
// of scripts/lab/serve.ts. LAB_N=8 loads; LAB_JS=0 disables JavaScript; LAB_TRACE=prefix writes a
// Chromium trace of every load but the first (summarise with python3 scripts/lab/trace-cpu.py).
import { writeFileSync } from "node:fs";
import { labSettings, launchLabBrowser, median, newLabPage } from "./lab-browser";

async function main() {
  const { urls, n, js } = labSettings(8);
  const browser = await launchLabBrowser();
  for (const url of urls) {
    const rows: Record<string, number>[] = [];
    for (let i = 0; i < n; i++) {
      const { context, page } = await newLabPage(browser, js);
      const trace = process.env.LAB_TRACE && i > 0;
      if (trace) await browser.startTracing(page, { categories: ["devtools.timeline", "disabled-by-default-devtools.timeline", "blink.user_timing", "loading", "v8", "v8.execute", "blink", "toplevel", "disabled-by-default-devtools.timeline.frame", "cc", "viz", "gpu", "benchmark", "rail", "navigation", "devtools.timeline.async"] });
      await page.goto(url, { waitUntil: "load" });
      await page.waitForTimeout(js ? 1500 : 300);
      const m = await page.evaluate(() => {
        const nav = performance.getEntriesByType("navigation")[0] as PerformanceNavigationTiming;
        const fcp = performance.getEntriesByName("first-contentful-paint")[0]?.startTime ?? NaN;
        const marks = (window as unknown as { __chartMarks?: { inserted?: number; framed?: number } }).__chartMarks ?? {};
        return { ttfb: nav.responseStart, respEnd: nav.responseEnd, domInt: nav.domInteractive, dcl: nav.domContentLoadedEventEnd, load: nav.loadEventEnd, fcp,
          inserted: marks.inserted ?? NaN, framed: marks.framed ?? NaN, bytes: nav.transferSize };
      });
      rows.push({ ...m, chart: Math.max(m.fcp, m.framed) });
      if (trace) writeFileSync(`${process.env.LAB_TRACE}-${i}.json`, await browser.stopTracing());
      await context.close();
    }
    const later = rows.slice(1);
    const keys = Object.keys(rows[0]);
    console.log(`${url} js=${js} first: ${keys.map((k) => `${k}=${rows[0][k].toFixed(0)}`).join(" ")}`);
    console.log(`  median of ${later.length}: ${keys.map((k) => `${k}=${median(later.map((r) => r[k])).toFixed(0)}`).join(" ")}`);
    console.log(`  fcp all: ${rows.map((r) => r.fcp.toFixed(0)).join(" ")}`);
  }
  await browser.close();
}
main();
