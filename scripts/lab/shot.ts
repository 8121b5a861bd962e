// Page-paint lab: screenshots of a page with JavaScript off and on (/tmp/page2-lab/shot-*.png), console errors.
import { chromium } from "@playwright/test";
async function main() {
  const browser = await chromium.launch({ executablePath: "/usr/bin/chromium", args: ["--no-sandbox", "--headless", "--disable-gpu"] });
  for (const js of [false, true]) {
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 }, javaScriptEnabled: js });
    const page = await context.newPage();
    const errors: string[] = [];
    page.on("console", (m) => { if (m.type() === "error") errors.push(m.text()); });
    await page.goto(process.argv[2]);
    if (js) await page.locator('.chart-box[data-state="ready"] .recharts-line-curve').waitFor();
    await page.screenshot({ path: `/tmp/page2-lab/shot-${js ? "js" : "nojs"}.png` });
    console.log(js, "errors:", errors, "hydrated:", await page.evaluate(() => document.documentElement.dataset.hydrated ?? null).catch(() => "n/a"));
    await context.close();
  }
  await browser.close();
}
main();
