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
  for (const path of ["/", "/stations/4/", "/stations/4/timeseriesgroups/1/", "/accounts/login/", "/accounts/password/reset/", "/api/docs/"]) {
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
