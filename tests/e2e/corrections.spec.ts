import { expect, test, type APIRequestContext, type Page } from "@playwright/test";
import { join } from "node:path";
import { hydrated, logIn, offline, open, SCREENSHOTS, shot, superuserApi, unique, waveRecords } from "./helpers";

/**
 * The quality-control workbench and "compare with…" (corrections.md §3), with screenshots under
 * tests/artifacts/screenshots/corrections-*.png: an editor selects a range by dragging on the
 * chart, previews an offset (nothing changes), applies it (data/ changes by exactly that), reverts
 * it from the history (data/ is byte-identical to before), edits one record in the table, and
 * overlays a series of another unit on the workbench and on the public chart page.
 */
const PASSWORD = "corrections-password-1";

test.beforeEach(async ({ context }) => {
  await offline(context);
});

async function setUp(request: APIRequestContext) {
  const { admin, headers, post, owner, variable, units } = await superuserApi(request, "qcadmin", PASSWORD);
  const station = unique("QC station ");
  const sid = await post("/api/stations/", { name: station, geom: "POINT (21 39.1)", owner });
  const series = async (name: string, unit: number) => {
    const gid = await post(`/api/stations/${sid}/timeseriesgroups/`, { name, precision: 2, variable, unit_of_measurement: unit });
    const tid = await post(`/api/stations/${sid}/timeseriesgroups/${gid}/timeseries/`, { type: "Initial", time_step: "10min", name, publicly_available: true });
    const data = `/api/stations/${sid}/timeseriesgroups/${gid}/timeseries/${tid}/data/`;
    const stored = await request.post(data, { headers, form: { timeseries_records: waveRecords(3), timezone: "UTC" } });
    expect(stored.status(), await stored.text()).toBe(204);
    return { gid, tid, data };
  };
  const gauge = await series("Gauge", units[0].id);
  const neighbour = await series("Neighbour", units[1].id);
  const csv = async (path: string) => (await request.get(`${path}?timezone=UTC`, { headers })).text();
  return { admin, sid, station, gauge, neighbour, csv };
}

/** Drags across the chart from one fraction of its width to another. */
async function dragOnChart(page: Page, from: number, to: number): Promise<void> {
  const grid = (await page.locator(".workbench-chart .chart-grid rect").boundingBox())!;
  const y = grid.y + grid.height / 2;
  await page.mouse.move(grid.x + grid.width * from, y);
  await page.mouse.down();
  for (let i = 1; i <= 10; i++) await page.mouse.move(grid.x + grid.width * (from + ((to - from) * i) / 10), y);
  await page.mouse.up();
}

async function addCompared(page: Page, station: string, series: string): Promise<void> {
  const compare = page.locator("details.compare");
  await compare.locator("summary", { hasText: "Compare with…" }).click();
  await compare.getByLabel("Station", { exact: true }).fill(station);
  await compare.getByRole("button", { name: "Search" }).click();
  await compare.getByRole("button", { name: station }).click();
  await compare.getByLabel(`Time series of ${station}`).selectOption({ label: `${series} (10min)` });
  await compare.getByRole("button", { name: "Add to the chart" }).click();
  await expect(page.locator(".compare-list li")).toContainText(`${station} · ${series}`);
}

