import { expect, test, type Page } from "@playwright/test";
import { hydrated, offline } from "./helpers";

/**
 * The site's stylesheet is inline in every page's head (nothing to wait for before the first
 * paint) and sent once: not again in the page's RSC payload (components/site/InlineStylesheet.tsx).
 */
test.beforeEach(async ({ context }) => {
  await offline(context);
});

const MARKER = "--brand:#0b3954";

async function stylesheet(page: Page) {
  return page.evaluate(() => ({
    elements: document.querySelectorAll("style").length,
    inHead: document.head.querySelector("style#site-stylesheet")?.textContent?.length ?? 0,
    headerColour: getComputedStyle(document.querySelector(".site-header")!).backgroundColor,
  }));
}

test("every page's HTML carries the stylesheet once, in its head", async ({ request }) => {
  for (const path of ["/", "/stations/4/", "/stations/4/timeseriesgroups/1/", "/accounts/login/", "/no-such-page/"]) {
    const response = await request.get(path);
    const html = await response.text();
    expect(html.split(MARKER).length - 1, path).toBe(1);
    expect(html.indexOf(MARKER), path).toBeLessThan(html.indexOf("</head>"));
  }
});

test("the stylesheet stays through hydration, client-side navigation and back, with no hydration error", async ({ page }) => {
  const errors: string[] = [];
  page.on("console", (m) => {
    if (m.type() === "error" && !/Failed to load resource/.test(m.text())) errors.push(m.text());
  });
  page.on("pageerror", (e) => errors.push(String(e)));
  await page.goto("/stations/4/timeseriesgroups/1/");
  await hydrated(page);
  const first = await stylesheet(page);
  expect(first.elements).toBe(1);
  expect(first.inHead).toBeGreaterThan(10_000);
  expect(first.headerColour).toBe("rgb(11, 57, 84)");
  await page.locator("nav.breadcrumbs a").nth(1).click();
  await page.waitForURL(/\/stations\/4\/$/);
  await expect(page.locator("h1")).toBeVisible();
  expect(await stylesheet(page)).toEqual(first);
  await page.goBack();
  await expect(page.locator('.chart-box[data-state="ready"] .recharts-line-curve')).toBeVisible();
  expect(await stylesheet(page)).toEqual(first);
  expect(errors).toEqual([]);
});
