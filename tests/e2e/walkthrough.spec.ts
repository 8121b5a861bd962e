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
});
