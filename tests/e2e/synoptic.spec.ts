import { existsSync, readdirSync, readFileSync } from "node:fs";
import Database from "better-sqlite3";
import { join } from "node:path";
import { expect, test, type APIRequestContext, type Locator } from "@playwright/test";
import { alertBox, at, createUser, hydrated, logIn, mailTo, offline, open, shot, unique } from "./helpers";

/**
 * Synoptic views (synoptic.md §2, §3) in Chromium, as users would use them: a duty officer's
 * page of a region (map and table, colours, updating itself every minute), a station's page
 * (latest values, 24-hour charts with limits), and the management pages where a user creates a
 * synoptic group by picking stations on the map and in the list; then a value above the limit
 * turns the page red and sends one e-mail, a second sends nothing, and a new crossing after a
 * return within bounds sends another.
 */
test.beforeEach(async ({ context }) => {
  await offline(context);
});

const PASSWORD = "synoptic-password-1";

async function tokenOf(request: APIRequestContext, username: string): Promise<string> {
  const r = await request.post("/api/auth/login/", { form: { username, password: PASSWORD } });
  expect(r.status()).toBe(200);
  return ((await r.json()) as { key: string }).key;
}

async function call(request: APIRequestContext, token: string, method: "GET" | "POST" | "PATCH", path: string, data?: object) {
  const r = await request.fetch(path, { method, headers: { Authorization: `Token ${token}` }, ...(data ? { data } : {}) });
  expect(r.status(), `${method} ${path}: ${await r.text()}`).toBeLessThan(300);
  return r.status() === 204 ? null : r.json();
}

/** "YYYY-MM-DD HH:MM" (UTC) of a time some minutes before now, on a 10-minute boundary. */
function minutesAgo(minutes: number): string {
  const t = Math.floor(Date.now() / 600_000) * 600_000 - minutes * 60_000;
  return new Date(t).toISOString().slice(0, 16).replace("T", " ");
}

/** A new station with a Stage group and an Initial series, created by the superuser through the API. */
async function freshGauge(request: APIRequestContext, token: string, name: string, lon: number, lat: number) {
  const organizations = (await call(request, token, "GET", "/api/organizations/")) as { results: { id: number }[] };
  const variable = (await call(request, token, "POST", "/api/variables/", { descr: unique("Stage ") })) as { id: number };
  const unit = (await call(request, token, "POST", "/api/units/", { symbol: "m", descr: "metres", variables: [variable.id] })) as { id: number };
  const station = (await call(request, token, "POST", "/api/stations/", {
    name, geom: `POINT (${lon} ${lat})`, owner: organizations.results[0].id, display_timezone: "Etc/GMT-2",
  })) as { id: number };
  const group = (await call(request, token, "POST", `/api/stations/${station.id}/timeseriesgroups/`, {
    name: "Stage", precision: 2, variable: variable.id, unit_of_measurement: unit.id,
  })) as { id: number };
  const series = (await call(request, token, "POST", `/api/stations/${station.id}/timeseriesgroups/${group.id}/timeseries/`, { type: "Initial", time_step: "10min" })) as { id: number };
  return { station: station.id, group: group.id, series: series.id, data: `/api/stations/${station.id}/timeseriesgroups/${group.id}/timeseries/${series.id}/data/` };
}

async function upload(request: APIRequestContext, token: string, path: string, lines: string) {
  await call(request, token, "POST", path, { timeseries_records: lines, timezone: "UTC" });
}

async function demoIds(request: APIRequestContext) {
  const stations = (await (await request.get("/api/stations/?page_size=100")).json()) as { results: { id: number; name: string }[] };
  const sid = (name: string) => stations.results.find((s) => s.name === name)!.id;
  const gid = async (station: number, name: string) =>
    ((await (await request.get(`/api/stations/${station}/timeseriesgroups/`)).json()) as { results: { id: number; name: string }[] }).results.find((g) => g.name === name)!.id;
  const komboti = sid("Komboti");
  const ioannina = sid("Ioannina");
  return { komboti, ioannina, kombotiTemp: await gid(komboti, "Air temperature"), ioanninaTemp: await gid(ioannina, "Air temperature") };
}

