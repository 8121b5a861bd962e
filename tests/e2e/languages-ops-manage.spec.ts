import { expect, test, type APIRequestContext, type Page } from "@playwright/test";
import { createUser, hydrated, logIn, noHorizontalScroll, offline, open, shot, unique } from "./helpers";

/**
 * The telemetry, synoptic-group and replication management pages in Greek (public.md §3), walked
 * by a superuser who chose Greek with the footer's cookie: headings, buttons, labels and the
 * messages these pages make themselves; screenshots at desktop and phone width under
 * tests/artifacts/screenshots/languages-ops-*.png. (The shared form parts, the confirmation
 * messages after a redirect and the API's field messages are other pages' catalogues.)
 */
const PASSWORD = "languages-ops-password-1";

test.beforeEach(async ({ context }) => {
  await offline(context);
});

async function greek(page: Page, baseURL: string, username: string): Promise<void> {
  await logIn(page, username, PASSWORD);
  await expect(page).not.toHaveURL(/\/accounts\/login\//);
  await page.context().addCookies([{ name: "enhydris_language", value: "el", url: baseURL }]);
}

async function tokenOf(request: APIRequestContext, baseURL: string, username: string): Promise<string> {
  const login = await request.post(`${baseURL}/api/auth/login/`, { form: { username, password: PASSWORD } });
  return ((await login.json()) as { key: string }).key;
}

/** At the phone's width too: the page must not scroll sideways with the longer Greek words. */
async function bothWidths(page: Page, name: string): Promise<void> {
  await shot(page, name);
  await page.setViewportSize({ width: 390, height: 844 });
  await noHorizontalScroll(page);
  await shot(page, name);
  await page.setViewportSize({ width: 1280, height: 800 });
}

let cleanup: { headers: Record<string, string>; station?: number; source?: number } | null = null;

test.afterAll(async ({ request, baseURL }) => {
  if (!cleanup) return;
  if (cleanup.source) await request.delete(`${baseURL}/api/replication/sources/${cleanup.source}/`, { headers: cleanup.headers });
  if (cleanup.station) await request.delete(`${baseURL}/api/stations/${cleanup.station}/`, { headers: cleanup.headers });
});

test("telemetry, synoptic groups and replication in Greek", async ({ page, request, baseURL }) => {
  test.setTimeout(240_000);
  const admin = unique("opsgreek");
  createUser(admin, PASSWORD, { superuser: true });
  const headers = { Authorization: `Token ${await tokenOf(request, baseURL!, admin)}` };
  cleanup = { headers };
  const get = async (path: string) => (await (await request.get(`${baseURL}${path}`, { headers })).json()) as { results: Record<string, unknown>[] };
  const owner = (await get("/api/organizations/")).results[0].id as number;
  const temperature = (await get("/api/variables/?page_size=100")).results.find((v) => String(v.descr).includes("Temperature"))!.id as number;
  const celsius = (await get("/api/units/?page_size=100")).results.find((u) => String(u.symbol).includes("°C"))!.id as number;
  const name = unique("Λίμνη ");
  const station = await request.post(`${baseURL}/api/stations/`, { headers, data: { name, geom: "POINT(21.1 39.1)", owner } });
  expect(station.status()).toBe(201);
  const sid = ((await station.json()) as { id: number }).id;
  cleanup.station = sid;
  const group = await request.post(`${baseURL}/api/stations/${sid}/timeseriesgroups/`, { headers, data: { name: "Air temperature", variable: temperature, unit_of_measurement: celsius, precision: 1 } });
  expect(group.status()).toBe(201);
  const gid = ((await group.json()) as { id: number }).id;
  await greek(page, baseURL!, admin);

  // The telemetry wizard: steps, labels and the types' labels in Greek.
  await open(page, `/manage/stations/${sid}/telemetry/`);
  await expect(page.locator("html")).toHaveAttribute("lang", "el");
  await expect(page.getByRole("heading", { level: 1 })).toHaveText(`${name}: Τηλεμετρία`);
  await expect(page.getByText("Ο σταθμός δεν έχει ακόμη τηλεμετρία")).toBeVisible();
  await page.getByRole("link", { name: "Ρύθμιση τηλεμετρίας" }).click();
  await hydrated(page);
  await expect(page.getByRole("heading", { name: "Βήμα 1 από 3: Τύπος και χρονοπρόγραμμα" }).or(page.getByRole("heading", { name: "Βήμα 1 από 4: Τύπος και χρονοπρόγραμμα" }))).toBeVisible();
  await expect(page.getByLabel("Τύπος συστήματος τηλεμετρίας").locator("option", { hasText: "CSV μέσω HTTP" })).toHaveCount(1);
  await page.getByLabel("Τύπος συστήματος τηλεμετρίας").selectOption({ label: "Metrica MeteoView2" });
  await page.getByLabel("Ζώνη ώρας των χρονοσημάνσεων").selectOption("Europe/Athens");
  await page.getByLabel("Διάστημα λήψης (λεπτά)").fill("10");
  await page.getByLabel("Χρονική μετατόπιση λήψης (λεπτά)").fill("2");
  await bothWidths(page, "languages-ops-telemetry-type");
  await page.getByRole("button", { name: "Επόμενο" }).click();
  await expect(page.getByRole("heading", { name: "Βήμα 2 από 4: Σύνδεση" })).toBeVisible();
  await hydrated(page);
  await expect(page.getByLabel("Διεύθυνση URL του API του Meteoview")).toBeVisible();
  await expect(page.getByLabel("Κλειδί API")).toBeVisible();
  await expect(page.getByLabel("Έλεγχος του πιστοποιητικού TLS")).toBeChecked();
  await expect(page.getByText("Αν μείνει κενό, θα χρησιμοποιηθεί το https://meteoview2.gr/api/.")).toBeVisible();
  await bothWidths(page, "languages-ops-telemetry-connection");
  await page.getByRole("button", { name: "Ακύρωση" }).click();
  await expect(page).toHaveURL(new RegExp(`/manage/stations/${sid}/telemetry/$`));

  // A configured telemetry (through the API), its page, a fetch that fails, and its log, in Greek.
  // Its hourly slot half an hour away: no scheduled fetch comes before the page says there was none.
  const offset = (new Date().getUTCMinutes() + 30) % 60;
  const put = await request.put(`${baseURL}/api/stations/${sid}/telemetry/`, {
    headers, data: {
      type: "http_csv", data_timezone: "Europe/Athens", fetch_interval_minutes: 60, fetch_offset_minutes: offset,
      device_locator: "http://127.0.0.1:9/data.csv?from={start}", sensors: [{ sensor_id: "temp", timeseries_group: gid }],
    },
  });
  expect(put.status()).toBe(201);
  await open(page, `/manage/stations/${sid}/telemetry/`);
  const configuration = page.locator("#configuration");
  await expect(configuration).toContainText("CSV μέσω HTTP");
  await expect(configuration).toContainText(`κάθε ώρα από τις 00:${String(offset).padStart(2, "0")} UTC`);
  await expect(configuration).toContainText("δεν έχει γίνει ακόμη λήψη");
  await expect(page.getByRole("columnheader", { name: "Ομάδα χρονοσειρών" })).toBeVisible();
  await expect(page.getByRole("heading", { name: "Ειδοποιήσεις ροής" })).toBeVisible();
  await expect(page.getByLabel("Χωρίς νέα δεδομένα μετά από (λεπτά)")).toBeVisible();
  await expect(page.getByRole("button", { name: "Αποθήκευση των ειδοποιήσεων" })).toBeVisible();
  await page.getByRole("button", { name: "Λήψη τώρα" }).click();
  await expect(page.locator(".telemetry-fetch")).toHaveAttribute("data-status", /succeeded|failed/, { timeout: 90_000 });
  await expect(page.locator(".telemetry-fetch p").first()).toHaveText(/^(Ολοκληρώθηκε στις|Η λήψη απέτυχε)/);
  await page.reload();
  await hydrated(page);
  await expect(page.getByRole("columnheader", { name: "Τι έγινε" })).toBeVisible();
  await expect(configuration).toContainText("η τελευταία λήψη απέτυχε");
  await bothWidths(page, "languages-ops-telemetry");
  await page.getByRole("link", { name: "Διαγραφή τηλεμετρίας" }).click();
  await hydrated(page);
  await expect(page.getByRole("heading", { level: 1 })).toHaveText(`Διαγραφή της τηλεμετρίας του σταθμού ${name}`);
  await expect(page.getByText("Οι εγγραφές που έλαβε παραμένουν στις χρονοσειρές τους.")).toBeVisible();

  // A synoptic group: the list, the form (with the station picker), its page and its delete.
  await open(page, "/manage/synoptic/");
  await expect(page.getByRole("heading", { level: 1 })).toHaveText("Συνοπτικές ομάδες");
  await page.getByRole("link", { name: "Νέα συνοπτική ομάδα" }).click();
  await hydrated(page);
  await expect(page.getByRole("heading", { level: 1 })).toHaveText("Νέα συνοπτική ομάδα");
  const slug = unique("limni-").toLowerCase();
  await page.getByLabel("Όνομα", { exact: true }).fill("Παρακολούθηση λίμνης");
  await page.getByLabel("Σύντομο όνομα (slug)").fill(slug);
  await page.getByLabel("Εύρεση σταθμού").fill(name);
  await page.getByRole("button", { name: `Προσθήκη του ${name}` }).click();
  const picked = page.locator(`fieldset[data-station="${sid}"]`);
  await expect(picked).toContainText("Επιλέξτε τι θα εμφανίζεται, με τα όριά του.");
  await picked.getByRole("checkbox").first().check();
  await expect(picked.getByLabel("Κατώτερο όριο")).toBeVisible();
  await expect(page.getByText("Κανένας σταθμός ακόμη")).toHaveCount(0);
  await bothWidths(page, "languages-ops-synoptic-new");
  await page.getByRole("button", { name: "Δημιουργία συνοπτικής ομάδας" }).click();
  await expect(page.getByRole("status").filter({ hasText: "Η συνοπτική ομάδα αποθηκεύτηκε." })).toBeVisible();
  await hydrated(page);
  await expect(page.getByRole("heading", { name: "Έγκαιρες προειδοποιήσεις" })).toBeVisible();
  await expect(page.getByRole("button", { name: "Αποθήκευση αλλαγών" })).toBeVisible();
  await bothWidths(page, "languages-ops-synoptic-edit");
  await page.getByRole("link", { name: "Διαγραφή της" }).click();
  await expect(page.getByRole("heading", { level: 1 })).toHaveText("Διαγραφή της «Παρακολούθηση λίμνης»;");
  await expect(page.locator("p", { hasText: `/synoptic/${slug}/` })).toContainText("με τον 1 σταθμό και τη 1 μεταβλητή");
  await page.getByRole("button", { name: "Διαγραφή της συνοπτικής ομάδας" }).click();
  await expect(page.getByRole("status")).toHaveText("Η συνοπτική ομάδα «Παρακολούθηση λίμνης» διαγράφηκε.");

  // Replication: a source (added through the API), its card, its page and its delete.
  const source = await request.post(`${baseURL}/api/replication/sources/`, { headers, data: { url: "https://other.example.org/", name: unique("Καθρέφτης "), interval: 21600 } });
  expect(source.status()).toBe(201);
  const sourceId = ((await source.json()) as { id: number }).id;
  cleanup.source = sourceId;
  await open(page, "/manage/replication/");
  await expect(page.getByRole("heading", { level: 1 })).toHaveText("Αναπαραγωγή");
  const card = page.locator(".replication-source", { has: page.locator(`#source-${sourceId}`) });
  await expect(card).toContainText("Χρονοπρόγραμμα");
  await expect(card).toContainText("κάθε 6 ώρ.");
  await expect(card).toContainText("κανένα (μόνο δημόσια δεδομένα)");
  await expect(card.getByRole("button", { name: "Εκτέλεση τώρα" })).toBeVisible();
  await expect(card.getByRole("button", { name: "Δοκιμαστική εκτέλεση" })).toBeVisible();
  await expect(page.getByRole("heading", { name: "Προσθήκη πηγής" })).toBeVisible();
  await expect(page.getByRole("button", { name: "Προσθήκη της πηγής" })).toBeVisible();
  await bothWidths(page, "languages-ops-replication");
  await card.getByRole("link", { name: /^Επεξεργασία της πηγής Καθρέφτης / }).click();
  await hydrated(page);
  await expect(page.getByRole("heading", { name: "Επεξεργασία της πηγής" })).toBeVisible();
  await expect(page.getByRole("button", { name: "Αποθήκευση", exact: true })).toBeVisible();
  await page.getByRole("link", { name: "Διαγραφή", exact: true }).click();
  await hydrated(page);
  await expect(page.getByRole("heading", { level: 1 })).toHaveText(/^Διαγραφή της πηγής Καθρέφτης /);
  await expect(page.getByText("Δεν έχει αντιγραφεί κανένας σταθμός από αυτήν.")).toBeVisible();
  await bothWidths(page, "languages-ops-replication-delete");
});