test("an editor selects a range on the chart, previews an offset, applies it, reverts it and compares", async ({ page, request }) => {
  test.setTimeout(300_000);
  await page.setViewportSize({ width: 1280, height: 900 });
  const { admin, sid, station, gauge, neighbour, csv } = await setUp(request);
  const original = await csv(gauge.data);

  await logIn(page, admin, PASSWORD);
  await expect(page).not.toHaveURL(/\/accounts\/login\//);
  // From the group's management page, as an editor finds it.
  await open(page, `/manage/stations/${sid}/timeseriesgroups/${gauge.gid}/`);
  const workers: string[] = [];
  page.on("worker", (worker) => workers.push(new URL(worker.url()).pathname));
  await page.getByRole("link", { name: "Quality control" }).click();
  // The address then carries the range shown (the workbench keeps its view there).
  await expect(page).toHaveURL(new RegExp(`/manage/stations/${sid}/timeseriesgroups/${gauge.gid}/timeseries/${gauge.tid}/edit/\\?start=[^&]+&end=[^&]+$`));
  await hydrated(page);
  await expect(page.locator(".workbench-chart")).toHaveAttribute("data-state", "ready");
  await expect(page.getByRole("heading", { name: "Records of the range (432)" })).toBeVisible();
  // The records were read off the main thread, by the records worker (components/manage/records-loader.ts);
  // on a full load of the page its inline script starts the worker before React does, and the workbench takes that answer.
  expect(workers).toEqual(["/_enhydris/records-worker.js"]);
  await page.reload();
  await hydrated(page);
  await expect(page.locator(".workbench-chart")).toHaveAttribute("data-state", "ready");
  await expect(page.getByRole("heading", { name: "Records of the range (432)" })).toBeVisible();
  expect(await page.evaluate(() => window.__enhydrisRecords?.taken)).toBe(true);
  expect(workers).toEqual(["/_enhydris/records-worker.js", "/_enhydris/records-worker.js"]);

  // Select by dragging over the middle of the shown range.
  await dragOnChart(page, 0.35, 0.6);
  const selection = page.getByTestId("selection");
  await expect(selection).toContainText("Selected:");
  const selectedCount = Number((await selection.innerText()).match(/([\d,]+) records/)![1].replace(/,/g, ""));
  expect(selectedCount).toBeGreaterThan(10);
  await expect(page.getByRole("heading", { name: `Records of the selection (${selectedCount})` })).toBeVisible();

  // Preview an offset: the count, before and after; nothing stored yet.
  await page.getByLabel("Operation", { exact: true }).selectOption("offset");
  await page.getByLabel("Amount", { exact: true }).fill("5");
  await page.getByLabel("Comment", { exact: true }).fill("gauge drift");
  await page.getByRole("button", { name: "Preview" }).click();
  const preview = page.getByTestId("preview");
  await expect(preview).toContainText(`${selectedCount} records would change.`);
  await expect(page.locator(".legend-after")).toBeVisible();
  await shot(page, "corrections-01-preview");
  expect(await csv(gauge.data)).toBe(original);

  // Apply: exactly the selected records are 5 higher.
  await page.getByRole("button", { name: `Apply to ${selectedCount} records` }).click();
  await expect(page.locator(".workbench-ops .message.success")).toHaveText(`Changed ${selectedCount} records.`);
  const changed = (await csv(gauge.data)).split(/\r?\n/);
  const before = original.split(/\r?\n/);
  const differing = before.map((line, i) => [line, changed[i]]).filter(([a, b]) => a !== b);
  expect(differing).toHaveLength(selectedCount);
  for (const [a, b] of differing) expect(Number(b.split(",")[1])).toBeCloseTo(Number(a.split(",")[1]) + 5, 6);
  const history = page.locator(".workbench-history tbody tr");
  await expect(history.first()).toContainText("transform (offset 5)");
  await expect(history.first()).toContainText("gauge drift");
  await shot(page, "corrections-02-applied");

  // Revert it from the history: data/ is byte-identical to before.
  const transformRow = history.first();
  const transformId = await transformRow.getAttribute("data-correction");
  await transformRow.getByRole("button", { name: "Revert" }).click();
  await expect(page.locator(".workbench-ops .message.success")).toHaveText(`Reverted correction ${transformId}.`);
  await expect(history.first()).toContainText(`of #${transformId}`);
  await expect(page.locator(`.workbench-history tr[data-correction="${transformId}"]`)).toContainText(`reverted by #`);
  expect(await csv(gauge.data)).toBe(original);

  // Compare with the neighbour, of another unit: a second value axis.
  await addCompared(page, station, "Neighbour");
  await expect(page.locator(".workbench-chart .value-axis")).toHaveCount(2);
  await expect(page.locator(".workbench-chart path.chart-line[stroke='#c2410c']")).toHaveCount(1);
  await shot(page, "corrections-03-compare");

  // The address keeps the view: reloaded (or sent to a colleague), it shows the same range and comparison.
  await expect(page).toHaveURL(new RegExp(`[?&]compare=${neighbour.tid}(&|$)`));
  const from = await page.getByLabel(/^From/).inputValue();
  await page.reload();
  await hydrated(page);
  await expect(page.locator(".workbench-chart")).toHaveAttribute("data-state", "ready");
  await expect(page.getByLabel(/^From/)).toHaveValue(from);
  await expect(page.locator(".compare-list li")).toContainText(`${station} · Neighbour`);
  await expect(page.locator(".workbench-chart .value-axis")).toHaveCount(2);
  // A series this user may not read, or none at all, is left out; a range that does not parse is ignored.
  await page.goto(`${new URL(page.url()).pathname}?start=yesterday&compare=999999,${neighbour.tid},abc`);
  await hydrated(page);
  await expect(page.locator(".compare-list li")).toHaveCount(1);
  await expect(page.getByRole("heading", { name: "Records of the range (432)" })).toBeVisible();
});

test("the public chart page compares a series with another one", async ({ page, request }) => {
  test.setTimeout(300_000);
  await page.setViewportSize({ width: 1280, height: 900 });
  const { sid, station, gauge } = await setUp(request);
  await open(page, `/stations/${sid}/timeseriesgroups/${gauge.gid}/?series=${gauge.tid}`);
  await hydrated(page);
  await expect(page.locator(".chart-box .recharts-line-curve").first()).toBeVisible();
  await addCompared(page, station, "Neighbour");
  await expect(page.locator(".chart-box .recharts-yAxis")).toHaveCount(2);
  await expect(page.locator(".chart-box path.recharts-line-curve[stroke='#c2410c']")).toHaveCount(1);
  await shot(page, "corrections-04-public-compare");
});

test("an editor without a pointer selects a range, previews and applies an offset, and edits a record, all from the keyboard", async ({ page, request }) => {
  test.setTimeout(300_000);
  await page.setViewportSize({ width: 1280, height: 900 });
  const { admin, sid, gauge, csv } = await setUp(request);
  const original = (await csv(gauge.data)).split(/\r?\n/);
  await logIn(page, admin, PASSWORD);
  await expect(page).not.toHaveURL(/\/accounts\/login\//);
  await open(page, `/manage/stations/${sid}/timeseriesgroups/${gauge.gid}/timeseries/${gauge.tid}/edit/`);
  await expect(page.locator(".workbench-chart")).toHaveAttribute("data-state", "ready");
  // Type the range in From and To and show it (Enter), then select it whole.
  await page.getByLabel(/^From/).fill("2025-01-01 01:00");
  await page.getByLabel(/^To/).fill("2025-01-01 01:50");
  await page.getByLabel(/^To/).press("Enter");
  await expect(page.getByRole("heading", { name: "Records of the range (6)" })).toBeVisible();
  const selectShown = page.getByRole("button", { name: "Select the range shown" });
  await selectShown.focus();
  await page.keyboard.press("Enter");
  await expect(page.getByTestId("selection")).toContainText("6 records");
  await page.locator("#wb-op").selectOption("offset");
  await page.locator("#wb-amount").fill("2");
  await page.locator("#wb-amount").press("Enter");
  const apply = page.getByRole("button", { name: "Apply to 6 records" });
  await apply.focus();
  await page.keyboard.press("Enter");
  await expect(page.locator(".workbench-ops .message.success")).toHaveText("Changed 6 records.");
  const changed = (await csv(gauge.data)).split(/\r?\n/);
  expect(changed.filter((line, i) => line !== original[i])).toHaveLength(6);
  // Edit from the keyboard: the value has the focus as the row opens, Escape closes it unsaved.
  await page.locator(".workbench-table tbody tr").first().getByRole("button", { name: "Edit" }).focus();
  await page.keyboard.press("Enter");
  await expect(page.getByLabel("Value", { exact: true })).toBeFocused();
  await page.keyboard.type("99");
  await page.keyboard.press("Escape");
  await expect(page.locator(".workbench-table tr.editing")).toHaveCount(0);
  expect((await csv(gauge.data)).split(/\r?\n/)).toEqual(changed);
});

test("a compared series is drawn as a line when zoomed in to hours, where most chart intervals are empty", async ({ page, request }) => {
  test.setTimeout(300_000);
  await page.setViewportSize({ width: 1280, height: 900 });
  const { admin, sid, station, gauge, neighbour } = await setUp(request);
  // 12 hours: 72 records of each series in 300 intervals, so most intervals are empty.
  const range = "start=2025-01-01T06:00:00Z&end=2025-01-01T18:00:00Z";
  /** The number of segments drawn in a path: a line broken at every empty interval has none. */
  const segments = async (path: ReturnType<Page["locator"]>) => ((await path.getAttribute("d")) ?? "").split("L").length - 1;
  await open(page, `/stations/${sid}/timeseriesgroups/${gauge.gid}/?series=${gauge.tid}&${range}`);
  await hydrated(page);
  await addCompared(page, station, "Neighbour");
  const publicLine = page.locator(".chart-box path.recharts-line-curve[stroke='#c2410c']");
  await expect(publicLine).toHaveCount(1);
  await expect.poll(() => segments(publicLine)).toBeGreaterThan(60);

  await logIn(page, admin, PASSWORD);
  await expect(page).not.toHaveURL(/\/accounts\/login\//);
  await open(page, `/manage/stations/${sid}/timeseriesgroups/${gauge.gid}/timeseries/${gauge.tid}/edit/?${range}&compare=${neighbour.tid}`);
  await hydrated(page);
  await expect(page.locator(".workbench-chart")).toHaveAttribute("data-state", "ready");
  const workbenchLine = page.locator(".workbench-chart path.chart-line[stroke='#c2410c']");
  await expect(workbenchLine).toHaveCount(1);
  await expect.poll(() => segments(workbenchLine)).toBeGreaterThan(60);
});

test("an editor edits a record's value and flags in the table", async ({ page, request }) => {
  test.setTimeout(300_000);
  await page.setViewportSize({ width: 1280, height: 900 });
  const { admin, sid, gauge, csv } = await setUp(request);
  await logIn(page, admin, PASSWORD);
  await expect(page).not.toHaveURL(/\/accounts\/login\//);
  await open(page, `/manage/stations/${sid}/timeseriesgroups/${gauge.gid}/timeseries/${gauge.tid}/edit/`);
  await expect(page.locator(".workbench-chart")).toHaveAttribute("data-state", "ready");
  // Edit one record in the table.
  const firstRow = page.locator(".workbench-table tbody tr").first();
  await firstRow.getByRole("button", { name: "Edit" }).click();
  // The row stays open for editing (the click that opened it did not also submit it).
  await expect(page.locator(".workbench-table tr.editing")).toHaveCount(1);
  // A typo is refused in words, the row stays open and nothing is stored (it used to become an empty value).
  const firstLine = (await csv(gauge.data)).split(/\r?\n/)[0];
  await page.getByLabel("Value", { exact: true }).fill("2O.1");
  await page.getByRole("button", { name: "Save" }).click();
  await expect(page.locator(".workbench-ops .message.error")).toHaveText('"2O.1" is not a number: nothing was changed.');
  await expect(page.locator(".workbench-table tr.editing")).toHaveCount(1);
  expect((await csv(gauge.data)).split(/\r?\n/)[0]).toBe(firstLine);
  await page.getByLabel("Value", { exact: true }).fill("42.5");
  await page.getByLabel("Flags", { exact: true }).fill("CHECKED");
  await page.getByRole("button", { name: "Save" }).click();
  await expect(page.locator(".workbench-ops .message.success")).toContainText("Changed the record of 2025-01-01");
  expect((await csv(gauge.data)).split(/\r?\n/)[0]).toBe("2025-01-01 00:00,42.50,CHECKED");
  await expect(page.locator(".workbench-table tbody tr").first()).toContainText("CHECKED");
  // The flagged point on the chart: its tooltip gives the time as the page writes it and the flags.
  await page.locator(".workbench-chart path.chart-flagged").hover();
  const tooltip = page.locator(".workbench-chart .workbench-tooltip");
  await expect(tooltip).toContainText("Flagged (CHECKED)");
  await expect(tooltip).toContainText("2025-01-01 00:00");
  await expect(tooltip).not.toContainText(/\d{10}/);
  // The chart alone (a full-page picture resizes the window, and the pointer's read-out goes).
  await page.locator(".workbench-chart").screenshot({ path: join(SCREENSHOTS, "corrections-05-flagged-tooltip-desktop.png") });
});
