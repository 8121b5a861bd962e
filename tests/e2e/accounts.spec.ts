import { expect, test } from "@playwright/test";
import { alertBox, at, createUser, hydrated, logIn, mailTo, offline, open, unique } from "./helpers";

/** The account pages (api.md §2.1, §16). */
test.beforeEach(async ({ context }) => {
  await offline(context);
});

const header = (page: import("@playwright/test").Page) => page.getByRole("navigation", { name: "Account" });

test("log in (by username and by e-mail), back to the page that asked, then log out", async ({ page }) => {
  const username = unique("alice");
  createUser(username, "alice-password-1", { email: `${username}@Example.com` });

  await page.goto("/");
  await header(page).getByRole("link", { name: "Log in" }).click();
  await expect(page).toHaveURL(at("/accounts/login/"));
  await hydrated(page);

  // A wrong password: the exact message, and still anonymous.
  await page.getByLabel("Username or e-mail address").fill(username);
  await page.getByLabel("Password", { exact: true }).fill("wrong-password");
  await page.getByRole("button", { name: "Log in" }).click();
  await expect(alertBox(page)).toHaveText("Unable to log in with provided credentials.");
  await expect(header(page).getByRole("link", { name: "Log in" })).toBeVisible();

  // The right one, with a `next` page to return to.
  await logIn(page, username, "alice-password-1", "/accounts/login/?next=%2F%3Fq%3Dvariable%253Atemperature");
  await expect(page).toHaveURL(at("/?q=variable%3Atemperature"));
  await expect(header(page)).toContainText(username);
  await expect(header(page).getByRole("link", { name: "Profile" })).toBeVisible();
  await expect(header(page).getByRole("link", { name: "Log out" })).toBeVisible();

  // Log out: a page with a button that POSTs, then the home page, anonymous.
  await header(page).getByRole("link", { name: "Log out" }).click();
  await expect(page).toHaveURL(at("/accounts/logout/"));
  await hydrated(page);
  await page.getByRole("button", { name: "Log out" }).click();
  await expect(page).toHaveURL(/^https?:\/\/[^/]+\/(\?logged_out=1)?$/);
  await expect(page.getByRole("status").filter({ hasText: "logged out" })).toHaveText("You have been logged out.");
  await expect(header(page).getByRole("link", { name: "Log in" })).toBeVisible();
  // Only there: the map page reached otherwise says nothing of it.
  await page.goto("/");
  await expect(page.getByText("You have been logged out.")).toHaveCount(0);
  await page.goto("/accounts/profile/");
  await expect(page).toHaveURL(at("/accounts/login/?next=%2Faccounts%2Fprofile%2F"));

  // The e-mail address works as well (case-insensitively); an outside `next` is ignored.
  await logIn(page, `${username}@example.COM`, "alice-password-1", "/accounts/login/?next=https%3A%2F%2Fevil.example%2F");
  await expect(page).toHaveURL(at("/"));
  await expect(header(page)).toContainText(username);
});

test.describe("without JavaScript", () => {
  test.use({ javaScriptEnabled: false });

  test("the login form works: a refusal keeps the username, then the right password logs in and returns to the page that asked", async ({ page }) => {
    const username = unique("nojs");
    createUser(username, "nojs-password-1");
    await page.goto("/accounts/login/?next=%2Faccounts%2Fprofile%2F");
    await page.getByLabel("Username or e-mail address").fill(username);
    await page.getByLabel("Password", { exact: true }).fill("wrong-password");
    await page.getByRole("button", { name: "Log in" }).click();
    await expect(alertBox(page)).toHaveText("Unable to log in with provided credentials.");
    await expect(page.getByLabel("Username or e-mail address")).toHaveValue(username);
    await expect(header(page).getByRole("link", { name: "Log in" })).toBeVisible();

    await page.getByLabel("Password", { exact: true }).fill("nojs-password-1");
    await page.getByRole("button", { name: "Log in" }).click();
    await expect(page).toHaveURL(at("/accounts/profile/"));
    await expect(header(page)).toContainText(username);
    await expect(page.getByRole("heading", { level: 1 })).toBeVisible();
  });
});

test("a throttled login says when to try again", async ({ page }) => {
  await page.route("**/accounts/auth/callback/credentials", (route) =>
    route.fulfill({ json: { url: "http://127.0.0.1/accounts/login/?error=Throttled%3A125" } }));
  await logIn(page, "anyone", "whatever-password");
  await expect(alertBox(page)).toHaveText("Too many failed login attempts. Try again in 3 minutes.");
  await open(page, "/accounts/login/?error=Throttled%3A7");
  await expect(alertBox(page)).toHaveText("Too many failed login attempts. Try again in 7 seconds.");
});

