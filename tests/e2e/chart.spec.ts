import { readFileSync } from "node:fs";
import { expect, test, type Page } from "@playwright/test";
import { at, createUser, hydrated, logIn, offline, unique } from "./helpers";

/** The group page (api.md §16): chart viewer, zoom, shareable state, private series, download. */
test.beforeEach(async ({ context }) => {
  await offline(context);
});

const isChart = (url: string) => /\/timeseries\/\d+\/chart\/\?/.test(url);
const range = (page: Page) => page.locator(".chart-range");
const drawn = (page: Page) => page.locator(".chart-box[data-state='ready'] .recharts-line-curve");
/** The mean line's vertices (an "M x,y L x,y …" path: one per interval with a value). */
const vertices = async (page: Page) => ((await drawn(page).first().getAttribute("d")) ?? "").split(/[ML]/).filter((v) => v.trim()).length;

/** Records the chart/ requests the page makes from now on. */
function chartRequests(page: Page): URL[] {
  const seen: URL[] = [];
  page.on("request", (r) => {
    if (isChart(r.url())) seen.push(new URL(r.url()));
  });
  return seen;
}

/** Opens Komboti's air temperature; the page comes with its first chart, so none is fetched. */
async function openKombotiTemperature(page: Page) {
  await page.goto("/?q=KMB");
  await page.getByRole("link", { name: "Komboti" }).click();
  const requests = chartRequests(page);
  await page.getByRole("link", { name: "Air temperature" }).click();
  await hydrated(page);
  await expect(drawn(page)).toBeVisible();
  expect(requests).toEqual([]);
  return requests;
}


test("open a chart and zoom by dragging: the chart is fetched again for the new range", async ({ page }) => {
  // The whole series came with the page: a 10-minute series without gaps has a value in
  // (nearly) every one of the 300 intervals.
  await openKombotiTemperature(page);
  expect(await vertices(page)).toBeGreaterThan(270);
  await expect(range(page)).toContainText("2025-01-01 00:00 – 2025-12-31 23:50");
  await expect(range(page)).toContainText("UTC+02:00");
  await expect(page.locator(".recharts-label", { hasText: "Temperature (°C)" })).toBeVisible();
  await expect(page.locator(".recharts-label", { hasText: "Time (UTC+02:00)" })).toBeVisible();

  // Drag from about March to about June.
  const grid = (await page.locator(".recharts-cartesian-grid").boundingBox())!;
  const y = grid.y + grid.height / 2;
  const zoomed = page.waitForResponse((r) => isChart(r.url()) && new URL(r.url()).searchParams.has("start_date"));
  await page.mouse.move(grid.x + grid.width * 0.2, y);
  await page.mouse.down();
  for (let i = 1; i <= 10; i++) await page.mouse.move(grid.x + grid.width * (0.2 + 0.025 * i), y);
  await page.mouse.up();
  const response = await zoomed;
  expect(response.status()).toBe(200);
  const params = new URL(response.url()).searchParams;
  const start = Date.parse(params.get("start_date")!);
  const end = Date.parse(params.get("end_date")!);
  expect(params.get("start_date")).toMatch(/^2025-0[2-4]-\d\dT\d\d:\d\d:\d\d\+02:00$/);
  expect(end - start).toBeGreaterThan(60 * 86400_000);
  expect(end - start).toBeLessThan(120 * 86400_000);
  const points = (await response.json()) as { timestamp: number; mean: string | null }[];
  expect(points.filter((p) => p.mean !== null).length).toBeGreaterThan(points.length * 0.9);
  expect(points[0].timestamp * 1000).toBeGreaterThanOrEqual(start);
  expect(points[points.length - 1].timestamp * 1000).toBeLessThanOrEqual(end);
  await expect(drawn(page)).toBeVisible();
  await expect(range(page)).not.toContainText("2025-01-01 00:00");
  const shown = await range(page).textContent();
  expect(shown).toMatch(/^(Showing )?2025-0[2-4]-\d\d \d\d:\d\d – 2025-0[4-7]-\d\d \d\d:\d\d/);

  // The state is in the URL: series, start and end; opening it again shows the same chart,
  // which the server sends with the page.
  const url = new URL(page.url());
  expect(url.searchParams.get("series")).toMatch(/^\d+$/);
  expect(url.searchParams.get("start")).toBe(params.get("start_date"));
  expect(url.searchParams.get("end")).toBe(params.get("end_date"));
  const zoomedVertices = await vertices(page);
  const reloaded = chartRequests(page);
  await page.goto(url.toString());
  await hydrated(page);
  await expect(drawn(page)).toBeVisible();
  await expect(range(page)).toHaveText(shown!);
  expect(await vertices(page)).toBe(zoomedVertices);
  expect(reloaded).toEqual([]);

  // The buttons zoom too; "Whole series" goes back.
  const inner = page.waitForResponse((r) => isChart(r.url()));
  await page.getByRole("button", { name: "Zoom in" }).click();
  const innerParams = new URL((await inner).url()).searchParams;
  expect(Date.parse(innerParams.get("end_date")!) - Date.parse(innerParams.get("start_date")!)).toBeLessThan(end - start);
  const wholeAgain = page.waitForResponse((r) => isChart(r.url()) && !new URL(r.url()).searchParams.has("start_date"));
  await page.getByRole("button", { name: "Whole series" }).click();
  await wholeAgain;
  await expect(range(page)).toContainText("2025-01-01 00:00 – 2025-12-31 23:50");
});

