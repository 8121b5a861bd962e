import { expect, test, type Page } from "@playwright/test";
import { createUser, hydrated, logIn, mapReady, DEMO, offline, open, shot, unique } from "./helpers";

/**
 * The site in English and Greek (public.md §3): the footer's switcher, the pages that follow it
 * (`<html lang>`, texts, numbers, the lookups' Greek descriptions), Accept-Language, and the
 * account's setting that wins over both.
 */
test.beforeEach(async ({ context }) => {
  await offline(context);
});

const switchTo = (page: Page, language: "English" | "Ελληνικά") =>
  page.locator("footer form.language-switcher").getByRole("button", { name: language }).click();

test("switch to Greek with the footer, see the home, station and group pages in Greek, and back", async ({ page }) => {
  await open(page, "/");
  await expect(page.locator("html")).toHaveAttribute("lang", "en");
  await expect(page.getByRole("heading", { level: 1 })).toHaveText("Stations");

  await switchTo(page, "Ελληνικά");
  await expect(page.locator("html")).toHaveAttribute("lang", "el");
  await expect(page).toHaveURL(/\/$/);
  await hydrated(page);
  await expect(page.getByRole("heading", { level: 1 })).toHaveText("Σταθμοί");
  await expect(page.locator("header").getByRole("link", { name: "Σύνδεση" })).toBeVisible();
  await expect(page.locator("header").getByRole("button", { name: "Αναζήτηση" })).toBeVisible();
  await expect(page.locator(".result-summary")).toHaveText(`${DEMO.stations} σταθμοί (όλοι οι σταθμοί).`);
  await mapReady(page, DEMO.stations);
  await expect(page.locator(".map-status")).toHaveText(`${DEMO.stations} σταθμοί στον χάρτη`);
  await expect(page.locator("footer")).toContainText("Υδρολογικοί και μετεωρολογικοί σταθμοί");
  await expect(page.locator("footer").getByRole("button", { name: "Ελληνικά" })).toHaveAttribute("aria-pressed", "true");
  await shot(page, "languages-home-el");

  // The station page: texts, the station type's Greek description (demo data), Greek decimals.
  await page.getByRole("link", { name: "Komboti" }).first().click();
  await expect(page).toHaveURL(/\/stations\/\d+\/$/);
  await hydrated(page);
  await expect(page.locator("html")).toHaveAttribute("lang", "el");
  await expect(page.getByRole("heading", { name: "Στοιχεία" })).toBeVisible();
  const details = page.locator("dl.details");
  const detail = (term: string) => details.locator("div", { has: page.locator("dt", { hasText: new RegExp(`^${term}`) }) }).locator("dd");
  await expect(detail("Τύπος σταθμού")).toHaveText("Μετεωρολογικός");
  await expect(detail("Συντεταγμένες")).toContainText("39,09518° Β, 21,06071° Α");
  await expect(page.getByRole("heading", { name: "Χρονοσειρές" })).toBeVisible();
  const row = page.locator("tr", { has: page.getByRole("link", { name: "Air temperature" }) });
  await expect(row.locator("td").first()).toHaveText("Θερμοκρασία");
  await shot(page, "languages-station-el");

  // The group page with its chart and download form.
  await row.getByRole("link", { name: "Air temperature" }).click();
  await hydrated(page);
  await expect(page.getByRole("heading", { name: "Διάγραμμα" })).toBeVisible();
  await expect(page.getByRole("heading", { name: "Λήψη δεδομένων" })).toBeVisible();
  await expect(page.getByRole("button", { name: "Μεγέθυνση" })).toBeVisible();
  await expect(page.getByRole("link", { name: "Λήψη", exact: true })).toBeVisible();
  await shot(page, "languages-group-el");

  // And back to English, on the page the switch was made from.
  const here = page.url();
  await switchTo(page, "English");
  await expect(page.locator("html")).toHaveAttribute("lang", "en");
  await expect(page).toHaveURL(here);
  await expect(page.getByRole("heading", { name: "Chart" })).toBeVisible();
  await expect(page.getByRole("heading", { name: "Download data" })).toBeVisible();
  await page.goto("/");
  await expect(page.getByRole("heading", { level: 1 })).toHaveText("Stations");
});

test.describe("a browser that asks for Greek", () => {
  test.use({ locale: "el-GR" });

  test("gets the pages in Greek without choosing, until it chooses English", async ({ page }) => {
    await open(page, "/synoptic/");
    await expect(page.locator("html")).toHaveAttribute("lang", "el");
    await expect(page.getByRole("heading", { level: 1 })).toHaveText("Συνοπτικές απόψεις");
    await open(page, "/accounts/login/");
    await expect(page.getByLabel("Όνομα χρήστη ή διεύθυνση e-mail")).toBeVisible();
    await shot(page, "languages-login-el");
    await switchTo(page, "English");
    await expect(page.locator("html")).toHaveAttribute("lang", "en");
    await expect(page.getByLabel("Username or e-mail address")).toBeVisible();
  });
});

test("the account's language wins over the cookie and the browser, in every browser", async ({ page, browser }) => {
  const username = unique("greek");
  createUser(username, "greek-password-1");
  await logIn(page, username, "greek-password-1");
  await expect(page.locator("header")).toContainText(username);
  await switchTo(page, "Ελληνικά");
  await expect(page.locator("html")).toHaveAttribute("lang", "el");
  await expect(page.locator("header").getByRole("link", { name: "Αποσύνδεση" })).toBeVisible();

  // Another browser (English, no cookie): Greek once logged in, as the account says.
  const other = await browser.newContext({ locale: "en-US" });
  await offline(other);
  const second = await other.newPage();
  await logIn(second, username, "greek-password-1");
  await expect(second.locator("header")).toContainText(username);
  await open(second, "/");
  await expect(second.locator("html")).toHaveAttribute("lang", "el");
  await expect(second.getByRole("heading", { level: 1 })).toHaveText("Σταθμοί");
  await other.close();
});

test("the group page's cache keeps one page per language", async ({ request }) => {
  const stations = (await (await request.get("/api/stations/?q=KMB")).json()) as { results: { id: number }[] };
  const sid = stations.results[0].id;
  const groups = (await (await request.get(`/api/stations/${sid}/timeseriesgroups/`)).json()) as { results: { id: number }[] };
  const path = `/stations/${sid}/timeseriesgroups/${groups.results[0].id}/`;
  for (let round = 0; round < 2; round++) {
    for (const [language, heading] of [["el", "Διάγραμμα"], ["en", "Chart"]] as const) {
      const r = await request.get(path, { headers: { "Accept-Language": language } });
      expect(r.status()).toBe(200);
      const html = await r.text();
      expect(html, `${language}, round ${round}: ${r.headers()["x-enhydris-page-cache"]}`).toContain(`<html lang="${language}"`);
      expect(html).toContain(`>${heading}</h2>`);
    }
  }
});
