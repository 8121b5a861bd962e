import { expect, test, type APIRequestContext, type Page } from "@playwright/test";
import { startFakeMeteoView2, type FakeMeteoView2 } from "../support/fake-vendors/meteoview2";
import { createUser, hydrated, logIn, noHorizontalScroll, offline, open, shot, unique } from "./helpers";

/**
 * The telemetry wizard (telemetry.md §5) as an editor uses it, with screenshots under
 * tests/artifacts/screenshots/telemetry-*.png: type, zone and schedule → the connection, tested
 * first (a wrong key refused with the vendor's words) → the remote station → each sensor to a
 * group, a new group or ignored; then "fetch now" with its result, the log, and the station's
 * page. The vendor is a fake MeteoView2 on 127.0.0.1 (the test server may reach it:
 * ENHYDRIS_OUTBOUND_ALLOW=127.0.0.1). The key never appears in a page.
 */
const PASSWORD = "telemetry-editor-password-1";
const API_KEY = "e2e-meteoview-api-key-77";
let vendor: FakeMeteoView2;

test.beforeAll(async () => {
  vendor = await startFakeMeteoView2({
    email: "logger@example.org",
    apiKey: API_KEY,
    readings: {
      "42a": [{ time: "2025-03-01T12:00", value: 10.5 }, { time: "2025-03-01T12:10", value: 11.25 }, { time: "2025-03-01T12:20", value: 12 }],
      "43b": [{ time: "2025-03-01T12:00", value: 61 }, { time: "2025-03-01T12:10", value: 62 }],
    },
  });
});
test.afterAll(async () => {
  await vendor?.close();
});
test.beforeEach(async ({ context }) => {
  await offline(context);
});

async function token(request: APIRequestContext, baseURL: string, username: string): Promise<string> {
  const login = await request.post(`${baseURL}/api/auth/login/`, { form: { username, password: PASSWORD } });
  return ((await login.json()) as { key: string }).key;
}

/** A station of this test's own, with a temperature group; the editor maintains it. */
async function ownStation(request: APIRequestContext, baseURL: string, admin: string, editorName: string) {
  const headers = { Authorization: `Token ${await token(request, baseURL, admin)}` };
  const get = async (path: string) => (await (await request.get(`${baseURL}${path}`, { headers })).json()) as { results: Record<string, unknown>[] };
  const me = await request.get(`${baseURL}/api/auth/user/`, { headers: { Authorization: `Token ${await token(request, baseURL, editorName)}` } });
  const editorId = ((await me.json()) as { pk: number }).pk;
  const owner = (await get("/api/organizations/")).results[0].id as number;
  const variables = (await get("/api/variables/?page_size=100")).results;
  const temperature = variables.find((v) => String(v.descr).includes("Temperature"))!.id as number;
  const units = (await get("/api/units/?page_size=100")).results;
  const celsius = units.find((u) => String(u.symbol).includes("°C"))!.id as number;
  const name = unique("Hobbiton ");
  const station = await request.post(`${baseURL}/api/stations/`, { headers, data: { name, geom: "POINT(21.1 39.1)", owner, maintainers: [editorId] } });
  expect(station.status()).toBe(201);
  const sid = ((await station.json()) as { id: number }).id;
  const group = await request.post(`${baseURL}/api/stations/${sid}/timeseriesgroups/`, { headers, data: { name: "Air temperature", variable: temperature, unit_of_measurement: celsius, precision: 2 } });
  expect(group.status()).toBe(201);
  return { sid, name, headers, gid: ((await group.json()) as { id: number }).id };
}

const keyNowhere = async (page: Page) => expect(await page.content()).not.toContain(API_KEY);