/** The pieces of a path ("M…L…M…": one per M) and its vertices. */
const pieces = (d: string) => ({ segments: d.split("M").filter((v) => v.trim()).length, vertices: d.split(/[ML]/).filter((v) => v.trim()).length });
const ONE_DAY = "?series=1&start=2025-06-06T00:00:00%2B02:00&end=2025-06-07T00:00:00%2B02:00";

test("a day of 10-minute records, fewer than the chart's intervals, is drawn as one line", async ({ page }) => {
  // 144 records in 200 intervals: every third or so is empty, yet no record is missing.
  await openKombotiTemperature(page);
  await page.goto(`${new URL(page.url()).pathname}${ONE_DAY}`);
  await hydrated(page);
  await expect(drawn(page)).toBeVisible();
  const line = pieces((await drawn(page).first().getAttribute("d")) ?? "");
  expect(line.segments).toBe(1);
  expect(line.vertices).toBeGreaterThan(190);
  await expect(page.locator(".recharts-line-dots circle")).toHaveCount(0);
});

test("choose another time series of the group", async ({ page }) => {
  await openKombotiTemperature(page);
  const firstId = new URL(page.url()).searchParams.get("series") ?? (await page.getByLabel("Time series", { exact: true }).first().inputValue());
  const next = page.waitForResponse((r) => isChart(r.url()) && !r.url().includes(`/timeseries/${firstId}/`));
  await page.getByLabel("Time series", { exact: true }).first().selectOption({ label: "Aggregated (Daily mean, D)" });
  const response = await next;
  const id = /timeseries\/(\d+)\/chart/.exec(response.url())![1];
  await expect(page).toHaveURL(new RegExp(`series=${id}`));
  await expect(drawn(page)).toBeVisible();
  await expect(range(page)).toContainText("2025-01-01 00:00 – 2025-12-31 00:00");
});

test("a private series shows a message instead of the chart, unless the user may read it", async ({ page }) => {
  let charted = false;
  page.on("request", (r) => {
    if (isChart(r.url())) charted = true;
  });
  await page.goto("/?q=IOA");
  await page.getByRole("link", { name: "Ioannina" }).click();
  await page.getByRole("link", { name: "Air temperature" }).click();
  await expect(page.getByText("The data of this time series are not public.")).toBeVisible();
  await expect(page.locator(".chart-message").getByRole("link", { name: "Log in" })).toBeVisible();
  await expect(page.getByText("There are no time series here whose data you may download.")).toBeVisible();
  expect(charted).toBe(false);
  const groupPage = new URL(page.url()).pathname;

  // A superuser may read every series.
  const admin = unique("reader");
  createUser(admin, "reader-password-1", { superuser: true });
  await logIn(page, admin, "reader-password-1", `/accounts/login/?next=${encodeURIComponent(groupPage)}`);
  await expect(page).toHaveURL(at(groupPage));
  await expect(drawn(page)).toBeVisible();
  await expect(page.getByRole("link", { name: "Download" })).toBeVisible();
});

test("download a CSV of a date range", async ({ page }) => {
  await openKombotiTemperature(page);
  const form = page.locator(".download-form");
  await form.getByLabel("Format").selectOption("csv");
  await form.getByLabel("Start date").fill("2025-03-01");
  await form.getByLabel("End date").fill("2025-03-02");
  await expect(form.getByLabel("Time zone of the timestamps")).toHaveValue("Etc/GMT-2");
  const link = form.getByRole("link", { name: "Download" });
  const href = new URL((await link.getAttribute("href"))!, page.url());
  expect(href.pathname).toMatch(/^\/api\/stations\/\d+\/timeseriesgroups\/\d+\/timeseries\/\d+\/data\/$/);
  expect(Object.fromEntries(href.searchParams)).toEqual({
    fmt: "csv", start_date: "2025-03-01T00:00", end_date: "2025-03-02T23:59:59", timezone: "Etc/GMT-2",
  });
  const download = page.waitForEvent("download");
  await link.click();
  const text = readFileSync(await (await download).path(), "utf8");
  const lines = text.split("\r\n").filter(Boolean);
  expect(lines[0]).toMatch(/^2025-03-01 00:00,-?\d+\.\d,$/);
  expect(lines[lines.length - 1]).toMatch(/^2025-03-02 23:50,/);
  expect(lines).toHaveLength(2 * 144);

  // HTS in UTC: the link follows the form.
  await form.getByLabel("Format").selectOption("hts");
  await form.getByLabel("Time zone of the timestamps").selectOption("UTC");
  const hts = new URL((await link.getAttribute("href"))!, page.url()).searchParams;
  expect(hts.get("fmt")).toBe("hts");
  expect(hts.get("timezone")).toBe("UTC");
});

