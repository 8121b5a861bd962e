import { expect, test } from "@playwright/test";
import { alertBox, at, DEMO, mapReady, markerTotal, offline } from "./helpers";

/** The home page: search, result list and map (api.md §16, issue 7). */
test.beforeEach(async ({ context }) => {
  await offline(context);
});

const listNames = (page: import("@playwright/test").Page) => page.locator(".station-list .station-list-name a").allTextContents();

test("the home page lists and maps every station", async ({ page }) => {
  const geojson = page.waitForRequest((r) => r.url().includes("/api/stations/geojson/"));
  await page.goto("/");
  expect(new URL((await geojson).url()).search).toBe("");
  await expect(page.locator(".result-summary")).toContainText(`${DEMO.stations} stations match`);
  expect(await listNames(page)).toHaveLength(DEMO.stations);
  await mapReady(page, DEMO.stations);
  expect(await markerTotal(page)).toBe(DEMO.stations);
  // Every page sets the csrftoken cookie (legacy.md §1.2).
  const csrf = (await page.context().cookies()).find((c) => c.name === "csrftoken");
  expect(csrf?.value).toMatch(/^[A-Za-z0-9]{32}$/);
  expect(csrf?.httpOnly).toBe(false);
});

test("search by name from the header's search box", async ({ page }) => {
  await page.goto("/");
  await page.getByRole("searchbox", { name: "Search stations" }).fill("KOMBÓTI");
  const geojson = page.waitForRequest((r) => r.url().includes("/api/stations/geojson/?q="));
  await page.getByRole("button", { name: "Search", exact: true }).click();
  await expect(page).toHaveURL(at("/?q=KOMB%C3%93TI"));
  // One request for every point, with the page's own query string.
  expect(new URL((await geojson).url()).searchParams.get("q")).toBe("KOMBÓTI");
  expect(await listNames(page)).toEqual(["Komboti"]);
  await expect(page.locator(".result-summary")).toContainText("1 station matches");
  await mapReady(page, 1);
  expect(await markerTotal(page)).toBe(1);
  await expect(page.locator(".station-marker [data-station-id]")).toHaveCount(1);
  await expect(page.getByRole("searchbox", { name: "Search stations" })).toHaveValue("KOMBÓTI");
});

test("search by variable: shows exactly those stations, in the list and on the map", async ({ page }) => {
  await page.goto(`/?q=${encodeURIComponent("variable:precipitation")}`);
  expect(await listNames(page)).toEqual(DEMO.precipitation);
  await mapReady(page, DEMO.precipitation.length);
  expect(await markerTotal(page)).toBe(DEMO.precipitation.length);
  // Far apart (Epirus and Attica): two single markers, no cluster.
  await expect(page.locator(".station-marker")).toHaveCount(2);
  await expect(page.locator(".leaflet-marker-icon[title='Arta']")).toBeVisible();
  await expect(page.locator(".leaflet-marker-icon[title='Athens (Zografou)']")).toBeVisible();

  await page.goto(`/?q=${encodeURIComponent("variable:temperature")}`);
  expect(await listNames(page)).toEqual(DEMO.temperature);
  await mapReady(page, DEMO.temperature.length);
  expect(await markerTotal(page)).toBe(DEMO.temperature.length);
});

test("a marker's popup leads to its station page", async ({ page }) => {
  await page.goto(`/?q=${encodeURIComponent("variable:precipitation")}`);
  await mapReady(page, 2);
  await page.locator(".leaflet-marker-icon[title='Athens (Zografou)']").click();
  const link = page.locator(".leaflet-popup-content a", { hasText: "Athens (Zografou)" });
  await expect(link).toBeVisible();
  await link.click();
  await expect(page).toHaveURL(/\/stations\/\d+\/$/);
  await expect(page.getByRole("heading", { level: 1 })).toContainText("Athens (Zografou)");
});

test("markers work with the keyboard", async ({ page }) => {
  await page.goto(`/?q=${encodeURIComponent("variable:precipitation")}`);
  await mapReady(page, 2);
  const marker = page.locator(".leaflet-marker-icon[title='Arta']");
  await expect(marker).toHaveAttribute("tabindex", "0");
  await marker.focus();
  await page.keyboard.press("Enter");
  await expect(page.locator(".leaflet-popup-content a", { hasText: "Arta" })).toBeVisible();
});

