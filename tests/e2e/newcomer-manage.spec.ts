import { readFileSync } from "node:fs";
import { expect, test, type APIRequestContext, type Browser, type Page } from "@playwright/test";
import { at, createUser, logIn, noHorizontalScroll, offline, shot, unique } from "./helpers";

/**
 * The pages a new user found rough (issue 36, item 7), walked again: 403 and 404 pages styled at
 * once (JavaScript off too) and saying what is refused; a save that redirects in one response
 * without the server refusing its own request; the upload page's count of problems, times and
 * mode; the forms' messages in their labels' words and time steps as people type them; one zone
 * picker; the header's synoptic link; the download form following the chart; no upload into a
 * series that processes write; banners gone after a reload; synoptic cards apart on a phone;
 * the API reference on a phone; a favicon.
 */
test.beforeEach(async ({ context }) => {
  await offline(context);
});
// Each test walks several pages (and logs in, and makes users with the project's command).
test.describe.configure({ timeout: 300_000 });

const PASSWORD = "newcomer-password-1";
const PHONE = { width: 390, height: 844 };
/** The site header's background (public/site.css, --brand): styled means this colour. */
const BRAND = "rgb(11, 57, 84)";

async function tokenOf(request: APIRequestContext, username: string): Promise<string> {
  const r = await request.post("/api/auth/login/", { form: { username, password: PASSWORD } });
  expect(r.status()).toBe(200);
  return ((await r.json()) as { key: string }).key;
}

async function call(request: APIRequestContext, token: string, method: "GET" | "POST", path: string, data?: object) {
  const r = await request.fetch(path, { method, headers: { Authorization: `Token ${token}` }, ...(data ? { data } : {}) });
  expect(r.status(), `${method} ${path}: ${await r.text()}`).toBeLessThan(300);
  return r.json();
}

async function stationId(request: APIRequestContext, name: string): Promise<number> {
  const stations = (await (await request.get("/api/stations/?page_size=100")).json()) as { results: { id: number; name: string }[] };
  return stations.results.find((s) => s.name === name)!.id;
}

/** Komboti's air temperature: its group and series by type (demo data: Initial, Checked, Regularized, Aggregated). */
async function kombotiTemperature(request: APIRequestContext) {
  const sid = await stationId(request, "Komboti");
  const groups = (await (await request.get(`/api/stations/${sid}/timeseriesgroups/`)).json()) as { results: { id: number; name: string }[] };
  const gid = groups.results.find((g) => g.name === "Air temperature")!.id;
  const series = (await (await request.get(`/api/stations/${sid}/timeseriesgroups/${gid}/timeseries/`)).json()) as { results: { id: number; type: string }[] };
  const tid = (type: string) => series.results.find((t) => t.type === type)!.id;
  return { sid, gid, initial: tid("Initial"), checked: tid("Checked") };
}

/** The cookies of a session of `username` (logged in once, by the login page). */
async function sessionOf(page: Page, username: string) {
  await logIn(page, username, PASSWORD);
  await expect(page).toHaveURL(at("/"));
  return page.context().storageState();
}

/** A context with that session, JavaScript on or off. */
async function loggedIn(browser: Browser, storageState: Awaited<ReturnType<typeof sessionOf>>, javaScriptEnabled: boolean, viewport: { width: number; height: number }) {
  const context = await browser.newContext({ storageState, javaScriptEnabled, viewport });
  await offline(context);
  return context;
}

/** Waits (as long as a busy machine needs) until React has hydrated the page. */
async function hydrated(page: Page): Promise<void> {
  await expect(page.locator("html[data-hydrated='true']")).toHaveCount(1, { timeout: 60_000 });
}

async function open(page: Page, path: string): Promise<void> {
  await page.goto(path);
  await hydrated(page);
}

/** What the server logged (its JSON lines) since the test began. */
function serverLogSince(start: number): string[] {
  return readFileSync(process.env.E2E_SERVER_LOG!, "utf8").split("\n")
    .filter((line) => line.startsWith("{") && Date.parse((JSON.parse(line) as { time: string }).time) >= start);
}

