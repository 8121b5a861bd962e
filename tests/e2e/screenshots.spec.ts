import { expect, test, type Page } from "@playwright/test";
import { alertBox, at, createUser, DEMO, hydrated, logIn, mapReady, noHorizontalScroll, offline, open, profileWithErrors, shot, unique } from "./helpers";

/**
 * Screenshots of every page at a desktop and a phone width, saved under
 * tests/artifacts/screenshots/ for people to look at (issue 7). Each page is checked for
 * horizontal overflow, the usual sign of a layout that does not fit a phone.
 */
const SIZES = [
  { name: "desktop", viewport: { width: 1280, height: 800 } },
  { name: "phone", viewport: { width: 390, height: 844 } },
];

async function stationIds(page: Page) {
  const stations = (await (await page.request.get("/api/stations/?page_size=100")).json()) as { results: { id: number; name: string }[] };
  const id = (name: string) => stations.results.find((s) => s.name === name)!.id;
  const komboti = id("Komboti");
  const ioannina = id("Ioannina");
  const group = async (sid: number) =>
    ((await (await page.request.get(`/api/stations/${sid}/timeseriesgroups/`)).json()) as { results: { id: number; name: string }[] }).results
      .find((g) => g.name === "Air temperature")!.id;
  return { komboti, ioannina, kombotiTemp: await group(komboti), ioanninaTemp: await group(ioannina) };
}

for (const size of SIZES) {
  test.describe(`${size.name} screenshots`, () => {
    test.use({ viewport: size.viewport });
    test.beforeEach(async ({ context }) => {
      await offline(context);
    });

    test(`public pages (${size.name})`, async ({ page }) => {
      const ids = await stationIds(page);
      await page.goto("/");
      await mapReady(page, DEMO.stations);
      await noHorizontalScroll(page);
      await shot(page, "01-home");

      await page.goto(`/?q=${encodeURIComponent("variable:temperature")}`);
      await mapReady(page, DEMO.temperature.length);
      await page.getByText("How to search").click();
      await shot(page, "02-search-variable");

      await page.goto(`/?q=${encodeURIComponent("bbox:21,39")}`);
      await expect(alertBox(page)).toBeVisible();
      await shot(page, "03-search-malformed");

      await page.goto(`/stations/${ids.komboti}/`);
      await expect(page.locator(".station-map .station-marker")).toBeVisible();
      await page.waitForLoadState("networkidle").catch(() => undefined);
      await noHorizontalScroll(page);
      await shot(page, "04-station");

      await page.goto(`/stations/${ids.komboti}/timeseriesgroups/${ids.kombotiTemp}/`);
      await expect(page.locator(".chart-box[data-state='ready'] .recharts-line-curve")).toBeVisible();
      await noHorizontalScroll(page);
      await shot(page, "05-group-chart");

      await page.goto(`/stations/${ids.ioannina}/timeseriesgroups/${ids.ioanninaTemp}/`);
      await expect(page.getByText("The data of this time series are not public.")).toBeVisible();
      await shot(page, "06-group-private");

      await open(page, "/accounts/login/");
      await page.getByLabel("Username or e-mail address").fill("nobody");
      await page.getByLabel("Password", { exact: true }).fill("wrong-password");
      await page.getByRole("button", { name: "Log in" }).click();
      await expect(alertBox(page)).toBeVisible();
      await noHorizontalScroll(page);
      await shot(page, "07-login-failed");

      await open(page, "/accounts/password/reset/");
      await noHorizontalScroll(page);
      await shot(page, "08-password-reset");
      await page.getByLabel("E-mail address").fill("someone@example.com");
      await page.getByRole("button", { name: "Send me a reset link" }).click();
      await expect(page.getByRole("status")).toBeVisible();
      await shot(page, "09-password-reset-sent");

      await page.goto("/api/auth/password/reset/confirm/MQ/not-a-token/");
      await noHorizontalScroll(page);
      await shot(page, "10-reset-link-invalid");

      await page.goto("/stations/999999/");
      await shot(page, "11-not-found");
    });

    test(`pages of a logged-in user (${size.name})`, async ({ page }) => {
      const username = unique("shot");
      createUser(username, "shot-password-1");
      await logIn(page, username, "shot-password-1", "/accounts/login/?next=%2Faccounts%2Fprofile%2F");
      await expect(page).toHaveURL(at("/accounts/profile/"));
      await hydrated(page);
      await profileWithErrors(page);
      await noHorizontalScroll(page);
      await shot(page, "12-profile");

      await open(page, "/accounts/logout/");
      await noHorizontalScroll(page);
      await shot(page, "13-logout");

      await page.goto("/");
      await mapReady(page, DEMO.stations);
      await shot(page, "14-home-logged-in");
    });
  });
}