test.describe("without JavaScript", () => {
  test.use({ javaScriptEnabled: false });

  test("the group page's chart is drawn in the server's HTML as SVG", async ({ page }) => {
    await page.goto("/?q=KMB");
    await page.getByRole("link", { name: "Komboti" }).click();
    await page.getByRole("link", { name: "Air temperature" }).click();
    const chart = page.getByTestId("static-chart");
    await expect(chart).toBeVisible();
    await expect(chart).toHaveAttribute("aria-label", /^Chart of .* from 2025-01-01 00:00 to 2025-12-31 23:50 \(UTC\+02:00\)$/);
    await expect(chart.locator("text", { hasText: "Time (UTC+02:00)" })).toBeVisible();
    await expect(chart.locator("text", { hasText: "Temperature (°C)" })).toBeVisible();
    // The mean line has a vertex for (nearly) every one of the 300 intervals, and the band is drawn.
    const mean = (await chart.locator("path[stroke='#0b4f85']").getAttribute("d")) ?? "";
    expect(mean.split(/[ML]/).filter((v) => v.trim()).length).toBeGreaterThan(270);
    expect(((await chart.locator("path[fill='#7fb7dd']").getAttribute("d")) ?? "").length).toBeGreaterThan(1000);
    // Styled by the stylesheet in the HTML itself: no second request before the first paint.
    await expect(page.locator('link[rel="stylesheet"]')).toHaveCount(0);
    await expect(page.locator(".site-header")).toHaveCSS("background-color", "rgb(11, 57, 84)");
    await expect(page.locator(".card").first()).toHaveCSS("background-color", "rgb(255, 255, 255)");

    // A day of it: one line across the empty intervals, as with JavaScript.
    await page.goto(`${new URL(page.url()).pathname}${ONE_DAY}`);
    const day = pieces((await chart.locator("path[stroke='#0b4f85']").getAttribute("d")) ?? "");
    expect(day.segments).toBe(1);
    expect(day.vertices).toBeGreaterThan(190);
  });
});

test("the interactive chart takes the static one's place after hydration", async ({ page }) => {
  await openKombotiTemperature(page);
  await expect(page.getByTestId("static-chart")).toHaveCount(0);
});

test.describe("Next's scripts (lib/server/next-internals.ts, deferPageScripts)", () => {
  const nextScripts = (page: Page) =>
    page.evaluate(() => (performance.getEntriesByType("resource") as PerformanceResourceTiming[]).filter((r) => r.initiatorType === "script" && r.name.includes("/_next/static/")).length);

  test("are fetched only once the browser reports the first contentful paint", async ({ page }) => {
    // The page's paint observer, held back until the test releases it.
    await page.addInitScript(() => {
      const real = window.PerformanceObserver;
      class HeldObserver {
        constructor(private readonly callback: (list: { getEntriesByName(name: string): unknown[] }, observer: HeldObserver) => void) {}
        static get supportedEntryTypes() {
          return real.supportedEntryTypes;
        }
        observe() {
          (window as unknown as { releasePaint: () => void }).releasePaint = () => this.callback({ getEntriesByName: (name) => (name === "first-contentful-paint" ? [{}] : []) }, this);
        }
        disconnect() {}
      }
      (window as unknown as { PerformanceObserver: unknown }).PerformanceObserver = HeldObserver;
      // The loader's fallback (scripts start 2 s after DOMContentLoaded whatever happens) is held
      // too: on a busy machine the 2 s can pass before this test looks.
      const realSetTimeout = window.setTimeout;
      window.setTimeout = ((handler: TimerHandler, ms?: number, ...rest: unknown[]) =>
        (ms === 2000 ? 0 : realSetTimeout(handler, ms, ...rest))) as typeof window.setTimeout;
    });
    await page.goto("/stations/4/timeseriesgroups/1/");
    await expect(page.getByTestId("static-chart")).toBeVisible();
    await page.waitForTimeout(700);
    expect(await nextScripts(page)).toBe(0);
    await page.evaluate(() => (window as unknown as { releasePaint: () => void }).releasePaint());
    await expect(page.locator('.chart-box[data-state="ready"] .recharts-line-curve')).toBeVisible();
    expect(await nextScripts(page)).toBeGreaterThan(3);
  });

  test("start after two animation frames in a browser without paint timing", async ({ page }) => {
    await page.addInitScript(() => {
      delete (window as unknown as { PerformanceObserver?: unknown }).PerformanceObserver;
    });
    await page.goto("/stations/4/timeseriesgroups/1/");
    await expect(page.locator('.chart-box[data-state="ready"] .recharts-line-curve')).toBeVisible();
    // from the document parsed to the first script fetched: well before the loader's 2 s fallback
    const wait = await page.evaluate(() => {
      const parsed = (performance.getEntriesByType("navigation")[0] as PerformanceNavigationTiming).domContentLoadedEventEnd;
      const first = Math.min(...(performance.getEntriesByType("resource") as PerformanceResourceTiming[]).filter((r) => r.initiatorType === "script").map((r) => r.startTime));
      return first - parsed;
    });
    expect(wait).toBeLessThan(1000);
  });
});