test("an editor sets up a MeteoView2 telemetry with the wizard, fetches now and reads the log", async ({ page, request, baseURL }) => {
  test.setTimeout(180_000);
  const admin = unique("teladmin");
  const editor = unique("teleditor");
  createUser(admin, PASSWORD, { superuser: true });
  createUser(editor, PASSWORD);
  const { sid, name, headers, gid } = await ownStation(request, baseURL!, admin, editor);
  await logIn(page, editor, PASSWORD);
  await expect(page).not.toHaveURL(/\/accounts\/login\//);

  // The station's page says there is none, and links to the wizard.
  await open(page, `/manage/stations/${sid}/`);
  await expect(page.locator("#telemetry")).toContainText("No telemetry");
  await page.locator("#telemetry").getByRole("link", { name: "Set up telemetry" }).click();
  await hydrated(page);
  await expect(page.locator("#telemetry, .card").first()).toContainText("no telemetry yet");
  await page.getByRole("link", { name: "Set up telemetry" }).click();
  await hydrated(page);

  // Step 1: type, zone and schedule; an offset beyond the interval is refused first.
  await expect(page.getByRole("heading", { name: "Step 1 of 4: Type and schedule" })).toBeVisible();
  await page.getByLabel("Telemetry system type").selectOption({ label: "Metrica MeteoView2" });
  await page.getByLabel("Time zone of the timestamps").selectOption("Europe/Athens");
  await page.getByLabel("Fetch interval (minutes)").fill("10");
  await page.getByLabel("Fetch time offset (minutes)").fill("12");
  await page.getByRole("button", { name: "Next" }).click();
  await expect(page.locator(".field", { has: page.getByLabel("Fetch time offset (minutes)") })).toContainText("Ensure this value is less than fetch_interval_minutes (10).");
  await shot(page, "telemetry-01-type-refused");
  // The schedule's next slot four to five minutes away: "Fetch now" below must find the readings
  // still unfetched (a slot between the save and the click fetched them first, and the run failed).
  const offset = (new Date().getUTCMinutes() + 5) % 10;
  await page.getByLabel("Fetch time offset (minutes)").fill(String(offset));
  await page.getByRole("button", { name: "Next" }).click();

  // Step 2: the connection, with MeteoView2's labels; a wrong key is refused by the vendor before anything is saved.
  await expect(page.getByRole("heading", { name: "Step 2 of 4: Connection" })).toBeVisible();
  await hydrated(page);
  // TLS certificates are verified unless the editor unticks it (telemetry.md: verify_tls defaults to true).
  await expect(page.getByLabel("Verify the TLS certificate")).toBeChecked();
  await page.getByLabel("Meteoview API URL").fill(vendor.apiUrl);
  await page.getByLabel("Email").fill("logger@example.org");
  await page.getByLabel("API key").fill("not-the-key");
  await page.getByRole("button", { name: "Next" }).click();
  await expect(page.locator(".field-errors").first()).toContainText("says: 401 Wrong email or API key");
  await expect(page.getByLabel("API key")).toHaveValue("");
  await expect(page.getByLabel("Email")).toHaveValue("logger@example.org");
  await expect(page.getByLabel("Verify the TLS certificate")).toBeChecked();
  await shot(page, "telemetry-02-connection-refused");
  await page.getByLabel("API key").fill(API_KEY);
  await page.getByRole("button", { name: "Next" }).click();

  // Step 3: the vendor's stations.
  await expect(page.getByRole("heading", { name: "Step 3 of 4: Remote station" })).toBeVisible();
  await hydrated(page);
  await keyNowhere(page);
  await page.getByRole("combobox", { name: "Remote station" }).selectOption({ label: "Hobbiton (1852)" });
  await shot(page, "telemetry-03-station");
  await page.getByRole("button", { name: "Next" }).click();

  // Step 4: each sensor to a group, or a new group.
  await expect(page.getByRole("heading", { name: "Step 4 of 4: Sensors" })).toBeVisible();
  await hydrated(page);
  await page.getByLabel('To which Enhydris time series does sensor "temperature" (42a) correspond?').selectOption(String(gid));
  const humidity = page.locator(".sensor-choice", { hasText: '"humidity" (43b)' });
  await humidity.getByLabel(/sensor "humidity"/).selectOption({ label: "A new time series group" });
  await humidity.locator("summary").click();
  await humidity.getByLabel("Name").fill("Relative humidity");
  await humidity.getByLabel("Variable").selectOption({ index: 1 });
  await humidity.getByLabel("Unit of measurement").selectOption({ index: 1 });
  await shot(page, "telemetry-04-sensors");
  await page.getByRole("button", { name: "Save the telemetry" }).click();

  // Saved: the configuration, and the next fetch in the slot of that offset.
  await expect(page.locator(".message.success")).toContainText("The telemetry has been saved");
  await hydrated(page);
  await expect(page.locator("#configuration")).toContainText("Metrica MeteoView2");
  await expect(page.getByTestId("next-fetch")).toHaveText(new RegExp(`^\\d{4}-\\d\\d-\\d\\d \\d\\d:\\d${offset} UTC$`));
  await expect(page.locator("#configuration")).toContainText("Relative humidity");
  await keyNowhere(page);

  // Fetch now: its progress, then what each sensor stored.
  await page.getByRole("button", { name: "Fetch now" }).click();
  await expect(page.locator(".message.success").first()).toContainText("A fetch has been queued");
  await expect(page.locator(".telemetry-fetch")).toHaveAttribute("data-status", "succeeded", { timeout: 60_000 });
  await expect(page.locator(".telemetry-fetch")).toContainText("5 new records");
  await expect(page.locator(".telemetry-fetch")).toContainText("Sensor 42a: 3 new records");
  // The page's log follows without a reload (it used to say that nothing had been fetched yet).
  await expect(page.locator("#log tbody tr")).toHaveCount(2);
  await page.reload();
  await hydrated(page);
  await expect(page.locator("#log tbody tr")).toHaveCount(2);
  await expect(page.locator("#log")).toContainText("42a");
  await keyNowhere(page);
  await shot(page, "telemetry-05-fetched");
  await page.setViewportSize({ width: 390, height: 844 });
  await noHorizontalScroll(page);
  await shot(page, "telemetry-05-fetched");
  await page.setViewportSize({ width: 1280, height: 800 });

  const saved = await request.get(`${baseURL}/api/stations/${sid}/telemetry/`, { headers });
  expect(await saved.json()).toMatchObject({ type: "meteoview2", verify_tls: true, password_set: true, remote_station_id: "1852" });

  // The records are in the group's Initial series (Europe/Athens is UTC+2 in March).
  const series = (await (await request.get(`${baseURL}/api/stations/${sid}/timeseriesgroups/${gid}/timeseries/`, { headers })).json()) as { results: { id: number; type: string }[] };
  const initial = series.results.find((s) => s.type === "Initial")!;
  const data = await request.get(`${baseURL}/api/stations/${sid}/timeseriesgroups/${gid}/timeseries/${initial.id}/data/?timezone=UTC`, { headers });
  expect(await data.text()).toBe("2025-03-01 10:00,10.50,\r\n2025-03-01 10:10,11.25,\r\n2025-03-01 10:20,12.00,\r\n");

  // The station's page shows the state and the next fetch.
  await open(page, `/manage/stations/${sid}/`);
  await expect(page.locator("#telemetry")).toContainText("Metrica MeteoView2");
  await expect(page.locator("#telemetry")).toContainText("Next fetch");
  await shot(page, "telemetry-06-station");

  // A vendor that fails: the fetch says so in words, and /manage/ lists the station.
  vendor.fail("/api/measurements", { kind: "status", status: 500, body: "Database is down" });
  await open(page, `/manage/stations/${sid}/telemetry/`);
  await page.getByRole("button", { name: "Fetch now" }).click();
  await expect(page.locator(".telemetry-fetch")).toHaveAttribute("data-status", "succeeded", { timeout: 60_000 });
  await expect(page.locator(".telemetry-fetch .error-text").first()).toContainText("answered HTTP 500: Database is down");
  vendor.clearFaults();
  await open(page, "/manage/");
  await expect(page.locator("#feeds")).toContainText(name);
  await expect(page.locator("#feeds")).toContainText("last fetch failed");
  await shot(page, "telemetry-07-manage-home");
});

test("a vendor with more stations than can be offered: the remote station's id is typed in the connection step", async ({ page, request, baseURL }) => {
  test.setTimeout(120_000);
  const admin = unique("teladmin");
  const editor = unique("teleditor");
  createUser(admin, PASSWORD, { superuser: true });
  createUser(editor, PASSWORD);
  const { sid, headers, gid } = await ownStation(request, baseURL!, admin, editor);
  // 10,001 stations: one more than the wizard offers to choose from (MAX_LISTED).
  const crowded = await startFakeMeteoView2({
    email: "logger@example.org",
    apiKey: API_KEY,
    stations: [{ code: "1852", title: "Hobbiton" }, ...Array.from({ length: 10_000 }, (_, i) => ({ code: String(100_000 + i), title: `Station ${i}` }))],
  });
  try {
    await logIn(page, editor, PASSWORD);
    await expect(page).not.toHaveURL(/\/accounts\/login\//);
    await open(page, `/manage/stations/${sid}/telemetry/`);
    await page.getByRole("link", { name: "Set up telemetry" }).click();
    await hydrated(page);
    await expect(page.getByRole("heading", { name: "Step 1 of 4: Type and schedule" })).toBeVisible();
    await page.getByLabel("Telemetry system type").selectOption({ label: "Metrica MeteoView2" });
    await page.getByLabel("Fetch interval (minutes)").fill("10");
    await page.getByLabel("Fetch time offset (minutes)").fill(String((new Date().getUTCMinutes() + 5) % 10));
    await page.getByRole("button", { name: "Next" }).click();

    await expect(page.getByRole("heading", { name: "Step 2 of 4: Connection" })).toBeVisible();
    await hydrated(page);
    await page.getByLabel("Meteoview API URL").fill(crowded.apiUrl);
    await page.getByLabel("Email").fill("logger@example.org");
    await page.getByLabel("API key").fill(API_KEY);
    // Left empty, the list is refused in words that say what to do.
    await page.getByRole("button", { name: "Next" }).click();
    await expect(page.locator(".field-errors").first()).toContainText("lists more than 10,000 stations");
    await page.getByLabel("API key").fill(API_KEY);
    // An id the vendor does not know is refused with the vendor's words.
    await page.getByLabel("Remote station: its id, if you know it").fill("9999999");
    await page.getByRole("button", { name: "Next" }).click();
    await expect(page.locator(".field-errors").first()).toContainText("Station not found");
    await page.getByLabel("API key").fill(API_KEY);
    await page.getByLabel("Remote station: its id, if you know it").fill("1852");
    await shot(page, "telemetry-08-station-by-hand");
    await page.getByRole("button", { name: "Next" }).click();

    // Straight to the sensors of the station typed.
    await expect(page.getByRole("heading", { name: "Step 4 of 4: Sensors" })).toBeVisible();
    await hydrated(page);
    await page.getByLabel('To which Enhydris time series does sensor "temperature" (42a) correspond?').selectOption(String(gid));
    await page.getByRole("button", { name: "Save the telemetry" }).click();
    await expect(page.locator(".message.success")).toContainText("The telemetry has been saved");
    const saved = await request.get(`${baseURL}/api/stations/${sid}/telemetry/`, { headers });
    expect(await saved.json()).toMatchObject({ type: "meteoview2", remote_station_id: "1852", sensors: [{ sensor_id: "42a", timeseries_group: gid }] });

    // The feed alerts: a bad address among those typed is named, not numbered.
    await hydrated(page);
    const alerts = page.locator("#alerts");
    await alerts.getByLabel("Stale after (minutes)").fill("90");
    await alerts.getByLabel("Addresses").fill("ops@example.org\nnot-an-address");
    await alerts.getByRole("button", { name: "Save the alerts" }).click();
    await expect(alerts.locator(".field-errors")).toHaveText("“not-an-address”: Enter a valid email address.");
    await alerts.getByLabel("Addresses").fill("ops@example.org");
    await alerts.getByRole("button", { name: "Save the alerts" }).click();
    await expect(page.locator(".message.success")).toContainText("The feed alerts have been saved.");
    expect(await (await request.get(`${baseURL}/api/stations/${sid}/telemetry/`, { headers })).json()).toMatchObject({ stale_after_minutes: 90, alert_emails: ["ops@example.org"] });
  } finally {
    await crowded.close();
  }
});