test("a cluster zooms in to its stations", async ({ page }) => {
  await page.goto("/");
  await mapReady(page, DEMO.stations);
  // Komboti and Arta are 10 km apart: one cluster of two at the initial zoom.
  const cluster = page.locator(".cluster-marker", { has: page.locator("[data-count='2']") });
  await expect(cluster).toHaveCount(1);
  await expect(page.locator(".leaflet-marker-icon[title='Komboti']")).toHaveCount(0);
  await cluster.click();
  await expect(page.locator(".leaflet-marker-icon[title='Komboti']")).toBeVisible();
  await expect(page.locator(".leaflet-marker-icon[title='Arta']")).toBeVisible();
});

test("search in this area puts the map's bounds in the URL", async ({ page }) => {
  await page.goto(`/?q=${encodeURIComponent("variable:temperature")}`);
  await mapReady(page, DEMO.temperature.length);
  // Zoom in on Athens with the wheel until the area holds it alone. Leaflet drops a zoom asked for
  // while one is being animated, so each waits for the one before to end, shown by the markers
  // being drawn anew (a fixed 500 ms was not always enough on a busy machine). A wheel while
  // other markers show always zooms in: the maximum zoom shows Athens alone.
  const athens = page.locator(".leaflet-marker-icon[title='Athens (Zografou)']");
  await expect(page.locator(".leaflet-zoom-anim")).toHaveCount(0);
  for (let i = 0; i < 6 && (await page.locator(".leaflet-marker-icon").count()) > 1; i++) {
    const drawn = await athens.elementHandle();
    const marker = await athens.boundingBox();
    await page.mouse.move(marker!.x + marker!.width / 2, marker!.y + marker!.height / 2);
    await page.mouse.wheel(0, -400);
    await page.waitForFunction((element) => !element.isConnected, drawn);
    await expect(page.locator(".leaflet-zoom-anim")).toHaveCount(0);
  }
  await expect(page.locator(".leaflet-marker-icon[title='Komboti']")).toHaveCount(0);
  await page.getByRole("button", { name: "Search in this area" }).click();
  await expect(page).toHaveURL(/bbox=/);
  const url = new URL(page.url());
  expect(url.searchParams.get("q")).toBe("variable:temperature");
  const bbox = url.searchParams.get("bbox")!.split(",").map(Number);
  expect(bbox).toHaveLength(4);
  expect(bbox[0]).toBeLessThan(23.7874);
  expect(bbox[2]).toBeGreaterThan(23.7874);
  expect(await listNames(page)).toEqual(["Athens (Zografou)"]);
  await mapReady(page, 1);
  // The page is bookmarkable: loading the URL again shows the same.
  await page.reload();
  expect(await listNames(page)).toEqual(["Athens (Zografou)"]);
});

test("a malformed search shows a message, not an error page", async ({ page }) => {
  const response = await page.goto(`/?q=${encodeURIComponent("bbox:21,39,22")}`);
  expect(response?.status()).toBe(200);
  await expect(alertBox(page)).toContainText('Invalid bbox "21,39,22": use four comma-separated numbers min_lon,min_lat,max_lon,max_lat.');
  await page.goto("/?bbox=nonsense");
  await expect(alertBox(page)).toContainText('Invalid bbox "nonsense"');
  await page.goto(`/?q=${encodeURIComponent("ts_has_years:hello")}`);
  await expect(alertBox(page)).toContainText("Invalid ts_has_years");
});

test("the search help lists the search types", async ({ page }) => {
  await page.goto("/");
  await page.getByText("How to search").click();
  for (const type of ["owner:", "type:", "variable:", "bbox:", "in:", "ts_only:", "ts_has_years:"]) {
    await expect(page.locator(".search-help dt", { hasText: type }).first()).toBeVisible();
  }
  await page.locator(".search-help a", { hasText: "in:epirus" }).click();
  await expect(page).toHaveURL(/q=in%3Aepirus/);
  expect(await listNames(page)).toEqual(["Arta", "Ioannina", "Komboti"]);
  await expect(page.getByRole("searchbox", { name: "Search stations" })).toHaveValue("in:epirus");
});

test("site pages need a trailing slash and unknown pages are HTML 404s", async ({ request }) => {
  const moved = await request.get("/accounts/login", { maxRedirects: 0 });
  expect(moved.status()).toBe(308);
  expect(moved.headers().location).toBe("/accounts/login/");
  const missing = await request.get("/stations/999999/");
  expect(missing.status()).toBe(404);
  expect(missing.headers()["content-type"]).toContain("text/html");
  expect(await missing.text()).toContain("Page not found");
  expect((await request.get("/stations/abc/")).status()).toBe(404);
});