test("the profile page: see and edit the profile, change the password", async ({ page, browser }) => {
  const username = unique("bob");
  createUser(username, "bob-password-1");
  await logIn(page, username, "bob-password-1", "/accounts/login/?next=%2Faccounts%2Fprofile%2F");
  await expect(page).toHaveURL(at("/accounts/profile/"));
  await hydrated(page);
  const account = page.locator("dl.details");
  await expect(account).toContainText(username);
  await expect(account).toContainText(`${username}@example.com`);

  // A second session of the same user, in another browser context.
  const other = await browser.newContext();
  await offline(other);
  const otherPage = await other.newPage();
  await logIn(otherPage, username, "bob-password-1");
  await expect(header(otherPage)).toContainText(username);

  // Invalid username.
  await page.getByLabel("Username").fill("bad name!");
  await page.getByRole("button", { name: "Save profile" }).click();
  await expect(page.locator("#username-errors")).toHaveText(
    "Enter a valid username. This value may contain only letters, numbers, and @/./+/-/_ characters.");
  // A taken one.
  const taken = unique("carol");
  createUser(taken, "carol-password-1");
  await page.getByLabel("Username").fill(taken);
  await page.getByRole("button", { name: "Save profile" }).click();
  await expect(page.locator("#username-errors")).toHaveText("A user with that username already exists.");
  // A valid change.
  const renamed = `${username}.x`;
  await page.getByLabel("Username").fill(renamed);
  await page.getByLabel("First name").fill("Bob");
  await page.getByLabel("Last name").fill("Builder");
  await page.getByRole("button", { name: "Save profile" }).click();
  await expect(page.getByText("Your profile has been saved.")).toBeVisible();
  await expect(account).toContainText("Builder");
  await expect(header(page)).toContainText(renamed);

  // Password change: the messages of §12.4, then success.
  await page.getByLabel("Current password").fill("not-my-password");
  await page.getByLabel("New password", { exact: true }).fill("new-secret-pass-2");
  await page.getByLabel("New password again").fill("new-secret-pass-2");
  await page.getByRole("button", { name: "Change password" }).click();
  await expect(page.locator("#old_password-errors")).toHaveText("Your old password was entered incorrectly. Please enter it again.");
  await page.getByLabel("Current password").fill("bob-password-1");
  await page.getByLabel("New password", { exact: true }).fill("12345");
  await page.getByLabel("New password again").fill("12345");
  await page.getByRole("button", { name: "Change password" }).click();
  await expect(page.locator("#new_password2-errors li")).toHaveText([
    "This password is too short. It must contain at least 8 characters.",
    "This password is entirely numeric.",
  ]);
  await page.getByLabel("Current password").fill("bob-password-1");
  await page.getByLabel("New password", { exact: true }).fill("new-secret-pass-2");
  await page.getByLabel("New password again").fill("new-secret-pass-3");
  await page.getByRole("button", { name: "Change password" }).click();
  await expect(page.locator("#new_password2-errors")).toHaveText("The two password fields didn’t match.");
  await page.getByLabel("Current password").fill("bob-password-1");
  await page.getByLabel("New password", { exact: true }).fill("new-secret-pass-2");
  await page.getByLabel("New password again").fill("new-secret-pass-2");
  await page.getByRole("button", { name: "Change password" }).click();
  await expect(page.getByText("New password has been saved.")).toBeVisible();

  // This session stays; the other one has ended.
  await page.reload();
  await expect(header(page)).toContainText(renamed);
  await otherPage.reload();
  await expect(header(otherPage).getByRole("link", { name: "Log in" })).toBeVisible();
  await other.close();
});

test("the password-reset flow: request, e-mail, new password, log in", async ({ page }) => {
  const username = unique("erin");
  const email = `${username}@example.org`;
  createUser(username, "erin-password-1", { email });
  await page.goto("/accounts/login/");
  await page.getByRole("link", { name: "Forgot your password?" }).click();
  await expect(page).toHaveURL(at("/accounts/password/reset/"));
  await hydrated(page);
  await page.getByLabel("E-mail address").fill("not an address");
  await page.getByRole("button", { name: "Send me a reset link" }).click();
  await expect(page.locator("#email-errors")).toHaveText("Enter a valid email address.");
  // An unknown address gets the same answer as a known one.
  await page.getByLabel("E-mail address").fill("nobody-registered@example.com");
  await page.getByRole("button", { name: "Send me a reset link" }).click();
  await expect(page.getByRole("status")).toContainText("Password reset e-mail has been sent.");

  await open(page, "/accounts/password/reset/");
  await page.getByLabel("E-mail address").fill(email.toUpperCase());
  await page.getByRole("button", { name: "Send me a reset link" }).click();
  await expect(page.getByRole("status")).toContainText("Password reset e-mail has been sent.");
  const mail = await mailTo(email);
  expect(mail).toContain(`Someone asked to reset the password of the account "${username}"`);
  const link = /(https?:\/\/\S+\/api\/auth\/password\/reset\/confirm\/\S+\/)/.exec(mail)![1];
  expect(new URL(link).origin).toBe(new URL(page.url()).origin);

  // The link leads to the form, which looks like the rest of the site.
  await page.goto(link);
  await expect(page).toHaveURL(/\/set-password\/$/);
  await expect(page.locator("header.site-header")).toBeVisible();
  await page.locator("#new_password1").fill("brand-new-pass-1");
  await page.locator("#new_password2").fill("brand-new-pass-2");
  await page.locator("main").getByRole("button").click();
  await expect(page.locator(".form-errors")).toHaveText("The two password fields didn’t match.");
  await page.locator("#new_password1").fill("brand-new-pass-1");
  await page.locator("#new_password2").fill("brand-new-pass-1");
  await page.locator("main").getByRole("button").click();
  await expect(page).toHaveURL(/\/api\/auth\/password\/reset\/complete\/$/);
  await expect(page.getByRole("heading", { level: 1 })).toHaveText("Your password has been set");

  // The old password no longer works; the new one does.
  await logIn(page, username, "erin-password-1");
  await expect(alertBox(page)).toHaveText("Unable to log in with provided credentials.");
  await logIn(page, username, "brand-new-pass-1");
  await expect(page).toHaveURL(at("/"));
  await expect(header(page)).toContainText(username);
});

test("the API's password-reset pages share the site's header and footer", async ({ page }) => {
  await page.goto("/api/auth/password/reset/complete/");
  await expect(page.locator("header.site-header")).toBeVisible();
  await expect(page.getByRole("searchbox", { name: "Search stations" })).toBeVisible();
  await expect(page.locator("footer.site-footer")).toBeVisible();
  await page.goto("/api/auth/password/reset/confirm/MQ/not-a-token/");
  await expect(page.getByRole("heading", { level: 1 })).toContainText("invalid");
});
