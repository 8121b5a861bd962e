import { expect, test } from "@playwright/test";
import { hydrated, offline } from "./helpers";

/** Issue 18: the pages run under a nonce CSP without 'unsafe-inline' for scripts, and still hydrate. */
test.beforeEach(async ({ context }) => {
  await offline(context);
});

test("no page breaks the content security policy, and every one hydrates", async ({ page }) => {
  const violations: string[] = [];
  page.on("console", (m) => {
    if (/Content Security Policy/i.test(m.text())) violations.push(`${page.url()}: ${m.text()}`);
  });
  for (const path of ["/", "/?logged_out=1", "/stations/4/", "/stations/4/timeseriesgroups/1/", "/accounts/login/", "/accounts/password/reset/", "/api/docs/"]) {
    const response = await page.goto(path);
    const csp = (await response!.allHeaders())["content-security-policy"] ?? "";
    expect(csp, path).not.toMatch(/script-src[^;]*'unsafe-inline'/);
    if (!path.startsWith("/api/")) await hydrated(page);
  }
  // The map drew its markers and the chart its line: scripts ran.
  await page.goto("/");
  await expect(page.locator(".leaflet-marker-icon, .leaflet-interactive").first()).toBeVisible();
  expect(violations).toEqual([]);
});

test("the group page served from the page cache hydrates under its own nonce", async ({ page }) => {
  const violations: string[] = [];
  page.on("console", (m) => {
    if (/Content Security Policy/i.test(m.text())) violations.push(m.text());
  });
  // Anonymous visits until one is answered from the cache (lib/server/page-cache.ts).
  let cached = false;
  for (let i = 0; i < 8 && !cached; i++) {
    const response = await page.goto("/stations/4/timeseriesgroups/1/");
    cached = (await response!.allHeaders())["x-enhydris-page-cache"] === "hit";
  }
  expect(cached).toBe(true);
  await hydrated(page);
  await expect(page.locator('.chart-box[data-state="ready"] .recharts-line-curve')).toBeVisible();
  expect(violations).toEqual([]);
});