/** The warnings of a synoptic group so far (as its editor reads them). */
async function warningCount(request: APIRequestContext, token: string, id: number): Promise<number> {
  return ((await call(request, token, "GET", `/api/synopticgroups/${id}/warnings/`)) as { count: number }).count;
}

/** The development outbox's messages to an address. */
function mailsTo(address: string): string[] {
  const dir = process.env.E2E_OUTBOX!;
  return existsSync(dir) ? readdirSync(dir).map((f) => readFileSync(join(dir, f), "utf8")).filter((m) => m.includes(`\nTo: ${address}\n`)) : [];
}

/** The newest job of a synoptic group's evaluations (read from the test server's database). */
function jobs(id: number): { id: number; status: string }[] {
  const db = new Database(process.env.E2E_DATABASE_URL!.replace(/^file:/, ""), { readonly: true, fileMustExist: true });
  try {
    return db.prepare("SELECT id, status FROM job WHERE key = ? ORDER BY id").all(`synoptic:${id}`) as { id: number; status: string }[];
  } finally {
    db.close();
  }
}

/** Uploads records, then waits until the evaluation of the synoptic group that they queued has run. */
async function uploadAndEvaluate(request: APIRequestContext, token: string, path: string, lines: string, id: number): Promise<void> {
  const before = Math.max(0, ...jobs(id).map((j) => j.id));
  await upload(request, token, path, lines);
  await expect.poll(() => {
    const js = jobs(id);
    return js.some((j) => j.id > before && j.status === "succeeded") && !js.some((j) => j.status === "queued" || j.status === "running");
  }, { timeout: 10_000, message: `the evaluation of synoptic group ${id}` }).toBe(true);
}

