import { readFileSync } from "node:fs";
import { expect, test } from "@playwright/test";
import { createUser, offline, unique } from "./helpers";

/** The station page (api.md §16): details, small map, groups, files, images, events. */
test.beforeEach(async ({ context }) => {
  await offline(context);
});

test("open a station from the list and see all its details", async ({ page, request }) => {
  // A file and an image for Komboti, uploaded through the API by a superuser.
  const admin = unique("admin");
  createUser(admin, "admin-password-1", { superuser: true });
  const login = await request.post("/api/auth/login/", { form: { username: admin, password: "admin-password-1" } });
  expect(login.status()).toBe(200);
  const { key } = (await login.json()) as { key: string };
  const stations = (await (await request.get("/api/stations/?q=KMB")).json()) as { results: { id: number }[] };
  const sid = stations.results[0].id;
  const headers = { Authorization: `Token ${key}` };
  const file = await request.post(`/api/stations/${sid}/files/`, {
    headers,
    multipart: { descr: "Station manual", date: "2024-05-02", content: { name: "manual.txt", mimeType: "text/plain", buffer: Buffer.from("Komboti station manual\n") } },
  });
  expect(file.status()).toBe(201);
  await page.goto("/");
  const picture = await page.screenshot({ clip: { x: 0, y: 0, width: 400, height: 300 } });
  const image = await request.post(`/api/stations/${sid}/images/`, {
    headers,
    multipart: { descr: "The station in spring", date: "2024-04-10", content: { name: "station.png", mimeType: "image/png", buffer: picture } },
  });
  expect(image.status()).toBe(201);

  await page.getByRole("link", { name: "Komboti" }).click();
  await expect(page).toHaveURL(new RegExp(`/stations/${sid}/$`));
  await expect(page.getByRole("heading", { level: 1 })).toHaveText("Komboti KMB");
  const details = page.locator("dl.details");
  const detail = (term: string) => details.locator("div", { has: page.locator("dt", { hasText: new RegExp(`^${term}`) }) }).locator("dd");
  await expect(detail("Code")).toHaveText("KMB");
  await expect(detail("Owner")).toHaveText("National Technical University of Athens");
  await expect(detail("Station type")).toHaveText("Meteorological");
  await expect(detail("Coordinates")).toContainText("39.09518° N, 21.06071° E");
  await expect(detail("Altitude")).toHaveText("219 m");
  await expect(detail("Time zone")).toContainText("UTC+02:00");
  await expect(detail("Time zone")).toContainText("Etc/GMT-2");
  await expect(detail("Start date")).toHaveText("2010-01-01");
  await expect(detail("End date")).toHaveText("—");
  await expect(detail("Overseer")).toHaveText("Bilbo");
  await expect(detail("Remarks")).toHaveText("Near Arta");
  await expect(detail("Last update")).toContainText("2025-12-31 23:50");

  // The small map with its marker (tiles are not needed).
  await expect(page.locator(".station-map .station-marker")).toBeVisible();

  // Groups: name, variable, unit, time steps, date range; linked to the group page.
  const row = page.locator("tr", { has: page.getByRole("link", { name: "Air temperature" }) });
  await expect(row.locator("td")).toHaveText(["Temperature", "°C", "10min, D", "2025-01-01 – 2025-12-31"]);
  await expect(page.getByRole("link", { name: "Relative humidity" })).toBeVisible();

  // Files: description, date, a download link to content/.
  const fileLink = page.getByRole("link", { name: "Station manual" });
  await expect(fileLink).toHaveAttribute("href", new RegExp(`^/api/stations/${sid}/files/\\d+/content/$`));
  await expect(page.locator(".file-list li")).toContainText("2024-05-02");
  const download = page.waitForEvent("download");
  await fileLink.click();
  expect(readFileSync(await (await download).path(), "utf8")).toBe("Komboti station manual\n");

  // Images: a gallery from content/, with descriptions.
  const img = page.getByRole("img", { name: "The station in spring" });
  await expect(img).toBeVisible();
  expect(await img.evaluate((e: HTMLImageElement) => e.complete && e.naturalWidth)).toBeGreaterThan(0);
  await expect(page.locator(".gallery figcaption")).toContainText("2024-04-10");

  // Events: date, type, user, report.
  const events = page.locator("section", { has: page.getByRole("heading", { name: "Events" }) }).locator("tbody tr");
  await expect(events).toHaveCount(2);
  await expect(events.first().locator("td")).toHaveText(["2025-09-02", "Maintenance", "Bilbo", "Replaced the datalogger battery"]);

  await page.getByRole("link", { name: "Air temperature" }).click();
  await expect(page.getByRole("heading", { level: 1 })).toHaveText("Air temperature");
});

test("a station without records and with several types", async ({ page }) => {
  await page.goto(`/?q=AGD`);
  await page.getByRole("link", { name: "Ágios Dimítrios" }).click();
  await expect(page.locator("dl.details")).toContainText("Rain gauge, Stream gauge");
  await expect(page.locator("dl.details")).toContainText("no records");
  await expect(page.locator("tr", { hasText: "Water level" })).toContainText("no records");
  await expect(page.getByText("No images.")).toBeVisible();
  await expect(page.getByText("No files.")).toBeVisible();
  await expect(page.getByText("No events.")).toBeVisible();
});

test("an unknown group, or a group of another station, is a 404 page", async ({ page, request }) => {
  const stations = (await (await request.get("/api/stations/?q=ART")).json()) as { results: { id: number; name: string }[] };
  const arta = stations.results.find((s) => s.name === "Arta")!.id;
  const groups = (await (await request.get(`/api/stations/${arta}/timeseriesgroups/`)).json()) as { results: { id: number }[] };
  const response = await page.goto(`/stations/${arta + 1}/timeseriesgroups/${groups.results[0].id}/`);
  expect(response?.status()).toBe(404);
  await expect(page.getByRole("heading", { name: "Page not found" })).toBeVisible();
  expect((await page.goto(`/stations/${arta}/timeseriesgroups/999999/`))?.status()).toBe(404);
});
