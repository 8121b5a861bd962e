import { expect, test, type APIRequestContext, type Page } from "@playwright/test";
import { hydrated, logIn, offline, open, shot, superuserApi, unique, waveRecords } from "./helpers";

/**
 * The management pages of a group and its series in Greek (public.md §3): the group page, the
 * upload page with a dry run, a process's page and the quality-control workbench with a preview,
 * with screenshots at desktop and phone width (tests/artifacts/screenshots/languages-series-*).
 */
const PASSWORD = "languages-series-password-1";

test.beforeEach(async ({ context }) => {
  await offline(context);
});

async function setUp(request: APIRequestContext) {
  const { admin, headers, post, owner, variable, units } = await superuserApi(request, "eladmin", PASSWORD);
  const unit = units[0].id;
  const sid = await post("/api/stations/", { name: unique("Σταθμός "), geom: "POINT (21 39.1)", owner });
  const gid = await post(`/api/stations/${sid}/timeseriesgroups/`, { name: "Στάθμη", precision: 2, variable, unit_of_measurement: unit });
  const tid = await post(`/api/stations/${sid}/timeseriesgroups/${gid}/timeseries/`, { type: "Initial", time_step: "10min", publicly_available: true });
  const stored = await request.post(`/api/stations/${sid}/timeseriesgroups/${gid}/timeseries/${tid}/data/`, { headers, form: { timeseries_records: waveRecords(1), timezone: "UTC" } });
  expect(stored.status(), await stored.text()).toBe(204);
  const pid = await post(`/api/stations/${sid}/timeseriesgroups/${gid}/processes/`, {
    type: "checks", enabled: false, range_check: { lower_bound: 0, upper_bound: 40, soft_lower_bound: null, soft_upper_bound: null }, rate_of_change_check: null,
  });
  return { admin, sid, gid, tid, pid };
}

/** No English label left in the page's main part (the data's own words aside). */
async function noEnglish(page: Page, words: string[]) {
  const text = await page.locator("main").innerText();
  for (const word of words) expect(text, word).not.toContain(word);
}

