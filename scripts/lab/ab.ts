// Interleaved A/B of page paint: loads each URL in turn, LAB_N rounds, each load in a fresh
// context (as scripts/lab/measure.ts), so drift in the machine's load falls on all alike.
// Usage: npx tsx scripts/lab/ab.ts URL_A URL_B ...  (LAB_JS=0 disables JavaScript; LAB_FROM below)
import { labSettings, launchLabBrowser, median, newLabPage } from "./lab-browser";

async function main() {
  const { urls, n, js } = labSettings(10);
  const browser = await launchLabBrowser();
  const rows: Record<string, number>[][] = urls.map(() => []);
  for (let i = 0; i <= n; i++) {
    for (const [u, url] of urls.entries()) {
      const { context, page } = await newLabPage(browser, js);
      // LAB_FROM=URL: first visit this page in the same tab (a warm renderer and HTTP cache, as a
      // person who comes from the station page), then navigate to the measured one.
      if (process.env.LAB_FROM) {
        await page.goto(process.env.LAB_FROM, { waitUntil: "load" });
        await page.waitForTimeout(500);
      }
      const started = performance.now();
      await page.goto(url, { waitUntil: "commit" });
      // With JavaScript, Playwright's clock to the interactive chart drawn after hydration.
      const interactive = js ? await page.locator('.chart-box[data-state="ready"] .recharts-line-curve').waitFor({ timeout: 30_000 }).then(() => performance.now() - started, () => NaN) : NaN;
      await page.waitForLoadState("load");
      await page.waitForTimeout(js ? 300 : 200);
      const m = await page.evaluate(() => {
        const nav = performance.getEntriesByType("navigation")[0] as PerformanceNavigationTiming;
        const fcp = performance.getEntriesByName("first-contentful-paint")[0]?.startTime ?? NaN;
        const marks = (window as unknown as { __chartMarks?: { framed?: number } }).__chartMarks ?? {};
        return { ttfb: nav.responseStart, dcl: nav.domContentLoadedEventEnd, fcp, framed: marks.framed ?? NaN };
      });
      Object.assign(m, { interactive });
      if (i > 0) rows[u].push({ ...m, chart: Math.max(m.fcp, Number.isNaN(m.framed) ? 0 : m.framed) });
      await context.close();
    }
  }
  for (const [u, url] of urls.entries()) {
    const keys = Object.keys(rows[u][0]);
    console.log(`${url} js=${js} median of ${n}: ${keys.map((k) => `${k}=${median(rows[u].map((r) => r[k])).toFixed(0)}`).join(" ")}  chart all: ${rows[u].map((r) => r.chart.toFixed(0)).join(" ")}`);
  }
  await browser.close();
}
main();