test("403 and 404 pages are the styled pages at once, JavaScript on or off, and say what is refused", async ({ browser, page }) => {
  const username = unique("plain");
  createUser(username, PASSWORD);
  const { sid } = await kombotiTemperature(page.request);
  const forbiddenPath = `/manage/stations/${sid}/`;
  const refusal = "You may not edit this station: only its maintainers, the user who created it and the administrators can.";
  const session = await sessionOf(page, username);

  for (const javaScriptEnabled of [false, true]) {
    for (const viewport of [{ width: 1280, height: 800 }, PHONE]) {
      const context = await loggedIn(browser, session, javaScriptEnabled, viewport);
      const tab = await context.newPage();
      const response = await tab.goto(forbiddenPath);
      expect(response!.status()).toBe(403);
      // The HTML itself is the page: no empty shell for scripts to fill.
      const html = await response!.text();
      expect(html).not.toContain("__next_error__");
      expect(html).toContain('<style id="site-stylesheet">');
      expect(html).toContain(refusal);
      await expect(tab.getByRole("heading", { level: 1 })).toHaveText("You do not have permission to see this page");
      await expect(tab.locator("main")).toContainText(refusal);
      await expect(tab.getByRole("navigation", { name: "Account" })).toContainText(viewport.width > 480 ? username : "Log out");
      expect(await tab.locator(".site-header").evaluate((e) => getComputedStyle(e).backgroundColor)).toBe(BRAND);
      await expect(tab).toHaveTitle(/^Not allowed · /);
      await noHorizontalScroll(tab);
      if (javaScriptEnabled) await shot(tab, "forbidden-station");
      else await shot(tab, "forbidden-station-no-js");

      const missing = await tab.goto("/stations/987654/");
      expect(missing!.status()).toBe(404);
      expect(await missing!.text()).not.toContain("__next_error__");
      await expect(tab.getByRole("heading", { level: 1 })).toHaveText("Page not found");
      await expect(tab.locator("main")).toContainText("There is no station 987654");
      expect(await tab.locator(".site-header").evaluate((e) => getComputedStyle(e).backgroundColor)).toBe(BRAND);
      if (!javaScriptEnabled) await shot(tab, "not-found-station-no-js");
      await context.close();
    }
  }

  // A plain HTTP GET of the HTML, as a crawler or curl would: the refusal is in it, styled.
  const other = await page.request.get(`/manage/users/`);
  expect(other.status()).toBe(403);
  const otherHtml = await other.text();
  expect(otherHtml).toContain("You may not manage the users: only administrators can.");
  expect(otherHtml).toContain('<style id="site-stylesheet">');
  const anonymous = await page.request.get("/stations/987654/timeseriesgroups/1/", { headers: { Cookie: "" } });
  expect(anonymous.status()).toBe(404);
  expect(await anonymous.text()).toContain("There is no station 987654");
});

test("a save redirects in one response, without a request the server refuses, and its banner goes after a reload", async ({ page }) => {
  const admin = unique("admin");
  createUser(admin, PASSWORD, { superuser: true });
  const { sid } = await kombotiTemperature(page.request);
  await logIn(page, admin, PASSWORD);
  await expect(page).toHaveURL(at("/"));
  await open(page, `/manage/stations/${sid}/`);
  const start = Date.now();
  const requests: string[] = [];
  page.on("request", (r) => {
    if (new URL(r.url()).host === new URL(page.url()).host) requests.push(`${r.method()} ${new URL(r.url()).pathname}`);
  });
  const [post] = await Promise.all([
    page.waitForResponse((r) => r.request().method() === "POST"),
    page.getByRole("button", { name: "Save station" }).click(),
  ]);
  // The page to go to came in the POST's own response (Next's redirect of a server action).
  expect(post.headers()["x-action-redirect"]).toMatch(new RegExp(`^/manage/stations/${sid}/\\?done=saved;`));
  expect(post.headers()["content-type"]).toContain("text/x-component");
  const banner = page.locator(".message.success");
  await expect(banner).toHaveText("Your changes have been saved.");
  // Shown once: the address no longer carries it, and a reload does not show it again.
  await expect(page).toHaveURL(new RegExp(`/manage/stations/${sid}/$`));
  expect(requests.filter((r) => r === `GET /manage/stations/${sid}/`)).toEqual([]);
  expect(requests.filter((r) => r.startsWith("POST"))).toHaveLength(1);
  const log = serverLogSince(start);
  expect(log.filter((l) => l.includes("not allowed"))).toEqual([]);
  // Next's own request for the page, answered for the site's host.
  expect(log.filter((l) => l.includes(`"method":"GET","path":"/manage/stations/${sid}/"`) && l.includes('"status":200'))).toHaveLength(1);
  await page.reload();
  await hydrated(page);
  await expect(page.getByRole("heading", { level: 1 })).toContainText("Komboti");
  await expect(banner).toHaveCount(0);
});