test("the synoptic page: map and table, colours by status and freshness, updating every minute; private values hidden", async ({ page, request }) => {
  const admin = unique("synadmin");
  createUser(admin, PASSWORD, { superuser: true });
  const token = await tokenOf(request, admin);
  const demo = await demoIds(request);
  const gauge = await freshGauge(request, token, unique("Louros gauge "), 20.9, 39.3);
  await upload(request, token, gauge.data, `${minutesAgo(30)},1.20,\n${minutesAgo(20)},1.35,\n${minutesAgo(10)},1.50,\n`);
  const slug = unique("epirus-").toLowerCase();
  const group = (await call(request, token, "POST", "/api/synopticgroups/", {
    name: "Epirus flood watch", slug, display_timezone: "Etc/GMT-2", fresh_time_limit: 3600, early_warning_emails: [],
    stations: [
      { station: gauge.station, timeseries_groups: [{ timeseries_group: gauge.group, title: "Water level", high_limit: 2, low_limit: 0.5, default_chart_min: 0, default_chart_max: 3 }] },
      { station: demo.komboti, timeseries_groups: [{ timeseries_group: demo.kombotiTemp, high_limit: 3 }] },
      { station: demo.ioannina, timeseries_groups: [{ timeseries_group: demo.ioanninaTemp }] },
    ],
  })) as { id: number };

  await page.clock.install();
  await open(page, `/synoptic/${slug}/`);
  await expect(page.getByRole("heading", { level: 1 })).toHaveText("Epirus flood watch");
  const row = (name: string) => page.locator(".synoptic-table tbody tr", { has: page.getByRole("link", { name }) });
  const fresh = row("Louros gauge");
  await expect(fresh).toHaveAttribute("data-freshness", "recent");
  await expect(fresh.locator("td[data-status]")).toHaveAttribute("data-status", "ok");
  await expect(fresh.locator("td[data-status]")).toHaveText("1.50 m");
  // The demo data end in 2025: old, and Komboti's 3.9 °C is above its high limit of 3.
  await expect(row("Komboti")).toHaveAttribute("data-freshness", "old");
  await expect(row("Komboti").locator("td.freshness-old")).toContainText("2025-12-31 23:50 (old)");
  await expect(row("Komboti").locator("td[data-status]")).toHaveAttribute("data-status", "high");
  // Stale is told apart from "above the high limit" by its colour too (both were red): in the legend, the table and the markers.
  const colour = (l: Locator) => l.evaluate((e) => getComputedStyle(e).color);
  const legend = page.locator(".synoptic-legend");
  const red = await colour(legend.locator(".status-high"));
  expect(await colour(legend.locator(".freshness-old"))).not.toBe(red);
  expect(await colour(row("Komboti").locator("td.freshness-old"))).not.toBe(red);
  expect(await colour(row("Komboti").locator("td.freshness-old"))).not.toBe(await colour(row("Komboti").locator("td[data-status]")));
  const oldMarker = page.locator(`.synoptic-marker-box[data-station="${demo.komboti}"]`);
  await expect(oldMarker).toHaveAttribute("data-freshness", "old");
  expect(await oldMarker.evaluate((e) => getComputedStyle(e).borderTopColor)).not.toBe(red);
  expect(await colour(oldMarker.locator(".synoptic-marker-date"))).not.toBe(red);
  // Ioannina's temperature is not public.
  await expect(row("Ioannina").locator("td[data-status]")).toHaveAttribute("data-status", "hidden");
  await expect(row("Ioannina").locator("td[data-status]")).toHaveText("hidden");
  await expect(row("Ioannina").locator("td[data-status]")).toHaveAttribute("title", "not public");
  // One marker per station, framed by freshness, with its values.
  await expect(page.locator(".synoptic-marker-box")).toHaveCount(3);
  await expect(page.locator(`.synoptic-marker-box[data-station="${gauge.station}"]`)).toHaveAttribute("data-freshness", "recent");
  await expect(page.locator(`.synoptic-marker-box[data-station="${demo.komboti}"] li.status-high`)).toContainText("3.9 °C");
  await shot(page, "synoptic-01-page");

  // A value above the limit arrives; a minute later the page shows it without reloading.
  await page.evaluate(() => ((window as unknown as { notReloaded: boolean }).notReloaded = true));
  await upload(request, token, gauge.data, `${minutesAgo(0)},2.40,\n`);
  await page.clock.runFor(61_000);
  await expect(fresh.locator("td[data-status]")).toHaveAttribute("data-status", "high");
  await expect(fresh.locator("td[data-status]")).toHaveText("2.40 m (above the high limit)");
  await expect(page.locator(`.synoptic-marker-box[data-station="${gauge.station}"] li.status-high`)).toContainText("2.40 m");
  expect(await page.evaluate(() => (window as unknown as { notReloaded?: boolean }).notReloaded)).toBe(true);
  await shot(page, "synoptic-02-updated");

  // A data reader of Ioannina sees its value.
  await page.clock.runFor(1000);
  await logIn(page, admin, PASSWORD, `/accounts/login/?next=${encodeURIComponent(`/synoptic/${slug}/`)}`);
  await expect(page).toHaveURL(new RegExp(`/synoptic/${slug}/$`));
  await expect(row("Ioannina").locator("td[data-status]")).toHaveAttribute("data-status", "ok");
  await expect(page.getByRole("link", { name: "Edit", exact: true })).toHaveAttribute("href", `/manage/synoptic/${group.id}/`);

  await page.setViewportSize({ width: 390, height: 844 });
  await page.reload();
  await hydrated(page);
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
  expect(overflow, "the page scrolls sideways").toBeLessThanOrEqual(0);
  await expect(page.locator(".synoptic-marker-box")).toHaveCount(3);
  // Every marker's card lies inside the map at a phone's width: the map is fitted with room for them.
  const frame = (await page.locator(".map-frame.synoptic-map").boundingBox())!;
  for (const card of await page.locator(".synoptic-marker-box").all()) {
    const b = (await card.boundingBox())!;
    expect(b.x, "a card is cut at the left").toBeGreaterThanOrEqual(frame.x);
    expect(b.y, "a card is cut at the top").toBeGreaterThanOrEqual(frame.y);
    expect(b.x + b.width, "a card is cut at the right").toBeLessThanOrEqual(frame.x + frame.width);
    expect(b.y + b.height, "a card is cut at the bottom").toBeLessThanOrEqual(frame.y + frame.height);
    const zoom = (await page.locator(".leaflet-control-zoom").boundingBox())!;
    const clear = b.x >= zoom.x + zoom.width || b.y >= zoom.y + zoom.height || b.x + b.width <= zoom.x || b.y + b.height <= zoom.y;
    expect(clear, "a card is under the zoom buttons").toBe(true);
  }
  await shot(page, "synoptic-01-page");
});

