import { readFileSync } from "node:fs";
import { expect, test, type Page } from "@playwright/test";
import el from "../../lib/i18n/messages/el.json";
import { createUser, hydrated, logIn, mailText, mailTo, noHorizontalScroll, offline, open, shot, unique } from "./helpers";

/**
 * Issue 40's acceptance as a newcomer lives it (public.md §1–§3): with registration open, sign up
 * in Greek from a phone-width browser, activate from the e-mail, ask for access to a protected
 * series (the demo's Ioannina temperature), have a maintainer approve it for a month, download the
 * data; switch the site to English and back.
 */
test.beforeEach(async ({ context }) => {
  await offline(context);
});

async function stationId(page: Page, name: string): Promise<number> {
  const found = await (await page.request.get(`/api/stations/?q=${encodeURIComponent(name)}`)).json() as { results: { id: number; name: string }[] };
  const station = found.results.find((s) => s.name === name);
  expect(station, name).toBeTruthy();
  return station!.id;
}

test.describe("a newcomer on a phone, in Greek", () => {
  test.use({ locale: "el-GR", viewport: { width: 390, height: 844 } });

  test("signs up, activates, asks for access, is approved for a month, downloads, and switches language", async ({ page, browser }) => {
    test.setTimeout(240_000);
    const username = unique("neo");
    const email = `${username}@example.com`;
    const password = "correct-horse-7";

    // Registration, in Greek because the browser asks for it.
    await open(page, "/accounts/register/");
    await expect(page.locator("html")).toHaveAttribute("lang", "el");
    await expect(page.getByRole("heading", { level: 1 })).toHaveText(el.register.title);
    await page.getByLabel(el.register.username).fill(username);
    await page.getByLabel(el.register.email).fill(email);
    await page.getByLabel(el.register.password, { exact: true }).fill(password);
    await page.getByLabel(el.register.passwordAgain).fill(password);
    await page.getByRole("checkbox").check();
    await expect(page.getByText(el.register.captchaDone)).toBeVisible({ timeout: 60_000 });
    await noHorizontalScroll(page);
    await shot(page, "public-greek-register");
    await page.getByRole("button", { name: el.register.submit }).click();
    await expect(page.getByText(el.register.checkEmail)).toBeVisible();

    // The activation e-mail is in Greek too, and its link activates the account.
    const mail = mailText(await mailTo(email));
    expect(mail).toMatch(/[α-ω]{4,}/);
    const link = /\/accounts\/activate\/[A-Za-z0-9_-]+\/[A-Za-z0-9_-]+\//.exec(mail)?.[0];
    expect(link, "the activation link").toBeTruthy();
    await open(page, link!);
    await expect(page.getByRole("heading", { level: 1 })).toHaveText(el.activate.active);

    // Logged in, the newcomer asks for the protected data of Ioannina.
    await open(page, "/accounts/login/");
    await page.getByLabel(el.login.username).fill(username);
    await page.getByLabel(el.login.password, { exact: true }).fill(password);
    await page.getByRole("button", { name: el.login.submit }).click();
    await expect(page.locator("header")).toContainText(username);
    const ioannina = await stationId(page, "Ioannina");
    await open(page, `/stations/${ioannina}/`);
    const access = page.locator("#access");
    await expect(access.getByRole("heading")).toHaveText(el.station.protectedData);
    await access.getByLabel(el.station.message).fill("Για διπλωματική εργασία στο ΕΜΠ.");
    await access.getByRole("button", { name: el.station.requestAccess }).click();
    await expect(page.locator("#access")).toContainText(el.station.accessPending);
    await noHorizontalScroll(page);
    await shot(page, "public-greek-access-requested");

    // Before the approval the protected series is not among the downloads.
    const groups = await (await page.request.get(`/api/stations/${ioannina}/timeseriesgroups/`)).json() as { results?: { id: number }[] } | { id: number }[];
    const group = (Array.isArray(groups) ? groups : groups.results ?? [])[0].id;
    await open(page, `/stations/${ioannina}/timeseriesgroups/${group}/`);
    await expect(page.getByText(el.download.nothing)).toBeVisible();

    // A maintainer (here a superuser, in English) approves it for a month.
    const boss = unique("boss");
    createUser(boss, "boss-password-1", { superuser: true });
    const maintainer = await browser.newContext({ locale: "en-US" });
    await offline(maintainer);
    const desk = await maintainer.newPage();
    await logIn(desk, boss, "boss-password-1", "/accounts/login/?next=/manage/");
    await expect(desk).toHaveURL(/\/manage\/$/);
    await hydrated(desk);
    const request = desk.locator(".access-requests li").filter({ hasText: username });
    await expect(request).toContainText("Για διπλωματική εργασία");
    const until = new Date(Date.now() + 31 * 86400_000).toISOString().slice(0, 10);
    await request.getByLabel("Access until").fill(until);
    await request.getByRole("button", { name: "Approve" }).click();
    await expect(desk.getByText("The access request has been approved")).toBeVisible();
    await maintainer.close();

    // Told by e-mail (the second message to the address), the newcomer downloads the data.
    await open(page, `/stations/${ioannina}/timeseriesgroups/${group}/`);
    const download = page.locator(".download-form").getByRole("link", { name: el.download.download });
    await expect(download).toBeVisible();
    const [file] = await Promise.all([page.waitForEvent("download"), download.click()]);
    const csv = readFileSync((await file.path())!, "utf8");
    expect(csv.split("\n").filter(Boolean).length).toBeGreaterThan(100);
    expect(csv).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2},-?\d+\.\d,/m);
    await shot(page, "public-greek-download");

    // English and back, with the footer's switcher; the account remembers neither (it follows the browser).
    await page.locator("footer form.language-switcher").getByRole("button", { name: "English" }).click();
    await expect(page.locator("html")).toHaveAttribute("lang", "en");
    await expect(page.locator(".download-form").getByRole("link", { name: "Download" })).toBeVisible();
    await page.locator("footer form.language-switcher").getByRole("button", { name: "Ελληνικά" }).click();
    await expect(page.locator("html")).toHaveAttribute("lang", "el");
    await expect(page.locator(".download-form").getByRole("link", { name: el.download.download })).toBeVisible();
  });
});