test("the upload page counts all the refused lines, writes times as the page does and points to the right mode", async ({ page }) => {
  const admin = unique("admin");
  createUser(admin, PASSWORD, { superuser: true });
  const { sid, gid, initial } = await kombotiTemperature(page.request);
  await logIn(page, admin, PASSWORD);
  await expect(page).toHaveURL(at("/"));
  await open(page, `/manage/stations/${sid}/timeseriesgroups/${gid}/timeseries/${initial}/upload/`);
  // 144 records that are stored already (the demo's first day, every 10 minutes, in the station's zone).
  const lines = Array.from({ length: 144 }, (_, i) => {
    const h = String(Math.floor(i / 6)).padStart(2, "0");
    return `2025-01-01 ${h}:${String((i % 6) * 10).padStart(2, "0")},1.0,`;
  }).join("\n");
  await page.getByLabel("pasted text").check();
  await page.getByRole("textbox", { name: "Records" }).fill(lines);
  const zone = page.getByLabel("Time zone of the timestamps");
  await expect(zone).toHaveValue("Etc/GMT-2");
  const labels = await zone.locator("option").allTextContents();
  expect(labels[0]).toBe("UTC+02:00 (Etc/GMT-2), the station's");
  expect(new Set(labels).size).toBe(labels.length);
  expect(labels).toEqual(expect.arrayContaining(["UTC", "UTC (Etc/GMT)", "Europe/Athens (with summer time)"]));

  await page.getByRole("button", { name: "Check (nothing is stored)" }).click();
  const outcome = page.locator(".upload-outcome");
  await expect(outcome).toContainText("Nothing has been stored. The first 10 of 144 problems (times in UTC+02:00):");
  const items = outcome.locator(".line-errors li");
  await expect(items).toHaveCount(10);
  await expect(items.first()).toHaveText("line 1: 2025-01-01 00:00 is not later than the last stored record (2025-12-31 23:50)");
  await expect(outcome.locator(".mode-hint")).toContainText("choose “insert”");
  await shot(page, "upload-refused-append");

  await page.getByLabel("insert (between stored records)").check();
  await page.getByRole("button", { name: "Check (nothing is stored)" }).click();
  await expect(outcome).toContainText("The first 10 of 144 problems (times in UTC+02:00):");
  await expect(items.first()).toHaveText("line 1: a record at 2025-01-01 00:00 already exists");
  await expect(outcome.locator(".mode-hint")).toContainText("stored records are never overwritten");

  // Syntax errors: the check stops at the tenth.
  await page.getByRole("textbox", { name: "Records" }).fill(Array.from({ length: 30 }, (_, i) => `bad ${i}`).join("\n"));
  await page.getByRole("button", { name: "Check (nothing is stored)" }).click();
  await expect(outcome).toContainText("The first 10 problems (the check stops at the tenth; there may be more):");
});

