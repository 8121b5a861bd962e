import { expect, test, type Browser, type Page } from "@playwright/test";
import { alertBox, at, createUser, hydrated, logIn, mailTo, noHorizontalScroll, offline, open, shot, unique } from "./helpers";

/**
 * The management pages (management.md §4), walked as people use them, at a desktop and a phone
 * width, with screenshots under tests/artifacts/screenshots/manage-*.png: an adder creates a
 * station by clicking the map, adds a group and an Initial series, uploads a file with a bad line,
 * fixes it and stores it, sees the chart, renames the station, deletes an event; a second user
 * without rights gets 403 pages and no edit links; two editors save over each other; a superuser
 * manages lookups and users.
 */
const SIZES = [
  { name: "desktop", viewport: { width: 1280, height: 900 } },
  { name: "phone", viewport: { width: 390, height: 844 } },
];

const PASSWORD = "manage-password-1";

test.beforeEach(async ({ context }) => {
  await offline(context);
});

async function newPage(browser: Browser, viewport: { width: number; height: number }): Promise<Page> {
  const context = await browser.newContext({ viewport, baseURL: test.info().project.use.baseURL });
  await offline(context);
  return context.newPage();
}

/** Logs in and waits until the login page has let the user through. */
async function signIn(page: Page, username: string, password: string): Promise<void> {
  await logIn(page, username, password);
  await expect(page).not.toHaveURL(/\/accounts\/login\//);
}

/** The status message of a page after a change (not Next's route announcer). */
const status = (page: Page) => page.locator("p.message.success[role='status'], .message.success[role='status']");

for (const size of SIZES) {
  test.describe(`management at ${size.name} width`, () => {
    test.use({ viewport: size.viewport });

    test(`an adder creates a station and its data; someone without rights cannot touch it (${size.name})`, async ({ page, browser }) => {
      test.setTimeout(120_000);
      const adder = unique("adder");
      createUser(adder, PASSWORD, { canAddStations: true });
      const stationName = unique("Station ");

      // Log in and go to the management home through the header's link.
      await signIn(page, adder, PASSWORD);
      await page.getByRole("link", { name: "Manage" }).click();
      await expect(page).toHaveURL(at("/manage/"));
      await expect(page.getByText("You do not edit any station yet.")).toBeVisible();
      await shot(page, "manage-01-home-empty");
      await page.getByRole("link", { name: "New station" }).first().click();
      await expect(page).toHaveURL(at("/manage/stations/new/"));
      await hydrated(page);

      // A first try without an owner or a location: the API's messages, next to their fields, and nothing typed is lost.
      await page.getByLabel("Name", { exact: true }).fill(stationName);
      await page.getByLabel("Altitude").fill("high");
      await page.getByRole("button", { name: "Create station" }).click();
      await expect(alertBox(page).first()).toContainText("Please correct the errors below");
      const errorsOf = (label: string) => page.locator(".field", { has: page.getByLabel(label, { exact: true }) }).locator(".field-errors");
      await expect(errorsOf("Owner")).toHaveText("This field is required.");
      await expect(errorsOf("Altitude")).toHaveText("A valid number is required.");
      await expect(page.locator(".location-picker .field-errors")).toHaveText("This field is required.");
      await expect(page.getByLabel("Name", { exact: true })).toHaveValue(stationName);
      await expect(page.getByLabel("Altitude")).toHaveValue("high");
      await noHorizontalScroll(page);
      await shot(page, "manage-02-new-station-errors");

      // The owner by typing part of a name, the location by clicking the map (no tiles here).
      await page.getByRole("combobox", { name: "Owner" }).fill("christo");
      await page.getByRole("option", { name: /Christofides Antonis/ }).click();
      await expect(page.getByRole("combobox", { name: "Owner" })).toHaveValue("Christofides Antonis");
      const map = page.locator(".picker-frame .leaflet-container");
      await map.click({ position: { x: 120, y: 90 } });
      await expect(page.locator(".picker-frame .picker-marker")).toBeVisible();
      await expect(page.getByLabel("Longitude or easting (x)")).not.toHaveValue("");
      await expect(page.getByLabel("Coordinate system (SRID)")).toHaveValue("4326");
      // Typed coordinates in the Greek Grid move the marker, read by the server as the API reads them.
      await page.getByLabel("Coordinate system (SRID)").fill("2100");
      await page.getByLabel("Longitude or easting (x)").fill("250000");
      await page.getByLabel("Latitude or northing (y)").fill("4330000");
      await expect(page.locator(".picker-frame")).toHaveAttribute("data-point", /^21\.\d+,39\.\d+$/);
      await page.getByLabel("Altitude").fill("412.5");
      await shot(page, "manage-03-new-station-filled");
      await page.getByRole("button", { name: "Create station" }).click();
      await expect(page).toHaveURL(/\/manage\/stations\/\d+\/(\?done=created)?$/);
      const sid = Number(/stations\/(\d+)\//.exec(page.url())![1]);
      await expect(status(page)).toHaveText("Created.");
      const station = (await (await page.request.get(`/api/stations/${sid}/`)).json()) as { geom: string; original_srid: number; owner: number; altitude: number };
      expect(station.original_srid).toBe(2100);
      expect(station.altitude).toBe(412.5);
      expect(station.geom).toMatch(/^SRID=4326;POINT \(21\.\d+ 39\.\d+\)$/);
      await hydrated(page);
      await noHorizontalScroll(page);
      await shot(page, "manage-04-station");

      // A group (open by default on a station without groups), then its Initial series.
      const groupForm = page.getByRole("form", { name: "New time series group" });
      await groupForm.getByLabel("Name").fill("Stage");
      await groupForm.getByLabel("Variable").selectOption({ label: "Water level" });
      await groupForm.getByLabel("Unit of measurement").selectOption({ index: 1 });
      await groupForm.getByLabel("Precision").fill("twenty");
      await groupForm.getByRole("button", { name: "Add group" }).click();
      await expect(groupForm.locator(".field-errors")).toHaveText("A valid integer is required.");
      await groupForm.getByLabel("Precision").fill("2");
      await groupForm.getByRole("button", { name: "Add group" }).click();
      await expect(page).toHaveURL(/\/manage\/stations\/\d+\/timeseriesgroups\/\d+\/(\?done=created)?$/);
      const gid = Number(/timeseriesgroups\/(\d+)\//.exec(page.url())![1]);
      await hydrated(page);
      const seriesForm = page.getByRole("form", { name: "New time series" });
      await expect(seriesForm.getByLabel("Type")).toHaveValue("Initial");
      // A step typed in words ("10 minutes") is not cut by the browser and is read as the API's "10min".
      await seriesForm.getByLabel("Time step").pressSequentially("10 minutes");
      await expect(seriesForm.getByLabel("Time step")).toHaveValue("10 minutes");
      await seriesForm.getByRole("button", { name: "Add time series" }).click();
      await expect(status(page)).toHaveText("The time series has been created.");
      await expect(page.locator(".series-item h3")).toHaveText(["Initial (10min)"]);
      await noHorizontalScroll(page);
      await shot(page, "manage-05-group");

      // Upload a file with a bad line: the dry run names it, and nothing is stored.
      await page.getByRole("link", { name: "Upload records" }).click();
      await expect(page).toHaveURL(/\/upload\/$/);
      await hydrated(page);
      const bad = "2025-03-01 00:00,1.25,\n2025-03-01 00:10,abc,\n2025-03-01 00:20,1.31,\n";
      await page.getByLabel("File", { exact: true }).setInputFiles({ name: "stage.csv", mimeType: "text/csv", buffer: Buffer.from(bad) });
      await page.getByRole("button", { name: "Check (nothing is stored)" }).click();
      await expect(page.locator(".line-errors li")).toHaveText(['line 2: invalid value "abc"']);
      await noHorizontalScroll(page);
      await shot(page, "manage-06-upload-bad-line");
      // Fixed: the dry run counts the records and shows the first lines; then store them.
      const good = bad.replace("abc", "1.28");
      await page.getByLabel("File", { exact: true }).setInputFiles({ name: "stage.csv", mimeType: "text/csv", buffer: Buffer.from(good) });
      await page.getByRole("button", { name: "Check (nothing is stored)" }).click();
      await expect(page.locator(".upload-outcome .message")).toContainText("3 records, from 2025-03-01 00:00 to 2025-03-01 00:20 (UTC)");
      await expect(page.locator(".first-lines")).toContainText("2025-03-01 00:10,1.28,");
      expect((await (await page.request.get(`/api/stations/${sid}/timeseriesgroups/${gid}/timeseries/`)).json()).results.length).toBe(1);
      await shot(page, "manage-07-upload-checked");
      await page.getByRole("button", { name: "Store 3 records" }).click();
      await expect(status(page)).toContainText("Stored 3 records");
      await expect(page.getByText("Stored now: 3 records")).toBeVisible();
      await shot(page, "manage-08-upload-stored");
      await page.getByRole("link", { name: "See the chart" }).click();
      await expect(page.locator(".chart-box[data-state='ready'] .recharts-line-curve")).toBeVisible();

      // Processes of the group: checks refused with the API's message, then an hourly aggregation whose series appears.
      await open(page, `/manage/stations/${sid}/timeseriesgroups/${gid}/`);
      await page.locator("summary", { hasText: "Add checks" }).click();
      const checksForm = page.getByRole("form", { name: "New checks process" });
      await checksForm.getByLabel("Lower bound", { exact: true }).fill("10");
      await checksForm.getByLabel("Upper bound", { exact: true }).fill("5");
      await checksForm.getByRole("button", { name: "Add checks" }).click();
      await expect(checksForm.locator(".field-errors")).toHaveText("The bounds must be in the order lower bound ≤ soft lower bound ≤ soft upper bound ≤ upper bound.");
      await expect(checksForm.getByLabel("Lower bound", { exact: true })).toHaveValue("10");
      await shot(page, "manage-08b-process-error");
      await page.locator("summary", { hasText: "Add an aggregation" }).click();
      const aggregationForm = page.getByRole("form", { name: "New aggregation process" });
      await aggregationForm.getByLabel("Target time step").fill("1h");
      await aggregationForm.getByLabel("Method").selectOption("mean");
      await aggregationForm.getByLabel("Max missing").fill("5");
      await aggregationForm.getByRole("button", { name: "Add aggregation" }).click();
      await expect(page).toHaveURL(/\/processes\/\d+\/(\?done=process-created)?$/);
      await expect(status(page)).toContainText("The process has been created");
      // The run is done by the server's job runner: reload until it has finished.
      await expect(async () => {
        await page.reload();
        await expect(page.locator("#runs .run-status").first()).toHaveAttribute("data-status", "succeeded", { timeout: 1000 });
      }).toPass({ timeout: 30_000 });
      await expect(page.locator("#runs")).toContainText("2 records written (from scratch)");
      await hydrated(page);
      await noHorizontalScroll(page);
      await shot(page, "manage-08c-process");
      await page.getByRole("button", { name: "Run from scratch" }).click();
      await expect(status(page)).toHaveText("A run has been queued.");
      await open(page, `/manage/stations/${sid}/timeseriesgroups/${gid}/`);
      await expect(page.locator(".series-item h3")).toHaveText(["Initial (10min)", /Aggregated.*1h/]);
      await expect(page.locator("#processes")).toContainText("succeeded");
      await shot(page, "manage-08d-group-processes");
      // A second upload: the page follows the run it queued until it is done.
      await open(page, `/manage/stations/${sid}/timeseriesgroups/${gid}/`);
      await expect(page.locator("#processes")).not.toContainText("queued", { timeout: 30_000 });
      await page.locator(".series-item", { hasText: "Initial (10min)" }).getByRole("link", { name: "Upload records" }).click();
      await hydrated(page);
      await page.getByLabel("pasted text").check();
      await page.getByLabel("Records", { exact: true }).fill("2025-03-01 00:30,1.33,\n2025-03-01 00:40,1.35,\n2025-03-01 00:50,1.36,\n2025-03-01 01:00,1.40,\n");
      await page.getByRole("button", { name: "Check (nothing is stored)" }).click();
      await page.getByRole("button", { name: "Store 4 records" }).click();
      await expect(status(page)).toContainText("Stored 4 records");
      const run = page.locator(".upload-runs-list li");
      await expect(run).toHaveCount(1);
      await expect(run.locator(".upload-run-process")).toHaveText("Hourly mean, at most 5 missing");
      await expect(page.locator(".upload-runs > p").first()).toHaveText("Processing queued by this upload:");
      await expect(run).toHaveAttribute("data-status", "succeeded", { timeout: 30_000 });
      await expect(run.locator(".upload-run-status")).toHaveText(/^done, \d+ records?$/);
      await noHorizontalScroll(page);
      await shot(page, "manage-08e-upload-runs");
      await open(page, `/stations/${sid}/timeseriesgroups/${gid}/`);

      // Rename the station from its public page's Edit link.
      await page.getByRole("navigation", { name: "Breadcrumb" }).getByRole("link", { name: stationName }).click();
      await expect(page).toHaveURL(at(`/stations/${sid}/`));
      await page.getByRole("link", { name: "Edit", exact: true }).click();
      await expect(page).toHaveURL(at(`/manage/stations/${sid}/`));
      await hydrated(page);
      await page.getByRole("form", { name: "Station" }).getByLabel("Name", { exact: true }).fill(`${stationName} renamed`);
      await page.getByRole("button", { name: "Save station" }).click();
      await expect(status(page)).toHaveText("Your changes have been saved.");
      await expect(page.getByRole("heading", { level: 1 })).toContainText(`${stationName} renamed`);
      // The location did not move, so its original SRID stays.
      expect(((await (await page.request.get(`/api/stations/${sid}/`)).json()) as { original_srid: number }).original_srid).toBe(2100);

      // An event, then its delete, confirmed on a page that says what goes.
      await hydrated(page);
      await page.getByText("Add an event").click();
      const eventForm = page.getByRole("form", { name: "New event" });
      await eventForm.getByLabel("Date").fill("2025-03-02");
      await eventForm.getByLabel("Type").selectOption({ index: 1 });
      await eventForm.getByLabel("Report").fill("Cleaned the float well");
      await eventForm.getByRole("button", { name: "Add event" }).click();
      await expect(status(page)).toHaveText("The event has been added.");
      const eventRow = page.locator("#events tr", { hasText: "Cleaned the float well" });
      await eventRow.getByRole("link", { name: "Delete" }).click();
      await expect(page.getByRole("heading", { name: /Delete the event of 2025-03-02\?/ })).toBeVisible();
      await hydrated(page);
      await shot(page, "manage-09-delete-event");
      await page.getByRole("button", { name: "Delete the event of 2025-03-02" }).click();
      await expect(status(page)).toHaveText("The event has been deleted.");
      await expect(page.locator("#events")).toContainText("No events.");

      // The activity of the station, newest first.
      const activity = page.locator("#activity li");
      await expect(activity.first()).toContainText("Deleted event");
      await expect(page.locator("#activity")).toContainText("Uploaded 3 records");
      await expect(page.locator("#activity")).toContainText(`Created station "${stationName}"`);
      await noHorizontalScroll(page);
      await shot(page, "manage-10-station-after");

      // Anonymous visitors are sent to the login page, which returns them here.
      const anonymous = await newPage(browser, size.viewport);
      await anonymous.goto(`/manage/stations/${sid}/`);
      await expect(anonymous).toHaveURL(at(`/accounts/login/?next=${encodeURIComponent(`/manage/stations/${sid}/`)}`));
      await anonymous.context().close();

      // Someone without rights: 403 pages, and no edit links on the public pages.
      const other = unique("other");
      createUser(other, PASSWORD);
      const outsider = await newPage(browser, size.viewport);
      await signIn(outsider, other, PASSWORD);
      await expect(outsider.getByRole("link", { name: "Manage" })).toBeVisible();
      for (const path of [`/manage/stations/${sid}/`, `/manage/stations/${sid}/timeseriesgroups/${gid}/`, `/manage/stations/${sid}/delete/`, "/manage/stations/new/", "/manage/lookups/", "/manage/users/", "/manage/replication/"]) {
        const response = await outsider.goto(path);
        expect(response!.status(), path).toBe(403);
        await expect(outsider.getByRole("heading", { name: "You do not have permission to see this page" })).toBeVisible();
        // The tab says so too (the page is drawn on the server, lib/frontend/refusals.ts).
        await expect(outsider, path).toHaveTitle(/^Not allowed · /);
      }
      await shot(outsider, "manage-11-forbidden");
      await outsider.goto(`/stations/${sid}/`);
      await expect(outsider.getByRole("heading", { level: 1 })).toContainText("renamed");
      await expect(outsider.getByRole("link", { name: "Edit", exact: true })).toHaveCount(0);
      await outsider.goto(`/stations/${sid}/timeseriesgroups/${gid}/`);
      await expect(outsider.getByRole("link", { name: "Edit", exact: true })).toHaveCount(0);
      await outsider.goto("/manage/");
      await expect(outsider.getByText("You do not edit any station yet.")).toBeVisible();
      await expect(outsider.getByRole("link", { name: "New station" })).toHaveCount(0);
      await outsider.context().close();
    });

    test(`two editors save the same station: the second is told and sees both versions (${size.name})`, async ({ page, browser }) => {
      test.setTimeout(90_000);
      const owner = unique("owner");
      const colleague = unique("colleague");
      createUser(owner, PASSWORD, { canAddStations: true });
      createUser(colleague, PASSWORD);
      await signIn(page, owner, PASSWORD);
      await open(page, "/manage/stations/new/");
      await page.getByLabel("Name", { exact: true }).fill(unique("Shared "));
      await page.getByRole("combobox", { name: "Owner" }).fill("ntua");
      await page.getByRole("option", { name: /National Technical University of Athens/ }).click();
      await page.getByLabel("Longitude or easting (x)").fill("21.5");
      await page.getByLabel("Latitude or northing (y)").fill("39.5");
      await page.getByRole("button", { name: "Create station" }).click();
      await expect(page).toHaveURL(/\/manage\/stations\/\d+\/(\?done=created)?$/);
      const sid = Number(/stations\/(\d+)\//.exec(page.url())![1]);
      await hydrated(page);

      // The owner makes the colleague a maintainer, finding them by username.
      const people = page.getByRole("form", { name: "Maintainers and data viewers" });
      await people.getByRole("combobox", { name: "Add to maintainers" }).fill(colleague.slice(0, 10));
      await page.getByRole("option", { name: new RegExp(colleague) }).click();
      await expect(people.locator(".chips")).toContainText(colleague);
      await people.getByRole("button", { name: "Save people" }).click();
      await expect(status(page)).toHaveText("The maintainers and data viewers have been saved.");
      await shot(page, "manage-12-people");

      // Both open the form; the colleague saves first.
      const second = await newPage(browser, size.viewport);
      await signIn(second, colleague, PASSWORD);
      await open(second, `/manage/stations/${sid}/`);
      await open(page, `/manage/stations/${sid}/`);
      await second.getByRole("form", { name: "Station" }).getByLabel("Overseer").fill("Colleague");
      await second.getByRole("button", { name: "Save station" }).click();
      await expect(status(second)).toHaveText("Your changes have been saved.");
      await page.getByRole("form", { name: "Station" }).getByLabel("Overseer").fill("Owner");
      await page.getByRole("form", { name: "Station" }).getByLabel("Remarks").fill("Owner's remark");
      await page.getByRole("button", { name: "Save station" }).click();
      await expect(alertBox(page).first()).toContainText("This station was changed by someone else since you opened it.");
      await expect(page.getByRole("form", { name: "Station" }).getByLabel("Overseer")).toHaveValue("Owner");
      await expect(page.getByRole("form", { name: "Station" }).getByLabel("Remarks")).toHaveValue("Owner's remark");
      await expect(page.getByRole("form", { name: "Station" }).locator(".field", { has: page.getByLabel("Overseer") }).locator(".stored-value")).toHaveText("Saved now: Colleague");
      await noHorizontalScroll(page);
      await shot(page, "manage-13-stale");
      // Saving again, knowingly, replaces the colleague's value.
      await page.getByRole("button", { name: "Save station" }).click();
      await expect(status(page)).toHaveText("Your changes have been saved.");
      await expect(page.getByRole("form", { name: "Station" }).getByLabel("Overseer")).toHaveValue("Owner");
      await second.context().close();
    });
  });
}

test("a curve interpolation from points pasted from a spreadsheet; its messages by period and line", async ({ page }) => {
  const admin = unique("curveadmin");
  createUser(admin, PASSWORD, { superuser: true });
  const login = await page.request.post("/api/auth/login/", { form: { username: admin, password: PASSWORD } });
  const headers = { Authorization: `Token ${((await login.json()) as { key: string }).key}` };
  const post = async (path: string, data: object) => {
    const r = await page.request.post(path, { headers, data });
    expect(r.status(), await r.text()).toBe(201);
    return ((await r.json()) as { id: number }).id;
  };
  const organizations = (await (await page.request.get("/api/organizations/")).json()) as { results: { id: number }[] };
  const sid = await post("/api/stations/", { name: unique("Rating station "), geom: "POINT (21 39.1)", owner: organizations.results[0].id });
  const variables = (await (await page.request.get("/api/variables/")).json()) as { results: { id: number }[] };
  const units = (await (await page.request.get("/api/units/")).json()) as { results: { id: number }[] };
  const group = (name: string) => post(`/api/stations/${sid}/timeseriesgroups/`, { name, precision: 3, variable: variables.results[0].id, unit_of_measurement: units.results[0].id });
  const stage = await group("Stage");
  const discharge = await group("Discharge");

  await signIn(page, admin, PASSWORD);
  await open(page, `/manage/stations/${sid}/timeseriesgroups/${stage}/`);
  await hydrated(page);
  await page.locator("summary", { hasText: "Add a curve interpolation" }).click();
  const form = page.getByRole("form", { name: "New curve interpolation process" });
  await form.getByLabel("Target group").selectOption(String(discharge));
  await form.getByLabel("Start date").fill("2020-01-01");
  await form.getByLabel("End date").fill("2020-12-31");
  // Two columns copied from a spreadsheet with decimal commas, one row with a third cell.
  const points = form.getByLabel("Points (x, y)");
  await points.fill("0,10\t0\n0,50\t1,25\t9\n\n1,20\t4,75");
  await form.getByRole("button", { name: "Add curve interpolation" }).click();
  await expect(form.locator(".field-errors")).toHaveText("Period 1, line 2: A point is a pair of numbers [x, y].");
  await expect(points).toHaveValue("0,10\t0\n0,50\t1,25\t9\n\n1,20\t4,75");
  await shot(page, "manage-10-curve-error");
  await points.fill("0,10\t0\n0,50\t1,25\n\n1,20\t4,75");
  await form.getByRole("button", { name: "Add curve interpolation" }).click();
  await expect(page).toHaveURL(/\/processes\/\d+\/(\?done=process-created)?$/);
  const pid = Number(/processes\/(\d+)\//.exec(page.url())![1]);
  const stored = (await (await page.request.get(`/api/stations/${sid}/timeseriesgroups/${stage}/processes/${pid}/`)).json()) as { target_timeseries_group: number; periods: unknown };
  expect(stored.target_timeseries_group).toBe(discharge);
  expect(stored.periods).toEqual([{ start_date: "2020-01-01", end_date: "2020-12-31", points: [[0.1, 0], [0.5, 1.25], [1.2, 4.75]] }]);
  // The process page shows the points as tab-separated lines, ready to copy back into a spreadsheet.
  await expect(page.getByRole("form", { name: "Process" }).getByLabel("Points (x, y)").first()).toHaveValue("0.1\t0\n0.5\t1.25\n1.2\t4.75");
});

test.describe("superusers' pages", () => {
  for (const size of SIZES) {
    test(`lookups and users (${size.name})`, async ({ page }) => {
      await page.setViewportSize(size.viewport);
      const admin = unique("root");
      createUser(admin, PASSWORD, { superuser: true });
      await logIn(page, admin, PASSWORD, "/accounts/login/?next=%2Fmanage%2F");
      await expect(page).toHaveURL(at("/manage/"));
      await hydrated(page);
      // The home is the first page of the trail: no "Manage" crumb linking to itself; the search says whose stations it searches.
      await expect(page.getByRole("navigation", { name: "Breadcrumb" })).toHaveCount(0);
      await expect(page.getByRole("searchbox", { name: "Search all stations" })).toBeVisible();
      // Every station's last update is shown whole, at a phone's width too (it was cut at "(UTC+02:").
      const updates = page.locator('#stations td[data-label="Last update"]:has(time)');
      expect(await updates.count()).toBeGreaterThan(0);
      for (const cell of await updates.all()) {
        const [box, time] = [(await cell.boundingBox())!, (await cell.locator("time").boundingBox())!];
        expect(time.x + time.width, "the last update is cut").toBeLessThanOrEqual(box.x + box.width + 0.5);
        expect(await cell.evaluate((e) => e.scrollWidth - e.clientWidth), "the last update is cut").toBeLessThanOrEqual(0);
      }
      await shot(page, "manage-14-home-superuser");

      // A station type: added, then its delete refused while a station uses it (api.md §11's 409 reason).
      await page.getByRole("link", { name: "Lookups" }).click();
      await page.getByRole("link", { name: "Station types" }).click();
      await hydrated(page);
      await shot(page, "manage-15-lookup-list");
      await page.getByRole("link", { name: "Meteorological" }).click();
      await page.getByRole("link", { name: "Delete" }).click();
      await hydrated(page);
      // It is in use: the page says so at once, with what uses it, and offers no Delete button.
      await expect(page.getByRole("heading", { name: /cannot be deleted/ })).toBeVisible();
      await expect(page.locator(".confirm-delete")).toContainText(/This object cannot be deleted because other objects refer to it\. It is used by [\d,]+ stations?: /);
      await expect(page.getByRole("button", { name: /Delete station type/ })).toHaveCount(0);
      await shot(page, "manage-16-lookup-delete-refused");
      const descr = unique("Snow pillow ");
      await open(page, "/manage/lookups/stationtypes/");
      await page.getByLabel("Description", { exact: true }).fill(descr);
      await page.getByRole("button", { name: "Add station type" }).click();
      await expect(status(page)).toHaveText("Created.");
      await expect(page.getByRole("link", { name: descr })).toBeVisible();

      // A user: added without a password, then sent a reset e-mail.
      const username = unique("newcomer");
      await open(page, "/manage/users/");
      await page.getByRole("textbox", { name: "Username" }).fill("not valid!");
      await page.getByRole("button", { name: "Add user" }).click();
      await expect(page.locator(".field", { has: page.getByRole("textbox", { name: "Username" }) }).locator(".field-errors"))
        .toHaveText("Enter a valid username. This value may contain only letters, numbers, and @/./+/-/_ characters.");
      await page.getByRole("textbox", { name: "Username" }).fill(username);
      await page.getByRole("textbox", { name: "E-mail" }).fill(`${username}@example.com`);
      await page.getByLabel("May add stations").check();
      await page.getByRole("button", { name: "Add user" }).click();
      await expect(status(page)).toHaveText("Created.");
      await expect(page.getByLabel("May add stations")).toBeChecked();
      await expect(page.getByText(/password/i).first()).toBeVisible();
      await expect(page.locator("input[type='password']")).toHaveCount(0);
      await hydrated(page);
      await page.getByRole("button", { name: "Send a password-reset e-mail" }).click();
      await expect(page.getByRole("status").filter({ hasText: "password-reset" })).toHaveText("A password-reset e-mail has been sent to the user's address.");
      expect(await mailTo(`${username}@example.com`)).toContain("/api/auth/password/reset/confirm/");
      await noHorizontalScroll(page);
      await shot(page, "manage-17-user");
      await open(page, `/manage/users/?q=${username}`);
      await expect(page.getByRole("link", { name: username })).toBeVisible();
      await shot(page, "manage-18-users");
    });
  }
});
