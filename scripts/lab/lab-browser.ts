// What the page lab's scripts (measure.ts, ab.ts) share: their settings, the browser as the bench
// runs it, and a page in a fresh context with the chart-paint marks.
import { chromium, type Browser } from "@playwright/test";
import { CHART_MARKS, CHROMIUM_ARGS } from "../chart-marks";

export const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/** The URLs of the command line; LAB_N loads (default `defaultLoads`); LAB_JS=0 disables JavaScript. */
export function labSettings(defaultLoads: number) {
  return { urls: process.argv.slice(2), n: Number(process.env.LAB_N ?? defaultLoads), js: process.env.LAB_JS !== "0" };
}

export function launchLabBrowser(): Promise<Browser> {
  return chromium.launch({ executablePath: "/usr/bin/chromium", args: CHROMIUM_ARGS });
}

/** A page in a new context (an empty cache, as a first visit) with the bench's viewport and marks. */
export async function newLabPage(browser: Browser, js: boolean) {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 }, javaScriptEnabled: js });
  const page = await context.newPage();
  await page.addInitScript(CHART_MARKS);
  return { context, page };
}