test("forms speak in their labels' words, read time steps as people type them, and offer one zone picker", async ({ page, request }) => {
  const admin = unique("admin");
  createUser(admin, PASSWORD, { superuser: true });
  const token = await tokenOf(request, admin);
  const organizations = (await call(request, token, "GET", "/api/organizations/")) as { results: { id: number }[] };
  const variable = (await call(request, token, "POST", "/api/variables/", { descr: unique("Level ") })) as { id: number };
  const unit = (await call(request, token, "POST", "/api/units/", { symbol: "m", descr: "metres", variables: [variable.id] })) as { id: number };
  const station = (await call(request, token, "POST", "/api/stations/", {
    name: unique("Newcomer gauge "), geom: "POINT (21.1 39.2)", owner: organizations.results[0].id, display_timezone: "Etc/GMT-2",
  })) as { id: number };
  const group = (await call(request, token, "POST", `/api/stations/${station.id}/timeseriesgroups/`, {
    name: "Level", precision: 2, variable: variable.id, unit_of_measurement: unit.id,
  })) as { id: number };
  await call(request, token, "POST", `/api/stations/${station.id}/timeseriesgroups/${group.id}/timeseries/`, { type: "Initial", time_step: "10min" });

  await logIn(page, admin, PASSWORD);
  await expect(page).toHaveURL(at("/"));
  const groupPage = `/manage/stations/${station.id}/timeseriesgroups/${group.id}/`;
  await open(page, groupPage);

  // A checks process whose bounds are out of order, and a threshold typed in words.
  const checks = page.getByRole("form", { name: "New checks process" });
  await page.locator("summary", { hasText: "Add checks" }).click();
  await checks.getByLabel("Lower bound", { exact: true }).fill("10");
  await checks.getByLabel("Upper bound", { exact: true }).fill("0");
  await checks.getByLabel("Thresholds").fill("10 minutes 7.3\n1 hour x");
  await checks.getByRole("button", { name: "Add checks" }).click();
  await expect(checks.locator(".field-errors").first()).toBeVisible();
  const messages = await checks.locator(".field-errors li").allTextContents();
  expect(messages).toContain("The bounds must be in the order lower bound ≤ soft lower bound ≤ soft upper bound ≤ upper bound.");
  expect(messages.join("\n")).not.toMatch(/lower_bound|delta_t|allowed_diff/);
  expect(messages).toContain("Line 2: Largest change: A valid number is required.");

  // Fixed, it is added, with its thresholds as typed in the API's form.
  await checks.getByLabel("Lower bound", { exact: true }).fill("-10");
  await checks.getByLabel("Upper bound", { exact: true }).fill("40");
  await checks.getByLabel("Thresholds").fill("10 minutes 7.3\n1 hour 15");
  await checks.getByRole("button", { name: "Add checks" }).click();
  await expect(page.locator(".message.success")).toBeVisible();
  const processes = (await call(request, token, "GET", `/api/stations/${station.id}/timeseriesgroups/${group.id}/processes/`)) as { results: { range_check?: unknown; rate_of_change_check?: { thresholds: unknown[] } }[] };
  expect(processes.results[0].rate_of_change_check!.thresholds).toEqual([{ delta_t: "10min", allowed_diff: 7.3 }, { delta_t: "1h", allowed_diff: 15 }]);

  // An aggregation's time step in words: understood; misspelt: explained.
  await open(page, groupPage);
  await page.locator("summary", { hasText: "Add an aggregation" }).click();
  const aggregation = page.getByRole("form", { name: "New aggregation process" });
  await aggregation.getByLabel("Target time step").fill("10 minz");
  await aggregation.getByLabel("Method").selectOption("mean");
  await aggregation.getByRole("button", { name: "Add aggregation" }).click();
  await expect(aggregation.locator(".field-errors li").first()).toHaveText('"10 minz" is not a valid time step. Write a number and a unit, e.g. 10min, 1h (an hour) or 1D (a day).');
  // Too long to be one: the API's message says so, and the form how to write one.
  await aggregation.getByLabel("Target time step").fill("ten minutes");
  await aggregation.getByRole("button", { name: "Add aggregation" }).click();
  await expect(aggregation.locator(".field-errors li").first()).toHaveText("Ensure this field has no more than 7 characters. Write a number and a unit, e.g. 10min, 1h (an hour) or 1D (a day).");
  await aggregation.getByLabel("Target time step").fill("1 hour");
  await aggregation.getByRole("button", { name: "Add aggregation" }).click();
  await expect(page.locator(".message.success")).toBeVisible();

  // The Checked series is written by the checks: no upload is offered into it; the Initial one has it.
  await open(page, groupPage);
  const item = (type: string) => page.locator(".series-item").filter({ has: page.getByRole("heading", { name: new RegExp(`^${type}`) }) });
  await expect(item("Checked")).toContainText("Written by automatic processing");
  await expect(item("Checked").getByRole("link", { name: "Upload records" })).toHaveCount(0);
  await expect(item("Initial").getByRole("link", { name: "Upload records" })).toHaveCount(1);
  await shot(page, "manage-group-written-series");

  // The station form's zones: the same picker, each label distinct.
  await open(page, `/manage/stations/${station.id}/`);
  const stationZones = await page.getByLabel("Display time zone").locator("option").allTextContents();
  expect(new Set(stationZones).size).toBe(stationZones.length);
  expect(stationZones).toEqual(expect.arrayContaining(["UTC", "UTC (Etc/GMT)", "UTC+02:00 (Etc/GMT-2)"]));
});