test("a station's page: latest values and 24-hour charts with the limits drawn", async ({ page, request }) => {
  const admin = unique("synadmin");
  createUser(admin, PASSWORD, { superuser: true });
  const token = await tokenOf(request, admin);
  const demo = await demoIds(request);
  const gauge = await freshGauge(request, token, unique("Arachthos "), 21.0, 39.2);
  const lines = Array.from({ length: 144 }, (_, i) => `${minutesAgo((143 - i) * 10)},${(1 + Math.sin(i / 20) * 0.8).toFixed(2)},`).join("\n");
  await upload(request, token, gauge.data, lines);
  const slug = unique("station-").toLowerCase();
  await call(request, token, "POST", "/api/synopticgroups/", {
    name: "Arachthos", slug, display_timezone: "Etc/GMT-2", fresh_time_limit: 3600,
    stations: [
      { station: gauge.station, timeseries_groups: [{ timeseries_group: gauge.group, title: "Water level", low_limit: 0.4, high_limit: 1.7, default_chart_min: 0, default_chart_max: 2.5 }] },
      { station: demo.ioannina, timeseries_groups: [{ timeseries_group: demo.ioanninaTemp }] },
    ],
  });
  await open(page, `/synoptic/${slug}/`);
  await page.locator(".synoptic-table").getByRole("link", { name: /^Arachthos / }).click();
  await expect(page).toHaveURL(new RegExp(`/synoptic/${slug}/stations/${gauge.station}/$`));
  await hydrated(page);
  await expect(page.getByRole("heading", { level: 1 })).toContainText("Conditions at Arachthos");
  await expect(page.locator("time[data-freshness='recent']")).toBeVisible();
  const value = page.locator(".synoptic-values > div");
  await expect(value.locator("dt")).toHaveText("Water level");
  await expect(value.locator("dd")).toContainText(" m");
  const chart = page.locator(".synoptic-chart");
  await expect(chart).toHaveAttribute("data-points", "144");
  await expect(chart.locator(".recharts-line-curve")).toBeVisible();
  // The two limits as dashed lines, named in the legend.
  await expect(chart.locator(".recharts-reference-line")).toHaveCount(2);
  await expect(page.locator(".synoptic-chart-legend")).toHaveText(/low limit 0\.4 m\s*high limit 1\.7 m/);
  // The y axis covers the default chart range (0 to 2.5).
  const tickValues = chart.locator(".recharts-yAxis-tick-labels .recharts-cartesian-axis-tick-value");
  await expect(tickValues.first()).toBeVisible();
  const ticks = await tickValues.allTextContents();
  expect(Math.min(...ticks.map(Number))).toBeLessThanOrEqual(0);
  expect(Math.max(...ticks.map(Number))).toBeGreaterThanOrEqual(2.5);
  await shot(page, "synoptic-03-station");

  // A private series: no value, no chart, for an anonymous visitor.
  await open(page, `/synoptic/${slug}/stations/${demo.ioannina}/`);
  await expect(page.locator(".synoptic-values > div")).toHaveAttribute("data-status", "hidden");
  await expect(page.getByText("The data of this time series are not public.")).toBeVisible();
  await expect(page.locator(".synoptic-chart")).toHaveCount(0);
  expect((await page.goto(`/synoptic/${slug}/stations/999999/`))!.status()).toBe(404);
});

