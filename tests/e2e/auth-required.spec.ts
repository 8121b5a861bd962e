import { expect, test } from "@playwright/test";
import { createUser, hydrated, offline, unique } from "./helpers";

/**
 * ENHYDRIS_AUTHENTICATION_REQUIRED (api.md §15.4, §16) on a second server: site pages send
 * anonymous users to the login page (302), which brings them back after login.
 */
const BASE = process.env.E2E_AUTH_URL!;

test.beforeEach(async ({ context }) => {
  await offline(context);
});

test("anonymous users are sent to the login page, except on the open pages", async ({ request }) => {
  const home = await request.get(`${BASE}/?q=x`, { maxRedirects: 0 });
  expect(home.status()).toBe(302);
  const location = new URL(home.headers().location, BASE);
  expect(location.pathname + location.search).toBe("/accounts/login/?next=%2F%3Fq%3Dx");
  // Even the redirect sets the csrftoken cookie.
  expect(home.headers()["set-cookie"]).toMatch(/csrftoken=[A-Za-z0-9]{32}; Path=\/; Max-Age=31536000; SameSite=Lax/);
  for (const path of ["/stations/1/", "/stations/1/timeseriesgroups/1/", "/accounts/profile/", "/accounts/logout/"]) {
    const response = await request.get(`${BASE}${path}`, { maxRedirects: 0 });
    expect(response.status(), path).toBe(302);
    expect(response.headers().location, path).toContain(`/accounts/login/?next=${encodeURIComponent(path)}`);
  }
  for (const path of ["/accounts/login/", "/accounts/password/reset/", "/api/auth/password/reset/complete/", "/site.css"]) {
    expect((await request.get(`${BASE}${path}`, { maxRedirects: 0 })).status(), path).toBe(200);
  }
  expect((await request.get(`${BASE}/api/stations/geojson/`)).status()).toBe(401);
});

test("after login the requested page opens", async ({ page }) => {
  const username = unique("dora");
  createUser(username, "dora-password-1", { databaseUrl: process.env.E2E_AUTH_DATABASE_URL });
  await page.goto(`${BASE}/?q=nothing`);
  await expect(page).toHaveURL(`${BASE}/accounts/login/?next=%2F%3Fq%3Dnothing`);
  await hydrated(page);
  await page.getByLabel("Username or e-mail address").fill(username);
  await page.getByLabel("Password", { exact: true }).fill("dora-password-1");
  await page.getByRole("button", { name: "Log in" }).click();
  await expect(page).toHaveURL(`${BASE}/?q=nothing`);
  await expect(page.locator(".result-summary")).toContainText("No stations match");
  await expect(page.getByRole("navigation", { name: "Account" })).toContainText(username);
});
