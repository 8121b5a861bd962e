import { expect, test } from "@playwright/test";
import { createUser, logIn, noHorizontalScroll, offline, open, unique } from "./helpers";

/**
 * What a person walking through the site noticed (walk of 2026-11-26), each checked where it was
 * seen. None of these tests stores anything: the demo site's data stay as the other specs expect.
 */
const PASSWORD = "walkthrough-password-1";

test.beforeEach(async ({ context }) => {
  await offline(context);
});

async function signIn(page: import("@playwright/test").Page, username: string): Promise<void> {
  await logIn(page, username, PASSWORD);
  await expect(page).not.toHaveURL(/\/accounts\/login\//);
}

test.describe("at a phone's width", () => {
  test.use({ viewport: { width: 375, height: 740 } });

  test("the replication page's command line scrolls in its box, not the whole page", async ({ page }) => {
    const admin = unique("walkadmin");
    createUser(admin, PASSWORD, { superuser: true });
    await signIn(page, admin);
    await open(page, "/manage/replication/");
    await expect(page.locator("pre", { hasText: "npm run replicate" })).toBeVisible();
    await noHorizontalScroll(page);
  });

  test("a user's rights on the users list stay together beside their label", async ({ page }) => {
    const admin = unique("walkadmin");
    createUser(admin, PASSWORD, { superuser: true });
    await signIn(page, admin);
    await open(page, `/manage/users/?q=${admin}`);
    const rights = page.locator("tr", { has: page.getByRole("link", { name: admin }) }).locator("td[data-label='Rights']");
    const [superuser, adds] = await Promise.all([rights.getByText("superuser").boundingBox(), rights.getByText("adds stations").boundingBox()]);
    // Both in the value's column: the second badge no longer falls under the label.
    expect(Math.abs(adds!.x - superuser!.x)).toBeLessThan(2);
    // A long e-mail address wraps instead of being cut off.
    const email = rights.locator("xpath=preceding-sibling::td[@data-label='E-mail']");
    await expect(email).toHaveText(`${admin}@example.com`);
    expect(await email.evaluate((td) => td.scrollWidth - td.clientWidth)).toBeLessThanOrEqual(0);
    await noHorizontalScroll(page);
  });
});

test("the upload's dry run shows its range as the page shows the stored records: in the station's zone", async ({ page }) => {
  const admin = unique("walkadmin");
  createUser(admin, PASSWORD, { superuser: true });
  await signIn(page, admin);
  // Arta's display zone is Etc/GMT-2 (UTC+02:00).
  const stations = (await (await page.request.get("/api/stations/?q=Arta")).json()).results as { id: number; name: string; display_timezone: string }[];
  const arta = stations.find((s) => s.name === "Arta")!;
  expect(arta.display_timezone).toBe("Etc/GMT-2");
  const groups = (await (await page.request.get(`/api/stations/${arta.id}/timeseriesgroups/`)).json()).results as { id: number; name: string }[];
  const group = groups.find((g) => g.name === "Air temperature")!;
  const series = (await (await page.request.get(`/api/stations/${arta.id}/timeseriesgroups/${group.id}/timeseries/`)).json()).results as { id: number; type: string }[];
  const initial = series.find((s) => s.type === "Initial")!;

  await open(page, `/manage/stations/${arta.id}/timeseriesgroups/${group.id}/timeseries/${initial.id}/upload/`);
  await expect(page.getByText(/Stored now: .* \(UTC\+02:00\)\./)).toBeVisible();
  await page.getByLabel("pasted text").check();
  await page.getByRole("textbox", { name: "Records" }).fill("2026-01-01 00:00,12.5,\n2026-01-01 00:10,12.9,\n");
  await page.getByRole("button", { name: "Check (nothing is stored)" }).click();
  // Typed in the station's zone; read back the same way, not as "2025-12-31T22:00:00Z (UTC)".
  await expect(page.locator(".upload-outcome .message")).toContainText("2 records, from 2026-01-01 00:00 to 2026-01-01 00:10 (UTC+02:00). Nothing has been stored yet.");
});

test("a bad early-warning address on the synoptic form is named as typed, not by its place in a list", async ({ page }) => {
  const admin = unique("walkadmin");
  createUser(admin, PASSWORD, { superuser: true });
  await signIn(page, admin);
  await open(page, "/manage/synoptic/new/");
  await page.getByLabel("Name", { exact: true }).fill("Walk");
  await page.getByLabel("Slug").fill(unique("walk"));
  await page.getByLabel("Early warning e-mails").fill("duty@example.com\nnot-an-address");
  await page.getByRole("button", { name: "Create synoptic group" }).click();
  await expect(page.locator("#early_warning_emails-errors")).toHaveText("“not-an-address”: Enter a valid email address.");
  // Nothing typed is lost.
  await expect(page.getByLabel("Early warning e-mails")).toHaveValue("duty@example.com\nnot-an-address");
});
