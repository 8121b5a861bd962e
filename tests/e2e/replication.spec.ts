import { expect, test, type APIRequestContext, type Page } from "@playwright/test";
import { alertBox, at, createUser, hydrated, logIn, noHorizontalScroll, offline, open, shot, unique } from "./helpers";

/**
 * Replication on the management site (replication.md §1–2), as a superuser uses it, with
 * screenshots under tests/artifacts/screenshots/replication-*.png: a source added from the
 * browser (a refused first try, its messages next to the fields), listed, edited with its
 * password kept and never shown, run on demand against this very server (another instance that
 * speaks the API), and the station it copied detached after a confirmation.
 */
const PASSWORD = "replication-password-1";

test.beforeEach(async ({ context }) => {
  await offline(context);
});

async function signIn(page: Page, username: string): Promise<void> {
  await logIn(page, username, PASSWORD);
  await expect(page).not.toHaveURL(/\/accounts\/login\//);
}

const status = (page: Page) => page.locator(".message.success[role='status']");
const newSource = (page: Page) => page.getByRole("form", { name: "New replication source" });

test("a superuser adds a replication source, edits it, runs it and detaches the station it copied", async ({ page, baseURL, request }) => {
  test.setTimeout(120_000);
  const admin = unique("repladmin");
  createUser(admin, PASSWORD, { superuser: true });
  const name = unique("Mirror ");
  cleanupLogin = { username: admin, password: PASSWORD };
  // The station to copy: one of this test's own, so that the demo stations stay as the other specs know them.
  const gauge = unique("Gauge");
  const token = await apiToken(request, baseURL!);
  const owner = ((await (await request.get(`${baseURL}/api/organizations/`)).json()) as { results: { id: number }[] }).results[0].id;
  const created = await request.post(`${baseURL}/api/stations/`, {
    headers: { Authorization: `Token ${token}` }, data: { name: gauge, geom: "POINT(21.1 39.1)", owner },
  });
  expect(created.status()).toBe(201);
  ownStationId = ((await created.json()) as { id: number }).id;
  await signIn(page, admin);
  await open(page, "/manage/");
  await page.getByRole("link", { name: "Replication" }).click();
  await expect(page).toHaveURL(at("/manage/replication/"));
  await hydrated(page);
  await expect(page.locator(".lead")).toContainText("Add, edit or delete a source here");

  // A first try with a URL that is not one and too short an interval: the API's messages next to the fields, nothing lost but the password.
  const form = newSource(page);
  await form.getByLabel("Name", { exact: true }).fill(name);
  await form.getByLabel("URL").fill("other instance");
  await form.getByLabel("Stations", { exact: true }).fill(gauge);
  await form.getByLabel("Run every").fill("30");
  await form.getByLabel("Unit", { exact: true }).selectOption({ label: "seconds" });
  // The source is this very server: the superuser's own account there.
  await form.getByLabel("Username", { exact: true }).fill(admin);
  await form.getByLabel("Password", { exact: true }).fill(PASSWORD);
  await form.getByRole("button", { name: "Add source" }).click();
  await expect(alertBox(page).first()).toContainText("Please correct the errors below; nothing has been saved.");
  await expect(form.locator(".field", { has: page.getByLabel("URL") })).toContainText("Enter a valid URL.");
  await expect(form.locator(".field", { has: page.getByLabel("Run every") })).toContainText("Ensure this value is 0 (only on demand) or at least 60.");
  await expect(form.getByLabel("Name", { exact: true })).toHaveValue(name);
  await expect(form.getByLabel("Password", { exact: true })).toHaveValue("");
  await shot(page, "replication-01-add-refused");

  // Corrected: on demand only, the password typed again.
  await form.getByLabel("URL").fill(baseURL!);
  await form.getByLabel("Run every").fill("0");
  await form.getByLabel("Password", { exact: true }).fill(PASSWORD);
  await form.getByRole("button", { name: "Add source" }).click();
  await expect(status(page)).toHaveText("The replication source has been added.");
  const card = page.locator(".replication-source", { has: page.getByRole("heading", { name }) });
  await expect(card).toContainText("on demand");
  await expect(card).toContainText(`user ${admin}`);
  expect(await page.content()).not.toContain(PASSWORD);
  await shot(page, "replication-02-listed");

  // Edit: a schedule in hours, and pruning; the password left empty is kept (the card still names the user).
  await card.getByRole("link", { name: "Edit" }).click();
  await hydrated(page);
  await expect(page).toHaveTitle(/^Edit replication source · /);
  const edit = page.getByRole("form", { name: "Edit replication source" });
  await expect(edit.getByLabel("Password", { exact: true })).toHaveValue("");
  await expect(edit.getByText("A password is stored; leave empty to keep it.")).toBeVisible();
  await edit.getByLabel("Run every").fill("6");
  await edit.getByLabel("Unit", { exact: true }).selectOption({ label: "hours" });
  await edit.getByLabel("Delete here what is deleted at the source", { exact: true }).check();
  await shot(page, "replication-03-edit");
  await edit.getByRole("button", { name: "Save" }).click();
  await expect(page).toHaveURL(/\/manage\/replication\/(\?done=source-saved)?#source-\d+$/);
  await expect(status(page)).toHaveText("The replication source has been saved.");
  await expect(card).toContainText("every 6 h; deletions at the source are applied here");
  await expect(card).toContainText(`user ${admin}`);

  // A dry run first: its row says what a run would do, and nothing is copied.
  await card.getByRole("button", { name: "Dry run" }).click();
  await expect(status(page)).toHaveText("A dry run has been queued: it writes nothing, and its row below will say what a run would do.");
  const dry = card.locator("tbody tr", { hasText: "Dry run, nothing written" });
  await expect.poll(async () => {
    await page.reload();
    return dry.count();
  }, { timeout: 60_000 }).toBe(1);
  await expect(dry).toContainText("succeeded");
  await expect(dry).not.toContainText(" 0 created");
  await shot(page, "replication-03b-dry-run");
  await open(page, `/manage/?q=${gauge}`);
  await expect(page.locator("tr", { hasText: "replicated, read-only" })).toHaveCount(0);
  await open(page, "/manage/replication/");

  // Run it now: it copies the gauge from this very server, as a replicated station (the run, when it
  // starts, queues the next one of the schedule: the finished run is the one that succeeded).
  await card.getByRole("button", { name: "Run now" }).click();
  await expect(status(page)).toHaveText("A run has been queued.");
  const finished = card.locator("tbody tr", { hasText: /succeeded|failed/ }).filter({ hasNotText: "Dry run" });
  await expect.poll(async () => {
    await page.reload();
    return finished.count();
  }, { timeout: 60_000 }).toBe(1);
  await expect(finished).toContainText("succeeded");
  await expect(finished).toContainText(" created, ");

  // The copy is listed as replicated; its page says where it comes from and offers Detach.
  await open(page, `/manage/?q=${gauge}`);
  const copy = page.locator("tr", { hasText: "replicated, read-only" });
  await expect(copy).toHaveCount(1);
  await copy.getByRole("link", { name: gauge }).click();
  await expect(page.getByRole("heading", { level: 1 })).toContainText(gauge);
  copyUrl = page.url();
  await expect(page.locator(".lead")).toContainText(`Replicated from ${name}: read-only here.`);
  await shot(page, "replication-04-replicated-station");
  await page.getByRole("link", { name: `Detach from ${name}…` }).click();
  await hydrated(page);
  await expect(page.getByRole("heading", { name: `Detach ${gauge} from ${name}?` })).toBeVisible();
  await expect(page.getByText("Later runs of the source no longer update this station")).toBeVisible();
  await shot(page, "replication-05-detach-confirm");
  await page.getByRole("button", { name: `Detach from ${name}` }).click();
  await expect(page).toHaveURL(/\/manage\/stations\/\d+\/(\?done=detached)?$/);
  await expect(status(page)).toHaveText("The station has been detached: replication no longer updates it, and it can be edited here.");
  await expect(page.getByRole("button", { name: "Save station" })).toBeVisible();
  await shot(page, "replication-06-detached");
  await open(page, `/manage/?q=${gauge}`);
  await expect(page.locator("tr", { hasText: "replicated, read-only" })).toHaveCount(0);

  // The browser tests share one server: the copy goes, then the source (the gauge goes after the test).
  await open(page, `${new URL(copyUrl!).pathname}delete/`);
  await hydrated(page);
  await page.getByRole("button", { name: /^Delete/ }).click();
  await expect(page).toHaveURL(/\/manage\/(\?.*)?$/);
  await open(page, "/manage/replication/");
  await card.getByRole("link", { name: "Delete" }).click();
  await hydrated(page);
  await page.getByRole("button", { name: /^Delete/ }).click();
  await expect(page).toHaveURL(/\/manage\/replication\/(\?.*)?$/);
  await expect(card).toHaveCount(0);
  copyUrl = null;
});

/** The copied station's management page, until the test has deleted it; the gauge it copied. */
let copyUrl: string | null = null;
let ownStationId: number | null = null;
let cleanupLogin: { username: string; password: string } | null = null;

async function apiToken(request: APIRequestContext, baseURL: string): Promise<string> {
  const login = await request.post(`${baseURL}/api/auth/login/`, { form: cleanupLogin! });
  return ((await login.json()) as { key: string }).key;
}

test.afterAll(async ({ request, baseURL }) => {
  if (!cleanupLogin) return;
  const headers = { Authorization: `Token ${await apiToken(request, baseURL!)}` };
  // The copy is left only when the test failed before deleting it.
  const copy = copyUrl && /\/manage\/stations\/(\d+)\//.exec(copyUrl)?.[1];
  if (copy) {
    await request.post(`${baseURL}/api/stations/${copy}/detach/`, { headers });
    await request.delete(`${baseURL}/api/stations/${copy}/`, { headers });
  }
  if (ownStationId !== null) await request.delete(`${baseURL}/api/stations/${ownStationId}/`, { headers });
});

test.describe("at a phone's width", () => {
  test.use({ viewport: { width: 390, height: 844 } });

  test("the replication page with its form fits the screen", async ({ page }) => {
    const admin = unique("repladmin");
    createUser(admin, PASSWORD, { superuser: true });
    await signIn(page, admin);
    await open(page, "/manage/replication/");
    await expect(newSource(page)).toBeVisible();
    await noHorizontalScroll(page);
    await shot(page, "replication-07-page");
  });
});