test("the header links the synoptic views, and the download form follows the chart's series", async ({ page }) => {
  const { sid, gid, initial, checked } = await kombotiTemperature(page.request);
  await open(page, "/");
  await page.getByRole("navigation", { name: "Site" }).getByRole("link", { name: "Synoptic views" }).click();
  await expect(page).toHaveURL(/\/synoptic\/$/);
  await expect(page.getByRole("heading", { level: 1 })).toHaveText("Synoptic views");

  await open(page, `/stations/${sid}/timeseriesgroups/${gid}/`);
  const download = page.locator(".download-form");
  await expect(download.getByLabel("Time series")).toHaveValue(String(initial));
  await page.locator("#chart-series").selectOption(String(checked));
  await expect(page).toHaveURL(new RegExp(`series=${checked}`));
  await expect(download.getByLabel("Time series")).toHaveValue(String(checked));
  await expect(download.getByRole("link", { name: "Download" })).toHaveAttribute("href", new RegExp(`/timeseries/${checked}/data/`));
  // The user's own choice in the form stands until the chart changes again.
  await download.getByLabel("Time series").selectOption(String(initial));
  await expect(download.getByRole("link", { name: "Download" })).toHaveAttribute("href", new RegExp(`/timeseries/${initial}/data/`));
  const zones = await download.getByLabel("Time zone of the timestamps").locator("option").allTextContents();
  expect(zones[0]).toBe("UTC+02:00 (Etc/GMT-2), the station's");
  expect(new Set(zones).size).toBe(zones.length);
});

test("on a phone: the synoptic map's cards do not overlap, and the API reference fits", async ({ browser, request }) => {
  const admin = unique("admin");
  createUser(admin, PASSWORD, { superuser: true });
  const token = await tokenOf(request, admin);
  const stations = (await (await request.get("/api/stations/?page_size=100")).json()) as { results: { id: number }[] };
  const definitions = [];
  for (const s of stations.results.slice(0, 6)) {
    const groups = (await (await request.get(`/api/stations/${s.id}/timeseriesgroups/`)).json()) as { results: { id: number }[] };
    if (groups.results.length) definitions.push({ station: s.id, timeseries_groups: groups.results.slice(0, 2).map((g) => ({ timeseries_group: g.id })) });
  }
  const slug = unique("phone").toLowerCase();
  await call(request, token, "POST", "/api/synopticgroups/", { name: "All stations", slug, display_timezone: "Etc/GMT-2", fresh_time_limit: 3600, stations: definitions });

  const context = await browser.newContext({ viewport: PHONE, isMobile: true, hasTouch: true });
  await offline(context);
  const page = await context.newPage();
  await open(page, `/synoptic/${slug}/`);
  const cards = page.locator(".synoptic-marker-box");
  await expect(cards).toHaveCount(definitions.length);
  const boxes = await cards.evaluateAll((els) => els.map((e) => e.getBoundingClientRect()).map((r) => ({ x: r.x, y: r.y, w: r.width, h: r.height })));
  for (let i = 0; i < boxes.length; i++) {
    for (let j = i + 1; j < boxes.length; j++) {
      const [a, b] = [boxes[i], boxes[j]];
      const overlap = a.x < b.x + b.w && b.x < a.x + a.w && a.y < b.y + b.h && b.y < a.y + a.h;
      expect(overlap, `cards ${i} and ${j} overlap: ${JSON.stringify([a, b])}`).toBe(false);
    }
  }
  await shot(page, "synoptic-map-cards");
  // Zoomed in and out again, they are laid out anew.
  await page.locator(".leaflet-control-zoom-out").click();
  await page.waitForTimeout(400);
  const after = await cards.evaluateAll((els) => els.map((e) => e.getBoundingClientRect()).map((r) => ({ x: r.x, y: r.y, w: r.width, h: r.height })));
  for (let i = 0; i < after.length; i++) {
    for (let j = i + 1; j < after.length; j++) {
      const [a, b] = [after[i], after[j]];
      expect(a.x < b.x + b.w && b.x < a.x + a.w && a.y < b.y + b.h && b.y < a.y + a.h, `after zooming out, cards ${i} and ${j} overlap`).toBe(false);
    }
  }

  await page.goto("/api/docs/");
  await noHorizontalScroll(page);
  await shot(page, "api-docs");
  await context.close();
});

test("a favicon: /favicon.ico and the icon every page links", async ({ request }) => {
  const ico = await request.get("/favicon.ico");
  expect(ico.status()).toBe(200);
  expect(ico.headers()["content-type"]).toMatch(/image\/(x-icon|vnd\.microsoft\.icon)/);
  const bytes = await ico.body();
  expect(bytes.readUInt16LE(2)).toBe(1); // an icon resource
  expect(bytes.readUInt16LE(4)).toBeGreaterThanOrEqual(2); // of several sizes
  for (const path of ["/", "/api/docs/", "/stations/987654/"]) {
    const html = await (await request.get(path)).text();
    expect(html, path).toMatch(/<link rel="icon" href="\/favicon\.svg"/);
  }
  const svg = await request.get("/favicon.svg");
  expect(svg.headers()["content-type"]).toContain("image/svg+xml");
});