test("a user creates a synoptic group on the map and in the list; a crossing turns it red and sends one e-mail", async ({ page, request, browser }) => {
  // The whole story (two users, five uploads and their evaluations, three e-mails) in one test.
  test.setTimeout(120_000);
  const admin = unique("synadmin");
  createUser(admin, PASSWORD, { superuser: true });
  const token = await tokenOf(request, admin);
  const officer = unique("officer");
  createUser(officer, PASSWORD);
  const gauge = await freshGauge(request, token, unique("Kalamas bridge "), 20.3, 39.6);
  await upload(request, token, gauge.data, `${minutesAgo(20)},3.10,\n`);
  const address = `${unique("duty")}@example.com`.toLowerCase();

  // Anonymous visitors are sent to log in first.
  await page.goto("/manage/synoptic/new/");
  await expect(page).toHaveURL(/\/accounts\/login\/\?next=%2Fmanage%2Fsynoptic%2Fnew%2F$/);
  await logIn(page, officer, PASSWORD, "/accounts/login/?next=%2Fmanage%2Fsynoptic%2Fnew%2F");
  await expect(page).toHaveURL(/\/manage\/synoptic\/new\/$/);
  await hydrated(page);

  const slug = unique("kalamas-").toLowerCase();
  await page.getByLabel("Name", { exact: true }).fill("Kalamas watch");
  await page.getByLabel("Slug").fill("not a slug");
  await page.getByLabel("Fresh time limit (seconds)").fill("3600");
  await page.getByLabel("Display time zone").selectOption("Etc/GMT-2");
  await page.getByLabel("Early warning e-mails").fill(address);
  // The new gauge, picked on the map (its circle), then Komboti from the list.
  await expect(page.locator(`.station-pick-${gauge.station}`)).toBeVisible();
  await page.locator(`.station-pick-${gauge.station}`).click({ force: true });
  const gaugeSet = page.locator(`fieldset[data-station="${gauge.station}"]`);
  await expect(gaugeSet).toBeVisible();
  await page.getByLabel("Find a station").fill("kombo");
  await page.getByRole("button", { name: "Add Komboti" }).click();
  const komboti = page.locator("fieldset.synoptic-station", { hasText: "Komboti" });
  await expect(komboti).toBeVisible();
  await expect(page.locator(`.station-pick-${gauge.station}.picked`)).toBeVisible();
  await gaugeSet.getByLabel(/^Stage/).check();
  await gaugeSet.getByLabel("High limit").fill("4");
  await gaugeSet.getByLabel("Low limit").fill("5");
  await komboti.getByLabel(/^Air temperature/).check();
  await komboti.getByLabel("Rate-of-change check").check();
  await komboti.getByLabel("Thresholds").fill("10min 3\n1h");
  await shot(page, "synoptic-04-new-form");
  await page.getByRole("button", { name: "Create synoptic group" }).click();

  // The API's messages, next to what they concern; what was typed stays.
  await expect(alertBox(page).first()).toContainText("Please correct the errors below.");
  await expect(page.locator("#slug-errors")).toHaveText('Enter a valid "slug" consisting of letters, numbers, underscores or hyphens.');
  await expect(komboti.locator(".field-errors")).toHaveText("Thresholds, line 2: Largest change: This field is required.");
  // The limits' own rule on the same (first) submit, though another series does not parse yet.
  await expect(gaugeSet.locator(".field-errors")).toHaveText("Low limit must not be greater than high limit.");
  await expect(gaugeSet.getByLabel("High limit")).toHaveValue("4");
  await expect(page.getByLabel("Early warning e-mails")).toHaveValue(address);
  await shot(page, "synoptic-05-form-errors");
  await page.getByLabel("Slug").fill(slug);
  await komboti.getByLabel("Thresholds").fill("10min 3");
  await page.getByRole("button", { name: "Create synoptic group" }).click();
  // Still refused for the limits once the rest is right.
  await expect(gaugeSet.locator(".field-errors")).toHaveText("Low limit must not be greater than high limit.");
  await expect(komboti.locator(".field-errors")).toHaveCount(0);
  await gaugeSet.getByLabel("Low limit").fill("");
  await page.getByRole("button", { name: "Create synoptic group" }).click();
  await expect(page).toHaveURL(/\/manage\/synoptic\/\d+\/(\?saved=1)?$/);
  await expect(page.getByRole("status").filter({ hasText: "The synoptic group has been saved." })).toBeVisible();
  const id = Number(/\/manage\/synoptic\/(\d+)\//.exec(page.url())![1]);
  const saved = (await (await request.get(`/api/synopticgroups/${id}/`)).json()) as { stations: { station: number; timeseries_groups: { high_limit: number | null; rate_of_change: unknown }[] }[]; early_warning_emails: string[] };
  expect(saved.early_warning_emails).toEqual([address]);
  expect(saved.stations.map((s) => s.station)[0]).toBe(gauge.station);
  expect(saved.stations[0].timeseries_groups[0].high_limit).toBe(4);
  expect(saved.stations[1].timeseries_groups[0].rate_of_change).toEqual({ symmetric: false, thresholds: [{ delta_t: "10min", allowed_diff: 3 }] });

  // A value above the limit: within seconds the page shows it high, and one e-mail has gone.
  await uploadAndEvaluate(request, token, gauge.data, `${minutesAgo(10)},4.25,\n`, id);
  await open(page, `/synoptic/${slug}/`);
  const cell = page.locator(".synoptic-table tbody tr", { has: page.getByRole("link", { name: /^Kalamas bridge/ }) }).locator("td[data-status]");
  await expect(cell).toHaveAttribute("data-status", "high");
  const mail = await mailTo(address);
  expect(mail).toMatch(/\nSubject: Enhydris early warning \(Kalamas bridge [^)]*\)\n/);
  expect(mail).toMatch(/\nKalamas bridge \S+ Stage \d{4}-\d\d-\d\d \d\d:\d\d 4\.25 m \(high limit 4 m\)\n/);
  await shot(page, "synoptic-06-high");

  // A second high value sends nothing.
  await uploadAndEvaluate(request, token, gauge.data, `${minutesAgo(0)},4.40,\n`, id);
  expect(await warningCount(request, token, id)).toBe(1);
  expect(mailsTo(address)).toHaveLength(1);

  // Back within bounds, then a new crossing: a second e-mail.
  await uploadAndEvaluate(request, token, gauge.data, `${minutesAgo(-10)},3.90,\n`, id);
  expect(await warningCount(request, token, id)).toBe(1);
  await uploadAndEvaluate(request, token, gauge.data, `${minutesAgo(-20)},4.10,\n`, id);
  await expect.poll(() => mailsTo(address).length, { timeout: 10_000 }).toBe(2);
  expect(await warningCount(request, token, id)).toBe(2);

  // The warnings are listed to the group's editors on its manage page.
  await open(page, `/manage/synoptic/${id}/`);
  const warnings = page.locator("#warnings tbody tr");
  await expect(warnings).toHaveCount(2);
  await expect(warnings.first()).toHaveAttribute("data-status", "sent");
  await expect(warnings.first()).toContainText("4.10 m (high limit 4 m)");
  await shot(page, "synoptic-07-manage");

  // Another user may not edit it: 403.
  const stranger = unique("stranger");
  createUser(stranger, PASSWORD);
  const other = await browser.newContext({ baseURL: page.url() });
  await offline(other);
  const otherPage = await other.newPage();
  await logIn(otherPage, stranger, PASSWORD);
  await expect(otherPage).toHaveURL(at("/"));
  expect((await otherPage.goto(`/manage/synoptic/${id}/`))!.status()).toBe(403);
  await expect(otherPage.getByRole("heading", { level: 1 })).toHaveText("You do not have permission to see this page");
  await other.close();

  // Delete, after a confirmation that says what goes.
  await page.getByRole("link", { name: "Delete it" }).click();
  await expect(page.locator("h1")).toHaveText("Delete “Kalamas watch”?");
  await expect(page.locator(".card p").first()).toContainText("2 stations and 2 variables shown, their limits and alarms, and 2 recorded warnings");
  await shot(page, "synoptic-08-delete");
  await page.getByRole("button", { name: "Delete the synoptic group" }).click();
  await expect(page).toHaveURL(/\/manage\/synoptic\/(\?deleted=Kalamas%20watch)?$/);
  await expect(page.getByRole("status").filter({ hasText: "has been deleted" })).toBeVisible();
  expect((await request.get(`/api/synopticgroups/${id}/`)).status()).toBe(404);
});