for (const width of [1280, 390]) {
  test(`an editor works on a series in Greek (${width} px)`, async ({ page, request, context }) => {
    test.setTimeout(240_000);
    await page.setViewportSize({ width, height: 900 });
    const { admin, sid, gid, tid, pid } = await setUp(request);
    await logIn(page, admin, PASSWORD);
    await expect(page).not.toHaveURL(/\/accounts\/login\//);
    await context.addCookies([{ name: "enhydris_language", value: "el", url: page.url() }]);

    // The group's page.
    await open(page, `/manage/stations/${sid}/timeseriesgroups/${gid}/`);
    await expect(page.locator("html")).toHaveAttribute("lang", "el");
    await expect(page.getByRole("heading", { name: "Χρονοσειρές" })).toBeVisible();
    await expect(page.getByRole("heading", { name: "Διεργασίες" })).toBeVisible();
    await expect(page.locator(".series-item").first().getByRole("link", { name: "Έλεγχος ποιότητας" })).toBeVisible();
    await expect(page.locator(".series-item").first()).toContainText("Αρχική (10min)");
    await expect(page.locator(".series-item").first()).toContainText("144 εγγραφές");
    await expect(page.locator(".process-list")).toContainText("ανενεργή");
    await expect(page.locator("summary", { hasText: "Προσθήκη συνάθροισης" })).toBeVisible();
    await noEnglish(page, ["Upload records", "Quality control", "Add a time series", "Public page", "Delete", "Processes", "No processes", "records"]);
    await shot(page, `languages-series-group`);

    // The upload page: a dry run of a line the API refuses (its message in Greek), then of two lines.
    await page.locator(".series-item").first().getByRole("link", { name: "Ανέβασμα εγγραφών" }).click();
    await hydrated(page);
    await expect(page.getByRole("heading", { level: 1 })).toContainText("Ανέβασμα εγγραφών στη χρονοσειρά Αρχική");
    await expect(page.locator(".card").first()).toContainText("Αποθηκευμένες τώρα: 144 εγγραφές, από 2025-01-01 00:00 έως 2025-01-01 23:50");
    await page.getByLabel("επικολλημένο κείμενο").check();
    await page.getByLabel("Εγγραφές", { exact: true }).fill("2025-01-02 00:00,abc,\n");
    await page.getByRole("button", { name: "Έλεγχος (δεν αποθηκεύεται τίποτα)" }).click();
    await expect(page.locator(".line-errors")).toHaveText('γραμμή 1: μη έγκυρη τιμή "abc"');
    await page.getByLabel("Εγγραφές", { exact: true }).fill("2025-01-02 00:00,1.5,\n2025-01-02 00:10,2.5,\n");
    await page.getByRole("button", { name: "Έλεγχος (δεν αποθηκεύεται τίποτα)" }).click();
    await expect(page.locator(".upload-outcome")).toContainText("2 εγγραφές, από 2025-01-02");
    await expect(page.locator(".upload-outcome")).toContainText("Δεν έχει αποθηκευτεί ακόμη τίποτα.");
    await expect(page.getByRole("button", { name: "Αποθήκευση 2 εγγραφών" })).toBeVisible();
    await noEnglish(page, ["Records from", "Mode", "Comment", "Check", "Store", "records", "Nothing"]);
    await shot(page, `languages-series-upload`);

    // A process's page.
    await open(page, `/manage/stations/${sid}/timeseriesgroups/${gid}/processes/${pid}/`);
    await expect(page.getByRole("heading", { name: "Εκτελέσεις" })).toBeVisible();
    await expect(page.getByText("Ενεργοποιήστε τη διεργασία για να την εκτελέσετε.")).toBeVisible();
    await expect(page.getByText("Έλεγχος ορίων", { exact: true })).toBeVisible();
    await expect(page.getByRole("button", { name: "Αποθήκευση διεργασίας" })).toBeVisible();
    await expect(page.getByRole("link", { name: "Διαγραφή διεργασίας" })).toBeVisible();
    await shot(page, `languages-series-process`);

    // The workbench: select a record in the table (the table then lists the selection), preview an offset typed with a decimal comma.
    await open(page, `/manage/stations/${sid}/timeseriesgroups/${gid}/timeseries/${tid}/edit/?start=2025-01-01T00:00:00Z&end=2025-01-02T00:00:00Z`);
    await expect(page.locator(".workbench-chart")).toHaveAttribute("data-state", "ready");
    await expect(page.getByRole("heading", { name: "Εγγραφές του διαστήματος (144)" })).toBeVisible();
    await expect(page.locator(".workbench-table tbody tr").first()).toContainText("10,00");
    await page.locator(".workbench-table tbody tr").first().click();
    await expect(page.getByTestId("selection")).toContainText("1 εγγραφή.");
    await expect(page.getByRole("heading", { name: "Εγγραφές της επιλογής (1)" })).toBeVisible();
    await page.getByLabel("Ενέργεια", { exact: true }).selectOption({ label: "Πρόσθεση ποσότητας" });
    await page.getByLabel("Ποσότητα", { exact: true }).fill("0,5");
    await page.getByRole("button", { name: "Προεπισκόπηση" }).click();
    const preview = page.getByTestId("preview");
    await expect(preview).toContainText("Θα άλλαζε 1 εγγραφή.");
    await expect(preview).toContainText("10,5");
    await expect(page.getByRole("button", { name: "Εφαρμογή σε 1 εγγραφή" })).toBeVisible();
    await expect(page.getByRole("heading", { name: "Ιστορικό διορθώσεων" })).toBeVisible();
    await expect(page.locator(".workbench-history tbody tr").first()).toContainText("ανέβασμα");
    await noEnglish(page, ["Records of", "Preview", "Apply", "Operation", "History", "records", "Zoom", "Earlier", "Later"]);
    await shot(page, `languages-series-workbench`);
    // A refusal of the API's (the first record has none before it to interpolate from), in Greek.
    await page.getByLabel("Ενέργεια", { exact: true }).selectOption({ label: "Γραμμική παρεμβολή" });
    await page.getByRole("button", { name: "Προεπισκόπηση" }).click();
    await expect(page.locator(".workbench-ops .message.error")).toHaveText("Δεν υπάρχει εγγραφή με τιμή πριν από την ημερομηνία έναρξης για την παρεμβολή.");
  });
}
